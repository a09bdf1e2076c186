"""The plugin hooks. Every hook is prefixed `schemacite_` and documented in docs/plugins.md."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

import pluggy

if TYPE_CHECKING:
    from schemacite.lint.rule import LazyRule, Rule
    from schemacite.model.results import LintResult

hookspec = pluggy.HookspecMarker("schemacite")


class Reporter(Protocol):
    """What the class `schemacite_reporter` answers with builds: a reporter that renders a result.
    Packs subclass `schemacite.report.Reporter`, the base class report/ defines; report/ is a layer
    above this one, so the hook names what it needs of one here."""

    def render(self, result: LintResult, out: IO[str]) -> None: ...


@hookspec
def schemacite_rules() -> list[type[Rule] | LazyRule]:
    """Return the rules this plugin provides: classes, or LazyRule listings a run imports only when
    it chooses the rule. Results of all plugins are collected."""


@hookspec
def schemacite_evidence() -> list[Path]:
    """Return paths of extra evidence catalogue files (TOML, same shape as the built-in one)."""


@hookspec(firstresult=True)
def schemacite_reporter(format: str) -> type[Reporter] | None:
    """Return a reporter class for `--format FORMAT`, or None. The first non-None answer wins."""


@hookspec
def schemacite_formats() -> dict[str, str]:
    """Return the output formats this plugin's `schemacite_reporter` answers for, each name with
    what it writes (a line). All are collected: `--format` takes them, `--help` lists them."""
