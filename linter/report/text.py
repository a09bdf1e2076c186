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
from schemacite.report import Reporter
from schemacite.result import LintResult
from schemacite.rule import Finding, Severity

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


@functools.lru_cache(maxsize=64)
def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def _citations(f: Finding) -> list[str]:
    from schemacite.evidence import load_catalogue

    catalogue = load_catalogue()
    out = [f"{i} ({catalogue[i].citation()})" if i in catalogue else i for i in f.evidence]
    return out


class TextReporter(Reporter):
    format = "text"
    human = True

    def render(self, result: LintResult, out: IO[str]) -> None:
        if self.color:
            from rich.console import Console
            from rich.markup import escape

            console = Console(file=out, highlight=False, soft_wrap=True)

            def st(style: str, text: str) -> str:
                return f"[{style}]{escape(text)}[/]"

            def emit(line: str = "") -> None:
                console.print(line)
        else:
            def st(style: str, text: str) -> str:
                return text

            def emit(line: str = "") -> None:
                out.write(line + "\n")

        for file, group in groupby(result.findings, key=lambda f: f.location.file):
            emit(st("bold underline", file))
            for f in group:
                loc = f"{f.location.line}:{f.location.column}" if f.location.line else "-"
                rule = st(f"bold link={f.url}", f"{f.code} {f.rule}")
                emit(f"  {st('dim', loc)} {st(STYLE[f.severity], str(f.severity))} {rule} {st('default', f.message)}")
                if f.location.line:
                    lines = _lines(f.location.file)
                    if 0 < f.location.line <= len(lines):
                        emit(f"    {st('dim', '| ' + lines[f.location.line - 1].strip())}")
                if f.suggestion:
                    emit(f"    {st('green', 'fix:')} {st('default', f.suggestion)}")
                cites = _citations(f)
                if cites:
                    emit("    " + st("dim", "evidence: " + "; ".join(cites)))
                elif f.evidence_note:
                    emit("    " + st("dim", "evidence: none; " + f.evidence_note))
            emit()
        if self.statistics:
            from schemacite.statistics import statistics_lines

            for line in statistics_lines(result.findings):
                emit(st("default", line))
        counts = Counter(f.severity for f in result.findings)
        parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in sorted(counts, reverse=True)]
        summary = ", ".join(parts) if parts else "no findings"
        if result.suppressed:
            summary += f", {len(result.suppressed)} suppressed"
        if result.errors:
            summary += f", {len(result.errors)} input error{'s' if len(result.errors) != 1 else ''}"
        what = f"{len(result.files)} file(s), {result.statements} statement(s)" if result.statements else (
            ", ".join(result.files) or "nothing")
        emit(st("bold", f"{summary} in {what}."))


@hookimpl
def schemacite_reporter(format):
    return TextReporter if format == "text" else None
