"""PostgreSQL logical replication of a table without a primary key.

On the publisher (the area's server, which needs `wal_level = logical`): three tables in the
area, `keyed` (a primary key), `unkeyed` (no primary key, a plain index on id, REPLICA
IDENTITY FULL) and `bare` (no key, default replica identity), published together. The
subscriber (another server, or a scratch database on the same one) gets the same tables under
the same schema name, and a subscription to a replication slot made for it. Then the same
single-row UPDATEs run on `keyed` and on `unkeyed`, each table's while the subscription is
disabled, and the time the subscriber takes to apply them once enabled is measured, with the
sequential and index scans of the table its statistics counted meanwhile. An UPDATE of `bare`
is refused by the publisher.

Publication, slot and subscription are named after the area and dropped with it.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from schemacite.evidence.figures import Figure, caveat
from schemacite.live import scratch
from schemacite.live.experiments import Area, Experiment, ExperimentError, execute, until
from schemacite.live.servers import connect, parse_dsn

UPDATES = 2_000  # single-row UPDATEs per table, each its own transaction
WAIT = 600.0  # seconds the subscriber may take to catch up
STATS_WAIT = 10.0  # seconds the subscriber's scan counters may take to show the updates


def _tables(area_name: str, rows: int) -> list[str]:
    q = f'"{area_name}"'
    return [
        f"CREATE TABLE {q}.keyed (id int PRIMARY KEY, v int NOT NULL, pad text NOT NULL)",
        f"CREATE TABLE {q}.unkeyed (id int NOT NULL, v int NOT NULL, pad text NOT NULL)",
        f"CREATE INDEX unkeyed_id ON {q}.unkeyed (id)",
        f"ALTER TABLE {q}.unkeyed REPLICA IDENTITY FULL",
        f"CREATE TABLE {q}.bare (id int NOT NULL, v int NOT NULL)",
    ]


def replica_identity(area: Area, rows: int, threads: tuple[int, ...] = (1,), subscriber: str | None = None):
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import psycopg

    pub = area.connect()
    level = execute(pub, "SHOW wal_level")[0][0]
    if level != "logical":
        raise ExperimentError(
            f"the publisher runs with wal_level = {level}; logical replication needs wal_level = logical"
        )
    name = area.name
    for sql in _tables(name, rows):
        execute(pub, sql)
    for table in ("keyed", "unkeyed"):
        execute(
            pub,
            f"INSERT INTO \"{name}\".{table} SELECT g, 0, repeat('x', 60) FROM generate_series(1, {rows}) g",
        )
    execute(pub, f'INSERT INTO "{name}".bare SELECT g, 0 FROM generate_series(1, 10) g')
    execute(pub, f'CREATE PUBLICATION "{name}" FOR TABLE "{name}".keyed, "{name}".unkeyed, "{name}".bare')
    figures: list[Figure] = []
    try:
        execute(pub, f'UPDATE "{name}".bare SET v = 1 WHERE id = 1')
        figures.append(Figure("UPDATE of a published table without replica identity", "accepted"))
    except psycopg.Error as e:
        figures.append(
            Figure(
                "UPDATE of a published table without primary key or replica identity",
                f"refused: SQLSTATE {e.sqlstate} ({(e.diag.message_primary or '').split(' because')[0]})",
            )
        )
    sub_admin, sub_db, sub_conn = _subscriber(area, subscriber)
    try:
        execute(pub, "SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (name,))
        conninfo = _conninfo(area)
        execute(
            sub_conn,
            f'CREATE SUBSCRIPTION "{name}" CONNECTION \'{conninfo}\' PUBLICATION "{name}"'
            f" WITH (create_slot = false, slot_name = '{name}')",
        )
        until(lambda: _synced(sub_conn, name), "the subscriber's initial copy", WAIT)
        for table in ("keyed", "unkeyed"):
            figures += _backlog(pub, sub_conn, name, table, rows)
    finally:
        _drop(pub, sub_conn, name)
        sub_conn.close()
        if sub_db:
            with contextlib.suppress(Exception):
                scratch.pg_drop_database(sub_admin, sub_db)
        elif sub_admin is not None:
            with contextlib.suppress(Exception):
                scratch.pg_drop(sub_admin, name)
        if sub_admin is not None:
            sub_admin.close()
        pub.close()
    return figures


def _backlog(pub, sub, name: str, table: str, rows: int) -> list[Figure]:
    """UPDATEs committed on the publisher while the subscription is disabled, then applied by the
    subscriber from that backlog: the publisher has finished before the clock starts, so its
    rate cannot bound the subscriber's. The subscriber's own counters (pg_stat_user_tables) say
    how it found the rows."""
    key = "pk" if table == "keyed" else "full"
    label = "primary key" if table == "keyed" else "no primary key, REPLICA IDENTITY FULL, an index on id"
    execute(sub, f'ALTER SUBSCRIPTION "{name}" DISABLE')
    until(lambda: not _worker(sub, name), "the subscriber to stop its apply worker", WAIT)
    before = _scans(sub, name, table)
    start = time.perf_counter()
    for i in range(1, UPDATES + 1):
        execute(pub, f'UPDATE "{name}".{table} SET v = v + 1 WHERE id = {(i * 7919) % rows + 1}')
    published = time.perf_counter() - start
    execute(sub, f'ALTER SUBSCRIPTION "{name}" ENABLE')
    until(lambda: _worker(sub, name), "the subscriber to start its apply worker", WAIT)
    polls = []  # each look at sum(v) is a sequential scan of its own, taken off the count below

    def caught_up() -> bool:
        polls.append(1)
        return execute(sub, f'SELECT sum(v) FROM "{name}".{table}')[0][0] == UPDATES

    start = time.perf_counter()
    until(caught_up, f"the subscriber to apply the updates of {table}", WAIT)
    applied = time.perf_counter() - start
    deadline = time.monotonic() + STATS_WAIT  # the apply worker reports its counters a moment later
    while sum(_scans(sub, name, table)) - sum(before) - len(polls) < UPDATES and time.monotonic() < deadline:
        time.sleep(0.1)
    # a lookup without a usable index begins a heap scan and restarts it before reading, and
    # each start counts (PostgreSQL's execReplication.c, RelationFindReplTupleSeq): two per row
    seq, idx = (n - b for n, b in zip(_scans(sub, name, table), before))
    seq -= len(polls)
    what = f"{UPDATES:,} single-row UPDATEs of a {rows:,}-row table, {label}"
    return [
        Figure(
            f"{what}: run on the publisher",
            quantity=f"published_updates_per_second_{key}",
            number=UPDATES / published,
            unit="updates/s",
        ),
        Figure(
            f"{what}: applied by the subscriber from a backlog, timed from its apply worker's start",
            quantity=f"replicated_updates_per_second_{key}",
            number=UPDATES / applied,
            unit="updates/s",
        ),
        Figure(
            f"{what}: sequential scans of the table by the subscriber (pg_stat_user_tables; a scan restarted "
            "counts again)",
            quantity=f"seq_scans_{key}",
            number=seq,
            unit="scans",
        ),
        Figure(
            f"{what}: index scans of the table by the subscriber (pg_stat_user_tables)",
            quantity=f"idx_scans_{key}",
            number=idx,
            unit="scans",
        ),
    ]


def _worker(sub, name: str) -> bool:
    """Whether the subscription's apply worker runs (pg_stat_subscription shows its pid)."""
    found = execute(sub, "SELECT pid FROM pg_stat_subscription WHERE subname = %s AND relid IS NULL", (name,))
    return bool(found) and found[0][0] is not None


def _scans(sub, schema: str, table: str) -> tuple[int, int]:
    found = execute(
        sub,
        "SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0) FROM pg_stat_user_tables"
        " WHERE schemaname = %s AND relname = %s",
        (schema, table),
    )
    return (int(found[0][0]), int(found[0][1])) if found else (0, 0)


def _subscriber(area: Area, dsn: str | None) -> tuple[Any, str | None, Any]:
    """(admin session, scratch database or None, session in the area's schema there)."""
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import psycopg

    target = parse_dsn(dsn) if dsn else area.target
    admin = connect(target)
    database = None
    if not dsn or _same_server(area.target, target):
        database = scratch.pg_create_database(admin, area.name)  # the schema's name, in a database of its own
        session = psycopg.connect(target.url, dbname=database, autocommit=True)
        execute(session, f'CREATE SCHEMA "{area.name}"')
    else:
        scratch.pg_create(admin, area.name)
        session = connect(target)
    for sql in _tables(area.name, 0):
        execute(session, sql)
    return admin, database, session


def _same_server(a, b) -> bool:
    return (a.host, a.port or 5432) == (b.host, b.port or 5432)


def _conninfo(area: Area) -> str:
    """How the subscriber reaches the publisher: the DSN's own parameters."""
    t = area.target
    parts = {"host": t.host or "localhost", "port": str(t.port or 5432), "dbname": t.database or t.user or "postgres"}
    if t.user:
        parts["user"] = t.user
    if t.password:
        parts["password"] = t.password
    return " ".join(f"{k}={v}" for k, v in parts.items() if "'" not in v and " " not in v)


def _synced(conn, name: str) -> bool:
    states = execute(
        conn,
        "SELECT r.srsubstate FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid"
        " WHERE s.subname = %s",
        (name,),
    )
    return bool(states) and all(s in ("r", "s") for (s,) in states)


def _drop(pub, sub, name: str) -> None:
    """Subscription, then slot and publication, whatever state they are in."""
    for sql in (
        f'ALTER SUBSCRIPTION "{name}" DISABLE',
        f'ALTER SUBSCRIPTION "{name}" SET (slot_name = NONE)',
        f'DROP SUBSCRIPTION IF EXISTS "{name}"',
    ):
        with contextlib.suppress(Exception):
            execute(sub, sql)
    for _ in range(100):  # the walsender lets go of the slot a moment after the subscription is gone
        try:
            execute(
                pub,
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = %s",
                (name,),
            )
            break
        except Exception:
            time.sleep(0.1)
    with contextlib.suppress(Exception):
        execute(pub, f'DROP PUBLICATION IF EXISTS "{name}"')


def _plan(dialect: str, rows: int, threads: tuple[int, ...]) -> str:
    return (
        f"on the publisher: two tables of {rows:,} rows (about {rows * 100 / 1e6:,.0f} MB each), a publication and "
        f"a logical replication slot; on the subscriber (another server, or a scratch database on this one): the same "
        f"tables and a subscription; then {UPDATES:,} single-row UPDATEs per table. All of it is dropped at the end"
    )


def _conclude(figures: list[Figure], server: str) -> str:
    by = {f.quantity: f for f in figures if f.quantity}
    refused = (
        "; without any replica identity the publisher refused the UPDATE"
        if any("refused" in f.value for f in figures)
        else ""
    )
    pk, full = by.get("replicated_updates_per_second_pk"), by.get("replicated_updates_per_second_full")
    if not pk or not full or not pk.number or not full.number:
        return f"On {server}{refused}."
    seq, idx = by.get("seq_scans_full"), by.get("idx_scans_full")
    if seq and seq.number and seq.number >= UPDATES and not (idx and idx.number):
        how = (
            f"it found each changed row by a sequential scan (its statistics counted {seq.number:,.0f} sequential "
            f"scans of the table for {UPDATES:,} updates, and no index scan)"
        )
    elif idx and idx.number and idx.number >= UPDATES:
        how = (
            f"it found the changed rows through the index on id (its statistics counted {idx.number:,.0f} index "
            f"scans of the table for {UPDATES:,} updates)"
        )
    else:
        how = "its scan counters did not say how it found the rows"
    pace = f"applied the updates of the REPLICA IDENTITY FULL table at {full.number / pk.number:.0%} of the rate of the table with a primary key"
    if spread := caveat(full, pk):
        pace += f", {spread}"
    return f"On {server}, the subscriber {pace}: {how}{refused}."


REPLICA_IDENTITY = Experiment(
    name="replica-identity",
    title="Logical replication of UPDATEs to a table with and without a primary key",
    rules=("no-primary-key",),
    dialects=frozenset({"postgres"}),
    default_rows=200_000,
    default_threads=(1,),
    shows="A published table with no replica identity refuses UPDATE and DELETE; with REPLICA IDENTITY FULL "
    "instead of a primary key, the subscriber has to find each changed row by its whole contents.",
    limits="One publisher and one subscriber on the same small machine, a table that fits in memory, single-row "
    "updates one after another. The updates are committed while the subscription is disabled and applied from "
    "that backlog, so the publisher's own rate does not bound the figure; the publisher still decodes its WAL "
    "as the subscriber applies it.",
    plan=_plan,
    run=replica_identity,
    needs_subscriber=True,
    conclude=_conclude,
)

EXPERIMENTS = [REPLICA_IDENTITY]
