"""`schemacite locks`: what each statement of a migration locks, and for how long.

The answers come from the same lock tables the lint rules read. With `--verify DSN`
every statement is also run on a scratch copy on that server (history replayed
into it first) and the measurement is printed beside the prediction.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from schemacite.locks import NO_LOCK_KINDS, LockImpact, impacts_for, locks_on_preexisting, worst_algorithm
from schemacite.locks.modes import worst
from schemacite.locks.rows import DOCUMENTATION_ONLY
from schemacite.model import Schema
from schemacite.model.dialects import Dialect, Target
from schemacite.model.record import record
from schemacite.model.statements import ParseError, Statement
from schemacite.sources.replay import Replay
from schemacite.sources.search_path import DEFAULT as DEFAULT_SEARCH_PATH

if TYPE_CHECKING:
    from schemacite.sources.cache import ParseCache

NO_LOCK = "takes no lock on existing tables"


@record
class Row:
    statement: Statement
    impacts: list[LockImpact]
    blocks: str  # on relations that exist before the change
    measured: Any = None
    disagreements: list[str] = field(default_factory=list)
    not_run: str | None = None  # why --verify could not run the statement (never a disagreement)
    existing: int = 0  # locks on relations that exist before the change
    inside: bool = False  # DDL read inside another statement (a prepared string, a called procedure)

    @property
    def unknown(self) -> str | None:
        return next((i.unknown for i in self.impacts if i.unknown), None)

    @property
    def summary(self) -> str | None:
        """NO_LOCK for a statement that locks nothing anybody else uses (yet); why it is not known
        for one that runs SQL the reader cannot see."""
        if self.unknown:
            return f"unknown: {self.unknown}"
        return None if self.existing else NO_LOCK

    @property
    def checked(self) -> bool:
        return self.measured is not None or bool(self.not_run)


def analyse(
    dialect: Dialect,
    target: Target,
    paths: list[str],
    history: list[str],
    cache: ParseCache | None = None,
    framework: str | None = None,
    stdin: tuple[str, bytes] | None = None,
    search_path: str = DEFAULT_SEARCH_PATH,
    base: Schema | None = None,
) -> tuple[list[Row], list[ParseError], list[tuple[Statement, Row | None]]]:
    """(rows, errors, script): a row per reported statement (those that lock nothing say so), and,
    for --verify, every statement the run applies in order, each with its row if it is reported: every
    reported statement is measured, those predicted to take no lock too. `base`: the schema the
    history left, replayed before (the language server keeps it between edits)."""
    run = Replay(dialect, paths, history, base, cache=cache, framework=framework, stdin=stdin, search_path=search_path)
    rows: list[Row] = []
    script: list[tuple[Statement, Row | None]] = []
    for step in run:
        stmt = step.statement
        embedded = stmt.embedded
        row = None
        if step.reported:
            impacts = [] if stmt.kind in NO_LOCK_KINDS else impacts_for(stmt, step.schema, target)
            existing = [lk for i in impacts for lk in locks_on_preexisting(i, step.schema, stmt)]
            parent = rows[-1] if embedded and rows else None
            if parent is not None and getattr(parent.statement.op, "what", "") == "DO":
                # DDL a DO block runs is locked by the block: its row says so
                parent.impacts += impacts
                parent.existing += len(existing)
                parent.blocks = worst([parent.blocks, *(lk.blocks for lk in existing)])
            else:
                # DDL a prepared string or a called procedure runs gets a row of its own: the statement
                # that sends it (EXECUTE, CALL) is where it runs, and --verify measures it there
                blocks = "unknown" if any(i.unknown for i in impacts) else worst(lk.blocks for lk in existing)
                row = Row(stmt, impacts, blocks, existing=len(existing), inside=embedded)
                rows.append(row)
        if stmt.kind not in ("begin", "commit") and not embedded:
            script.append((stmt, row))
    return rows, run.errors, script


def row_json(row: Row, dialect: Dialect) -> dict[str, Any]:
    mysql = dialect.is_mysql_family
    locks = []
    for impact in row.impacts:
        for lk in impact.locks:
            entry: dict[str, Any] = {"relation": lk.relation, "mode": lk.mode, "blocks": lk.blocks}
            if mysql:
                entry.update(algorithm=impact.algorithm, lock=lk.mode)
            if entry not in locks:
                locks.append(entry)
    out: dict[str, Any] = {
        "file": row.statement.location.file,
        "line": row.statement.location.line,
        "sql": row.statement.sql,
        "operations": [i.operation for i in row.impacts],
        "locks": locks,
        "rewrite": any(i.rewrite for i in row.impacts),
        "scan": any(i.scan for i in row.impacts),
        "blocks": row.blocks,
        "alternative": next((i.alternative for i in row.impacts if i.alternative), None),
        "notes": [i.note for i in row.impacts if i.note] + ([row.summary] if row.summary else []),
        "inside": row.inside,
    }
    if mysql:
        out["algorithm"] = worst_algorithm(row.impacts)
    if row.checked:
        out["verified"] = {
            "agrees": None if row.not_run else not row.disagreements,
            "differences": row.disagreements,
            "not_run": row.not_run,
            "measured": _measured_json(row.measured),
        }
    return out


def measured_on(impact: LockImpact, target: Target) -> str:
    """Whether a server confirmed the lock-table row `impact` rests on, for `target`, in words."""
    if impact.row is None:
        return "no lock-table row"
    # the imports below load only the asked dialect's lock table (start-up cost)
    if target.dialect is Dialect.POSTGRES:
        # start-up: a run loads only its own dialect's lock table
        from schemacite.locks.postgres_table import MEASURED_ON, row_for

        major = target.major
        row = row_for(impact.row, major)
        if row is None or row.unmeasured:
            return f"not measured: {row.unmeasured}" if row else "not measured"
        return f"measured on PostgreSQL {MEASURED_ON[major]}" if major in MEASURED_ON else "not measured on this major"
    # start-up: a run loads only its own dialect's lock table
    from schemacite.locks import mysql_table
    from schemacite.locks.mysql import lookup

    server = target.dialect
    found = lookup(server, impact.row, target.version)
    if found is None:
        return DOCUMENTATION_ONLY
    return found.unmeasured or f"measured on {server} {mysql_table.MEASURED_ON[server]}"


def _measured_json(m: Any) -> Any:
    if m is None:
        return None
    if hasattr(m, "code") and hasattr(m, "message"):
        return {"refused": m.code, "message": m.message}
    if hasattr(m, "locks") and isinstance(m.locks, dict):
        return {"locks": m.locks, "rewritten": sorted(m.rewritten), "method": m.method}
    return {"algorithm": m.algorithm, "lock": m.lock, "rebuild": m.rebuild}
