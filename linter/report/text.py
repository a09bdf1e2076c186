"""`--output-format full`: findings grouped by file, each in three lines where they fit at the
terminal's width (80 columns when piped), then the evidence the rules cite, once per rule, then
the summary.

    fixtures/demo/postgres/migrations/000002_tracking.up.sql
      2:1 warning SC101 Table page_views has no primary key
        | CREATE TABLE page_views (
        fix: add a primary key: logical replication cannot publish UPDATE/DELETE…

A finding's message is printed whole, wrapped onto as many lines as it needs: it names the table
and the lines it speaks of, which a cut would lose. The fix's first line follows it; the quoted
statement and the rest of the fix take what is left of the three lines, and only they are
shortened, ending in `…` (the JSON report has every fix whole). Words are never broken: a file
name, or a word longer than the line, stands whole on a line of its own.

Input errors and notes are not part of it: the command line prints them on stderr.

Plain text when piped or with NO_COLOR; rich markup (colour, links) on a terminal or with
`--color always`. Both print the same lines.
"""

from __future__ import annotations

import functools
import textwrap
from collections import Counter
from itertools import groupby
from typing import IO

from schemacite import terminal
from schemacite.model.results import Finding, LintResult, Severity
from schemacite.report import Reporter, fix_mark
from schemacite.report.evidence import SHOW, by_rule, catalogue, label, short_record
from schemacite.report.fixes import fix_hint

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
BUDGET = 3  # lines per finding, where its message leaves room
MIN_WIDTH = 40  # narrower terminals get 40-column lines rather than one word a line
HANG = 6  # a message's continuation lines, deeper than the statement and fix lines under it
DETAIL = "    "

Segment = tuple[str, str]  # (text, rich style)
Line = list[Segment]


@functools.lru_cache(maxsize=64)
def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def _width() -> int:
    return max(MIN_WIDTH, terminal.columns())


def _wrap(prefix: list[Segment], text: str, style: str, width: int, hang: int, most: int | None = None) -> list[Line]:
    """`text` after `prefix`, its other lines indented by `hang`. Whole, its words unbroken (one
    longer than the line overflows it), unless `most` is given: then in at most `most` lines no
    wider than `width`, the last cut after a word and ended with `…`."""
    start = sum(len(t) for t, _ in prefix)
    wrapped = textwrap.wrap(
        " ".join(text.split()),
        width,
        initial_indent=" " * start,
        subsequent_indent=" " * hang,
        break_on_hyphens=False,
        break_long_words=most is not None,
        max_lines=most,
        placeholder="…",
    ) or [" " * start]
    if most is not None and wrapped[-1].endswith("…"):  # not `orders:…`
        wrapped[-1] = wrapped[-1][:-1].rstrip(" ,;:(") + "…"
    return [[*prefix, (wrapped[0][start:], style)]] + [[(" " * hang, ""), (w[hang:], style)] for w in wrapped[1:]]


def finding_lines(f: Finding, width: int) -> list[Line]:
    """The finding: its whole message, then the fix's first line, then the statement and the rest
    of the fix while the finding has taken fewer than BUDGET lines."""
    loc = f"{f.location.line}:{f.location.column}" if f.location.line else "-"
    head: list[Segment] = [("  ", ""), (loc, "dim"), (" ", ""), (str(f.severity), STYLE[f.severity]), (" ", "")]
    head.append((f.code, f"bold link {f.url}" if f.url else "bold"))
    mark = fix_mark(f)
    if mark:
        head.append((" " + mark, "bold green"))
    head.append((" ", ""))
    message = _wrap(head, f.message, "", width, HANG)
    source = _lines(f.location.file) if f.location.line else []
    statement = source[f.location.line - 1] if 0 < f.location.line <= len(source) else ""
    fix_prefix: list[Segment] = [(DETAIL, ""), ("fix: ", "green")]
    fix_lines = len(_wrap(fix_prefix, f.suggestion, "", width, len(DETAIL) + 5)) if f.suggestion else 0
    left = max(BUDGET - len(message), min(fix_lines, 1))  # the fix's first line, whatever the message took
    fix_given = min(fix_lines, 1)
    quoted = []
    if statement.strip() and left - fix_given >= 1:
        quoted = _wrap([(DETAIL, ""), ("| ", "dim")], statement, "dim", width, len(DETAIL) + 2, 1)
    fix_given = min(fix_lines, left - len(quoted))
    fix = _wrap(fix_prefix, f.suggestion, "", width, len(DETAIL) + 5, fix_given) if fix_given else []
    return message + quoted + fix


def evidence_lines(findings: list[Finding], width: int) -> list[Line]:
    """Per rule, the records its findings cite: each described once (who, when, on what) where
    first cited and named by id after that, then why no measurement is cited, if none is."""
    records = catalogue()
    described: set[str] = set()
    lines: list[Line] = [[("Evidence per rule", "bold"), (f" (each record in full: {SHOW})", "dim")]]
    for (code, name), (ids, notes) in by_rule(findings, records).items():
        lines.append([(code, "bold"), (" " + name, "")])
        cited = [short_record(i, records) for i in ids]
        for record in cited:
            if record["id"] not in described:
                said = label(record)  # none for an id the catalogue lacks
                lines += _wrap([("  ", ""), (record["id"], ""), (": " if said else "", "")], said, "dim", width, 4)
        seen = [r["id"] for r in cited if r["id"] in described]
        if seen:
            lines += _wrap([("  ", ""), ("as above: ", "dim")], ", ".join(seen), "", width, 4)
        described.update(ids)
        for note in notes:
            lines += _wrap([("  ", ""), ("no measurement: ", "dim")], note, "dim", width, 4)
    return lines


class TextReporter(Reporter):
    format = "full"
    human = True

    summary_only = False  # the footer alone: the counts and the summary line (-q, --statistics, -o FILE)

    def render(self, result: LintResult, out: IO[str]) -> None:
        if self.summary_only:
            lines: list[Line] = [[(line, "bold")] for line in self._footer(result)]
        else:
            lines = self._report(result, _width())
        if not self.color:
            out.write("".join("".join(text for text, _ in line) + "\n" for line in lines))
            return
        # start-up: rich (tens of ms) loads only when there is something to draw
        from rich.console import Console
        from rich.text import Text

        # colour was asked for (--color always, FORCE_COLOR, or a terminal): kept when piped too;
        # the lines are already cut to the width, so rich must not wrap them again
        console = Console(file=out, highlight=False, force_terminal=True, soft_wrap=True)
        for line in lines:
            console.print(Text.assemble(*line))

    def _report(self, result: LintResult, width: int) -> list[Line]:
        lines: list[Line] = []
        for file, group in groupby(result.findings, key=lambda f: f.location.file):
            lines.append([(file, "bold underline")])  # whole on its line, however long
            for f in group:
                lines += finding_lines(f, width)
            lines.append([])
        if any(f.evidence or f.evidence_note for f in result.findings):
            lines += evidence_lines(result.findings, width)
            lines.append([])
        *counts, summary = self._footer(result)
        hint = fix_hint(result.findings)
        return (
            lines
            + [[(c, "bold")] for c in counts]
            + _wrap([], summary, "bold", width, 2)
            + ([[(hint, "bold")]] if hint else [])
        )

    def _footer(self, result: LintResult) -> list[str]:
        lines = []
        if self.statistics:
            # start-up: loaded only with --statistics
            from schemacite.report.statistics import statistics_lines

            lines += statistics_lines(result.findings)
        counts = Counter(f.severity for f in result.findings)
        parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in sorted(counts, reverse=True)]
        summary = ", ".join(parts) if parts else "no findings"
        if result.suppressed:
            summary += f", {len(result.suppressed)} suppressed"
        if result.errors:
            summary += f", {len(result.errors)} input error{'s' if len(result.errors) != 1 else ''}"
        # checking nothing is not a pass: a run that read no statement says so rather than sound clean
        if result.statements:
            what = f" in {len(result.files)} file(s), {result.statements} statement(s)"
        elif result.files and result.audited:  # an audit reads catalogs, not statements
            what = f" in {', '.join(result.files)}"
        elif result.files:
            what = f" in {', '.join(result.files)}: no statement to check"
        else:
            what = ": no file was linted"
        lines.append(f"{summary}{what}{project_line(result)}.")
        return lines


def project_line(result: LintResult) -> str:
    """What the run took the files for, when it chose, and the server version it judged for:
    `; framework goose (-- +goose Up in 001_a.sql); target postgres-15 (the default)`."""
    parts = []
    if result.framework and result.framework[0] != "plain":
        name, why = result.framework
        parts.append(f"framework {name} ({why})" if why else f"framework {name}")
    if result.dialect and not result.dialect_given:
        parts.append(f"dialect {result.dialect[0]} ({result.dialect[1]})")
    if result.target:  # the server version every lock verdict assumes
        name, why, unmeasured = result.target
        parts.append(f"target {name} ({why}{'; ' + unmeasured if unmeasured else ''})")
    return "".join(f"; {p}" for p in parts)
