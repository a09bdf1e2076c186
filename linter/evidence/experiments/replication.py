"""PostgreSQL logical replication of a table without a primary key.

On the publisher (the area's server, which needs `wal_level = logical`): three tables in the
area, `keyed` (a primary key), `unkeyed` (no primary key, a plain index on id, REPLICA
IDENTITY FULL) and `bare` (no key, default replica identity), published together. The
subscriber (another server, or a scratch database on the same one) gets the same tables under
the same schema name, and a subscription to a replication slot made for it. Then the same
single-row UPDATEs run on `keyed` and on `unkeyed`, and the time until the subscriber has
applied them all is measured. An UPDATE of `bare` is refused by the publisher.

Publication, slot and subscription are named after the area and dropped with it.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from schemacite.evidence.experiments import Area, Experiment, ExperimentError, Figure, execute, number, rate
from schemacite.locks import scratch

UPDATES = 2_000  # single-row UPDATEs per table, each its own transaction
WAIT = 600.0  # seconds the subscriber may take to catch up


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
        _wait(lambda: _synced(sub_conn, name), "the initial copy")
        for table in ("keyed", "unkeyed"):
            start = time.perf_counter()
            for i in range(1, UPDATES + 1):
                execute(pub, f'UPDATE "{name}".{table} SET v = v + 1 WHERE id = {(i * 7919) % rows + 1}')
            published = time.perf_counter() - start
            _wait(
                lambda t=table: execute(sub_conn, f'SELECT sum(v) FROM "{name}".{t}')[0][0] == UPDATES,
                f"the updates of {table}",
            )
            applied = time.perf_counter() - start
            label = "primary key" if table == "keyed" else "no primary key, REPLICA IDENTITY FULL, an index on id"
            figures.append(
                Figure(
                    f"{UPDATES:,} single-row UPDATEs of a {rows:,}-row table, {label}: applied on the subscriber",
                    f"{applied:.2f} s after the first ({rate(UPDATES, applied, 'updates')}; the publisher ran them "
                    f"in {published:.2f} s)",
                    quantity=f"replicated_updates_per_second_{'pk' if table == 'keyed' else 'full'}",
                    number=UPDATES / applied,
                )
            )
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


def _subscriber(area: Area, dsn: str | None) -> tuple[Any, str | None, Any]:
    """(admin session, scratch database or None, session in the area's schema there)."""
    import psycopg

    from schemacite.sources.servers import connect, parse_dsn

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


def _wait(done, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        scratch.check()
        if time.monotonic() > deadline:
            raise ExperimentError(f"the subscriber did not finish {what} within {WAIT:.0f} s")
        time.sleep(0.02)


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
    pk = number(figures, "replicated_updates_per_second_pk")
    full = number(figures, "replicated_updates_per_second_full")
    refused = (
        "; without any replica identity the publisher refused the UPDATE"
        if any("refused" in f.value for f in figures)
        else ""
    )
    if not pk or not full:
        return f"On {server}{refused}."
    if full < pk * 0.5:
        return (
            f"On {server}, the subscriber applied the updates of the REPLICA IDENTITY FULL table {pk / full:.0f} times "
            f"more slowly than those of the table with a primary key: it found each changed row by a sequential scan, "
            f"not through the index on id{refused}."
        )
    return (
        f"On {server}, the subscriber found the changed rows of the REPLICA IDENTITY FULL table through its index on "
        f"id and kept pace with the primary-key table ({full / pk:.0%} of its rate){refused}."
    )


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
    "updates one after another; the figures are the time until the subscriber has applied them all.",
    plan=_plan,
    run=replica_identity,
    needs_subscriber=True,
    conclude=_conclude,
)

EXPERIMENTS = [REPLICA_IDENTITY]
