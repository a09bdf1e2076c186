"""One rehearsal: for each size, a scratch database of its own holding the history, synthetic rows in
the tables the change touches (and those they reference), the probe running, then the change as
its runner sends it, observed statement by statement; the database is dropped whatever happens."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import field
from typing import Any

from schemacite.live import scratch
from schemacite.live.rehearse.fit import Fit, fit
from schemacite.live.rehearse.plan import Plan, Statement
from schemacite.live.rehearse.probe import Holder, LockWaits, Op, Prober, blocked, longest
from schemacite.model.record import record

LEVELS = (1, 2, 4)  # quarters of --max-rows: the sizes rehearsed, for a line through three points
SETTLE = 0.2  # seconds the probe runs before the change starts: its statements' own time, seen first
PROBE_JOIN = 600.0  # seconds a probe statement may still wait once the change is done


class RehearsalError(Exception):
    """The rehearsal cannot go on; str() is `file:line: message` where a statement is to blame."""


@record
class Observed:
    """One statement at one size."""

    rows: int  # rows of the tables it touches, before it ran
    bytes: int  # their data, before it ran
    seconds: float  # its own run time
    held_seconds: float  # from its start until its transaction ended: how long its locks were held
    reads_waited_max_seconds: float
    writes_waited_max_seconds: float
    reads_blocked: bool = False  # the server showed a probe read of its tables waiting for a lock meanwhile
    writes_blocked: bool = False
    locks: dict[str, str] = field(default_factory=dict)  # table -> the strongest mode held after it
    since: dict[str, int] = field(
        default_factory=dict
    )  # table -> the earlier line of its transaction that took that lock
    rewrites: bool = False
    scans: bool | None = False  # None: the server counts no scans a rehearsal can read (MariaDB)
    error: str = ""  # the server refused it at this size
    start: float = field(default=0.0, repr=False, compare=False)  # time.perf_counter() when it began
    tables: tuple[str, ...] = field(default=(), repr=False, compare=False)  # its tables, as the server names them


@record
class Result:
    statement: Statement
    sizes: list[Observed] = field(default_factory=list)
    fit: Fit | None = None
    production: tuple[int, int] | None = None  # (rows, bytes) of its tables in production
    held_at_production: tuple[float, float, float] | None = None  # (low, expected, high) seconds
    not_run: str = ""  # why it was not run: it would write outside the scratch database

    @property
    def locks(self) -> dict[str, str]:
        return self._over_sizes("locks")

    @property
    def since(self) -> dict[str, int]:
        return self._over_sizes("since")

    def _over_sizes(self, attribute: str) -> dict[str, Any]:
        """One of each size's tables merged, the later sizes' entries over the earlier ones'."""
        out: dict[str, Any] = {}
        for seen in self.sizes:
            out.update(getattr(seen, attribute))
        return out

    @property
    def rewrites(self) -> bool:
        return any(s.rewrites for s in self.sizes)

    @property
    def scans(self) -> bool | None:
        if all(s.scans is None for s in self.sizes):
            return None
        return any(s.scans for s in self.sizes)


@record
class Deploy:
    files: list[str]
    low: float = 0.0  # seconds its locks are held at production size, at least
    high: float = 0.0
    blocks_reads: bool = False  # the probe's reads were seen waiting for its locks, at some size
    blocks_writes: bool = False


@record
class Rehearsal:
    server: str
    results: list[Result]
    levels: list[int]  # the sizes rehearsed: rows of each filled table, at most
    seconds: list[float]  # wall time of each size's whole run
    notes: list[str] = field(default_factory=list)
    hold: float = 0.0

    def deploys(self) -> list[Deploy]:
        """Each file's deploy: the seconds its statements' locks are held at production size (one
        transaction's statements count once: the first holds its locks the longest), and whether
        the probe's reads and writes were seen waiting for them at any size."""
        out: dict[str, Deploy] = {}
        seen: set[tuple[str, int]] = set()
        for r in self.results:
            st = r.statement
            deploy = out.setdefault(st.file, Deploy([st.file]))
            deploy.blocks_reads |= any(s.reads_blocked for s in r.sizes)
            deploy.blocks_writes |= any(s.writes_blocked for s in r.sizes)
            key = (st.file, st.transaction if st.transaction is not None else -st.line)
            if key in seen or r.held_at_production is None:
                continue
            seen.add(key)
            deploy.low += r.held_at_production[0]
            deploy.high += r.held_at_production[2]
        return list(out.values())

    @property
    def failed(self) -> list[tuple[Result, Observed]]:
        return [(r, s) for r in self.results for s in r.sizes if s.error]


def rehearse(
    side: Any,
    plan: Plan,
    *,
    max_rows: int,
    production: dict[str, tuple[int, int | None]],
    hold: float = 0.0,
    row_bytes: dict[str, float] | None = None,
    progress: Callable[[str], None] = lambda _: None,
    levels: list[int] | None = None,
) -> Rehearsal:
    """Rehearse `plan` on the server `side` reaches, at LEVELS quarters of `max_rows` (or at the
    `levels` given); `production` gives each table's (rows, bytes or None) where known (a snapshot,
    --rows)."""
    if not plan.change:
        raise RehearsalError("the change holds no statement to rehearse")
    if not plan.touched:  # a change that only creates: its tables hold no rows when it runs
        return Rehearsal(
            side.server,
            [],
            [],
            [],
            notes=[
                "the change touches no table the history created: its new tables hold no rows when it runs, "
                "so there is nothing to time at sizes"
            ],
        )
    levels = sorted(set(levels or (max(1, max_rows * k // LEVELS[-1]) for k in LEVELS)))
    results = [Result(s) for s in plan.change if s.measured]
    rehearsal = Rehearsal(side.server, results, levels, [], hold=hold)
    rehearsal.notes += [f"dropped scratch database {n}, left by an earlier run" for n in side.drop_stale()]
    if plan.after:
        rehearsal.notes.append(
            f"{plan.after} statement(s) of the history deploy after the change: the rehearsal ends with the change"
        )
    with scratch.signals_stop():
        for level in levels:
            progress(f"{level:,} rows")
            started = time.perf_counter()
            name = side.create()
            try:
                _one_size(side, name, plan, results, level, production, hold, row_bytes or {}, rehearsal.notes)
            finally:
                side.drop(name)
            rehearsal.seconds.append(time.perf_counter() - started)
    for r in results:
        _extrapolate(r, production)
    return rehearsal


def _one_size(
    side: Any,
    name: str,
    plan: Plan,
    results: list[Result],
    level: int,
    production: dict[str, tuple[int, int | None]],
    hold: float,
    row_bytes: dict[str, float],
    notes: list[str],
) -> None:
    sessions: list[Any] = []

    def session() -> Any:
        conn = side.connect(name)
        sessions.append(conn)
        return conn

    try:
        conn = session()
        for file, line, sql in plan.history:
            scratch.check()
            _run_history(side, conn, file, line, sql, notes)
        oids = _tables(side, conn, plan)
        rows = _fill(side, conn, oids, level, production, row_bytes, plan.defined)
        probers = _start_probe(side, session, conn, oids)
        waits = LockWaits(session(), {p.pid: p for p in probers}, side.waiting)
        waits.start()
        holder = None
        try:
            time.sleep(SETTLE)
            if hold:
                holder = Holder(session(), side.hold_sql(side.name(conn, oids[plan.touched[0]])), hold, side.execute)
                holder.start()
                holder.holding.wait()
            ran = _run_change(side, name, session(), plan, results, oids, rows, notes)
        finally:
            if holder is not None:
                holder.finish()
                if holder.error is not None:  # the report would otherwise say a transaction was held
                    notes.append(f"the held transaction failed, so none was held: {_first(holder.error)}")
            ops = [op for p in probers for op in p.finish(PROBE_JOIN)]
            seen = waits.finish()
        for observed in ran:
            _waits(observed, ops, seen)
    finally:
        for conn in sessions:
            with contextlib.suppress(Exception):
                conn.close()


def _tables(side: Any, conn: Any, plan: Plan) -> dict[str, int]:
    oids: dict[str, int] = {}
    for stmt in plan.change:
        for table in stmt.existing:
            if table in oids:
                continue
            oid = side.oid(conn, table)
            if oid is None:
                raise RehearsalError(
                    f"{stmt.file}:{stmt.line}: table {table} is not on the scratch server after the history: "
                    "give the migrations that create it (--history, or lint the folder)"
                )
            oids[table] = oid
    if not oids:
        raise RehearsalError("the change touches no table the history created: there is nothing to fill with rows")
    return oids


def _fill(
    side: Any,
    conn: Any,
    oids: dict[str, int],
    level: int,
    production: dict[str, tuple[int, int | None]],
    row_bytes: dict[str, float],
    defined: dict[str, str],
) -> dict[int, int]:
    """Fill the touched tables and those they reference, referenced ones first; returns the rows of each."""
    order: list[int] = []

    def visit(oid: int, path: tuple[int, ...]) -> None:
        if oid in order or oid in path:
            return
        for parent in side.parents(conn, oid):
            if parent != oid:
                visit(parent, (*path, oid))
        order.append(oid)

    for oid in oids.values():
        visit(oid, ())
    filled: dict[int, int] = {}
    for oid in order:
        scratch.check()
        table = side.name(conn, oid)
        known = production.get(table, (None, None))[0]
        n = min(level, known) if known is not None else level
        try:
            side.fill(conn, oid, n, filled, row_bytes.get(table))
        except Exception as e:
            if not side.error(e):
                raise
            where = defined.get(table) or defined.get(table.rsplit(".", 1)[-1])
            raise RehearsalError(
                f"{where + ': ' if where else ''}cannot fill {table} with {n:,} synthetic rows: {_first(e)}"
                " (the rows are made from each column's type: a CHECK or a trigger may refuse them)"
            ) from None
        filled[oid] = n
    return filled


def _start_probe(side: Any, session: Callable[[], Any], conn: Any, oids: dict[str, int]) -> list[Prober]:
    probers = []
    for oid in oids.values():
        table = side.name(conn, oid)
        read, write = side.probe_sql(table, side.probe_key(conn, oid))
        lock_read, lock_write = side.probe_sql(table, None)
        probers.append(Prober(session(), "read", table, read, lock_read, side.execute))
        probers.append(Prober(session(), "write", table, write, lock_write, side.execute))
    for p in probers:
        p.pid = side.pid(p.conn)
        p.start()
    return probers


def _run_change(
    side: Any,
    name: str,
    runner: Any,
    plan: Plan,
    results: list[Result],
    oids: dict[str, Any],
    rows: dict[Any, int],
    notes: list[str],
) -> list[Observed]:
    """Run the change's transactions on `runner`; returns what was observed of each statement run.

    A statement of a transaction is observed from inside it once it has run (the locks the session
    holds, the transaction's own scan counts); one that runs alone (CREATE INDEX CONCURRENTLY, and
    on MariaDB every statement, whose DDL commits as it ends) by a second session sampling its locks
    while it runs."""
    ran: list[Observed] = []
    by_statement = {id(r.statement): r for r in results}
    every = list(oids.values())
    names = {o: side.name(runner, o) for o in every}
    pid = side.pid(runner)
    watch_all, counts_scans = side.watches_every_statement, side.counts_scans
    for group in plan.groups():
        scratch.check()
        alone = len(group) == 1 and (group[0].own_transaction or watch_all and group[0].transaction is None)
        begun: list[Observed] = []
        failed = ""
        taken: dict[Any, tuple[str, int]] = {}  # the transaction's locks so far: (mode, the line that took it)
        if not alone:
            side.execute(runner, "BEGIN")
        for stmt in group:
            if not stmt.measured:  # a history migration deploying between two of the change's
                _run_history(side, runner, stmt.file, stmt.line, stmt.sql, notes)
                continue
            if why := side.outside(runner, stmt.sql):
                by_statement[id(stmt)].not_run = why
                continue
            mine = [oids[t] for t in stmt.existing if t in oids]
            nodes = side.filenodes(runner, mine)
            size = sum(side.bytes(runner, o) for o in mine)  # as it finds them: earlier statements may grow them
            if alone:
                side.flush_statistics(runner)
            scans_before = side.scans(runner, mine, own=not alone)
            watch = side.watch_locks(name, pid, every) if alone or watch_all else None
            if watch is not None:
                watch.start()
            start = time.perf_counter()
            try:
                side.execute(runner, stmt.sql)
            except Exception as e:
                if not side.error(e):
                    raise
                failed = _first(e)
            end = time.perf_counter()
            locks = watch.finish() if watch is not None else {} if failed else side.own_locks(runner, mine)
            for o, mode in locks.items():
                if taken.get(o, ("", 0))[0] != mode:
                    taken[o] = (mode, stmt.line)
            observed = Observed(
                rows=sum(rows.get(o, 0) for o in mine),
                bytes=size,
                seconds=end - start,
                held_seconds=end - start,
                reads_waited_max_seconds=0.0,
                writes_waited_max_seconds=0.0,
                locks={names[o]: m for o, m in locks.items() if o in mine},
                since={names[o]: taken[o][1] for o in locks if o in mine and taken[o][1] != stmt.line},
                error=failed,
                start=start,
                tables=tuple(names[o] for o in mine),
            )
            if not failed:
                if alone:
                    side.flush_statistics(runner)
                after = side.scans(runner, mine, own=not alone)
                observed.scans = any(after.get(o, 0) > scans_before.get(o, 0) for o in mine) if counts_scans else None
                observed.rewrites = any(n != nodes.get(o) for o, n in side.filenodes(runner, mine).items())
            by_statement[id(stmt)].sizes.append(observed)
            ran.append(observed)
            begun.append(observed)
            if failed:
                break
        if not alone:
            side.execute(runner, "ROLLBACK" if failed else "COMMIT")
            ended = time.perf_counter()
            for observed in begun:  # the transaction's locks are held until it ends
                observed.held_seconds = ended - observed.start
        if failed:
            break  # what follows expects what failed: the deploy stops here, as it would
    return ran


def _run_history(side: Any, conn: Any, file: str, line: int, sql: str, notes: list[str]) -> None:
    """Run a statement of the history as it is, unless it would write outside the scratch database
    (then a note says so, once); RehearsalError at its line when the server refuses it."""
    if why := side.outside(conn, sql):
        note = f"{file}:{line}: not run on the scratch server: {why}"
        if note not in notes:
            notes.append(note)
        return
    try:
        side.execute(conn, sql)
    except Exception as e:
        if not side.error(e):
            raise
        raise RehearsalError(f"{file}:{line}: the scratch server refused this history statement: {_first(e)}") from None


def _waits(observed: Observed, ops: list[Op], seen: list[tuple[float, str, str]]) -> None:
    """The longest probe statements on the statement's tables while its locks were held, and
    whether the server showed them waiting for a lock."""
    mine = [op for op in ops if op.table in observed.tables]
    end = observed.start + observed.held_seconds
    observed.reads_waited_max_seconds = longest(mine, "read", observed.start, end)
    observed.writes_waited_max_seconds = longest(mine, "write", observed.start, end)
    observed.reads_blocked = blocked(seen, "read", observed.tables, observed.start, end)
    observed.writes_blocked = blocked(seen, "write", observed.tables, observed.start, end)


def _extrapolate(result: Result, production: dict[str, tuple[int, int | None]]) -> None:
    good = [s for s in result.sizes if not s.error and s.bytes > 0]
    result.fit = fit([(s.bytes, s.held_seconds) for s in good])
    tables = result.statement.existing
    if not tables or not good:
        return
    rows = bytes_ = 0
    largest = max(good, key=lambda s: s.bytes)
    per_row = largest.bytes / largest.rows if largest.rows else 0.0
    for table in tables:
        known = production.get(table)
        if known is None:
            return  # a table whose size in production nobody gave: no production figure
        n, size = known
        rows += n
        bytes_ += size if size is not None else int(n * per_row)
    result.production = (rows, bytes_)
    if result.fit is not None:
        result.held_at_production = result.fit.at(bytes_)


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
