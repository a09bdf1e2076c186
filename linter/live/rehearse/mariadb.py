"""The MariaDB side of a rehearsal: scratch databases, synthetic rows (from the Sequence engine's
`seq_1_to_N` tables), and what the server shows of a statement: the metadata locks its session
holds (information_schema.METADATA_LOCK_INFO, the metadata_lock_info plugin's, sampled while it
runs: performance_schema's metadata_locks keeps the type a lock was taken with, not the one an
ALTER upgrades it to) and a rebuilt table (a new
InnoDB table id). MariaDB counts no sequential scans a rehearsal can read: `scans` is not said.
MySQL has no Sequence engine and is not rehearsed (no MySQL server could be had to test it)."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections import Counter
from typing import Any

from schemacite.live import scratch
from schemacite.live.servers import parse_dsn, query
from schemacite.sources.names import qualifiers

TEXT_WIDTH = 24
SYSTEM = ("mysql", "information_schema", "performance_schema", "sys")
G = "{g}"  # the row number in a value's expression, until the INSERT names it


class Side:
    counts_scans = False
    watches_every_statement = True  # DDL commits as it ends: its locks are seen only while it runs

    def __init__(self, url: str):
        # optional driver (the mysql extra), loaded only when a server is reached
        import MySQLdb

        self.MySQLdb = MySQLdb
        self.target = parse_dsn(url)
        self.admin = self._connect(None)
        version = query(self.admin, "SELECT VERSION()")[0][0]
        if "mariadb" not in version.lower():
            raise RuntimeError(f"{self.target.masked} is MySQL {version}: rehearsals run on MariaDB and PostgreSQL")
        self.server = f"MariaDB {version.split('-')[0]}"
        self.database = self.target.database or None
        self.lock_info = bool(
            query(
                self.admin,
                "SELECT 1 FROM information_schema.PLUGINS WHERE plugin_name = 'METADATA_LOCK_INFO'"
                " AND plugin_status = 'ACTIVE'",
            )
        )
        self.notes = (
            []
            if self.lock_info
            else [
                f"{self.server} shows no metadata locks without its metadata_lock_info plugin: the locks are not "
                "said (INSTALL SONAME 'metadata_lock_info' on the scratch server, or start it with "
                "--plugin-load-add=metadata_lock_info)"
            ]
        )

    def _connect(self, database: str | None) -> Any:
        t = self.target
        kw: dict[str, Any] = {"host": t.host or "127.0.0.1", "charset": "utf8mb4"}
        if t.port:
            kw["port"] = t.port
        if t.user:
            kw["user"] = t.user
        if t.password is not None:
            kw["password"] = t.password
        if database:
            kw["database"] = database
        conn = self.MySQLdb.connect(**kw)
        conn.autocommit(True)
        return conn

    # ---- the scratch databases

    def foreign_tables(self) -> list[str]:
        where = "table_schema = %s" if self.database else "table_schema NOT IN %s AND table_schema NOT LIKE %s"
        params = (self.database,) if self.database else (SYSTEM, scratch.PREFIX.replace("_", "\\_") + "%")
        rows = query(
            self.admin,
            f"SELECT CONCAT(table_schema, '.', table_name) FROM information_schema.TABLES WHERE {where}"
            " AND table_type = 'BASE TABLE' ORDER BY 1 LIMIT 5",
            params,
        )
        return [r[0] for r in rows]

    def drop_stale(self) -> list[str]:
        return scratch.mysql_drop_stale(self.admin)

    def create(self) -> str:
        return scratch.mysql_create(self.admin)

    def drop(self, name: str) -> None:
        scratch.mysql_drop(self.admin, name)

    def connect(self, database: str) -> Any:
        return self._connect(database)

    def execute(self, conn: Any, sql: str) -> None:
        query(conn, sql)

    def error(self, exc: BaseException) -> bool:
        return isinstance(exc, self.MySQLdb.Error)

    def pid(self, conn: Any) -> int:
        return int(conn.thread_id())

    # ---- the tables (named, not numbered: a table's name is its id here)

    def oid(self, conn: Any, table: str) -> str | None:
        name = table.rsplit(".", 1)[-1].strip("`")
        found = query(
            conn,
            "SELECT table_name FROM information_schema.TABLES WHERE table_schema = DATABASE() AND table_name = %s",
            (name,),
        )
        return found[0][0] if found else None

    def parents(self, conn: Any, oid: str) -> list[str]:
        rows = query(
            conn,
            "SELECT DISTINCT referenced_table_name FROM information_schema.KEY_COLUMN_USAGE WHERE table_schema ="
            " DATABASE() AND table_name = %s AND referenced_table_name IS NOT NULL",
            (oid,),
        )
        return [r[0] for r in rows]

    def name(self, conn: Any, oid: str) -> str:
        return oid

    def bytes(self, conn: Any, oid: str) -> int:
        found = query(
            conn,
            "SELECT data_length FROM information_schema.TABLES WHERE table_schema = DATABASE() AND table_name = %s",
            (oid,),
        )
        return int(found[0][0] or 0) if found else 0

    def fill(self, conn: Any, oid: str, rows: int, filled: dict[str, int], row_bytes: float | None) -> None:
        columns = self._columns(conn, oid)
        texts = sum(1 for c in columns if c[1] in ("char", "varchar", "text", "mediumtext", "longtext", "tinytext"))
        width = TEXT_WIDTH
        if row_bytes and texts:
            width = max(4, int((row_bytes - 20 - 8 * (len(columns) - texts)) / texts))
        made = {c[0]: _value(c, width) for c in columns}
        for column, parent, parent_column in query(
            conn,
            "SELECT column_name, referenced_table_name, referenced_column_name FROM information_schema.KEY_COLUMN_USAGE"
            " WHERE table_schema = DATABASE() AND table_name = %s AND referenced_table_name IS NOT NULL",
            (oid,),
        ):
            have = filled.get(parent, rows if parent == oid else 0)
            source = (made if parent == oid else {c[0]: _value(c, width) for c in self._columns(conn, parent)}).get(
                parent_column
            )
            made[column] = source.replace(G, f"(({G} - 1) % {have} + 1)") if have and source else "NULL"
        names = [f"`{c[0]}`" for c in columns if made.get(c[0]) is not None]
        values = [made[c[0]].replace(G, "seq") for c in columns if made.get(c[0]) is not None]
        query(conn, f"INSERT INTO `{oid}` ({', '.join(names)}) SELECT {', '.join(values)} FROM seq_1_to_{int(rows)}")
        query(conn, f"ANALYZE TABLE `{oid}`")

    def _columns(self, conn: Any, oid: str) -> list[tuple]:
        """Each column of table `oid`, in order: (name, data type, column type, extra, length)."""
        return query(
            conn,
            "SELECT column_name, data_type, column_type, extra, character_maximum_length FROM information_schema.COLUMNS"
            " WHERE table_schema = DATABASE() AND table_name = %s ORDER BY ordinal_position",
            (oid,),
        )

    # ---- what the server shows of a statement

    def filenodes(self, conn: Any, oids: list[str]) -> dict[str, int]:
        if not oids:
            return {}
        db = query(conn, "SELECT DATABASE()")[0][0]
        rows = query(
            conn,
            "SELECT name, table_id FROM information_schema.INNODB_SYS_TABLES WHERE name IN %s",
            (tuple(f"{db}/{o}" for o in oids),),
        )
        return {name.split("/", 1)[1]: int(tid) for name, tid in rows}

    def scans(self, conn: Any, oids: list[str], own: bool) -> dict[str, int]:
        return {}

    def flush_statistics(self, conn: Any) -> None:
        pass

    def own_locks(self, conn: Any, oids: list[str]) -> dict[str, str]:
        return {}

    def watch_locks(self, database: str, pid: int, oids: list[str]) -> LockWatch:
        return LockWatch(self._connect(database), pid, database, oids, self.lock_info)

    # ---- the probe's statements

    def probe_key(self, conn: Any, oid: str) -> tuple[str, str] | None:
        found = query(
            conn,
            "SELECT column_name FROM information_schema.STATISTICS WHERE table_schema = DATABASE() AND table_name = %s"
            " AND index_name = 'PRIMARY' ORDER BY seq_in_index",
            (oid,),
        )
        if len(found) != 1:
            return None
        value = query(conn, f"SELECT `{found[0][0]}` FROM `{oid}` LIMIT 1")
        return (f"`{found[0][0]}`", str(value[0][0])) if value else None

    def probe_sql(self, table: str, key: tuple[str, str] | None) -> tuple[str, str]:
        if key is None:
            return f"SELECT 1 FROM `{table}` WHERE 0", f"DELETE FROM `{table}` WHERE 0"
        column, value = key
        literal = "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
        return (
            f"SELECT 1 FROM `{table}` WHERE {column} = {literal}",
            f"UPDATE `{table}` SET {column} = {column} WHERE {column} = {literal}",
        )

    def outside(self, conn: Any, sql: str) -> str | None:
        """Why `sql` would write outside the scratch database (users, settings, files, another database), or None."""
        why = scratch.outside(sql, "mysql")
        if why is None and (dotted := qualifiers(sql)):
            current = query(conn, "SELECT DATABASE()")[0][0]
            others = {str(n).lower() for (n,) in query(conn, "SHOW DATABASES")} - {str(current).lower()}
            named = sorted(dotted & others)
            why = f"it names database(s) {', '.join(named)}" if named else None
        return why

    def waiting(self, conn: Any, pids: list[int]) -> set[int]:
        """Which of the sessions `pids` wait for a lock (the process list's state says so)."""
        rows = query(
            conn,
            "SELECT id FROM information_schema.PROCESSLIST WHERE id IN %s AND (state LIKE 'Waiting for %%lock%%'"
            " OR state LIKE '%%lock wait%%')",
            (tuple(pids),),
        )
        return {int(r[0]) for r in rows}

    def hold_sql(self, table: str) -> str:
        return f"SELECT 1 FROM `{table}` LIMIT 0"  # a shared metadata lock, held until the transaction ends


class LockWatch(threading.Thread):
    """Samples the metadata locks one session holds while a statement runs: per table, the lock type
    held the longest (an ALTER takes EXCLUSIVE for a moment at its start and end, and what it holds
    in between is what traffic meets)."""

    def __init__(self, conn: Any, pid: int, database: str, oids: list[str], enabled: bool):
        super().__init__(daemon=True)
        self.conn, self.pid, self.database, self.oids, self.enabled = conn, pid, database, oids, enabled
        self.samples: dict[str, Counter[str]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        if not self.enabled:
            return
        with contextlib.suppress(Exception):
            while not self.stop.is_set():
                for name, mode in query(
                    self.conn,
                    "SELECT table_name, lock_mode FROM information_schema.METADATA_LOCK_INFO WHERE thread_id = %s"
                    " AND table_schema = %s AND lock_type = 'Table metadata lock'",
                    (self.pid, self.database),
                ):
                    if name in self.oids:
                        self.samples.setdefault(name, Counter())[mode.removeprefix("MDL_")] += 1
                time.sleep(0.002)

    def finish(self) -> dict[str, str]:
        self.stop.set()
        self.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()
        return {name: seen.most_common(1)[0][0] for name, seen in self.samples.items()}


def _value(column: tuple, width: int) -> str | None:
    name, data_type, column_type, extra, length = column
    extra = (extra or "").upper()
    if "GENERATED" in extra or "VIRTUAL" in extra or "PERSISTENT" in extra or "STORED" in extra:
        return None
    unsigned = "unsigned" in column_type
    caps = {"tinyint": 127, "smallint": 32000, "mediumint": 8000000}
    if data_type in caps:
        return f"({G} % {caps[data_type] * (2 if unsigned else 1)})"
    if data_type in ("int", "bigint", "decimal", "float", "double"):
        return G
    if data_type in ("char", "varchar", "text", "tinytext", "mediumtext", "longtext"):
        n = min(width, int(length)) if length else width
        return f"LEFT(CONCAT({G}, REPEAT('x', {n})), {n})"
    if data_type in ("binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob"):
        n = min(16, int(length)) if length else 16
        return f"LEFT(UNHEX(MD5({G})), {n})"
    if data_type in ("datetime", "timestamp"):
        return f"TIMESTAMP '2024-01-01 00:00:00' + INTERVAL {G} SECOND"
    if data_type == "date":
        return f"DATE '2000-01-01' + INTERVAL ({G} % 20000) DAY"
    if data_type == "time":
        return f"SEC_TO_TIME({G} % 86400)"
    if data_type == "year":
        return f"2000 + {G} % 100"
    if data_type == "enum":
        labels = re.findall(r"'((?:[^']|'')*)'", column_type)
        return f"ELT(1 + {G} % {len(labels)}, " + ", ".join("'" + v + "'" for v in labels) + ")" if labels else None
    if data_type == "set":
        return "''"
    if data_type == "json" or data_type == "longtext" and "json" in column_type:
        return f"JSON_OBJECT('n', {G})"
    if data_type == "bit":
        return f"{G} % 2"
    if data_type == "uuid":
        return "UUID()"
    return None
