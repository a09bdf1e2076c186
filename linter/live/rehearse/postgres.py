"""The PostgreSQL side of a rehearsal: scratch databases, synthetic rows, and what the server shows
of a statement (the relation locks in pg_locks, a new relfilenode for a rewrite, the sequential
scans pg_stat counts)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from schemacite.live import scratch

SYSTEM = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
# a text column's width when no snapshot says how wide the rows are (bytes)
TEXT_WIDTH = 24
START = "timestamp '2024-01-01'"
G = "{g}"  # the row number in a value's expression, until the INSERT names it


class Side:
    counts_scans = True
    watches_every_statement = False  # a statement of a transaction is seen from inside it once it ran

    def __init__(self, url: str):
        # optional driver (the postgres extra), loaded only when a server is reached
        import psycopg

        self.psycopg = psycopg
        self.url = url
        self.admin = psycopg.connect(url, autocommit=True)
        self.version_num = int(self.admin.execute("SHOW server_version_num").fetchone()[0])
        self.server = self.admin.execute("SELECT version()").fetchone()[0].split(" on ")[0]
        self.notes: list[str] = []

    # ---- the scratch databases

    def foreign_tables(self) -> list[str]:
        """Tables in the database the DSN names: a scratch server holds none the rehearsal did not make."""
        rows = self.admin.execute(
            "SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            f" WHERE c.relkind IN ('r', 'p') AND {SYSTEM} ORDER BY 1 LIMIT 5"
        ).fetchall()
        return [r[0] for r in rows]

    def drop_stale(self) -> list[str]:
        return scratch.pg_drop_stale_databases(self.admin)

    def create(self) -> str:
        return scratch.pg_create_database(self.admin)

    def drop(self, name: str) -> None:
        scratch.pg_drop_database(self.admin, name)

    def connect(self, database: str) -> Any:
        return self.psycopg.connect(self.url, dbname=database, autocommit=True)

    def execute(self, conn: Any, sql: str) -> None:
        conn.execute(sql)

    def error(self, exc: BaseException) -> bool:
        return isinstance(exc, self.psycopg.Error)

    def pid(self, conn: Any) -> int:
        return int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])

    # ---- the tables

    def oid(self, conn: Any, table: str) -> int | None:
        found = conn.execute("SELECT to_regclass(%s)::oid", (table,)).fetchone()[0]
        return int(found) if found is not None else None

    def parents(self, conn: Any, oid: int) -> list[int]:
        rows = conn.execute(
            "SELECT DISTINCT confrelid FROM pg_constraint WHERE conrelid = %s AND contype = 'f'", (oid,)
        ).fetchall()
        return [int(r[0]) for r in rows]

    def name(self, conn: Any, oid: int) -> str:
        return conn.execute("SELECT %s::regclass::text", (oid,)).fetchone()[0]

    def bytes(self, conn: Any, oid: int) -> int:
        return int(conn.execute("SELECT pg_relation_size(%s)", (oid,)).fetchone()[0])

    def fill(self, conn: Any, oid: int, rows: int, filled: dict[int, int], row_bytes: float | None) -> None:
        """`rows` synthetic rows in table `oid`, each column a value of its type made from the row's
        number; a foreign key's columns take the referenced table's values (`filled`: its rows)."""
        columns = self._columns(conn, oid)
        keys = conn.execute(
            "SELECT conkey, confrelid, confkey FROM pg_constraint WHERE conrelid = %s AND contype = 'f'", (oid,)
        ).fetchall()
        texts = sum(1 for c in columns if c[3] == "S")
        width = TEXT_WIDTH
        if row_bytes and texts:  # the rest of the row: a tuple header and about 8 bytes a column
            width = max(4, int((row_bytes - 24 - 8 * (len(columns) - texts)) / texts))
        made = {c[0]: _value(c, width) for c in columns}
        for conkey, parent, confkey in keys:
            have = filled.get(int(parent), rows if int(parent) == oid else 0)
            parent_values = made if int(parent) == oid else _referenced(self._columns(conn, int(parent)), width)
            for mine, theirs in zip(conkey, confkey):
                source = parent_values.get(theirs)
                if have and source is not None:
                    made[mine] = source.replace(G, f"(({G} - 1) % {have} + 1)")
                else:
                    made[mine] = "NULL"
        names = [c[1] for c in columns if made.get(c[0]) is not None]
        values = [made[c[0]].replace(G, "g") for c in columns if made.get(c[0]) is not None]
        table = self.name(conn, oid)
        conn.execute(
            f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(values)}"
            f" FROM generate_series(1, {int(rows)}) AS s(g)"
        )
        for c in columns:
            if c[10] and made.get(c[0]) is not None:  # serial and identity: the next value follows the rows
                conn.execute(
                    f"SELECT setval(pg_get_serial_sequence(%s, %s), greatest(1, (SELECT max({c[1]}) FROM {table})))",
                    (table, c[1].strip('"')),
                )
        conn.execute(f"VACUUM ANALYZE {table}")

    def _columns(self, conn: Any, oid: int) -> list[tuple]:
        """Each column of table `oid`, in order: (number, quoted name, type, category, base type name,
        typtype, NOT NULL, identity, generated, has a default, has a sequence)."""
        return conn.execute(
            "SELECT a.attnum, quote_ident(a.attname), format_type(a.atttypid, a.atttypmod),"
            " COALESCE(b.typcategory, t.typcategory), COALESCE(b.typname, t.typname), t.typtype,"
            " a.attnotnull, a.attidentity, a.attgenerated, a.atthasdef,"
            " pg_get_serial_sequence(%s::regclass::text, a.attname) IS NOT NULL"
            " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type b ON b.oid = t.typbasetype"
            " AND t.typtype = 'd' WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            (oid, oid),
        ).fetchall()

    # ---- what the server shows of a statement

    def filenodes(self, conn: Any, oids: list[int]) -> dict[int, int]:
        rows = conn.execute("SELECT oid, relfilenode FROM pg_class WHERE oid = ANY(%s)", (oids,)).fetchall()
        return {int(o): int(n) for o, n in rows}

    def scans(self, conn: Any, oids: list[int], own: bool) -> dict[int, int]:
        """Sequential scans of each table: this transaction's (`own`, the xact view, exact), else
        the counters every session's flushed statistics add up to."""
        view = "pg_stat_xact_user_tables" if own else "pg_stat_user_tables"
        if not own:
            conn.execute("SELECT pg_stat_clear_snapshot()")
        rows = conn.execute(f"SELECT relid, seq_scan FROM {view} WHERE relid = ANY(%s)", (oids,)).fetchall()
        return {int(o): int(n or 0) for o, n in rows}

    def flush_statistics(self, conn: Any) -> None:
        """Make the statistics of `conn`'s finished statements visible to other sessions."""
        if self.version_num >= 150000:
            conn.execute("SELECT pg_stat_force_next_flush()")
            conn.execute("SELECT 1")
        else:  # the statistics collector hears of them within half a second
            time.sleep(0.7)

    def own_locks(self, conn: Any, oids: list[int]) -> dict[int, str]:
        """The strongest relation lock this session holds on each of `oids`."""
        rows = conn.execute(
            "SELECT relation, mode FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation'"
            " AND granted AND relation = ANY(%s)",
            (oids,),
        ).fetchall()
        out: dict[int, str] = {}
        for oid, mode in rows:
            out[int(oid)] = stronger(out.get(int(oid)), mode)
        return out

    def watch_locks(self, database: str, pid: int, oids: list[int]) -> LockWatch:
        return LockWatch(self.connect(database), pid, oids)

    # ---- the probe's statements

    def probe_key(self, conn: Any, oid: int) -> tuple[str, str] | None:
        """(column, value) of one row's primary key, for probes that touch a row through its index."""
        found = conn.execute(
            "SELECT quote_ident(a.attname) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
            " AND a.attnum = i.indkey[0] WHERE i.indrelid = %s AND i.indisprimary AND i.indnatts = 1",
            (oid,),
        ).fetchone()
        if found is None:
            return None
        table = self.name(conn, oid)
        value = conn.execute(f"SELECT {found[0]}::text FROM {table} LIMIT 1").fetchone()
        return (found[0], value[0]) if value is not None else None

    def probe_sql(self, table: str, key: tuple[str, str] | None) -> tuple[str, str]:
        """(read, write): a one-row read and write by primary key, or, with none, statements that
        take a read's and a write's lock and touch no row."""
        if key is None:
            return f"SELECT 1 FROM {table} WHERE false", f"UPDATE {table} SET {_any_column()} WHERE false"
        column, value = key
        literal = "'" + value.replace("'", "''") + "'"
        return (
            f"SELECT 1 FROM {table} WHERE {column} = {literal}",
            f"UPDATE {table} SET {column} = {column} WHERE {column} = {literal}",
        )

    def outside(self, conn: Any, sql: str) -> str | None:
        """Why `sql` would write outside the scratch database (roles, databases, settings, files), or None."""
        return scratch.outside(sql, "postgres")

    def waiting(self, conn: Any, pids: list[int]) -> set[int]:
        """Which of the sessions `pids` wait for a lock (one not granted in pg_locks)."""
        rows = conn.execute("SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pid = ANY(%s)", (pids,))
        return {int(r[0]) for r in rows.fetchall()}

    def hold_sql(self, table: str) -> str:
        return f"SELECT 1 FROM {table} LIMIT 0"  # AccessShareLock, held until the transaction ends


def _any_column() -> str:
    return "ctid = ctid"  # never written: the WHERE is false; a system column every table has


# pg_locks' modes, weakest first: the strongest a statement took is the one reported
MODES = (
    "AccessShareLock",
    "RowShareLock",
    "RowExclusiveLock",
    "ShareUpdateExclusiveLock",
    "ShareLock",
    "ShareRowExclusiveLock",
    "ExclusiveLock",
    "AccessExclusiveLock",
)


def stronger(a: str | None, b: str) -> str:
    if a is None:
        return b
    rank = {m: i for i, m in enumerate(MODES)}
    return a if rank.get(a, -1) >= rank.get(b, -1) else b


class LockWatch(threading.Thread):
    """Reads pg_locks for one session every few milliseconds while a statement that cannot run in a
    transaction block runs alone (CREATE INDEX CONCURRENTLY): the strongest lock seen on each table."""

    def __init__(self, conn: Any, pid: int, oids: list[int]):
        super().__init__(daemon=True)
        self.conn, self.pid, self.oids = conn, pid, oids
        self.seen: dict[int, str] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        with contextlib.suppress(Exception):
            while not self.stop.is_set():
                for oid, mode in self.conn.execute(
                    "SELECT relation, mode FROM pg_locks WHERE pid = %s AND locktype = 'relation' AND granted"
                    " AND relation = ANY(%s)",
                    (self.pid, self.oids),
                ).fetchall():
                    self.seen[int(oid)] = stronger(self.seen.get(int(oid)), mode)
                time.sleep(0.002)

    def finish(self) -> dict[int, str]:
        self.stop.set()
        self.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()
        return self.seen


def _referenced(columns: list[tuple], width: int) -> dict[int, str | None]:
    """The values a referenced table's columns hold, by column number, as `fill` made them."""
    out = {c[0]: _value(c, width) for c in columns}
    for c in columns:
        if c[7] == "a":  # GENERATED ALWAYS: numbered from 1 as the rows were made
            out[c[0]] = f"{G}::{c[2]}"
    return out


def _value(column: tuple, width: int) -> str | None:
    """A SQL expression of the row number `g` giving a value of the column's type (None: the column
    is left to its default or generated)."""
    _, _, type_, category, base, typtype, _, identity, generated, hasdef, _ = column
    if identity == "a" or generated:
        return None
    if typtype == "e":
        labels = f"enum_range(NULL::{type_})"
        return f"({labels})[1 + ({G} % cardinality({labels}))::int]"
    if base == "int2":
        return f"({G} % 32000)::{type_}"
    if category == "N":
        return f"{G}::{type_}"
    if category == "S":
        return f"left({G}::text || repeat('x', {width}), {width})::{type_}"  # an explicit cast truncates
    if category == "B":
        return f"({G} % 2 = 0)"
    if category == "D":
        return f"({START} + {G} * interval '1 second')::{type_}"
    if category == "T":
        return f"({G} * interval '1 second')::{type_}"
    if base == "uuid":
        return f"md5({G}::text)::{type_}"
    if base in ("json", "jsonb"):
        return f"json_build_object('n', {G})::{type_}"
    if base == "bytea":
        return f"decode(md5({G}::text), 'hex')::{type_}"
    if category == "I":
        return f"('10.0.0.0'::inet + {G})::{type_}"
    if category == "A":
        return f"'{{}}'::{type_}"
    if hasdef:
        return None
    return "NULL"
