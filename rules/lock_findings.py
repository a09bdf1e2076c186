"""Turning lock impacts into findings: the policy the two lock rules share (not a plugin itself)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.locks import Lock, label, unseen, works_on_preexisting_table
from schemacite.locks.duration import estimate, human_bytes, human_seconds, scan_seconds
from schemacite.locks.modes import covers
from schemacite.model.dialects import LOCK_WAIT, Dialect
from schemacite.model.record import record
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, LockEstimate, Rule, Severity
from schemacite.rules.rewrites import fix_for, where_alone
from schemacite.sources.names import written

# why the lock rules cite no measurement on MySQL (their `evidence_note`)
UNMEASURED = {
    "mysql": "No MySQL server could be run where schemacite is measured: its MySQL lock rows rest on the "
    "MySQL documentation, and MariaDB's measurements are not cited for MySQL.",
}


@record(frozen=True)
class Brief:
    """A statement's locks that block traffic on existing relations but are held only briefly:
    no rewrite, scan or index build of rows under them, and no table known to be large."""

    operation: str  # in words: `ALTER TABLE ADD COLUMN`
    blocks: str  # the worst: "reads+writes" or "writes"
    relations: list[str]
    tables: list[str]
    indexes: list[str]
    mode: str
    unseen: str  # " (events not seen in the history)", or ""


def brief_lock(stmt: Statement, ctx: Context) -> Brief | None:
    """The statement's blocking locks when they are brief (the risk is only the wait for them,
    which `lock-timeout-missing` reports once per deploy), else None. On MySQL and MariaDB every
    DDL statement on an existing table takes an exclusive metadata lock at its start and end,
    whatever its LOCK level: brief, unless the statement also blocks traffic while it works.
    A lock its transaction already holds at that strength or stronger waits for nobody: left out."""
    every = [(impact, lk) for impact, locks in ctx.locks for lk in locks]
    blocking = [(impact, lk) for impact, lk in every if lk.blocks != "nothing"]
    if blocking and (_heavy(stmt, ctx) or _large([lk for _, lk in blocking], ctx)):
        return None  # a finding of its own
    blocking = [(impact, lk) for impact, lk in blocking if not _already_held(lk, ctx)]
    if ctx.dialect.is_mysql_family and every:
        impact = every[0][0]
        names = list(dict.fromkeys(lk.relation for _, lk in every))
        levels = ", ".join(dict.fromkeys(f"LOCK={lk.mode}" for _, lk in every))
        algorithm = f", ALGORITHM={impact.algorithm}" if impact.algorithm else ""
        mode = f"an exclusive metadata lock ({levels}{algorithm})"
        worst = "reads+writes"
    elif blocking:
        worst = "reads+writes" if any(lk.blocks == "reads+writes" for _, lk in blocking) else "writes"
        impact = next(impact for impact, lk in blocking if lk.blocks == worst)
        locks = [lk for _, lk in blocking if lk.blocks == worst]
        names = list(dict.fromkeys(lk.relation for lk in locks))
        mode = _mode(locks, impact, ctx)
    else:
        return None
    tables, indexes = _tables_and_indexes(names, stmt, ctx)
    return Brief(label(impact.operation), worst, names, tables, indexes, mode, _unseen(names, ctx))


def _already_held(lock: Lock, ctx: Context) -> bool:
    """Whether the statement's transaction holds the lock's relation (an index's table) at least as strongly."""
    owner = None if lock.relation in ctx.schema.tables else ctx.schema.index_owner_key(lock.relation)
    return covers(ctx.held_modes.get(owner or lock.relation, ()), lock.mode)


def _tables_and_indexes(names: list[str], stmt: Statement, ctx: Context) -> tuple[list[str], list[str]]:
    named_indexes = set(getattr(stmt.op, "names", ())) if stmt.kind == "drop_index" else set()
    indexes = [
        n for n in names if n not in ctx.schema.tables and (ctx.schema.index_owner(n) is not None or n in named_indexes)
    ]
    return [n for n in names if n not in indexes], indexes


def _unseen(names: list[str], ctx: Context) -> str:
    missing = unseen(names, ctx.schema)
    return f" ({', '.join(written(n, ctx.dialect) for n in missing)} not seen in the history)" if missing else ""


def _heavy(stmt: Statement, ctx: Context) -> bool:
    """Whether the statement rewrites, scans or indexes rows of a table that existed before the
    change: its locks are held for as long as that takes."""
    return works_on_preexisting_table(stmt, ctx.schema) and any(
        (impact.rewrite or impact.scan) and locks for impact, locks in ctx.locks
    )


def _unwritable(relation: str, blocks: str, ctx: Context) -> bool:
    """A lock that blocks only writes of a materialized view blocks nobody: nothing but its own
    refresh writes to one (REFRESH ... CONCURRENTLY's EXCLUSIVE lets every read through)."""
    view = ctx.schema.views.get(relation)
    return blocks == "writes" and view is not None and view.materialized


def _large(locks, ctx: Context) -> list[str]:
    """The locked tables a snapshot says are large: scanning one would take longer than
    max_lock_seconds, so traffic on it is worth a finding of the statement's own."""
    out = []
    for lk in locks:
        table = ctx.schema.tables.get(lk.relation) or ctx.schema.index_owner(lk.relation)
        seconds = scan_seconds(table, ctx.dialect, ctx.target) if table is not None and not table.new else None
        if seconds is not None and seconds > ctx.max_lock_seconds:
            out.append(f"{written(table.name, ctx.dialect)}: {human_bytes(table.bytes)}")
    return list(dict.fromkeys(out))


def _mode(locks, impact, ctx: Context) -> str:
    mode = "/".join(dict.fromkeys(lk.mode if ctx.dialect is Dialect.POSTGRES else f"LOCK={lk.mode}" for lk in locks))
    if impact.algorithm:
        mode += f" (ALGORITHM={impact.algorithm})"
    return mode


def blocks_reads(ctx: Context) -> bool:
    """Whether one of the statement's locks on an existing relation blocks reads as well as writes."""
    return any(lk.blocks == "reads+writes" for _, locks in ctx.locks for lk in locks)


def lock_findings(rule: Rule, stmt: Statement, ctx: Context, blocks: str) -> Iterator[Finding]:
    """One finding per statement for the impacts whose worst lock blocks exactly `blocks`, when
    the lock is held over real work or on a table known to be large (a brief one is left to
    `lock-timeout-missing`, once per deploy). A statement's one risk is its worst lock: asked
    for "writes", a statement that also blocks reads gives nothing."""
    if blocks == "writes" and blocks_reads(ctx):
        return
    hits = [
        (impact, matching)
        for impact, locks in ctx.locks
        if (matching := [lk for lk in locks if lk.blocks == blocks and not _unwritable(lk.relation, blocks, ctx)])
    ]
    large = _large([lk for _, locks in hits for lk in locks], ctx)
    if not hits or not large and not _heavy(stmt, ctx):
        return
    # a rewrite, scan or index build of a table the change created is quick, and the safer forms
    # (NOT VALID, CONCURRENTLY) are for a table that holds rows
    on_rows = works_on_preexisting_table(stmt, ctx.schema)
    heavy = _work_under(hits, ctx) if on_rows else []
    impact, locks = (heavy or hits)[0]
    severity, why, lasts = _how_long(impact, bool(heavy), large, ctx)
    names = list(dict.fromkeys(lk.relation for lk in locks))
    tables, indexes = _tables_and_indexes(names, stmt, ctx)
    finding = rule.finding(
        stmt.location,
        table=", ".join(tables) or None,
        index=", ".join(indexes) or None,
        severity=severity,
        dialect=ctx.dialect,
        sql=stmt.sql,
        suggestion=_suggestion(impact, on_rows, stmt, ctx),
        what=label(impact.operation),
        mode=_mode(locks, impact, ctx),
        why=why + _unseen(names, ctx),
        on=", ".join(written(n, ctx.dialect) for n in names),
        blocks=blocks.replace("+", " and "),
    )
    if ctx.dialect is Dialect.POSTGRES:
        rewrite = fix_for
    else:
        # start-up: the MySQL rewrites (and their clause parser) load only for a MySQL file
        from schemacite.rules.rewrites_mysql import online_fix as rewrite
    finding.fix = rewrite(stmt, ctx) if on_rows else None
    if lasts is not None:
        finding.estimate = lasts
        finding.evidence = tuple(dict.fromkeys((*finding.evidence, lasts.rate_evidence)))
    yield finding


def _work_under(hits: list, ctx: Context) -> list:
    """The hits whose impact rewrites or scans rows; else the statement's other work done under
    their locks (one statement holds its strongest lock until it ends: the scan or rewrite of
    another of its actions, ADD FOREIGN KEY beside DROP CONSTRAINT, happens under it)."""
    heavy = [h for h in hits if h[0].rewrite or h[0].scan]
    if heavy:
        return heavy
    locked = {lk.relation for _, locks in hits for lk in locks}
    work = next((i for i, locks in ctx.locks if (i.rewrite or i.scan) and locked & {lk.relation for lk in locks}), None)
    return [(work, [lk for _, locks in hits for lk in locks])] if work is not None else []


def _how_long(impact, heavy: bool, large: list[str], ctx: Context) -> tuple[Severity | None, str, LockEstimate | None]:
    """The finding's severity, the words saying why the lock lasts, and the estimate of how long
    where the snapshot gives the size of the work."""
    sized = estimate(impact, ctx.schema, ctx.dialect, ctx.target) if heavy else None
    if sized is not None:
        # the lock lasts as long as the work: an error only when that is longer than allowed
        rows = f", {sized.rows:,} rows" if sized.rows is not None else ""
        why = (
            f": it {sized.work} {written(sized.relation, ctx.dialect)} ({human_bytes(sized.bytes)}{rows}) under the lock,"
            f" {human_seconds(sized.seconds)} at {human_bytes(sized.rate)}/s ({sized.evidence})"
        )
        severity = Severity.ERROR if sized.seconds > ctx.max_lock_seconds else None
        return (
            severity,
            why + _unless(impact),
            LockEstimate(round(sized.seconds, 1), sized.bytes, sized.rows, sized.evidence),
        )
    if heavy:
        work = "rewrites the table" if impact.rewrite else "scans the table"
        if impact.rewrite and impact.rewrite_when:
            work += f" if {impact.rewrite_when}"
        return Severity.ERROR, f" while it {work}{_unless(impact)}", None
    why = f" (a large table: {', '.join(large)})" if large else ""
    return (Severity.INFO if ctx.lock_timeout_set else None), why, None


def _unless(impact) -> str:
    """What the rewrite depends on that is not known: the volatility of a function the default calls."""
    if not impact.volatility_unknown:
        return ""
    names = ", ".join(f"{f}()" for f in impact.volatility_unknown)
    return (
        f", unless {names} is IMMUTABLE or STABLE: the function's volatility decides, and it is unknown "
        "(no CREATE FUNCTION read declares it, and one that names none makes it VOLATILE)"
    )


def _suggestion(impact, on_rows: bool, stmt: Statement, ctx: Context) -> str:
    """The safer form (for a table that holds rows), where the runner lets it run, the lock
    timeout to set first, and the row's note."""
    suggestion = (impact.alternative or "") if on_rows else ""
    where = where_alone(stmt, ctx) if suggestion and impact.alternative_outside else ""
    if where:
        # CONCURRENTLY is refused in a transaction block: the advice must say where it can run
        suggestion = f"CONCURRENTLY only runs {where}: {suggestion}"
    if not ctx.lock_timeout_set:
        suggestion = (
            suggestion + "; " if suggestion else ""
        ) + f"{LOCK_WAIT[ctx.dialect].set()} first so the lock cannot queue traffic for long"
    if impact.note:
        suggestion += f" ({impact.note})"
    return suggestion
