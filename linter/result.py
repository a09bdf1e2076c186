"""The outcome of one lint or audit run, as every reporter receives it."""
from __future__ import annotations

from dataclasses import dataclass, field

from schemacite.rule import Finding, Rule, Severity
from schemacite.sql.statement import ParseError


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)  # the active rules, for reporters that list them
    files: list[str] = field(default_factory=list)  # what was reported on (paths or server/schema names)
    statements: int = 0  # statements analysed
    suppressed: list[Finding] = field(default_factory=list)  # silenced inline, for SARIF `suppressions`
    notes: list[str] = field(default_factory=list)  # degraded parts of a run (audit privileges, counters off)

    def exit_code(self, fail_on: Severity) -> int:
        if self.errors:
            return 2
        return 1 if any(f.severity >= fail_on for f in self.findings) else 0
