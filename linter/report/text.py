"""Human-readable report: findings grouped by file, each with its line, suggestion and citation.

Input errors and notes are not part of it: the command line prints them on stderr.

Plain text when piped or with NO_COLOR; rich markup (colour, links) on a terminal.
"""

from __future__ import annotations

import functools
from collections import Counter
from itertools import groupby
from typing import IO

from schemacite import hookimpl
from schemacite.lint.rule import Finding, Severity
from schemacite.model.results import LintResult
from schemacite.report import Reporter
from schemacite.report.fixes import fix_hint

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


@functools.lru_cache(maxsize=64)
def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


SHOWN = 3  # measurements cited in full on the terminal; the rest are counted


def _citations(f: Finding) -> list[str]:
    """The measurements first (the user's own, then schemacite's on the nearest server, then the
    newest published), each with who ran it on what server; the other records by id
    (`schemacite explain RULE` and the JSON report have every record in full)."""
    from schemacite.evidence import load_catalogue

    catalogue = load_catalogue()
    measured = sorted(
        (catalogue[i] for i in f.evidence if i in catalogue and catalogue[i].kind == "measurement"),
        key=lambda e: (":" not in e.id, e.source != "schemacite", e.published and -int(e.published[:4])),
    )[:SHOWN]
    out = [f"{e.id} ({e.short_citation()})" for e in measured]
    others = [i for i in f.evidence if i not in {e.id for e in measured}]
    return out + ([", ".join(others)] if others else [])


class TextReporter(Reporter):
    format = "text"
    human = True

    summary_only = False  # the footer alone: the counts and the summary line (-q, --statistics, -o FILE)

    def render(self, result: LintResult, out: IO[str]) -> None:
        if self.summary_only:
            for line in self._footer(result):
                out.write(line + "\n")
        elif self.color:
            self._render_rich(result, out)
        else:
            self._render_plain(result, out)

    @staticmethod
    def _details(f: Finding) -> list[tuple[str, str, str]]:
        """The lines under a finding's header: (label, style, text)."""
        lines = []
        if f.location.line:
            source = _lines(f.location.file)
            if 0 < f.location.line <= len(source):
                lines.append(("| ", "dim", source[f.location.line - 1].strip()))
        if f.suggestion:
            lines.append(("fix: ", "green", f.suggestion))
        cites = _citations(f)
        if cites:
            lines.append(("evidence: ", "dim", "; ".join(cites)))
        if f.evidence_note:
            lines.append(("no measurement: ", "dim", f.evidence_note))
        return lines

    def _render_plain(self, result: LintResult, out: IO[str]) -> None:
        """One line per item, never wrapped: logs and pipes keep every line whole for grep."""
        for file, group in groupby(result.findings, key=lambda f: f.location.file):
            out.write(file + "\n")
            for f in group:
                loc = f"{f.location.line}:{f.location.column}" if f.location.line else "-"
                out.write(f"  {loc} {f.severity} {f.code} {f.rule} {f.message}\n")
                for label, _style, text in self._details(f):
                    out.write(f"    {label}{text}\n")
            out.write("\n")
        for line in self._footer(result):
            out.write(line + "\n")

    def _render_rich(self, result: LintResult, out: IO[str]) -> None:
        """On a terminal: words wrap to its width, under a location that is never cut."""
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        # colour was asked for (--color always, FORCE_COLOR, or a terminal): kept when piped too
        console = Console(file=out, highlight=False, force_terminal=True)
        for file, group in groupby(result.findings, key=lambda f: f.location.file):
            console.print(Text(file, style="bold underline"), overflow="fold")
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)  # indent
            grid.add_column(no_wrap=True, style="dim")  # line:column
            grid.add_column(overflow="fold")
            for f in group:
                loc = f"{f.location.line}:{f.location.column}" if f.location.line else "-"
                head = Text()
                head.append(str(f.severity), STYLE[f.severity])
                head.append(" ")
                head.append(f"{f.code} {f.rule}", f"bold link {f.url}" if f.url else "bold")
                head.append(" " + f.message)
                grid.add_row("", loc, head)
                details = Table.grid(padding=(0, 0))
                details.add_column(no_wrap=True)
                details.add_column(overflow="fold")
                for label, style, text in self._details(f):
                    details.add_row(Text("  " + label, style), Text(text, "dim" if style == "dim" else ""))
                if details.row_count:
                    grid.add_row("", "", details)
            console.print(grid)
            console.print()
        for line in self._footer(result):
            console.print(Text(line, style="bold"))

    def _footer(self, result: LintResult) -> list[str]:
        lines = []
        if self.statistics:
            from schemacite.report.statistics import statistics_lines

            lines += statistics_lines(result.findings)
        counts = Counter(f.severity for f in result.findings)
        parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in sorted(counts, reverse=True)]
        summary = ", ".join(parts) if parts else "no findings"
        if result.suppressed:
            summary += f", {len(result.suppressed)} suppressed"
        if result.errors:
            summary += f", {len(result.errors)} input error{'s' if len(result.errors) != 1 else ''}"
        what = (
            f"{len(result.files)} file(s), {result.statements} statement(s)"
            if result.statements
            else (", ".join(result.files) or "nothing")
        )
        lines.append(f"{summary} in {what}{project_line(result)}.")
        if hint := fix_hint(result.findings):
            lines.append(hint)
        return lines


def project_line(result: LintResult) -> str:
    """What the run took the files for, when it chose: `; framework goose (-- +goose Up in 001_a.sql)`."""
    parts = []
    if result.framework and result.framework[0] != "plain":
        name, why = result.framework
        parts.append(f"framework {name} ({why})" if why else f"framework {name}")
    if result.dialect and not result.dialect_given:
        parts.append(f"dialect {result.dialect[0]} ({result.dialect[1]})")
    return "".join(f"; {p}" for p in parts)


@hookimpl
def schemacite_reporter(format):
    return TextReporter if format == "text" else None
