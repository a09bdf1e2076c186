"""What a rehearsal runs, read with the replay lint uses: the history's statements, then the
change's in the transactions its runner opens (the same boundaries lint reasons about)."""

from __future__ import annotations

from dataclasses import field

from schemacite.model.dialects import Dialect
from schemacite.model.record import record
from schemacite.model.statements import ParseError, needs_own_transaction
from schemacite.sources.replay import Replay

# statements the rehearsal does not send: the runner's transaction is opened and closed by the
# rehearsal itself, from the ids the replay stamps
_BOUNDARIES = frozenset({"begin", "commit", "rollback"})


@record(frozen=True)
class Statement:
    """One statement of the change, as the rehearsal runs it."""

    file: str
    line: int
    sql: str
    transaction: int | None  # shared by the statements of one transaction; None: alone
    tables: tuple[str, ...]  # the tables it touches, as the replay names them
    own_transaction: bool = False  # PostgreSQL refuses it inside a transaction block
    existing: tuple[str, ...] = ()  # of `tables`, those the history created (the ones filled with rows)
    measured: bool = True  # False: a history statement deploying between two of the change's, run in its place


@record
class Plan:
    dialect: Dialect
    history: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, sql), in order
    change: list[Statement] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    framework: str = ""
    defined: dict[str, str] = field(default_factory=dict)  # table -> "file:line" of the statement that created it
    after: int = 0  # statements of the history that deploy after the change's last: not run

    @property
    def touched(self) -> list[str]:
        """The tables that exist before the change and that it touches, in the order first touched."""
        out: list[str] = []
        for stmt in self.change:
            out += [t for t in stmt.existing if t not in out]
        return out

    def groups(self) -> list[list[Statement]]:
        """The change as the runner sends it: consecutive statements of one transaction together,
        each statement alone otherwise."""
        out: list[list[Statement]] = []
        for stmt in self.change:
            if out and stmt.transaction is not None and out[-1][-1].transaction == stmt.transaction:
                out[-1].append(stmt)
            else:
                out.append([stmt])
        return out


def make_plan(
    dialect: Dialect,
    paths: list[str],
    history: list[str],
    *,
    cache=None,
    framework: str | None = None,
    search_path: str | None = None,
) -> Plan:
    options = {"search_path": search_path} if search_path else {}
    run = Replay(dialect, paths, history, cache=cache, framework=framework, **options)
    plan = Plan(Dialect(dialect))
    between: list[Statement] = []  # history statements since the change's last one
    for step in run:
        stmt = step.statement
        if stmt.embedded or stmt.kind in _BOUNDARIES:
            continue  # DDL a DO block runs goes with the block; the runner's boundaries are ours
        if not step.reported:
            if plan.change:  # deploys after a statement of the change: run in its place if more of the change follows
                between.append(
                    Statement(stmt.location.file, stmt.location.line, stmt.sql, stmt.transaction, (), measured=False)
                )
            else:
                plan.history.append((stmt.location.file, stmt.location.line, stmt.sql))
            continue
        plan.change += between
        between = []
        tables = tuple(dict.fromkeys(k for k in stmt.op.relations() if k))
        existing = tuple(t for t in tables if (table := step.schema.tables.get(t)) is not None and not table.new)
        plan.change.append(
            Statement(
                stmt.location.file,
                stmt.location.line,
                stmt.sql,
                stmt.transaction,
                tables,
                own_transaction=bool(needs_own_transaction(stmt.op)) and plan.dialect is Dialect.POSTGRES,
                existing=existing,
            )
        )
    plan.after = len(between)  # the rehearsal ends with the change
    for key, table in run.schema.tables.items():
        if table.defined_at is not None:
            plan.defined[key] = f"{table.defined_at.file}:{table.defined_at.line}"
    plan.errors = list(run.errors)
    plan.framework = run.framework.title
    return plan
