"""Audit 10,000 tables on a local MariaDB and a local PostgreSQL: time and number of queries.

    python bench/audit_10k.py [--tables 10000] [--only mariadb|postgres] [--tmpdir DIR]

Each server is a private throwaway one (tests/servers.py: own data directory, free port,
stopped and deleted at the end), started one after the other, never both at once. Every
table has 5 indexes: the primary key, one unique key and three secondary indexes. The
tables are created fast (MariaDB: a few big multi-statement batches; PostgreSQL: one
multi-statement string per 1,000 tables, each its own transaction), then schemacite reads
the catalog the way `schemacite audit` does: `prepare_session` + `read_schema`, in a
read-only session, twice. The figures printed:

    1st read       seconds for the first catalog read (the target: under 5 s)
    2nd read       the same read again: every table is now open on the server, as on a
                   busy production server (MariaDB's performance_schema index counters
                   cost more then, see --verbose)
    queries        statements the reader sent (client side), and on MariaDB the server's
                   own count (`Questions`), which must agree
    rules          seconds the built-in rules took over the schema read
    create         seconds to create the tables (not part of the target)

--verbose splits each read into execute (server work and transfer), fetch (the driver
building rows) and building the model, per query.

The data directories go to /dev/shm when it exists (creating 10,000 InnoDB tables on a
disk that honours fsync takes minutes); --tmpdir chooses another place.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import servers  # tests/servers.py: the throwaway servers the tests use

BATCH = 2000  # tables per MariaDB multi-statement batch
# tables per PostgreSQL transaction: a single transaction creating all 10,000 tables took
# 80-90 s here (its cost grows with the square of the objects it creates); ten took 17 s
PG_BATCH = 1000

# server settings for a catalog of this size: MariaDB must be allowed that many open
# table definitions, PostgreSQL that many locks in the creating transaction
MARIADB_SETTINGS = {"table_definition_cache": "12000", "table_open_cache": "12000", "innodb_open_files": "12000"}
POSTGRES_SETTINGS = {"max_locks_per_transaction": "4096"}


TIMINGS: list[list] = []  # [seconds in execute, seconds in fetch, statement] per query, for --verbose


class CountingConnection:
    """A DB-API connection whose cursors record every statement they send."""

    def __init__(self, conn):
        self._conn = conn
        self.sent: list[str] = []

    def cursor(self, *args, **kwargs):
        return CountingCursor(self._conn.cursor(*args, **kwargs), self.sent)

    def __getattr__(self, name):
        return getattr(self._conn, name)


class CountingCursor:
    def __init__(self, cursor, sent):
        self._cursor = cursor
        self._sent = sent

    def execute(self, query, params=None):
        self._sent.append(query)
        started = time.perf_counter()
        try:
            return self._cursor.execute(query, params)
        finally:
            TIMINGS.append([time.perf_counter() - started, 0.0, " ".join(query.split())[:80]])

    def fetchall(self):
        started = time.perf_counter()
        try:
            return self._cursor.fetchall()
        finally:
            TIMINGS[-1][1] += time.perf_counter() - started

    def fetchone(self):
        started = time.perf_counter()
        try:
            return self._cursor.fetchone()
        finally:
            TIMINGS[-1][1] += time.perf_counter() - started

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._cursor.close()

    def __getattr__(self, name):
        return getattr(self._cursor, name)


def rules_seconds(schema, dialect: str, target: str) -> tuple[float, int]:
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter

    linter = Linter(load_config(None, {"dialect": dialect, "target": target}))
    started = time.perf_counter()
    result = linter.check_schema(schema)
    return time.perf_counter() - started, len(result.findings)


def bench_mariadb(tables: int, settings: dict[str, str]) -> dict:
    import MySQLdb
    from MySQLdb.constants import CLIENT

    from schemacite.live.catalogs import mysql as catalog
    from schemacite.live.servers import server_dialect

    with servers.mariadb_server(settings) as server:
        db = server.create_database("bench10k")
        conn = server.connect(db, client_flag=CLIENT.MULTI_STATEMENTS)
        started = time.perf_counter()
        try:
            cur = conn.cursor()
            for start in range(0, tables, BATCH):
                cur.execute(
                    "".join(
                        f"CREATE TABLE t{i} (id bigint NOT NULL PRIMARY KEY, a int, b int, c int, d varchar(40),"
                        f" UNIQUE KEY uk_d (d), KEY k_a (a), KEY k_b (b), KEY k_c (c));"
                        for i in range(start, min(start + BATCH, tables))
                    )
                )
                while cur.nextset():  # one result per statement; any error surfaces here
                    pass
            cur.execute("INSERT INTO t0 VALUES (1, 1, 1, 1, 'x')")
        finally:
            conn.close()
        create = time.perf_counter() - started

        conn = server.connect()
        try:
            dialect, target, version = server_dialect(conn, "mysql")
            catalog.prepare_session(conn, dialect)
            questions = _questions(conn)
            # as `schemacite audit` does: a second read-only session reads the counters
            side = server.connect()
            catalog.prepare_session(side, dialect)
            side_questions = _questions(side)
            counting = CountingConnection(conn)
            side_counting = CountingConnection(side)
            side_counting.sent = counting.sent
            started = time.perf_counter()
            schema, notes = catalog.read_schema(counting, [db], dialect, side=side_counting)
            read = time.perf_counter() - started
            # minus the SHOW STATUS statements themselves
            server_count = _questions(conn) - questions - 1 + _questions(side) - side_questions - 1
            timings = _take_timings()
            started = time.perf_counter()
            catalog.read_schema(CountingConnection(conn), [db], dialect, side=side)  # every table is open now
            read_warm = time.perf_counter() - started
            side.close()
        finally:
            conn.close()
        assert len(schema.tables) == tables, len(schema.tables)
        assert all(len(t.indexes) == 4 and t.primary_key for t in schema.tables.values())
        assert schema.tables["t0"].workload.inserts == 1, notes
        rules, findings = rules_seconds(schema, dialect, target)
        del MySQLdb
        return {
            "server": f"MariaDB {version.split('-')[0]}",
            "tables": len(schema.tables),
            "indexes": sum(1 + len(t.indexes) for t in schema.tables.values()),
            "create": create,
            "read": read,
            "read_warm": read_warm,
            "queries": len(counting.sent),
            "server_queries": server_count,
            "rules": rules,
            "findings": findings,
            "notes": notes,
            "timings": timings,
            "timings_warm": _take_timings(),
        }


def _take_timings() -> list[list]:
    taken = list(TIMINGS)
    TIMINGS.clear()
    return taken


def _questions(conn) -> int:
    cur = conn.cursor()
    cur.execute("SHOW SESSION STATUS LIKE 'Questions'")
    value = int(cur.fetchone()[1])
    cur.close()
    return value


def bench_postgres(tables: int) -> dict:
    from schemacite.live.catalogs import postgres as catalog
    from schemacite.live.servers import server_dialect

    with servers.postgres_server(POSTGRES_SETTINGS) as server:
        db = server.create_database("bench10k")
        started = time.perf_counter()
        with server.connect(db) as conn:
            for start in range(0, tables, PG_BATCH):
                with conn.transaction():
                    conn.execute(
                        "".join(
                            f"CREATE TABLE t{i} (id bigint PRIMARY KEY, a int, b int, c int, d text UNIQUE);"
                            f" CREATE INDEX t{i}_a ON t{i} (a); CREATE INDEX t{i}_b ON t{i} (b);"
                            f" CREATE INDEX t{i}_c ON t{i} (c);"
                            for i in range(start, min(start + PG_BATCH, tables))
                        )
                    )
            conn.execute("INSERT INTO t0 VALUES (1, 1, 1, 1, 'x')")
        with server.connect(db) as conn:
            conn.execute("SELECT pg_stat_force_next_flush()")
        create = time.perf_counter() - started

        with server.connect(db) as conn:
            dialect, target, version = server_dialect(conn, "postgres")
            catalog.prepare_session(conn, dialect)
            counting = CountingConnection(conn)
            started = time.perf_counter()
            schema, notes = catalog.read_schema(counting, None, dialect)
            read = time.perf_counter() - started
            timings = _take_timings()
            started = time.perf_counter()
            catalog.read_schema(CountingConnection(conn), None, dialect)
            read_warm = time.perf_counter() - started
        assert len(schema.tables) == tables, len(schema.tables)
        assert all(len(t.indexes) == 4 and t.primary_key for t in schema.tables.values())
        rules, findings = rules_seconds(schema, dialect, target)
        return {
            "server": version,
            "tables": len(schema.tables),
            "indexes": sum(1 + len(t.indexes) for t in schema.tables.values()),
            "create": create,
            "read": read,
            "read_warm": read_warm,
            "queries": len(counting.sent),
            "server_queries": None,
            "rules": rules,
            "findings": findings,
            "notes": notes,
            "timings": timings,
            "timings_warm": _take_timings(),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--only", choices=("mariadb", "postgres"))
    parser.add_argument("--tmpdir", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    parser.add_argument("--verbose", "-v", action="store_true", help="print each catalog query's execute time")
    parser.add_argument(
        "--stock-caches",
        action="store_true",
        help="MariaDB with its default table caches (400 definitions) instead of 12000",
    )
    args = parser.parse_args()
    if args.tmpdir:
        tempfile.tempdir = args.tmpdir
    rows = []
    if args.only in (None, "mariadb"):
        rows.append(bench_mariadb(args.tables, {} if args.stock_caches else MARIADB_SETTINGS))
    if args.only in (None, "postgres"):
        rows.append(bench_postgres(args.tables))

    caches = "stock" if args.stock_caches else "12000"
    print(
        f"catalog read of {args.tables:,} tables, 5 indexes each (PK, 1 unique, 3 secondary); data in"
        f" {tempfile.gettempdir()}; MariaDB table caches: {caches}"
    )
    header = (
        f"{'server':<18} {'tables':>7} {'indexes':>8} {'1st read':>9} {'2nd read':>9} {'queries':>8}"
        f" {'server-side':>11} {'rules':>7} {'create':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        server_side = "-" if r["server_queries"] is None else str(r["server_queries"])
        print(
            f"{r['server']:<18} {r['tables']:>7,} {r['indexes']:>8,} {r['read']:>8.2f}s {r['read_warm']:>8.2f}s {r['queries']:>8}"
            f" {server_side:>11} {r['rules']:>6.2f}s {r['create']:>7.1f}s"
        )
    for r in rows:
        for note in r["notes"]:
            print(f"note ({r['server']}): {note}")
    if args.verbose:
        for r in rows:
            for label, timings in (("first", r["timings"]), ("second", r["timings_warm"])):
                executed = sum(t[0] for t in timings)
                fetched = sum(t[1] for t in timings)
                total = r["read"] if label == "first" else r["read_warm"]
                print(
                    f"\n{r['server']}, {label} read: execute (server + transfer) {executed:.2f}s, fetch (driver rows)"
                    f" {fetched:.2f}s, building the model {total - executed - fetched:.2f}s"
                )
                for execute, fetch, query in timings:
                    print(f"  {execute:6.2f}s {fetch:6.2f}s  {query}")
    slow = [r["server"] for r in rows if max(r["read"], r["read_warm"]) >= 5]
    if slow:
        print(f"over the 5 s target: {', '.join(slow)}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
