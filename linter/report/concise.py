"""One line per finding, ruff's `--output-format concise` shape, for logs and editors' problem
matchers:

    migrations/001_init.sql:3:1: SC101 [warning] Table events has no primary key

`[*]` after the code marks a finding whose fix applies safely, as in ruff.

Input errors come first as `file:line: error: message` (on stderr, with the notes, as in every
format); the text summary line closes the report. Findings on live servers carry no line: the
server and table lead the message instead.
"""

from __future__ import annotations

from typing import IO

from schemacite.model.results import LintResult
from schemacite.report import Reporter, fix_mark
from schemacite.report.text import TextReporter


class ConciseReporter(Reporter):
    format = "concise"
    human = True

    def render(self, result: LintResult, out: IO[str]) -> None:
        for f in result.findings:
            loc = f.location
            if loc.line > 0:
                where = f"{loc.file}:{loc.line}:{loc.column or 1}"
                message = f.message
            else:
                where = loc.file
                message = f"{f.table}: {f.message}" if f.table else f.message
            code = f"{f.code} {fix_mark(f)}".rstrip()
            out.write(f"{where}: {code} [{f.severity}] {' '.join(message.split())}\n")
        summary = TextReporter(statistics=self.statistics)
        summary.summary_only = True
        summary.render(result, out)
