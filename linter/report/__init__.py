"""Reporters turn a LintResult into text. The built-in formats answer through one
`schemacite_reporter` hook implementation (builtin.py), exactly as a third-party format would."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, ClassVar

from schemacite.model.results import LintResult

if TYPE_CHECKING:
    from schemacite.model.results import Finding


class Reporter:
    format: ClassVar[str]
    # human formats get a header/footer and colour on a terminal; machine formats never do
    human: ClassVar[bool] = False

    def __init__(self, *, color: bool = False, statistics: bool = False, verbose: bool = False):
        self.color = color
        self.statistics = statistics
        self.verbose = verbose

    def render(self, result: LintResult, out: IO[str]) -> None:
        raise NotImplementedError


def finding_text(f: Finding) -> str:
    """One line for CI annotations: message, suggestion, evidence ids and the rule's doc URL."""
    text = f.message.rstrip()
    if f.suggestion:
        text = f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {f.suggestion.strip()}"
    cite = "evidence: " + (", ".join(f.evidence) or "none")
    if f.evidence_note:
        cite += f"; no measurement: {f.evidence_note}"
    if f.url:
        cite += f"; see {f.url}"
    return f"{text} ({cite})"


def fix_mark(f: Finding) -> str:
    """`[*]` for a finding whose fix applies safely (ruff's mark), else nothing."""
    return "[*]" if f.fix is not None and f.fix.applicability == "safe" else ""
