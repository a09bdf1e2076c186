"""GitHub Actions workflow commands: one annotation line per finding.

    ::warning file=migrations/001.sql,line=3,col=1,title=SC101 no-primary-key::Table events has no primary key. Add one. (evidence: percona-2013-hidden-rowid; see https://…)

Severity maps to the command (error → `error`, warning → `warning`, info → `notice`).
Values are escaped as the Actions toolkit does: `%`, CR and LF everywhere, and `:` and `,`
inside properties. Findings on live servers carry no `file`; the server and table lead
the message instead. Suppressed findings are not annotated. Parse errors become `::error`
lines titled `parse error`.
"""

from __future__ import annotations

from typing import IO

from schemacite.model.results import Finding, LintResult, Severity
from schemacite.report import Reporter, finding_text

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: dict[str, object], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{name} {props}::{escape_data(message)}" if props else f"::{name}::{escape_data(message)}"


def annotation_text(f: Finding) -> str:
    return finding_text(f)


def finding_line(f: Finding) -> str:
    loc = f.location
    properties: dict[str, object] = {}
    message = annotation_text(f)
    if "://" in loc.file:
        where = f"{loc.file} {f.table}" if f.table else loc.file
        message = f"{where}: {message}"
    else:
        properties["file"] = loc.file.replace("\\", "/")
        if loc.line > 0:
            properties["line"] = loc.line
            if loc.column > 0:
                properties["col"] = loc.column
    properties["title"] = f"{f.code} {f.rule}"
    return command(COMMANDS[f.severity], properties, message)


class GithubReporter(Reporter):
    format = "github"
    human = False

    def render(self, result: LintResult, out: IO[str]) -> None:
        for error in sorted(result.errors, key=lambda e: (e.file, e.line)):
            properties: dict[str, object] = {"file": error.file.replace("\\", "/")}
            if error.line > 0:
                properties["line"] = error.line
            properties["title"] = "parse error"
            out.write(command("error", properties, error.message) + "\n")
        for f in sorted(result.findings, key=Finding.sort_key):
            out.write(finding_line(f) + "\n")
