"""Measure what a statement really locks on a PostgreSQL server.

Serves the lock-table tests and `schemacite locks --verify`. Every measurement
runs in a scratch schema of its own on the connection's database: the setup
statements are committed there, the statement is measured, and the schema is
dropped again, so nothing outlives the call.

Two methods, chosen automatically:

``transaction``
    The statement runs inside ``BEGIN ... ROLLBACK``. Before the rollback, the
    backend reads its own rows of ``pg_locks`` (heavyweight locks are held to the
    end of the transaction, so every lock the statement took is still there) and
    the ``relfilenode`` of every relation the setup created. A relation whose
    ``relfilenode`` changed got new storage: the table was rewritten (or, for
    TRUNCATE, swapped for an empty file).

``observed``
    For statements PostgreSQL refuses inside a transaction block (the
    ``CONCURRENTLY`` forms, ``VACUUM``, ``REINDEX ... CONCURRENTLY``, ``DETACH
    PARTITION ... CONCURRENTLY``, REINDEX of a partitioned table), the statement
    runs in autocommit mode on a second connection, several times, each time in
    a fresh copy of the setup:

    1. *gates*: one helper connection per table of the setup holds a lock on it.
       The statement has to queue for the first request that conflicts with the
       gate, and a queued request is visible in ``pg_locks`` with ``granted =
       false`` and the requested mode; that gate is then committed so the
       statement can go on. The first run gates with ``ACCESS EXCLUSIVE``, which
       conflicts with every mode. Each later run gates each table with the mode
       that is compatible with the strongest mode seen so far on it but
       conflicts with every stronger one (``modes.gate_after``), so a stronger request
       made later in the statement (VACUUM first looks the table up under
       ``ACCESS SHARE``, then takes ``SHARE UPDATE EXCLUSIVE``) is caught on the
       next run. Runs stop when one adds nothing.
    2. *parked*: one helper transaction holds ``ROW EXCLUSIVE`` on every table.
       That mode does not conflict with ``SHARE UPDATE EXCLUSIVE``, so the
       concurrent commands get their locks and then park in their "wait for
       older transactions" phase, where all the locks they hold (including
       those on indexes, which ``LOCK`` cannot take) can be read from
       ``pg_locks``. Then the helper commits and the statement finishes.

    Locks are read only while the statement is stalled, so the picture does not
    depend on timing. The union of the runs is the measurement. Tables get the
    strongest mode requested on them; a lock taken on an index after the last
    stall (REINDEX CONCURRENTLY drops the old, already invisible copy of each
    index under ACCESS EXCLUSIVE at its very end) is not seen, so for indexes
    the method gives a lower bound.
    ``Measured.method`` says which method produced a figure.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import Any

from schemacite.live import scratch
from schemacite.locks import postgres_table
from schemacite.locks.modes import MODES, gate_after, strongest
from schemacite.model.record import record

# relkinds that behave like tables for readers and writers
TABLE_KINDS = frozenset("rpmvf")
# relkinds gated in the observed method (`LOCK TABLE` also takes views, but locks their base tables too)
LOCKABLE_KINDS = frozenset("rp")

# refused in a transaction block: active_sql_transaction ("cannot run inside a transaction block"), and
# invalid_transaction_termination (a DO block that COMMITs, as a batched backfill does)
_NOT_IN_TRANSACTION = frozenset({"25001", "2D000"})


@record(frozen=True)
class SeenLock:
    relation: str
    relkind: str
    mode: str
    granted: bool


@record
class Measured:
    """What one statement locked and rewrote, on relations that existed before it."""

    statement: str
    method: str  # "transaction" | "observed"
    server_version: int  # server_version_num, e.g. 150020
    seen: list[SeenLock] = field(default_factory=list)
    relkinds: dict[str, str] = field(default_factory=dict)  # every relation of the setup
    rewritten: frozenset[str] = frozenset()  # relations whose relfilenode changed
    # tables the statement read in full (sequential scans it started, index builds included); None:
    # not measured (statements that run outside a transaction block, on another session)
    scanned: frozenset[str] | None = None

    @property
    def locks(self) -> dict[str, str]:
        """Strongest mode per relation, granted or still queued."""
        out: dict[str, str] = {}
        for s in self.seen:
            out[s.relation] = strongest([out.get(s.relation, ""), s.mode]) or s.mode
        return out


class MeasureTimeout(RuntimeError):
    """The statement neither finished nor queued where it could be observed."""


def measure(
    conn: Any,
    setup_sql: list[str],
    statement_sql: str,
    *,
    connect: Callable[[], Any] | None = None,
    timeout: float = 30.0,
) -> Measured:
    """Run `statement_sql` after `setup_sql` in a scratch schema and report its locks.

    `conn` is a psycopg (3) connection to a database where schemas may be created
    and dropped. `connect`, if given, opens another connection to the same
    database (the observed method needs helpers); by default it reuses
    `conn`'s connection parameters. Errors from the setup or the statement
    propagate after the scratch schema is dropped.
    """
    connect = connect or _default_connect(conn)
    saved_autocommit = conn.autocommit
    conn.autocommit = True
    try:
        version = int(conn.execute("SHOW server_version_num").fetchone()[0])
        try:
            return _measure_in_transaction(conn, setup_sql, statement_sql, version)
        except NeedsOwnTransaction:
            pass
        return measure_observed(lambda: _Scratch(conn, setup_sql, connect), statement_sql, version, timeout)
    finally:
        conn.autocommit = saved_autocommit


# --------------------------------------------------------------------------- helpers


def _default_connect(conn: Any) -> Callable[[], Any]:
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import psycopg

    info = conn.info
    dsn = info.dsn
    password = getattr(info, "password", None)

    def open_connection() -> Any:
        if password:
            return psycopg.connect(dsn, password=password, autocommit=True)
        return psycopg.connect(dsn, autocommit=True)

    return open_connection


class _Scratch:
    """A scratch schema (see live.scratch) holding one copy of the setup; dropped on exit."""

    def __init__(self, conn: Any, setup_sql: list[str], connect: Callable[[], Any] | None = None):
        self.conn = conn
        self.name = scratch.new_name()
        self.setup_sql = setup_sql
        self._connect = connect

    def __enter__(self) -> _Scratch:
        c = self.conn
        scratch.pg_create(c, self.name)
        c.execute(f'SET search_path TO "{self.name}", public')
        try:
            for sql in self.setup_sql:
                c.execute(sql)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def helper(self) -> Any:
        """Another connection, looking at this copy."""
        other = self._connect()
        other.execute(f'SET search_path TO "{self.name}", public')
        return other

    def relations(self) -> dict[int, tuple[str, str, int]]:
        """oid -> (name, relkind, relfilenode) for every relation of the schema."""
        rows = self.conn.execute(
            "SELECT c.oid, c.relname, c.relkind, c.relfilenode FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s",
            (self.name,),
        ).fetchall()
        return {int(oid): (name, kind, int(node)) for oid, name, kind, node in rows}

    def __exit__(self, *exc: object) -> None:
        scratch.pg_drop(self.conn, self.name)
        self.conn.execute("RESET search_path")


def user_relations(conn: Any) -> dict[int, tuple[str, str, int]]:
    """oid -> (name, relkind, relfilenode) for every relation outside the system schemas, named
    as the search path shows them (`orders`, `app.events`)."""
    rows = conn.execute(
        "SELECT c.oid, CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END,"
        " c.relkind, c.relfilenode FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'",
    ).fetchall()
    return {int(oid): (name, kind, int(node)) for oid, name, kind, node in rows}


class NeedsOwnTransaction(Exception):
    """PostgreSQL refuses the statement inside a transaction block."""


def measure_here(conn: Any, sql: str, version: int) -> Measured:
    """The transaction method on the database `conn` is connected to, as it is: the statement runs
    in a transaction that rolls back. NeedsOwnTransaction for the statements that cannot."""
    return _in_transaction(conn, sql, user_relations(conn), version)


def _relation_locks(conn: Any, pid: int | None = None) -> list[tuple[int, str, bool]]:
    where = "l.pid = pg_backend_pid()" if pid is None else "l.pid = %s"
    params = () if pid is None else (pid,)
    rows = conn.execute(
        "SELECT l.relation, l.mode, l.granted FROM pg_locks l "
        "WHERE l.locktype = 'relation' AND l.database = "
        "(SELECT oid FROM pg_database WHERE datname = current_database()) AND " + where,
        params,
    ).fetchall()
    return [(int(r), m, bool(g)) for r, m, g in rows]


def _snapshot(conn: Any, pid: int) -> tuple[list[tuple[int, str, bool]], bool]:
    """One consistent read of `pid`'s locks: (its relation locks, is it queued on anything)."""
    rows = conn.execute(
        "SELECT l.locktype, l.relation, l.mode, l.granted FROM pg_locks l WHERE l.pid = %s "
        "AND (l.locktype <> 'relation' OR l.database = "
        "(SELECT oid FROM pg_database WHERE datname = current_database()))",
        (pid,),
    ).fetchall()
    relation_locks = [(int(r), m, bool(g)) for kind, r, m, g in rows if kind == "relation"]
    return relation_locks, any(not g for _, _, _, g in rows)


def _seen(before: dict[int, tuple[str, str, int]], locks: Iterable[tuple[int, str, bool]]) -> list[SeenLock]:
    out = []
    for oid, mode, granted in locks:
        if oid in before:  # relations the statement itself creates are nobody else's business
            name, kind, _ = before[oid]
            out.append(SeenLock(name, kind, mode, granted))
    return out


def _rewritten(before: dict[int, tuple[str, str, int]], after: dict[int, int]) -> frozenset[str]:
    return frozenset(
        before[oid][0]
        for oid, node in after.items()
        if oid in before and before[oid][2] != 0 and node != before[oid][2]
    )


def _measure_in_transaction(conn: Any, setup_sql: list[str], sql: str, version: int) -> Measured:
    with _Scratch(conn, setup_sql) as copy:
        return _in_transaction(conn, sql, copy.relations(), version)


def _in_transaction(conn: Any, sql: str, before: dict[int, tuple[str, str, int]], version: int) -> Measured:
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import psycopg

    conn.execute("BEGIN")
    scans_before = _seq_scans(conn, before)
    try:
        conn.execute(sql)
    except psycopg.Error as exc:
        conn.execute("ROLLBACK")
        if getattr(exc, "sqlstate", None) in _NOT_IN_TRANSACTION:
            raise NeedsOwnTransaction() from exc
        raise
    try:
        locks = _relation_locks(conn)
        after = {
            int(oid): int(node)
            for oid, node in conn.execute(
                "SELECT oid, relfilenode FROM pg_class WHERE oid = ANY(%s)", (list(before),)
            ).fetchall()
        }
        scans_after = _seq_scans(conn, before)
    finally:
        conn.execute("ROLLBACK")
    return Measured(
        statement=sql,
        method="transaction",
        server_version=version,
        seen=_seen(before, locks),
        relkinds={name: kind for name, kind, _ in before.values()},
        rewritten=_rewritten(before, after),
        scanned=frozenset(before[oid][0] for oid, n in scans_after.items() if n > scans_before.get(oid, 0)),
    )


def _seq_scans(conn: Any, relations: dict[int, tuple[str, str, int]]) -> dict[int, int]:
    """Sequential scans of each table so far, this transaction's own included (the xact view)."""
    rows = conn.execute(
        "SELECT relid, seq_scan FROM pg_stat_xact_user_tables WHERE relid = ANY(%s)", (list(relations),)
    ).fetchall()
    return {int(oid): int(n or 0) for oid, n in rows}


class _Runner(threading.Thread):
    """Runs the statement on its own autocommit connection."""

    def __init__(self, conn: Any, sql: str):
        super().__init__(daemon=True)
        self.conn = conn
        self.sql = sql
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.conn.execute(self.sql)
        except Exception as exc:
            self.error = exc


def _run_observed(
    fresh: Callable[[], Any],
    sql: str,
    timeout: float,
    *,
    seen_modes: dict[str, str] | None,
) -> tuple[list[SeenLock], dict[int, tuple[str, str, int]], dict[int, int]]:
    """One run on a fresh copy (`fresh()`: a context manager giving an object with `conn`,
    `relations()` and `helper()`): gated (`seen_modes`: strongest mode seen so far per table)
    or parked (None)."""
    parked = seen_modes is None
    helpers: list[Any] = []
    with fresh() as copy:
        conn = copy.conn
        before = copy.relations()
        lockable = sorted((oid, name) for oid, (name, kind, _) in before.items() if kind in LOCKABLE_KINDS)
        runner_conn = copy.helper()
        helpers.append(runner_conn)
        try:
            gates: dict[int, Any] = {}
            holder = None
            if parked:
                holder = copy.helper()
                helpers.append(holder)
                holder.execute("BEGIN")
                for _, name in lockable:
                    holder.execute(f'LOCK TABLE ONLY "{name}" IN ROW EXCLUSIVE MODE')
            else:
                for oid, name in lockable:
                    mode = gate_after(seen_modes.get(name))
                    if mode is None:
                        continue
                    gate = copy.helper()
                    helpers.append(gate)
                    gate.execute("BEGIN")
                    gate.execute(f'LOCK TABLE ONLY "{name}" IN {mode} MODE')
                    gates[oid] = gate
            pid = runner_conn.info.backend_pid
            runner = _Runner(runner_conn, sql)
            runner.start()
            seen: set[tuple[int, str, bool]] = set()
            deadline = time.monotonic() + timeout
            while runner.is_alive():
                if time.monotonic() > deadline:
                    runner_conn.cancel()
                    runner.join(5)
                    raise MeasureTimeout(f"statement did not finish within {timeout}s: {sql}")
                locks, stalled = _snapshot(conn, pid)
                waiting = [oid for oid, _, granted in locks if not granted]
                if not stalled:
                    # running: what it holds now is a matter of timing, so only stalls are recorded
                    time.sleep(0.005)
                    continue
                seen.update(locks)
                released = False
                for oid in waiting:
                    if oid in gates:
                        gates.pop(oid).execute("COMMIT")
                        released = True
                if not released:
                    # queued behind a helper that is no gate (or waiting for older transactions)
                    if holder is not None:
                        holder.execute("COMMIT")
                        holder = None
                    for gate in gates.values():
                        gate.execute("COMMIT")
                    gates.clear()
                time.sleep(0.005)
            runner.join()
            if runner.error is not None:
                raise runner.error
            after = {
                int(oid): int(node)
                for oid, node in conn.execute(
                    "SELECT oid, relfilenode FROM pg_class WHERE oid = ANY(%s)", (list(before),)
                ).fetchall()
            }
            return _seen(before, seen), before, after
        finally:
            for helper in helpers:
                with contextlib.suppress(Exception):  # closing a helper must not hide the real error
                    helper.close()


def measure_observed(fresh: Callable[[], Any], sql: str, version: int, timeout: float = 30.0) -> Measured:
    """The observed method, each run on a copy `fresh()` makes (see `_run_observed`)."""
    found: dict[str, str] = {}  # strongest mode seen per relation, across runs
    merged: dict[tuple[str, str], SeenLock] = {}
    before: dict[int, tuple[str, str, int]] = {}
    after: dict[int, int] = {}
    for run in range(len(MODES) + 1):
        seen, b, a = _run_observed(fresh, sql, timeout, seen_modes=dict(found))
        if run == 0:
            before, after = b, a
        grew = False
        for s in seen:
            merged.setdefault((s.relation, s.mode), s)
            best = strongest([found.get(s.relation, ""), s.mode])
            if best != found.get(s.relation):
                found[s.relation] = best or s.mode
                grew = True
        if not grew:
            break
    seen, _, _ = _run_observed(fresh, sql, timeout, seen_modes=None)
    for s in seen:
        merged.setdefault((s.relation, s.mode), s)
    return Measured(
        statement=sql,
        method="observed",
        server_version=version,
        seen=sorted(merged.values(), key=lambda s: (s.relation, MODES.index(s.mode))),
        relkinds={name: kind for name, kind, _ in before.values()},
        rewritten=_rewritten(before, after),
    )


# --------------------------------------------------------------------------- comparison


def compare(predicted: Iterable[Any], measured: Measured, if_exists: bool = False) -> list[str]:
    """Differences between predicted `LockImpact`s and a measurement; empty when they agree.

    Compared: the strongest mode per relation on every table, partition, view
    and materialized view that existed before the statement, plus any other
    relation (an index) the prediction names; and whether a table got new
    storage (a rewrite, or the empty file TRUNCATE swaps in). With `if_exists`
    (`DROP ... IF EXISTS`), a predicted relation the setup lacks is no difference:
    the statement is a no-op that locks nothing, as predicted for what exists.
    """
    impacts = list(predicted)
    want: dict[str, str] = {}
    for impact in impacts:
        for lock in impact.locks:
            want[lock.relation] = strongest([want.get(lock.relation, ""), lock.mode]) or lock.mode
    # the model knows a relation by the server's own name (a quoted "Step" keeps its case)
    got: dict[str, str] = {}
    for rel, mode in measured.locks.items():
        got[rel] = strongest([got.get(rel, ""), mode]) or mode
    relkinds = dict(measured.relkinds)
    out = []
    relations = set(want) | {r for r in got if relkinds.get(r) in TABLE_KINDS}
    for rel in sorted(relations):
        if rel not in relkinds:
            if not if_exists:
                out.append(f"{rel}: predicted {want[rel]}, but no such relation in the setup")
        elif want.get(rel) != got.get(rel):
            out.append(f"{rel}: predicted {want.get(rel) or 'no lock'}, measured {got.get(rel) or 'no lock'}")
    new_storage = any(any(row.new_storage for row in postgres_table.rows_for(i.operation)) for i in impacts)
    predicted_rewrite = any(i.rewrite for i in impacts) or new_storage
    measured_rewrite = any(relkinds.get(r) in TABLE_KINDS for r in measured.rewritten)
    if predicted_rewrite != measured_rewrite:
        out.append(
            f"rewrite: predicted {predicted_rewrite}, measured {measured_rewrite} "
            f"(new relfilenode: {', '.join(sorted(measured.rewritten)) or 'none'})"
        )
    if measured.scanned is not None and not new_storage:  # TRUNCATE builds empty indexes on its empty file
        predicted_scan = any(i.scan for i in impacts)
        measured_scan = bool(measured.scanned)
        if predicted_scan != measured_scan:
            out.append(
                f"scan: predicted {predicted_scan}, measured {measured_scan} "
                f"(scanned: {', '.join(sorted(measured.scanned)) or 'none'})"
            )
    return out
