"""Reporters turn a LintResult into text. Each format is a module registered through
the `schemacite_reporter` hook, exactly as a third-party format would be."""
from __future__ import annotations

from typing import IO, ClassVar

from schemacite.result import LintResult


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
