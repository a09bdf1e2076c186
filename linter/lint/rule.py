"""The rule API a rule (built-in or third-party) is written against. Rules import it from its one
public path, `schemacite.rule`, which re-exports what is defined here and in `model.results`."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar

from schemacite.errors import closest
from schemacite.lint.config import Config
from schemacite.model import Location, Schema, Table
from schemacite.model.dialects import ALL_DIALECTS, Dialect, Target
from schemacite.model.record import default, record
from schemacite.model.results import Finding, RuleInfo, Severity, Suppression
from schemacite.sources.names import written

if TYPE_CHECKING:
    from schemacite.evidence import Catalogue
    from schemacite.lint.lock_facts import LockFacts
    from schemacite.locks import Lock, LockImpact
    from schemacite.model.statements import Statement
    from schemacite.sources.frameworks.base import Framework, Unit

DOCS_URL = "https://github.com/schemacite/schemacite/blob/main/docs/rules/{name}.md"

# what a user loses, for each family of rules; `select` takes a family's name, and the preferences
# run only when selected
FAMILIES = {
    "schema": "a schema choice that measurably slows a busy table or that the server refuses",
    "locks": "traffic blocked while a statement waits for or holds a lock",
    "fails-on-rows": "the deploy stops half done on rows already in the table",
    "breaks-running-code": "the release still running reads or writes what the change removes or renames",
    "runs-out": "a key or counter that reaches its type's limit later",
    "transactions": "statements that do not commit, or roll back, as the runner's transaction would have them",
    "silent-changes": "the server storing something other than what the statement says",
    "preferences": "a house style, off unless selected",
    "suppressions": "suppression comments that no longer suppress anything",
}


@record(frozen=True)
class Option:
    """A setting a rule takes in its `[tool.schemacite.rules.<name>]` table."""

    type: type
    default: Any
    help: str
    # a top-level setting the option takes its value from when the rule's own table does not set
    # it: settings older than per-rule options keep working, and the rule alone reads them
    setting: str | None = None


@record
class Held:
    """An earlier statement of the transaction a statement runs in: the locks it took that block
    reads or writes of tables existing before the change (held until the transaction ends), and
    the long work it did, if any (see `locks.long_work`)."""

    statement: Statement
    operation: str  # the locking operation, in words (`ALTER TABLE ADD COLUMN`)
    locks: list[Lock]
    work: str | None


@record
class Context:
    """What a rule may consult besides the object it is checking."""

    dialect: Dialect  # a str: `ctx.dialect == "postgres"` holds as before
    target: Target  # `str(ctx.target)` is "postgres-15", "mysql-8.0", ...
    schema: Schema  # before the statement, for check_statement; final, for check_table
    # names and lower-case codes of the rules this run runs: a rule that leaves part of its ground
    # to another rule covers that part itself when the other is off (see `runs`)
    active: frozenset[str] = frozenset()
    # statement rules only
    in_transaction: bool = False
    transaction_why: str = (
        ""  # who opened the transaction: "BEGIN ... COMMIT", "goose runs each migration in one transaction"
    )
    # earlier statements of its transaction whose locks no long work has outlasted yet (`locks.held`),
    # each with the locks it first took at that strength; read-only. Followed only when a rule
    # that runs sets `Rule.reads_earlier`
    earlier: list[Held] = field(default_factory=list)
    # the blocking lock modes its transaction holds on each relation before the statement (an
    # index's counted on its table), outlasted by long work or not; read-only, followed as `earlier` is
    held_modes: dict[str, set[str]] = field(default_factory=dict)
    lock_timeout_set: bool = False
    # for `combine`: the deploy's statements whose blocking locks their transaction kept through
    # later long work, by (file, line), with where that work stands. Followed as `earlier` is
    held_through: dict[tuple[str, int], Location] = field(default_factory=dict)
    # the statement's lock facts, looked up on the first read of `impacts`, `locks` or `work`: a
    # run whose rules read none of them does no lock work
    facts: LockFacts | None = None
    max_lock_seconds: float = default(Config, "max_lock_seconds")  # a lock estimated to last longer is an error
    # where the statement deploys, for fixes: the runner, its deploy, how many statements that holds,
    # whether the transaction open is the file's own BEGIN, and the file's text (read when asked)
    framework: Framework | None = None
    unit: Unit | None = None
    unit_size: int = 0
    unit_ddl: int = 0  # the deploy's statements that MySQL and MariaDB commit as they run (DDL)
    explicit_transaction: bool = False
    # the transaction the statement found open: "begin" (the file's BEGIN), "runner" (the runner's),
    # "query" (PostgreSQL's implicit one around a multi-statement query), "nested" (the runner's,
    # which a BEGIN of the file joined), "" (none); and who opened it
    found_transaction: str = ""
    found_why: str = ""
    # for a BEGIN: the later statement of its deploy that ends the transaction it is in (None: none
    # does), and how many follow that one; for any statement, how many of its deploy follow it
    closed_by: Statement | None = None
    after_close: int = 0  # statements of the deploy after `closed_by`
    later: int = 0
    deploy_head: Location | None = None  # the deploy's first statement
    file_text: Callable[[], str] = str

    def __post_init__(self) -> None:
        # a plugin's own tests may build a Context from the names, as before targets were typed
        if not isinstance(self.target, Target):
            self.target = Target.parse(self.target)
        if not isinstance(self.dialect, Dialect):
            self.dialect = Dialect.parse(self.dialect)

    @property
    def impacts(self) -> list[LockImpact]:
        """What the statement's actions lock, from the lock tables for the target (none when it
        touches only relations the change created)."""
        return self.facts.impacts if self.facts is not None else []

    @property
    def locks(self) -> list[tuple[LockImpact, list[Lock]]]:
        """Each impact with the locks it takes on relations that exist before the change."""
        return self.facts.locks if self.facts is not None else []

    @property
    def work(self) -> str | None:
        """The long work the statement does itself in its transaction (`locks.long_work`)."""
        return self.facts.work if self.facts is not None else None

    def runs(self, rule: str) -> bool:
        """Whether the rule (name or code) runs in this run."""
        return rule.lower() in self.active

    @property
    def server(self) -> Dialect:
        """The server the target names ("mariadb" for a MariaDB target of the MySQL family)."""
        return self.target.dialect

    @property
    def version(self) -> tuple[int, ...]:
        return self.target.version


def _evidence() -> types.ModuleType:
    # start-up: the evidence catalogue loads only when something cites it
    import schemacite.evidence

    return schemacite.evidence


def _catalogue() -> Catalogue:
    """The evidence catalogue, by id (read-only and lazy: looked up for every finding)."""
    catalogue: Catalogue = _evidence().read_catalogue()
    return catalogue


def _own_measurements(rule: str) -> list[str]:
    """The ids of schemacite's own measurements that name `rule`."""
    return [e.id for e in _evidence().naming(_catalogue(), rule) if ":" not in e.id]


@record(frozen=True)
class LazyRule:
    """A rule named without importing its module: what `schemacite_rules` may answer with in place
    of the class, so that a run imports only the rules it chooses. The built-in rules are listed
    this way (schemacite.rules.index, generated from the classes); a pack with many rules can do
    the same. The metadata is what choosing needs (`select`, `disable`, the dialect, preview);
    `load()` imports the class and refuses one whose metadata differs from what was listed."""

    code: str
    name: str
    family: str
    status: str
    dialects: frozenset[str]
    target: str  # "module:Class"

    def load(self) -> type[Rule]:
        import importlib  # start-up: only a rule a run chooses is imported

        module, _, attr = self.target.partition(":")
        cls: type[Rule] = getattr(importlib.import_module(module), attr)
        said = (self.code, self.name, self.family, self.status, self.dialects)
        if said != (cls.code, cls.name, cls.family, cls.status, frozenset(cls.dialects)):
            raise ValueError(
                f"rule {self.target} is listed as {self.code} {self.name} ({self.family}, {self.status}, "
                f"{', '.join(sorted(self.dialects))}) but defines {cls.code} {cls.name} ({cls.family}, "
                f"{cls.status}, {', '.join(sorted(cls.dialects))}): the listing is stale"
            )
        return cls

    @classmethod
    def of(cls, rule: type[Rule]) -> LazyRule:
        """The listing of a rule class (what the index is generated from)."""
        return cls(
            rule.code,
            rule.name,
            rule.family,
            rule.status,
            frozenset(rule.dialects),
            f"{rule.__module__}:{rule.__qualname__}",
        )


class Rule:
    """Base class: subclasses set the metadata and define check_table and/or check_statement."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # message template, formatted with the finding's arguments
    default_severity: ClassVar[Severity] = Severity.WARNING
    dialects: ClassVar[frozenset[str]] = ALL_DIALECTS
    evidence: ClassVar[tuple[str, ...]] = ()
    # why no measurement backs a finding, per dialect ("*": any), said when none is cited
    evidence_note: ClassVar[str | dict[str, str] | None] = None
    options: ClassVar[dict[str, Option]] = {}
    statement_kinds: ClassVar[frozenset[str]] = frozenset()  # empty: every kind
    # a statement rule that reports only statements locking relations that exist before the change
    # (`ctx.locks` not empty) sets it: the engine does not call it for the others, most statements
    # of a dump or a first migration
    needs_locks: ClassVar[bool] = False
    # a statement rule that reads `ctx.earlier` or `ctx.held_through` sets it: the engine follows the
    # locks each transaction holds (lock work on every statement in one) only when a rule that runs
    # needs them
    reads_earlier: ClassVar[bool] = False
    status: ClassVar[str] = "stable"
    family: ClassVar[str] = "locks"  # a key of FAMILIES

    def __init__(self, severity: Severity | None = None, options: dict[str, Any] | None = None):
        self.severity = severity or self.default_severity
        self.option_values = {k: o.default for k, o in self.options.items()}
        self.option_values.update(options or {})

    # the engine calls whichever of these a rule defines
    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError

    def check_statement(self, statement: Statement, ctx: Context) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError

    def check_suppression(self, suppression: Suppression, ctx: Context) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError

    # a rule that defines it reports once per deploy (a unit: see sources.frameworks.base): the
    # engine hands it the findings its check_statement made within one deploy, in order
    def combine(self, findings: list[Finding], ctx: Context) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def cited(cls) -> tuple[str, ...]:
        """Every record a finding of this rule may cite: its own list, then the measurements of
        schemacite's own that name it (a finding cites those of its dialect nearest its target)."""
        own = _own_measurements(cls.name)
        return tuple(dict.fromkeys((*cls.evidence, *own)))

    @classmethod
    def unmeasured_notes(cls) -> dict[str, str]:
        """Why no measurement backs the rule, per dialect that has none."""
        catalogue = _catalogue()
        out = {}
        for dialect in sorted(cls.dialects):
            if not any(
                catalogue[i].kind == "measurement" and catalogue[i].applies(dialect)
                for i in cls.cited()
                if i in catalogue
            ):
                out[dialect] = cls.why_unmeasured(dialect)
        return out

    @classmethod
    def why_unmeasured(cls, dialect: str) -> str:
        note = cls.evidence_note
        if isinstance(note, dict):
            note = note.get(dialect) or note.get("*")
        return note or f"No measurement in the catalogue backs {cls.name} on {dialect}."

    @classmethod
    def defines(cls, method: str) -> bool:
        return getattr(cls, method) is not getattr(Rule, method)

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(name=cls.name)

    @classmethod
    def info(cls) -> RuleInfo:
        """What a report says of the rule (a SARIF rule descriptor)."""
        doc = cls.doc()
        return RuleInfo(
            code=cls.code,
            name=cls.name,
            short=doc.splitlines()[0].strip() if doc else cls.summary,
            doc=doc,
            url=cls.url(),
            severity=Severity(cls.default_severity),
            status=cls.status,
            dialects=cls.dialects,
            unmeasured=cls.unmeasured_notes(),
        )

    def finding(
        self,
        at: Location,
        *,
        table: str | None = None,
        index: str | None = None,
        severity: Severity | None = None,
        suggestion: str | None = None,
        evidence: tuple[str, ...] | None = None,
        sql: str = "",
        message: str | None = None,
        dialect: str | None = None,
        identity: str = "",
        **args: Any,
    ) -> Finding:
        """A finding of this rule; with `dialect`, only evidence that holds for it is cited."""
        ids = self.evidence if evidence is None else evidence
        if dialect is not None:
            ids = _catalogue().holding(tuple(ids), dialect)
        return Finding(
            rule=self.name,
            code=self.code,
            severity=severity if severity is not None else self.severity,
            location=at,
            message=message or self.summary.format(table=written(table or "", dialect) if dialect else table, **args),
            table=table,
            index=index,
            suggestion=suggestion,
            evidence=ids,
            url=self.url(),
            sql=sql,
            identity=identity,
        )


def check_rule_names(config: Config, classes: list[type[Rule] | LazyRule]) -> None:
    """Refuse a rule name or code prefix in the configuration that no rule has."""
    known = {c.name for c in classes} | {c.code.lower() for c in classes} | {c.family for c in classes}
    for key in ("disable", "select", "rules", "per_file_ignores"):
        names = getattr(config, key)
        if key == "per_file_ignores":
            names = [r for rules in names.values() for r in rules]
        unknown = [
            name
            for name in names
            if name.lower() not in known and not any(c.code.lower().startswith(name.lower()) for c in classes)
        ]
        if unknown:
            raise ValueError(f"{config.where(key)}: {unknown_rules(unknown, classes)} (see `schemacite rules`)")


def unknown_rules(names: list[str], classes: list[type[Rule] | LazyRule]) -> str:
    """'unknown rule(s) ...', each with the rule it is nearest to, when one is near."""
    spelled = {c.name: c.name for c in classes} | {c.code.lower(): c.code for c in classes}
    said = []
    for name in names:
        # a letter O typed for a zero names one code, where the closest spelling may be another
        zeroed = name.lower()[:2] + name.lower()[2:].replace("o", "0")
        near = zeroed if zeroed in spelled else closest(name.lower(), spelled)
        said.append(f"{name!r}" + (f" (did you mean {spelled[near]}?)" if near else ""))
    return f"unknown rule{'s' if len(said) > 1 else ''} " + ", ".join(said)
