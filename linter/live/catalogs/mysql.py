"""Read a live MySQL or MariaDB server's catalog into a `Schema` (mysqlclient / MySQLdb).

Everything here reads; nothing writes. The session is made read-only with short lock
and statement timeouts (`prepare_session`), and `read_schema` sends a fixed number of
queries whatever the number of tables or schemas (the schema list goes into each
query's WHERE clause):

    1  SELECT VERSION(), @@performance_schema, UTC_TIMESTAMP(), ...
    2  uptime (start of the counters), and @@userstat on MariaDB
    then, when performance_schema is on (before information_schema opens every table):
    +3    performance_schema.setup_instruments/setup_consumers,
          table_io_waits_summary_by_table (COUNT_INSERT, COUNT_FETCH, ...),
          table_io_waits_summary_by_index_usage (rows read per index)
    3  information_schema.TABLES                          (tables, views, engine, character set,
                                                          row format, size: rows, data and index bytes)
    4  information_schema.COLUMNS                         (types, nullability, defaults, character
                                                          set, generated and AUTO_INCREMENT columns)
    5  information_schema.STATISTICS                      (PRIMARY, unique and secondary indexes)
    +1 mysql.innodb_index_stats                           (each index's size in pages, where the
                                                          account may read it; else sizes are unknown)
    6  information_schema.PARTITIONS                      (method, expression)
    7  KEY_COLUMN_USAGE + TABLE_CONSTRAINTS/CHECK_CONSTRAINTS (foreign keys and CHECK constraints)
    or, on MariaDB with performance_schema off (or unreadable) and userstat on:
    +2    information_schema.TABLE_STATISTICS, INDEX_STATISTICS

So 8 queries without counters, 10 with userstat, 11 with performance_schema.

The primary key is the index named PRIMARY in STATISTICS (only a real PRIMARY KEY can
carry that name), never COLUMN_KEY = 'PRI', which also marks the first NOT NULL unique
key of a table that has no primary key.

Privileges the reading account needs
    - any privilege on the tables to audit (SELECT on the schemas is the usual grant):
      information_schema shows only the objects the account has privileges on;
    - SELECT on performance_schema (``GRANT SELECT ON performance_schema.* TO ...``)
      for the workload counters when performance_schema is on; without it a note says so;
    - MariaDB userstat tables need no extra grant: TABLE_STATISTICS and
      INDEX_STATISTICS list the rows of the tables the account can see.
    - index sizes come from InnoDB's persistent statistics, readable with
      ``GRANT SELECT ON mysql.innodb_index_stats TO ...``; without it they stay unknown (no note:
      only the HTML report draws them, and it says so);
    PROCESS, SUPER or any write privilege are not needed.

Workload figures
    - performance_schema: `inserts`, `updates`, `deletes` are rows written, `reads` rows
      fetched (COUNT_FETCH); `Index.scans` is the rows read through that index, the
      closest figure MySQL keeps to a scan count (0 = unused since the counters began).
    - userstat (MariaDB): TABLE_STATISTICS.ROWS_CHANGED counts inserted, updated and
      deleted rows together; they are reported as `inserts` (writes), and a note says so.
      Newer servers with ROWS_INSERTED/ROWS_UPDATED/ROWS_DELETED columns are read exactly.
    - `since` is the server start for performance_schema, which counts from there unless someone
      truncated its tables. userstat counts from when `userstat` was turned on or last flushed
      (FLUSH TABLE_STATISTICS), which the server does not record: `since` is then unknown.
"""

from __future__ import annotations

import re
import threading
from dataclasses import field
from datetime import UTC, datetime, timedelta
from typing import Any

from schemacite.live.catalogs import NothingToRead
from schemacite.model import (
    Column,
    Index,
    Location,
    Partitioning,
    Schema,
    Table,
    View,
    Workload,
)
from schemacite.model.dialects import Dialect
from schemacite.model.record import record
from schemacite.model.schema import Check, ForeignKey
from schemacite.sources.mysql.types import canonical_charset, canonical_collation, parse_type
from schemacite.sources.names import table_key

SYSTEM_SCHEMAS = ("mysql", "information_schema", "performance_schema", "sys")

TABLE_IO_INSTRUMENT = "wait/io/table/sql/handler"

_METHODS = {
    "RANGE": "range",
    "RANGE COLUMNS": "range",
    "LIST": "list",
    "LIST COLUMNS": "list",
    "HASH": "hash",
    "LINEAR HASH": "hash",
    "KEY": "key",
    "LINEAR KEY": "key",
    "SYSTEM_TIME": "system_time",
}

_INDEX_KINDS = {"BTREE": "btree", "HASH": "hash", "FULLTEXT": "fulltext", "SPATIAL": "spatial", "RTREE": "spatial"}

_BACKQUOTED = re.compile(r"`((?:[^`]|``)*)`")
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _mysql_errors() -> tuple[type[BaseException], ...]:
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import MySQLdb

    return (MySQLdb.OperationalError, MySQLdb.ProgrammingError, MySQLdb.InternalError)


# ---------------------------------------------------------------- session


def prepare_session(
    conn: Any,
    dialect: str,
    *,
    statement_timeout: float = 30.0,
    lock_timeout: float = 2.0,
) -> list[str]:
    """Make `conn` a low-impact, read-only audit session; return notes on what failed.

    - autocommit on, so no read view stays open between queries;
    - ``SET SESSION TRANSACTION READ ONLY``: any write would be refused by the server;
    - statement timeout: ``max_execution_time`` (MySQL, milliseconds, SELECT only) or
      ``max_statement_time`` (MariaDB, seconds);
    - ``lock_wait_timeout`` (metadata locks) and ``innodb_lock_wait_timeout``, in
      whole seconds, at least 1.
    """
    notes: list[str] = []
    errors = _mysql_errors()
    if callable(getattr(conn, "autocommit", None)):
        conn.autocommit(True)
    lock_seconds = max(1, round(lock_timeout))
    statements = ["SET SESSION TRANSACTION READ ONLY"]
    if dialect == Dialect.MARIADB:
        statements.append(f"SET SESSION max_statement_time = {float(statement_timeout):.3f}")
    else:
        statements.append(f"SET SESSION max_execution_time = {int(statement_timeout * 1000)}")
    statements += [
        f"SET SESSION lock_wait_timeout = {lock_seconds}",
        f"SET SESSION innodb_lock_wait_timeout = {lock_seconds}",
    ]
    cur = conn.cursor()
    try:
        for statement in statements:
            try:
                cur.execute(statement)
            except errors as exc:
                notes.append(f"could not apply `{statement}`: {exc.args[-1] if exc.args else exc}")
    finally:
        cur.close()
    return notes


# ---------------------------------------------------------------- reading


def read_schema(
    conn: Any, schemas: list[str] | None, dialect: str = "mysql", *, side: Any = None
) -> tuple[Schema, list[str]]:
    """Read tables, views, keys, partitioning and workload counters of `schemas`.

    `schemas` None means every schema except the system ones. Returns the schema and
    notes on what could not be read (counters off, a missing privilege, ...).

    `side`, a second session already made read-only with `prepare_session`, reads the
    performance_schema counters while `conn` reads information_schema: on a server that
    holds many tables open, the per-index summary alone takes seconds of server time
    (10,000 open tables: about 3 s), which then overlaps the catalog queries.
    """
    notes: list[str] = []
    cur = conn.cursor()
    try:
        return _read(conn, cur, schemas, dialect, notes, side), notes
    finally:
        cur.close()


class _Background(threading.Thread):
    """Fetch the performance_schema counters on the side session."""

    def __init__(self, side: Any, schemas: list[str] | None):
        super().__init__(daemon=True)
        self.side, self.schemas = side, schemas
        self.notes: list[str] = []
        self.rows: tuple[list, list] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            cur = self.side.cursor()
            try:
                self.rows = _fetch_performance_schema(cur, self.schemas, self.notes)
            finally:
                cur.close()
        except BaseException as e:  # handed to the reading thread, which reports it
            self.error = e


def _schema_filter(column: str, schemas: list[str] | None) -> tuple[str, list[str]]:
    if schemas:
        return f"{column} IN ({', '.join(['%s'] * len(schemas))})", list(schemas)
    return f"{column} NOT IN ({', '.join(['%s'] * len(SYSTEM_SCHEMAS))})", list(SYSTEM_SCHEMAS)


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes | bytearray) else value


def _rows(cur: Any, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[tuple]:
    cur.execute(sql, params or None)
    rows = cur.fetchall()
    # some information_schema columns come back as bytes; decode only the rows that have any
    # (a 10,000-table schema returns a million values)
    return [tuple(_text(v) for v in row) if bytes in map(type, row) else row for row in rows]


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _iso(moment: datetime) -> str:
    return moment.replace(tzinfo=UTC).isoformat().replace("+00:00", "Z")


def server_version(text: str) -> tuple[int, ...]:
    """The numbers of a VERSION() answer (`10.11.19-MariaDB-...` -> (10, 11, 19))."""
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(part) for part in match.groups()) if match else (0, 0, 0)


def _origin(conn: Any, dialect: str, user: str, port: int, schemas: list[str] | None) -> str:
    """`mariadb://user@host:port/db` for messages: no password, host as the client sees it."""
    host_info = conn.get_host_info() if callable(getattr(conn, "get_host_info", None)) else ""
    host = _text(host_info).split(" via ")[0] if host_info else "?"
    database = schemas[0] if schemas and len(schemas) == 1 else ""
    return f"{dialect}://{_text(user).split('@')[0]}@{host}:{port}/{database}"


@record
class _Server:
    """What query 1 and 2 learn of the server, and what the later queries share."""

    mariadb: bool
    version: tuple[int, ...]
    perf_schema_on: bool
    userstat_on: bool
    since: str
    sampled_at: str
    page_size: int
    where: str = ""
    params: list[Any] = field(default_factory=list)


def _read(conn: Any, cur: Any, schemas: list[str] | None, dialect: str, notes: list[str], side: Any = None) -> Schema:
    server, user, port, visible = _read_server(cur, schemas, dialect, notes)
    if schemas:
        _check_visible(schemas, visible, notes)
    schema = Schema(dialect=dialect, origin=_origin(conn, dialect, user, port, schemas))
    background = None
    counters = None
    if server.perf_schema_on and side is not None:
        background = _Background(side, schemas)
        background.start()
    elif server.perf_schema_on:
        counters = _fetch_performance_schema(cur, schemas, notes)
    server.where, server.params = _schema_filter("TABLE_SCHEMA", schemas)
    by_name, actual_collation = _read_tables(cur, server, schema, dialect, notes)
    _read_columns(cur, server, by_name, actual_collation)
    indexes = _read_indexes(cur, server, by_name)
    _index_sizes(cur, schemas, indexes, server.page_size)
    _read_partitioning(cur, server, by_name)
    # 7: foreign keys and CHECK constraints (CHECK_CONSTRAINTS: MySQL 8.0.16+, MariaDB 10.2.22+)
    _read_constraints(cur, server.where, server.params, by_name, schema, dialect, server.mariadb, server.version)
    # 8+: workload counters
    if background is not None:
        background.join()
        if background.error is not None:
            raise background.error
        counters = background.rows
        notes.extend(background.notes)
    if not _read_counters(cur, schemas, server, counters, by_name, indexes, notes):
        for table in schema.tables.values():
            table.workload = None
    return schema


def _read_server(
    cur: Any, schemas: list[str] | None, dialect: str, notes: list[str]
) -> tuple[_Server, str, int, str | None]:
    """Queries 1 and 2: the server, its counters' start, and which of `schemas` this account sees."""
    # the schemas asked for that this account can see, in the same round trip (a few names:
    # GROUP_CONCAT's 1024-byte limit is far off)
    where, params = _schema_filter("SCHEMA_NAME", schemas)
    visible_sql = (
        f"(SELECT GROUP_CONCAT(SCHEMA_NAME SEPARATOR '\\n') FROM information_schema.SCHEMATA WHERE {where})"
        if schemas
        else "NULL"
    )
    ((version_text, perf_schema_on, now, user, port, visible, page_size),) = _rows(
        cur,
        f"SELECT VERSION(), @@performance_schema, UTC_TIMESTAMP(), CURRENT_USER(), @@port, {visible_sql},"
        " @@innodb_page_size",
        params if schemas else (),
    )
    mariadb = "mariadb" in str(version_text).lower()  # what the server has, whatever the dialect asked
    if mariadb != (dialect == Dialect.MARIADB):
        notes.append(f"the server reports {version_text}; dialect {dialect} was asked for")
    if mariadb:
        ((userstat_on, uptime),) = _rows(
            cur,
            "SELECT @@userstat, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'",
        )
    else:
        userstat_on = 0
        ((_name, uptime),) = _rows(cur, "SHOW GLOBAL STATUS LIKE 'Uptime'")
    server = _Server(
        mariadb=mariadb,
        version=server_version(str(version_text)),
        perf_schema_on=perf_schema_on,
        userstat_on=userstat_on,
        # the server start, to the minute: `now` and the uptime tick at different sub-second
        # phases, so to the second two readings of one server could disagree
        since=_iso((now - timedelta(seconds=int(uptime))).replace(second=0, microsecond=0)),
        sampled_at=_iso(now),
        page_size=int(page_size or 16384),
    )
    return server, user, port, visible


def _check_visible(schemas: list[str], visible: str | None, notes: list[str]) -> None:
    """Stop when none of `schemas` can be read; a note names those that cannot."""
    seen = {n.lower() for n in str(_text(visible) or "").split("\n") if n}
    missing = [s for s in schemas if s.lower() not in seen]
    if len(missing) == len(schemas):
        raise NothingToRead(f"no schema {', '.join(missing)} on this server, or none this account can see")
    if missing:
        notes.append(
            f"no schema {', '.join(missing)} on this server, or this account cannot see it; "
            f"read {', '.join(s for s in schemas if s.lower() in seen)}"
        )


def _read_tables(
    cur: Any, server: _Server, schema: Schema, dialect: str, notes: list[str]
) -> tuple[dict[tuple[str, str], Table], dict[tuple[str, str], str | None]]:
    """Query 3: tables and views, into `schema`; returns the tables by (schema, name) and each one's collation.

    Keys are the replay's (table_key): the bare lower-cased name, since a migration runs inside one
    database; a name found in several of the schemas read keeps its schema ("shop.events") so that
    none hides another."""
    relations = _rows(
        cur,
        # as a CREATE TABLE states them: the collation when it is not its character set's default,
        # the row format when CREATE_OPTIONS says it was asked for
        "SELECT t.TABLE_SCHEMA, t.TABLE_NAME, t.TABLE_TYPE, t.ENGINE, t.TABLE_ROWS, t.TABLE_COLLATION,"
        " co.IS_DEFAULT, t.CREATE_OPTIONS, t.DATA_LENGTH, t.INDEX_LENGTH"
        " FROM information_schema.TABLES t"
        " LEFT JOIN information_schema.COLLATIONS co ON co.COLLATION_NAME = t.TABLE_COLLATION"
        f" WHERE t.{server.where} ORDER BY t.TABLE_SCHEMA, t.TABLE_NAME",
        server.params,
    )
    schemas_of: dict[str, set[str]] = {}
    for db, name, *_ in relations:
        schemas_of.setdefault(name.lower(), set()).add(db.lower())
    by_name: dict[tuple[str, str], Table] = {}
    actual_collation: dict[tuple[str, str], str | None] = {}
    for row in relations:
        db, name, kind = row[:3]
        key = table_key(f"{_quote(db)}.{_quote(name)}", dialect)
        if len(schemas_of[name.lower()]) > 1:
            key = f"{db.lower()}.{key}"
        if key in schema.tables or key in schema.views:
            notes.append(f"{db}.{name} differs from another table only in letter case; it was left out")
            continue
        if kind == "VIEW":
            schema.views[key] = View(name=name.lower(), schema=db.lower(), defined_at=Location(f"{db}.{name}"))
            continue
        if kind not in ("BASE TABLE", "SYSTEM VERSIONED", "TEMPORARY"):
            continue  # SEQUENCE and the like
        table = _table(*row)
        # dropped in _read if no counters are read
        table.workload = Workload(rows=row[4], since=server.since, sampled_at=server.sampled_at)
        schema.tables[key] = by_name[(db, name)] = table
        actual_collation[(db, name)] = canonical_collation(row[5])
    return by_name, actual_collation


def _table(
    db: str,
    name: str,
    kind: str,
    engine: str,
    rows: Any,
    collation: str | None,
    default_collation: Any,
    options: Any,
    data_length: Any,
    _index_length: Any,
) -> Table:
    """One row of query 3 as a Table."""
    collation = canonical_collation(collation)
    row_format = next(
        (o.split("=", 1)[1].upper() for o in str(_text(options) or "").split() if o.lower().startswith("row_format=")),
        None,
    )
    return Table(
        name=name.lower(),
        schema=db.lower(),
        engine=engine,
        persistence="temporary" if kind == "TEMPORARY" else "permanent",
        charset=canonical_charset(collation.split("_", 1)[0]) if collation else None,
        collation=None if str(_text(default_collation) or "").lower() == "yes" else collation,
        row_format=row_format,
        rows=int(rows) if rows is not None else None,
        bytes=int(data_length) if data_length is not None else None,
        defined_at=Location(f"{db}.{name}"),
    )


def _read_columns(
    cur: Any,
    server: _Server,
    by_name: dict[tuple[str, str], Table],
    actual_collation: dict[tuple[str, str], str | None],
) -> None:
    """Query 4: the columns of the tables read."""
    for db, name, column, _pos, column_type, nullable, default, charset, collation, extra, generation in _rows(
        cur,
        "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT,"
        " CHARACTER_SET_NAME, COLLATION_NAME, EXTRA, GENERATION_EXPRESSION"
        f" FROM information_schema.COLUMNS WHERE {server.where} ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION",
        server.params,
    ):
        table = by_name.get((db, name))
        if table is None:
            continue  # a view's columns
        if server.mariadb and default == "NULL":
            default = None  # MariaDB writes the default as an expression: NULL, 'text', 0
        name_key = column.lower()
        base, args, unsigned, zerofill = parse_type(column_type)
        extra = (extra or "").upper()
        charset, collation = canonical_charset(charset), canonical_collation(collation)
        generated = (
            "stored" if "STORED" in extra or "PERSISTENT" in extra else "virtual" if "VIRTUAL" in extra else None
        )
        table.columns[name_key] = Column(
            name=name_key,
            type=column_type,
            nullable=nullable == "YES",
            default=None if generated else default,
            base_type=base,
            type_args=args,
            unsigned=unsigned,
            zerofill=zerofill,
            auto_increment="AUTO_INCREMENT" in extra,
            generated=generated,
            invisible="INVISIBLE" in extra,
            expression=generation if generated else None,
            # as a definition names them: only where they differ from the table's
            charset=charset if charset != table.charset else None,
            collation=collation if collation != actual_collation[(db, name)] else None,
        )


def _read_indexes(
    cur: Any, server: _Server, by_name: dict[tuple[str, str], Table]
) -> dict[tuple[str, str, str], Index]:
    """Query 5: the indexes of the tables read, by (schema, table, index name).

    MySQL 8.0.13+ has functional key parts (COLUMN_NAME NULL, EXPRESSION set). No ORDER BY:
    STATISTICS lists a table's keys in the server's own order (the order SHOW CREATE TABLE shows:
    the primary key, then NOT NULL unique keys of whole columns as declared, ...), which is where
    InnoDB finds the key it clusters on; sorting by name would lose it. (Measured on MariaDB 10.11,
    where INNODB_SYS_INDEXES marks that key clustered; MySQL 8's order is not checked here.)"""
    expression = "EXPRESSION" if not server.mariadb and server.version >= (8, 0, 13) else "NULL"
    indexes: dict[tuple[str, str, str], Index] = {}
    rows = _rows(
        cur,
        "SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, INDEX_TYPE,"
        f" {expression}, SUB_PART FROM information_schema.STATISTICS WHERE {server.where}",
        server.params,
    )
    first_seen: dict[tuple, int] = {}
    for r in rows:
        first_seen.setdefault(r[:3], len(first_seen))
    rows.sort(key=lambda r: (first_seen[r[:3]], int(r[4])))
    for db, name, index_name, non_unique, _seq, column, index_type, key_expression, sub_part in rows:
        table = by_name.get((db, name))
        if table is None:
            continue
        part = column.lower() if column is not None else f"({key_expression})"
        index = indexes.get((db, name, index_name))
        if index is None:
            primary = index_name == "PRIMARY"
            index = Index(
                name=index_name.lower(),
                columns=(),
                unique=int(non_unique) == 0,
                primary=primary,
                kind=_INDEX_KINDS.get(str(index_type).upper(), str(index_type).lower()),
                defined_at=Location(f"{db}.{name}"),
            )
            indexes[(db, name, index_name)] = index
            if primary:
                table.primary_key = index
            else:
                table.indexes.append(index)
        index.columns = (*index.columns, part)
        index.prefix = index.prefix or sub_part is not None
    return indexes


def _read_partitioning(cur: Any, server: _Server, by_name: dict[tuple[str, str], Table]) -> None:
    """Query 6: partitioning (one row per partition; DISTINCT keeps one per table)."""
    for db, name, method, expr, sub_method, sub_expr in _rows(
        cur,
        "SELECT DISTINCT TABLE_SCHEMA, TABLE_NAME, PARTITION_METHOD, PARTITION_EXPRESSION,"
        " SUBPARTITION_METHOD, SUBPARTITION_EXPRESSION FROM information_schema.PARTITIONS"
        f" WHERE {server.where} AND PARTITION_NAME IS NOT NULL",
        server.params,
    ):
        table = by_name.get((db, name))
        if table is not None and method:
            table.partitioning = _partitioning(table, method, expr, sub_method, sub_expr)


def _read_counters(
    cur: Any,
    schemas: list[str] | None,
    server: _Server,
    counters: tuple[list, list] | None,
    by_name: dict[tuple[str, str], Table],
    indexes: dict[tuple[str, str, str], Index],
    notes: list[str],
) -> bool:
    """Queries 8+: workload counters from performance_schema, else MariaDB's userstat; whether any were read."""
    mariadb, userstat_on, perf_schema_on = server.mariadb, server.userstat_on, server.perf_schema_on
    if mariadb and userstat_on and not perf_schema_on:
        return _read_userstat(cur, schemas, by_name, indexes, notes)
    if not perf_schema_on:
        notes.append(
            "no workload counters: performance_schema is OFF (set performance_schema=ON in the"
            " server configuration and restart)"
            + (" and userstat is OFF (SET GLOBAL userstat=ON, no restart needed)" if mariadb else "")
        )
        return False
    got_counters = counters is not None and _apply_performance_schema(counters, by_name, indexes)
    if not got_counters and mariadb and userstat_on:
        got_counters = _read_userstat(cur, schemas, by_name, indexes, notes)
    if not got_counters and mariadb and not userstat_on:
        notes.append("userstat is OFF as well (SET GLOBAL userstat=ON, no restart needed, gives per-table counters)")
    return got_counters


def _read_constraints(
    cur: Any,
    where: str,
    params: list[Any],
    by_name: dict[tuple[str, str], Table],
    schema: Schema,
    dialect: str,
    mariadb: bool,
    version: tuple[int, ...],
) -> None:
    checks = mariadb and version >= (10, 2, 22) or not mariadb and version >= (8, 0, 16)
    check_sql = (
        (
            " UNION ALL SELECT 'c', tc.TABLE_SCHEMA, tc.TABLE_NAME, tc.CONSTRAINT_NAME, NULL, 0, NULL, NULL, NULL,"
            " cc.CHECK_CLAUSE FROM information_schema.TABLE_CONSTRAINTS tc"
            " JOIN information_schema.CHECK_CONSTRAINTS cc ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA"
            " AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME"
            + (" AND cc.TABLE_NAME = tc.TABLE_NAME" if mariadb else "")
            + f" WHERE tc.CONSTRAINT_TYPE = 'CHECK' AND tc.{where}"
        )
        if checks
        else ""
    )
    rows = _rows(
        cur,
        "SELECT 'f', TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION,"
        " REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME, NULL"
        f" FROM information_schema.KEY_COLUMN_USAGE WHERE REFERENCED_TABLE_NAME IS NOT NULL AND {where}"
        + check_sql
        + " ORDER BY 2, 3, 4, 6",
        params + (params if checks else []),
    )
    keys: dict[tuple[str, str, str], ForeignKey] = {}
    for kind, db, name, constraint, column, _pos, ref_db, ref_name, ref_column, clause in rows:
        table = by_name.get((db, name))
        if table is None:
            continue
        if kind == "c":
            table.checks.append(Check(constraint.lower(), str(_text(clause) or "")))
            continue
        fk = keys.get((db, name, constraint))
        if fk is None:
            target = table_key(f"{_quote(ref_db)}.{_quote(ref_name)}", dialect)
            if target not in schema.tables and f"{ref_db.lower()}.{target}" in schema.tables:
                target = f"{ref_db.lower()}.{target}"
            fk = keys[(db, name, constraint)] = ForeignKey(constraint.lower(), (), target)
            table.foreign_keys.append(fk)
        fk.columns = (*fk.columns, column.lower())
        fk.ref_columns = (*fk.ref_columns, ref_column.lower())


def _identifiers(expression: str, table: Table) -> tuple[str, ...]:
    """Column names a partitioning expression reads (the server backquotes every one)."""
    names = [name.replace("``", "`") for name in _BACKQUOTED.findall(expression)]
    if not names:  # unquoted text: keep the words that are columns of the table
        names = [word for word in _WORD.findall(expression) if word.lower() in table.columns]
    seen: dict[str, None] = {}
    for name in names:
        seen.setdefault(name.lower(), None)
    return tuple(seen)


def _partitioning(
    table: Table, method: str, expr: str | None, sub_method: str | None, sub_expr: str | None
) -> Partitioning:
    expr = expr or ""
    text = f"{method}({expr})"
    columns = _identifiers(expr, table)
    uses_primary_key = method.upper().endswith("KEY") and not expr.strip()
    if uses_primary_key and table.primary_key is not None:
        columns = table.primary_key.columns  # KEY () hashes the primary key
    if sub_method:
        text += f" SUBPARTITION BY {sub_method}({sub_expr or ''})"
        sub_columns = _identifiers(sub_expr or "", table)
        if sub_method.upper().endswith("KEY") and not (sub_expr or "").strip() and table.primary_key is not None:
            sub_columns = table.primary_key.columns
        columns = tuple(dict.fromkeys((*columns, *sub_columns)))
    return Partitioning(
        method=_METHODS.get(method.upper(), method.lower()),
        columns=columns,
        expression=text,
        uses_primary_key=uses_primary_key,
        defined_at=table.defined_at,
    )


_PARTITION_SUFFIX = re.compile(r"#[pP]#.*$")  # InnoDB keeps a partition as `table#P#p0` (MySQL 8: `#p#`)


def _index_sizes(
    cur: Any, schemas: list[str] | None, indexes: dict[tuple[str, str, str], Index], page_size: int
) -> None:
    """Each index's size from InnoDB's persistent statistics (pages, summed over partitions), when
    this account may read mysql.innodb_index_stats; otherwise sizes stay unknown."""
    where, params = _schema_filter("database_name", schemas)
    try:
        rows = _rows(
            cur,
            "SELECT database_name, table_name, index_name, stat_value FROM mysql.innodb_index_stats"
            f" WHERE stat_name = 'size' AND {where}",
            params,
        )
    except _mysql_errors():
        return  # no SELECT on it (the documented audit grants give none): sizes unknown
    for db, table, name, pages in rows:
        index = indexes.get((db, _PARTITION_SUFFIX.sub("", table), name))
        if index is not None and pages is not None:
            index.bytes = (index.bytes or 0) + int(pages) * page_size


def _denied(exc: BaseException, what: str) -> str:
    code = exc.args[0] if exc.args else "?"
    message = exc.args[-1] if exc.args else str(exc)
    if code in (1142, 1044, 1143):
        return (
            f"performance_schema counters unreadable ({message}): GRANT SELECT ON performance_schema.* TO this account"
        )
    return f"performance_schema counters unreadable: reading {what} failed ({code}: {message})"


def _fetch_performance_schema(cur: Any, schemas: list[str] | None, notes: list[str]) -> tuple[list, list] | None:
    """Table and index counters, or None (with a note) when they cannot be read.

    Read before information_schema: the information_schema queries open every table, and
    the by-index summary then grows with the tables the server holds open (10,000 tables:
    0.1 s before, 3 s after)."""
    errors = _mysql_errors()
    try:
        setup = dict(
            _rows(
                cur,
                "SELECT NAME, ENABLED FROM performance_schema.setup_instruments WHERE NAME = %s"
                " UNION ALL SELECT NAME, ENABLED FROM performance_schema.setup_consumers"
                " WHERE NAME = 'global_instrumentation'",
                [TABLE_IO_INSTRUMENT],
            )
        )
    except errors as exc:
        notes.append(_denied(exc, "performance_schema.setup_instruments"))
        return None
    if setup.get(TABLE_IO_INSTRUMENT) != "YES":
        notes.append(
            f"performance_schema counters off: instrument {TABLE_IO_INSTRUMENT} is disabled"
            " (UPDATE performance_schema.setup_instruments SET ENABLED='YES' WHERE NAME="
            f"'{TABLE_IO_INSTRUMENT}', or performance-schema-instrument='{TABLE_IO_INSTRUMENT}=ON')"
        )
        return None
    if setup.get("global_instrumentation") != "YES":
        notes.append(
            "performance_schema counters off: consumer global_instrumentation is disabled"
            " (UPDATE performance_schema.setup_consumers SET ENABLED='YES' WHERE NAME='global_instrumentation')"
        )
        return None

    where, params = _schema_filter("OBJECT_SCHEMA", schemas)
    try:
        table_rows = _rows(
            cur,
            "SELECT OBJECT_SCHEMA, OBJECT_NAME, COUNT_INSERT, COUNT_FETCH, COUNT_UPDATE, COUNT_DELETE"
            f" FROM performance_schema.table_io_waits_summary_by_table WHERE OBJECT_TYPE = 'TABLE' AND {where}",
            params,
        )
        index_rows = _rows(
            cur,
            "SELECT OBJECT_SCHEMA, OBJECT_NAME, INDEX_NAME, COUNT_FETCH"
            " FROM performance_schema.table_io_waits_summary_by_index_usage"
            f" WHERE OBJECT_TYPE = 'TABLE' AND INDEX_NAME IS NOT NULL AND {where}",
            params,
        )
    except errors as exc:
        notes.append(_denied(exc, "performance_schema.table_io_waits_summary_*"))
        return None
    return table_rows, index_rows


def _apply_performance_schema(
    rows: tuple[list, list],
    by_name: dict[tuple[str, str], Table],
    indexes: dict[tuple[str, str, str], Index],
) -> bool:
    table_rows, index_rows = rows
    for table in by_name.values():
        table.workload.source = "performance_schema"
    for index in indexes.values():
        index.scans = 0  # not listed: not read since the counters began
    for db, name, inserts, fetches, updates, deletes in table_rows:
        table = by_name.get((db, name))
        if table is not None:
            table.workload.inserts = int(inserts)
            table.workload.reads = int(fetches)
            table.workload.updates = int(updates)
            table.workload.deletes = int(deletes)
    for db, name, index_name, fetches in index_rows:
        index = indexes.get((db, name, index_name))
        if index is not None:
            index.scans = int(fetches)
    return True


def _read_userstat(
    cur: Any,
    schemas: list[str] | None,
    by_name: dict[tuple[str, str], Table],
    indexes: dict[tuple[str, str, str], Index],
    notes: list[str],
) -> bool:
    errors = _mysql_errors()
    where, params = _schema_filter("TABLE_SCHEMA", schemas)
    try:
        cur.execute(f"SELECT * FROM information_schema.TABLE_STATISTICS WHERE {where}", params)
        names = [d[0].upper() for d in cur.description]
        table_rows = [dict(zip(names, (_text(v) for v in row))) for row in cur.fetchall()]
        index_rows = _rows(
            cur,
            f"SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, ROWS_READ FROM information_schema.INDEX_STATISTICS WHERE {where}",
            params,
        )
    except errors as exc:
        notes.append(f"userstat counters unreadable: {exc.args[-1] if exc.args else exc}")
        return False

    exact = "ROWS_INSERTED" in names
    if not exact:
        notes.append(
            "userstat counts inserted, updated and deleted rows together (ROWS_CHANGED); they are reported as inserts"
        )
    for table in by_name.values():
        table.workload.source = "userstat"
        # userstat counts from when it was turned on (or last flushed), which the server does not
        # record: the server start would claim a longer quiet period than was watched
        table.workload.since = None
    notes.append(
        "userstat counts since it was turned on or last flushed; the server does not record when,"
        " so no start time is given"
    )
    for index in indexes.values():
        index.scans = 0
    for row in table_rows:
        table = by_name.get((row["TABLE_SCHEMA"], row["TABLE_NAME"]))
        if table is None:
            continue
        table.workload.reads = int(row["ROWS_READ"])
        if exact:
            table.workload.inserts = int(row["ROWS_INSERTED"])
            table.workload.updates = int(row.get("ROWS_UPDATED") or 0)
            table.workload.deletes = int(row.get("ROWS_DELETED") or 0)
        else:
            table.workload.inserts = int(row["ROWS_CHANGED"])
    for db, name, index_name, rows_read in index_rows:
        index = indexes.get((db, name, index_name))
        if index is not None:
            index.scans = int(rows_read)
    return True
