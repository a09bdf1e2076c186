"""What a run reports: findings with their severity, suppression comments, and the whole result
as every reporter receives it."""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any

from schemacite.model.dialects import Dialect, Target
from schemacite.model.fixes import Fix
from schemacite.model.record import record
from schemacite.model.schema import Location, Schema
from schemacite.model.statements import ParseError


class Severity(enum.IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use info, warning or error)") from None


@record(frozen=True)
class LockEstimate:
    """How long a lock held over work on a table of known size (a snapshot's) is estimated to last."""

    seconds: float  # rounded to a tenth of a second
    table_bytes: int
    table_rows: int | None
    rate_evidence: str  # the catalogue measurement the rate comes from


@record
class Finding:
    """One problem a rule found, where, with its evidence and fix."""

    rule: str
    code: str
    severity: Severity
    location: Location
    message: str
    table: str | None = None
    suggestion: str | None = None
    index: str | None = None  # the index a finding is about, apart from its table (DROP INDEX)
    evidence: tuple[str, ...] = ()
    evidence_note: str | None = None
    url: str = ""
    sql: str = ""  # the statement, normalised, for fingerprints
    fix: Fix | None = None  # the rewrite it offers (`model.fixes`)
    identity: str = ""  # what tells it apart from the rule's other findings on its table, when it has no SQL
    estimate: LockEstimate | None = None  # a lock finding on a table of known size: how long the lock lasts
    foreign_key: str | None = None  # the foreign key an index finding's index backs (reports tell these apart)
    entry: str = ""  # its line in the listing of a finding combined per deploy (`Rule.combine`)
    # free for third-party rules; built-in rules and reporters use the typed fields above
    extra: dict[str, Any] = field(default_factory=dict)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.location.file, self.location.line, self.location.column, self.code)


@record(frozen=True)
class Suppression:
    """One `-- schemacite: ignore[...]` (or `ignore-file[...]`) comment, after the rules ran.

    `rules` are the names or codes it lists, as written but lower-cased; `used` those that
    silenced at least one finding; `unknown` those that name no registered rule; `inactive`
    those naming a rule that did not run (disabled, or not for this dialect), which cannot be
    judged. `problem` says why a comment that does not parse (or names no rule) silences nothing.
    """

    location: Location
    scope: str  # "statement" | "file" | "comment" (one that does not parse: it has no scope)
    rules: frozenset[str] = frozenset()
    used: frozenset[str] = frozenset()
    unknown: frozenset[str] = frozenset()
    inactive: frozenset[str] = frozenset()
    problem: str = ""


@record
class Source:
    """A schema a run judged, and where it came from: what a report that shows tables as well as
    findings (HTML) draws. An audit has one per server (or PostgreSQL database) read; a lint run one,
    the schema its migrations leave."""

    label: str  # what the reader knows it by: the target as given (password masked), or the files
    location: str  # where its findings are located: that text, or that text followed by "/schema"
    schema: Schema
    dialect: Dialect
    target: Target  # the nearest supported server version (`postgres-15`)
    version: str = ""  # the server's own version text, when a server was read
    read_at: str | None = None  # when it was read (ISO, UTC)


@record
class RuleInfo:
    """A rule that found something in a run, as a report describes it (SARIF's `tool.driver.rules`):
    what reporters read of a rule, copied off its class by lint (`Rule.info`), so that the model,
    the layer below lint, and the reporters name no rule class."""

    code: str
    name: str
    short: str  # its description in a line: its doc's first (the message template of a rule with no doc)
    doc: str  # its documentation (the class docstring, dedented)
    url: str  # its page
    severity: Severity  # its default severity
    status: str  # "stable" | "preview"
    dialects: frozenset[str]
    unmeasured: dict[str, str] = field(default_factory=dict)  # why no measurement backs it, per dialect


@record
class LintResult:
    """What a run found: findings, errors, notes, and what it read."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    # the rules that found something (reported or suppressed), for the reports that describe them
    rules: list[RuleInfo] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # what was reported on (paths or server/schema names)
    statements: int = 0  # statements analysed
    suppressed: list[Finding] = field(default_factory=list)  # silenced inline, for SARIF `suppressions`
    notes: list[str] = field(default_factory=list)  # degraded parts of a run (audit privileges, counters off)
    framework: tuple[str, str] | None = None  # (name, what showed it) for SQL files
    units: int = 0  # deploys walked (migrations, changesets), history included
    dialect: tuple[str, str] | None = None  # (dialect, what showed it: the files' marks, a flag, a config file)
    dialect_given: bool = False  # named by a flag or the config (the text summary then says nothing of it)
    # the server version the verdicts assume: (target, what chose it, why its lock rows are not
    # measured, if they are not: "" for a target measured on a server of its kind)
    target: tuple[str, str, str] | None = None
    sources: list[Source] = field(default_factory=list)  # the schemas judged, for reports that show tables
    command: str = ""  # the command line that produced the result (passwords masked)

    @property
    def audited(self) -> bool:
        """Whether the run read servers' catalogs (an audit) rather than statements."""
        return any(s.version for s in self.sources)

    def exit_code(self, fail_on: Severity) -> int:
        if self.errors:
            return 2
        return 1 if any(f.severity >= fail_on for f in self.findings) else 0
