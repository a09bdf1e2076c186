"""Which PostgreSQL functions are volatile: a column DEFAULT calling one makes ADD COLUMN rewrite
the table (each row gets its own value); a stable or immutable default is stored once.

The names come from the servers themselves, not from a hand list: `postgres_functions.json` is
written by this module's generator, which reads `pg_proc.provolatile` on each server given
(functions of pg_catalog, and of the extensions whose functions migrations use in defaults:
uuid-ossp, pgcrypto), inside a scratch database it creates and drops. A name is volatile when any
overload of it is volatile on any server read.

    python -m schemacite.locks.functions postgresql://postgres@127.0.0.1:5432/postgres ...
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

EXTENSIONS = ("uuid-ossp", "pgcrypto")
DATA = Path(__file__).with_name("postgres_functions.json")  # a plain path: importlib.resources cost a run 4 ms


@functools.lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def volatile(name: str) -> bool:
    """Whether a function of that name (any schema, any overload) is volatile."""
    return name.rsplit(".", 1)[-1].lower() in _volatile()


@functools.lru_cache(maxsize=1)
def _volatile() -> frozenset[str]:
    return frozenset(name.lower() for name in _data()["volatile"])


def read_server(dsn: str) -> tuple[str, set[str], set[str]]:
    """(server version, volatile names, every name) of one server, read in a scratch database."""
    import psycopg

    from schemacite.locks import scratch

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
    versions, volatile_names = [], set()
    for dsn in dsns:
        version, names, _all = read_server(dsn)
        versions.append(version)
        volatile_names |= names
    path = DATA
    doc = {
        "read_from": sorted(versions),
        "query": "pg_proc.provolatile = 'v' in pg_catalog and the extensions " + ", ".join(EXTENSIONS),
        "volatile": sorted(volatile_names),
    }
    with open(str(path), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(volatile_names)} volatile function names from PostgreSQL {', '.join(sorted(versions))} -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
