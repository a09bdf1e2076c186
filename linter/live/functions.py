"""Writes `locks/postgres_functions.json`, the volatile PostgreSQL functions `locks.functions`
answers from, and the names of the others: reads `pg_proc.provolatile` on each server given (functions of pg_catalog, and of
the extensions whose functions migrations use in defaults: uuid-ossp, pgcrypto), inside a
scratch database it creates and drops.

    python -m schemacite.live.functions postgresql://postgres@127.0.0.1:5432/postgres ...
"""

from __future__ import annotations

import json
import sys

import psycopg

from schemacite.live import scratch
from schemacite.locks.functions import DATA

EXTENSIONS = ("uuid-ossp", "pgcrypto")


def read_server(dsn: str) -> tuple[str, set[str], set[str]]:
    """(server version, volatile names, every name) of one server, read in a scratch database."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        version = admin.execute("SHOW server_version").fetchone()[0]
        name = scratch.pg_create_database(admin)
        try:
            with psycopg.connect(dsn, dbname=name, autocommit=True) as conn:
                for ext in EXTENSIONS:
                    try:
                        conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{ext}"')
                    except psycopg.Error:
                        pass  # not installed on this server
                rows = conn.execute(
                    "SELECT p.proname, p.provolatile FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    " WHERE n.nspname IN ('pg_catalog', 'public')"
                ).fetchall()
        finally:
            scratch.pg_drop_database(admin, name)
    return version, {n for n, v in rows if v == "v"}, {n for n, _ in rows}


def main(dsns: list[str]) -> int:
    versions, volatile_names, every = [], set(), set()
    for dsn in dsns:
        version, names, all_names = read_server(dsn)
        versions.append(version)
        volatile_names |= names
        every |= all_names
    path = DATA
    doc = {
        "read_from": sorted(versions),
        "query": "pg_proc.provolatile = 'v' in pg_catalog and the extensions " + ", ".join(EXTENSIONS),
        "volatile": sorted(volatile_names),
        # the other functions those servers hold: a name in neither list is unknown to them
        "not_volatile": sorted(every - volatile_names),
    }
    with open(str(path), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(volatile_names)} volatile function names from PostgreSQL {', '.join(sorted(versions))} -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
