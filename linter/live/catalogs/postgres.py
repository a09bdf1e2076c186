"""Read a live PostgreSQL database's catalog into a `Schema` (psycopg 3).

Everything here reads; nothing writes. `prepare_session` makes the session read-only
with short lock and statement timeouts; `read_schema` sends a fixed number of queries,
inside one read-only transaction, whatever the number of tables or schemas:

    1  server version, track_counts, now(), pg_postmaster_start_time(),
       pg_stat_database.stats_reset of this database, block size
    2  pg_class + pg_namespace (+ pg_inherits, pg_partitioned_table):
       tables, partitioned tables and their partitions with their bounds, views, materialized
       views, persistence, size (pg_relation_size, reltuples, relpages); sequences no column
       owns (pg_depend)
    3  pg_attribute + pg_attrdef: columns, types, NOT NULL, defaults, identity, generated
    4  pg_index (+ pg_am, pg_inherits, pg_stat_user_indexes.idx_scan): primary key
       (indisprimary), unique and other indexes, their key columns or expressions and size
       (pg_relation_size)
    5  pg_constraint (CHECK, NOT NULL (18), FOREIGN KEY, with their validated and enforced
       state) and pg_depend + pg_rewrite (the relations each view reads), in one UNION
    6  pg_stat_user_tables: n_tup_ins/upd/del, seq_tup_read + idx_tup_fetch, n_live_tup
       (skipped when track_counts is off; a note says so)

So 6 queries per database (5 with track_counts off). One connection reads one
database; `schemas` are namespaces inside it.

Privileges the reading account needs
    CONNECT on the database, nothing more. The system catalogs, pg_get_expr,
    pg_get_indexdef, pg_stat_user_tables and pg_stat_user_indexes are readable by every
    role, and their counters are not filtered by privilege; pg_read_all_stats /
    pg_monitor only unlock other sessions' activity (pg_stat_activity), which this
    module does not read. (tests/test_catalogs.py checks this with a bare login role.)

Sizes
    `bytes` is pg_relation_size: the size of the main fork's file, exact, read without a row
    (the measured rates divide the same figure). `rows` is the statistics' reltuples, scaled
    as the planner scales it to the pages the file has now. A table whose statistics have not
    counted its rows since it was filled (reltuples -1 on 14+ before any VACUUM or ANALYZE;
    relpages 0 for a file that is not empty, on every version: 12 and 13 say 0 rows for both
    "never analysed" and "empty") has `rows` None and `analysed` False; a table whose file is
    empty has 0 rows. A partitioned table or index has no file: it gets its partitions' sums.
    pg_relation_size takes a brief lock on the relation: a relation another session holds or
    waits for in ACCESS EXCLUSIVE is not opened, and keeps the statistics' estimate.

Workload figures
    `inserts` n_tup_ins, `updates` n_tup_upd, `deletes` n_tup_del, `reads`
    seq_tup_read + idx_tup_fetch, `rows` n_live_tup; `Index.scans` idx_scan. A
    partitioned table has no counters of its own: it gets the sums of its partitions
    (its indexes the sums of their partitions' indexes). `since` is the database's
    stats_reset when recorded; otherwise the server start, with a note, because
    counters survive a clean restart and may be older.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import field
from datetime import UTC, datetime
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
from schemacite.model.record import record
from schemacite.model.schema import Check, ForeignKey
from schemacite.sources.names import table_key
from schemacite.sources.postgres.types import parse_type

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")

_STRATEGIES = {"r": "range", "l": "list", "h": "hash"}
_IDENTIFIER = re.compile(r'"((?:[^"]|"")*)"|([A-Za-z_][A-Za-z0-9_$]*)')


def _psycopg_errors() -> tuple[type[BaseException], ...]:
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import psycopg

    return (psycopg.Error,)


# ---------------------------------------------------------------- session


def prepare_session(
    conn: Any,
    dialect: str = "postgres",
    *,
    statement_timeout: float = 30.0,
    lock_timeout: float = 2.0,
    application_name: str = "schemacite",
) -> list[str]:
    """Make `conn` a low-impact, read-only audit session; return notes on what failed.

    Sets, for the session: ``default_transaction_read_only = on`` (any write is
    refused by the server), ``statement_timeout``, ``lock_timeout``,
    ``idle_in_transaction_session_timeout`` and ``application_name``, in one round trip.
    """
    notes: list[str] = []
    settings = {
        "default_transaction_read_only": "on",
        "statement_timeout": f"{int(statement_timeout * 1000)}ms",
        "lock_timeout": f"{int(lock_timeout * 1000)}ms",
        "idle_in_transaction_session_timeout": f"{int(max(statement_timeout, 1) * 2000)}ms",
        "application_name": application_name,
    }
    sql = "SELECT " + ", ".join("set_config(%s, %s, false)" for _ in settings)
    params = [value for pair in settings.items() for value in pair]
    cur = conn.cursor()
    try:
        cur.execute(sql, params)
    except _psycopg_errors() as exc:
        notes.append(f"could not configure the session: {exc}")
        if not conn.autocommit:
            conn.rollback()
        return notes
    finally:
        cur.close()
    if not conn.autocommit:
        conn.commit()  # keep the settings: a later rollback would undo them
    return notes


# ---------------------------------------------------------------- reading


def read_schema(conn: Any, schemas: list[str] | None, dialect: str = "postgres") -> tuple[Schema, list[str]]:
    """Read tables, views, keys, partitioning and workload counters of `schemas`.

    `schemas` None means every schema of the connected database except the system
    ones. Returns the schema and notes on what was degraded. The dialect is always
    "postgres" (the name the rest of schemacite uses); it is a parameter for symmetry.
    """
    dialect = "postgres"
    notes: list[str] = []
    with conn.transaction():
        cur = conn.cursor()
        try:
            return _read(conn, cur, schemas, dialect, notes), notes
        finally:
            cur.close()


def _schema_filter(schemas: list[str] | None) -> tuple[str, list[Any]]:
    if schemas:
        return "n.nspname = ANY(%s)", [list(schemas)]
    return (
        "n.nspname <> ALL(%s) AND n.nspname NOT LIKE 'pg\\_toast%%' AND n.nspname NOT LIKE 'pg\\_temp\\_%%'",
        [list(SYSTEM_SCHEMAS)],
    )


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _expression_columns(expression: str, table: Table) -> tuple[str, ...]:
    """Columns of `table` that an expression (as PostgreSQL prints it) reads."""
    found: dict[str, None] = {}
    for quoted, bare in _IDENTIFIER.findall(expression or ""):
        name = quoted.replace('""', '"') if quoted else bare.lower()
        if name in table.columns:
            found.setdefault(name, None)
    return tuple(found)


@record
class _Server:
    """What query 1 learns of the server, and what the later queries share."""

    track_counts: bool
    since: str | None
    sampled_at: str | None
    block_size: int
    unlocked: Callable[[str, str], str]
    where: str = ""
    params: list[Any] = field(default_factory=list)


@record
class _Relations:
    """Query 2's answer: the tables and views by oid, their keys in the schema, and what later queries join to."""

    tables: dict[int, Table] = field(default_factory=dict)
    views: dict[int, View] = field(default_factory=dict)
    keys: dict[int, str] = field(default_factory=dict)
    parents: dict[int, int] = field(default_factory=dict)
    partition_keys: dict[int, tuple[str, list[str], str, str, bool]] = field(default_factory=dict)


def _read(conn: Any, cur: Any, schemas: list[str] | None, dialect: str, notes: list[str]) -> Schema:
    # No function here takes a lock on a table (pg_get_partkeydef would): an audit reads every
    # table while another session holds ACCESS EXCLUSIVE on one, and names that one in a note.
    server = _read_server(cur, schemas, notes)
    info = conn.info
    schema = Schema(dialect=dialect, origin=f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}")
    server.where, server.params = _schema_filter(schemas)
    relations = _read_relations(cur, server, schema, dialect, notes)
    _read_columns(cur, server, relations.tables)
    _add_partitioning(relations)
    index_by_oid, index_parent = _read_indexes(cur, server, relations.tables)
    _roll_up_sizes(relations, index_by_oid, index_parent)
    # 5: constraints, and what views read
    _read_constraints_and_view_reads(
        cur, server.where, server.params, relations.tables, relations.keys, relations.views, server.unlocked
    )
    if not server.track_counts:
        notes.append(
            "no workload counters: track_counts is off (set track_counts = on in postgresql.conf"
            " or ALTER SYSTEM SET track_counts = on, then reload)"
        )
        return schema
    _read_workload(cur, server, relations.tables)
    _roll_up_partitions(
        relations.tables, relations.parents, index_by_oid, index_parent, server.since, server.sampled_at
    )
    return schema


# a partitioned table or index has no file (pg_relation_size says 0): its partitions' are summed
_TABLE_FILE_SIZE = "CASE WHEN c.relkind = 'r' THEN pg_relation_size(c.oid) END"
_INDEX_FILE_SIZE = "CASE WHEN ic.relkind = 'i' THEN pg_relation_size(i.indexrelid) END"
_EXCLUSIVE = (
    "l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock' AND l.pid <> pg_backend_pid()"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


def _read_server(cur: Any, schemas: list[str] | None, notes: list[str]) -> _Server:
    """Query 1: the server's settings and clock, which of `schemas` exist, and the relations another
    session holds or waits for in ACCESS EXCLUSIVE (named in a note, and not opened by the later queries)."""
    cur.execute(
        "SELECT current_setting('server_version_num')::int, current_setting('track_counts')::bool,"
        " now(), pg_postmaster_start_time(),"
        " (SELECT stats_reset FROM pg_stat_database WHERE datname = current_database()),"
        " current_setting('block_size')::int,"
        " ARRAY(SELECT nspname::text FROM pg_namespace WHERE nspname = ANY(%s)),"
        # a lock request waiting for ACCESS EXCLUSIVE queues every later one behind it (ours too)
        " ARRAY(SELECT DISTINCT l.relation::regclass::text || CASE WHEN l.granted THEN '' ELSE ' (awaited)' END"
        f"       FROM pg_locks l WHERE {_EXCLUSIVE}),"
        f" ARRAY(SELECT DISTINCT l.relation::int8 FROM pg_locks l WHERE {_EXCLUSIVE})",
        (list(schemas or []),),
    )
    _version, track_counts, now, started, stats_reset, block_size, found, locked, locked_oids = cur.fetchone()
    missing = [s for s in schemas or [] if s not in found]
    if missing and len(missing) == len(schemas or []):
        raise NothingToRead(f"no schema {', '.join(missing)} in this database")
    if missing:
        notes.append(
            f"no schema {', '.join(missing)} in this database; read {', '.join(s for s in schemas if s in found)}"
        )
    if locked:
        notes.append(
            f"held ACCESS EXCLUSIVE by another session while read: {', '.join(sorted(locked))}"
            " (read from the catalog, which needs no lock on them; their defaults, CHECK expressions"
            " and partition bounds were left out, their sizes are the statistics' estimates)"
        )
    if stats_reset is not None:
        since = _iso(stats_reset)
    else:
        since = _iso(started)
        if track_counts:
            notes.append(
                f"no statistics reset recorded for this database: counters are given since the server"
                f" start ({since}), but survive clean restarts and may be older"
            )
    # pg_get_expr and pg_get_constraintdef open the relation they deparse for: never on a locked one
    return _Server(track_counts, since, _iso(now), block_size, _unlocked(locked_oids))


def _read_relations(cur: Any, server: _Server, schema: Schema, dialect: str, notes: list[str]) -> _Relations:
    """Query 2: tables, views and sequences, into `schema`."""
    unlocked = server.unlocked
    cur.execute(
        "SELECT c.oid, n.nspname, c.relname, c.relkind, c.relpersistence, am.amname, inh.inhparent,"
        f" {unlocked('c.oid', 'pg_get_expr(c.relpartbound, c.oid)')}, c.reltuples::float8, c.relpages::int8,"
        " pt.partstrat,"
        # a serial or identity column's sequence is found through its column: only the others
        " c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass"
        "       AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')),"
        " ARRAY(SELECT a.attname FROM unnest(pt.partattrs::int2[]) WITH ORDINALITY AS k(attnum, ord)"
        "       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.ord),"
        f" {unlocked('pt.partrelid', 'pg_get_expr(pt.partexprs, pt.partrelid)')}, pt.partexprs IS NOT NULL,"
        f" {unlocked('c.oid', _TABLE_FILE_SIZE)}"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " LEFT JOIN pg_am am ON am.oid = c.relam"
        " LEFT JOIN pg_inherits inh ON inh.inhrelid = c.oid AND c.relispartition"
        " LEFT JOIN pg_partitioned_table pt ON pt.partrelid = c.oid"
        f" WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S') AND {server.where}"
        " ORDER BY n.nspname, c.relname",
        server.params,
    )
    found = _Relations()
    for row in cur.fetchall():
        oid, nsp, name, kind = row[:4]
        key = table_key(f"{_quote(nsp)}.{_quote(name)}", dialect)  # public.events -> events
        if kind == "S":
            if not row[11]:  # not a serial or identity column's own sequence
                schema.sequences.add(key)
            continue
        if key in schema.tables or key in schema.views:
            notes.append(f"{nsp}.{name} differs from another relation only in letter case; it was left out")
            continue
        found.keys[oid] = key
        if kind in ("v", "m"):
            found.views[oid] = schema.views[key] = View(
                name=name,
                schema=nsp,
                materialized=kind == "m",
                defined_at=Location(f"{nsp}.{name}"),
                reads=(),
            )
        else:
            schema.tables[key] = _add_table(found, server.block_size, *row)
    for oid, parent in found.parents.items():
        if parent in found.tables and oid in found.tables:
            found.tables[oid].partition_of = found.keys[parent]
    return found


def _add_table(
    found: _Relations,
    block_size: int,
    oid: int,
    nsp: str,
    name: str,
    _kind: str,
    persistence: str,
    access_method: str | None,
    parent: int | None,
    bound: str | None,
    reltuples: float | None,
    relpages: int | None,
    strategy: str | None,
    _owned_sequence: bool,
    key_columns: list[str] | None,
    key_exprs: str | None,
    by_expression: bool | None,
    size: int | None,
) -> Table:
    """One table row of query 2 as a Table, noted in `found` with its parent and partition key."""
    rows, size, analysed = _table_size(reltuples, relpages, size, block_size)
    table = Table(
        name=name,
        schema=nsp,
        engine=access_method,
        persistence=_PERSISTENCE.get(persistence, "permanent"),
        partition_bound=bound,
        rows=rows,
        bytes=size,
        analysed=analysed,
        defined_at=Location(f"{nsp}.{name}"),
    )
    found.tables[oid] = table
    if parent is not None:
        found.parents[oid] = parent
    if strategy is not None:
        keydef = f"{_STRATEGIES.get(strategy, strategy).upper()} ({', '.join([*(key_columns or []), *filter(None, [key_exprs])])})"
        found.partition_keys[oid] = (strategy, list(key_columns or []), keydef, key_exprs or "", bool(by_expression))
    return table


def _table_size(
    reltuples: float | None, relpages: int | None, size: int | None, block_size: int
) -> tuple[int | None, int | None, bool | None]:
    """(rows, bytes, analysed) of a table from its statistics and its file's size (None: not opened)."""
    tuples, pages = reltuples if reltuples is not None else -1.0, relpages or 0
    counted = tuples >= 0 and pages > 0  # reltuples -1: never counted (14+)
    if size is None:  # locked by another session, or partitioned: the statistics alone
        return (int(tuples), pages * block_size, True) if counted else (None, None, None)
    if size == 0:
        return 0, 0, None  # no page, no row, whatever the statistics say
    if not counted:
        return None, size, False  # filled since it was last counted, or never counted
    # as the planner reads them: the counted rows per page, times the pages the file has now
    return round(tuples / pages * (size / block_size)), size, True


def _read_columns(cur: Any, server: _Server, tables: dict[int, Table]) -> None:
    """Query 3: the columns of the tables read."""
    cur.execute(
        "SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
        f" {server.unlocked('d.adrelid', 'pg_get_expr(d.adbin, d.adrelid)')}, a.attidentity, a.attgenerated,"
        " co.collname"
        " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
        " LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 100"  # 100: the default
        f" WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p') AND {server.where}"
        " ORDER BY a.attrelid, a.attnum",
        server.params,
    )
    for relid, name, column_type, not_null, default, identity, generated, collation in cur.fetchall():
        table = tables.get(relid)
        if table is None:
            continue
        base, args = parse_type(column_type)
        column = Column(
            name=name,
            type=column_type,
            nullable=not not_null,
            base_type=base,
            type_args=args,
            collation=collation,
        )
        if identity in ("a", "d"):
            column.identity = "always" if identity == "a" else "by default"
        elif generated in ("s", "v"):
            column.generated = "stored" if generated == "s" else "virtual"
            column.expression = default
        else:
            column.default = default
            column.serial = bool(default) and default.startswith("nextval(")
        table.columns[column.name] = column


def _add_partitioning(relations: _Relations) -> None:
    """The partition keys query 2 found, with the columns their expressions read (known after query 3)."""
    for oid, (strategy, key_columns, keydef, key_exprs, by_expression) in relations.partition_keys.items():
        table = relations.tables[oid]
        columns = tuple(key_columns)
        columns = tuple(dict.fromkeys((*columns, *_expression_columns(key_exprs, table))))
        table.partitioning = Partitioning(
            method=_STRATEGIES.get(strategy, strategy),
            columns=columns,
            expression=keydef,
            by_expression=by_expression,
            defined_at=table.defined_at,
        )


def _read_indexes(cur: Any, server: _Server, tables: dict[int, Table]) -> tuple[dict[int, Index], dict[int, int]]:
    """Query 4: the indexes of the tables read; returns them by oid, and each partition's index's parent."""
    unlocked = server.unlocked
    cur.execute(
        "SELECT i.indrelid, i.indexrelid, ic.relname, i.indisunique, i.indisprimary, am.amname,"
        " i.indpred IS NOT NULL,"
        " EXISTS (SELECT 1 FROM pg_constraint co WHERE co.conindid = i.indexrelid AND co.conrelid = i.indrelid"
        "         AND co.contype IN ('p', 'u', 'x')),"
        " ARRAY(SELECT CASE WHEN k.attnum <> 0 THEN a.attname::text"
        "                   ELSE pg_get_indexdef(i.indexrelid, k.ord::int, true) END"
        "       FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)"
        "       LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
        "       WHERE k.ord <= i.indnkeyatts ORDER BY k.ord),"
        " s.idx_scan, inh.inhparent, ic.relpages::int8,"
        f" {unlocked('i.indrelid', unlocked('i.indexrelid', _INDEX_FILE_SIZE))}"
        " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
        " JOIN pg_am am ON am.oid = ic.relam"
        " JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
        " LEFT JOIN pg_stat_user_indexes s ON s.indexrelid = i.indexrelid"
        " LEFT JOIN pg_inherits inh ON inh.inhrelid = i.indexrelid"
        f" WHERE c.relkind IN ('r', 'p') AND {server.where}"
        " ORDER BY i.indrelid, ic.relname",
        server.params,
    )
    index_by_oid: dict[int, Index] = {}
    index_parent: dict[int, int] = {}
    for (
        relid,
        index_oid,
        name,
        unique,
        primary,
        method,
        partial,
        constraint,
        key_parts,
        scans,
        parent,
        pages,
        size,
    ) in cur.fetchall():
        table = tables.get(relid)
        if table is None:
            continue
        columns = tuple(key_parts)
        index = Index(
            name=name,
            columns=columns,
            unique=unique,
            primary=primary,
            kind=method,
            partial=partial,
            constraint=constraint,
            defined_at=table.defined_at,
            scans=int(scans) if scans is not None and server.track_counts else None,
            # the file's size; where the index could not be opened, the pages its statistics counted
            bytes=int(size) if size is not None else int(pages) * server.block_size if pages else None,
        )
        index_by_oid[index_oid] = index
        if parent is not None:
            index_parent[index_oid] = parent
        if primary:
            table.primary_key = index
        else:
            table.indexes.append(index)
    return index_by_oid, index_parent


def _read_workload(cur: Any, server: _Server, tables: dict[int, Table]) -> None:
    """Query 6: each table's workload counters."""
    cur.execute(
        "SELECT s.relid, s.n_tup_ins, s.n_tup_upd, s.n_tup_del,"
        " s.seq_tup_read + COALESCE(s.idx_tup_fetch, 0), s.n_live_tup"
        " FROM pg_stat_user_tables s JOIN pg_namespace n ON n.nspname = s.schemaname"
        f" WHERE {server.where}",
        server.params,
    )
    for relid, inserts, updates, deletes, reads, live in cur.fetchall():
        table = tables.get(relid)
        if table is not None:
            table.workload = Workload(
                inserts=int(inserts),
                reads=int(reads or 0),
                updates=int(updates),
                deletes=int(deletes),
                rows=int(live),
                since=server.since,
                sampled_at=server.sampled_at,
                source="pg_stat_user_tables",
            )


_PERSISTENCE = {"p": "permanent", "u": "unlogged", "t": "temporary"}


def _unlocked(oids: list[int]):
    """SQL that computes `expression` only for relations no other session holds exclusively."""
    listed = "'{" + ",".join(str(int(o)) for o in oids or ()) + "}'::oid[]"

    def sql(relation: str, expression: str) -> str:
        return f"CASE WHEN {relation} = ANY({listed}) THEN NULL ELSE {expression} END" if oids else expression

    return sql


def _read_constraints_and_view_reads(
    cur: Any,
    where: str,
    params: list[Any],
    tables: dict[int, Table],
    keys: dict[int, str],
    views: dict[int, View],
    unlocked,
) -> None:
    """CHECK, NOT NULL (PostgreSQL 18 records them) and FOREIGN KEY constraints of the tables, and
    the relations each view reads (its rewrite rule's dependencies), in one round trip."""
    cur.execute(
        "SELECT 'c', co.conrelid, co.conname, co.contype::text, co.convalidated,"
        # conenforced is new in 18; to_jsonb reads it where it exists without failing elsewhere
        " COALESCE((to_jsonb(co) ->> 'conenforced')::bool, true),"
        f" {unlocked('co.conrelid', 'pg_get_constraintdef(co.oid, true)')}, co.confrelid,"
        " ARRAY(SELECT a.attname::text FROM unnest(co.conkey) WITH ORDINALITY AS k(n, o)"
        "       JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.n ORDER BY k.o),"
        " ARRAY(SELECT a.attname::text FROM unnest(co.confkey) WITH ORDINALITY AS k(n, o)"
        "       JOIN pg_attribute a ON a.attrelid = co.confrelid AND a.attnum = k.n ORDER BY k.o)"
        " FROM pg_constraint co JOIN pg_class c ON c.oid = co.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
        f" WHERE co.contype IN ('c', 'f', 'n') AND c.relkind IN ('r', 'p') AND {where}"
        " UNION ALL"
        " SELECT 'v', r.ev_class, NULL::name, NULL::text, NULL::bool, NULL::bool, NULL::text, d.refobjid,"
        " NULL::text[], NULL::text[]"
        " FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid"
        " AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> r.ev_class"
        " JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace"
        f" WHERE c.relkind IN ('v', 'm') AND {where}",
        params + params,
    )
    reads: dict[int, list[int]] = defaultdict(list)
    for row_kind, relid, name, contype, validated, enforced, definition, other, columns, ref_columns in cur.fetchall():
        if row_kind == "v":
            reads[relid].append(other)
            continue
        table = tables.get(relid)
        if table is None:
            continue
        if contype == "f":
            table.foreign_keys.append(
                ForeignKey(
                    name,
                    tuple(columns),
                    keys.get(other, str(other)),
                    tuple(ref_columns),
                    validated=validated,
                    enforced=enforced,
                )
            )
        elif contype == "n":
            column = columns[0] if columns else None
            table.checks.append(
                Check(name, f"{column} IS NOT NULL", validated=validated, not_null=column, proves_not_null=column)
            )
        else:
            expression = (definition or "").removeprefix("CHECK ").removesuffix(" NOT VALID")
            table.checks.append(
                Check(
                    name,
                    expression,
                    validated=validated,
                    enforced=enforced,
                    proves_not_null=_not_null_column(expression),
                )
            )
    for oid, view in views.items():
        view.reads = tuple(keys[r] for r in dict.fromkeys(reads.get(oid, ())) if r in keys)


def _not_null_column(expression: str) -> str | None:
    """The column of a check that reads `(col IS NOT NULL)`, as pg_get_constraintdef prints it."""
    inner = expression.strip()
    while inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1].strip()
    head, sep, tail = inner.rpartition(" IS NOT NULL")
    if not sep or tail or not head:
        return None
    m = _IDENTIFIER.fullmatch(head)
    if m is None:
        return None
    return m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2).lower()


def _children_of(parents: dict[int, int]) -> dict[int, list[int]]:
    """Each parent's children, from each child's parent."""
    children: dict[int, list[int]] = defaultdict(list)
    for child, parent in parents.items():
        children[parent].append(child)
    return children


def _total(values: list[int | None]) -> int | None:
    """The sum, known when every part is."""
    return None if any(v is None for v in values) else sum(v or 0 for v in values)


def _roll_up_sizes(relations: _Relations, index_by_oid: dict[int, Index], index_parent: dict[int, int]) -> None:
    """Give partitioned tables (and their indexes), which have no file of their own, the sums of
    their partitions' sizes and rows: known when every partition's is."""
    tables, children = relations.tables, _children_of(relations.parents)
    summed: set[int] = set()

    def table_sum(oid: int) -> Table:
        table = tables[oid]
        if table.partitioning is None or oid in summed:
            return table
        summed.add(oid)
        parts = [table_sum(child) for child in children.get(oid, []) if child in tables]
        table.bytes, table.rows = _total([p.bytes for p in parts]), _total([p.rows for p in parts])
        table.analysed = False if any(p.analysed is False for p in parts) else None
        return table

    for oid in tables:
        table_sum(oid)

    index_children = _children_of(index_parent)

    def index_sum(oid: int) -> int | None:
        index = index_by_oid[oid]
        if oid in index_children and index.bytes is None:
            index.bytes = _total([index_sum(c) for c in index_children[oid] if c in index_by_oid])
        return index.bytes

    for oid in index_by_oid:
        index_sum(oid)


def _roll_up_partitions(
    tables: dict[int, Table],
    parents: dict[int, int],
    index_by_oid: dict[int, Index],
    index_parent: dict[int, int],
    since: str | None,
    sampled_at: str | None,
) -> None:
    """Give partitioned tables (and their indexes) the sums of their partitions' counters.

    Rows routed to a partition are counted on the partition only; the parent's own
    figures, when the server lists any, are added too (they are zero in practice).
    """
    children = _children_of(parents)
    summed: set[int] = set()

    def table_sum(oid: int) -> Workload | None:
        table = tables[oid]
        if table.partitioning is None or oid in summed:
            return table.workload
        summed.add(oid)
        own = table.workload
        total = Workload(rows=0, since=since, sampled_at=sampled_at, source="pg_stat_user_tables")
        for part in [own, *(table_sum(child) for child in children.get(oid, []) if child in tables)]:
            if part is None:
                continue
            total.inserts += part.inserts
            total.reads += part.reads
            total.updates += part.updates
            total.deletes += part.deletes
            total.rows += part.rows or 0
        table.workload = total
        return total

    for oid in tables:
        table_sum(oid)

    index_children = _children_of(index_parent)
    index_summed: set[int] = set()

    def index_sum(oid: int) -> int | None:
        index = index_by_oid[oid]
        if oid not in index_children or oid in index_summed:
            return index.scans
        index_summed.add(oid)
        known = [
            s for s in [index.scans, *(index_sum(c) for c in index_children[oid] if c in index_by_oid)] if s is not None
        ]
        index.scans = sum(known) if known else None
        return index.scans

    for oid in index_by_oid:
        index_sum(oid)
