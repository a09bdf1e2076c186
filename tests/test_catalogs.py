"""Live catalog introspection against real, throwaway servers (see servers.py).

Each server gets a schema with the problems the rules look for (no primary key, only a
NOT NULL unique key, partitioning), real inserts and reads, and the Schema read back is
checked: keys, indexes, partitioning, workload counters and index scans. The number of
queries a read sends is the same for 50 and for 2,000 tables. Every read runs in a session
`prepare_session` made read-only, so a write would fail rather than pass unnoticed.
"""

from __future__ import annotations

import MySQLdb
import psycopg
import pytest

import servers
from schemacite.live.catalogs import mysql as mysql_catalog
from schemacite.live.catalogs import postgres as pg_catalog
from schemacite.model.record import replace


class CountingConnection:
    """Wraps a DB-API connection and records every statement its cursors send."""

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
        return self._cursor.execute(query, params)

    def __getattr__(self, name):
        return getattr(self._cursor, name)


# ================================================================ PostgreSQL

PG_SCHEMA = """
CREATE SCHEMA app;
CREATE TABLE app.no_pk (a int, b text);
CREATE TABLE app.nn_unique (code text NOT NULL, note text, CONSTRAINT nn_unique_code UNIQUE (code));
CREATE TABLE app.null_unique (code text, CONSTRAINT null_unique_code UNIQUE (code));
CREATE TABLE app.accounts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email text NOT NULL,
    tags text[],
    created timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email ON app.accounts (lower(email));
CREATE INDEX accounts_created ON app.accounts (created) WHERE email IS NOT NULL;
CREATE INDEX accounts_tags ON app.accounts USING gin (tags);
CREATE INDEX accounts_unused ON app.accounts (email, created);
CREATE TABLE app.events (
    id bigint GENERATED ALWAYS AS IDENTITY,
    created date NOT NULL,
    payload text,
    PRIMARY KEY (id, created)
) PARTITION BY RANGE (created);
CREATE TABLE app.events_2024 PARTITION OF app.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE app.events_2025 PARTITION OF app.events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE INDEX events_payload ON app.events (payload);
-- partitioned by an expression, no key on the parent; one partition has its own PK without the partition column
CREATE TABLE app.logs (id bigint NOT NULL, region text NOT NULL, line text) PARTITION BY LIST (lower(region));
CREATE TABLE app.logs_eu PARTITION OF app.logs FOR VALUES IN ('eu');
ALTER TABLE app.logs_eu ADD PRIMARY KEY (id);
CREATE TABLE public.plain (id int PRIMARY KEY);
CREATE VIEW app.account_emails AS SELECT id, email FROM app.accounts;
CREATE MATERIALIZED VIEW app.event_days AS SELECT created, count(*) FROM app.events GROUP BY created;
"""

PG_WORKLOAD = """
INSERT INTO app.events (created, payload)
    SELECT date '2024-07-01' + (i % 400), 'p' || i FROM generate_series(1, 1000) AS i;
INSERT INTO app.accounts (email, created) SELECT 'u' || i || '@example.com', now() FROM generate_series(1, 20) AS i;
INSERT INTO app.no_pk SELECT i, 'x' FROM generate_series(1, 10) AS i;
"""


def flush_pg_stats(conn) -> None:
    """Make this backend's pending counters visible to other sessions now (PostgreSQL 15+)."""
    conn.execute("SELECT pg_stat_force_next_flush()")


@pytest.fixture(scope="module")
def pg_db(pg_server):
    dbname = pg_server.create_database("catalog_pg")
    with pg_server.connect(dbname) as conn:
        conn.execute(PG_SCHEMA)
        conn.execute(PG_WORKLOAD)
        conn.execute("SET enable_seqscan = off")
        for i in range(1, 6):  # reads through the primary key
            conn.execute("SELECT * FROM app.accounts WHERE id = %s", (i,)).fetchall()
        conn.execute("RESET enable_seqscan")
        for _ in range(3):  # whole-table reads
            conn.execute("SELECT count(*) FROM app.no_pk").fetchall()
        flush_pg_stats(conn)
    return dbname


@pytest.fixture
def pg_audit(pg_server, pg_db):
    """A read-only audit session on the test database."""
    with pg_server.connect(pg_db) as conn:
        assert pg_catalog.prepare_session(conn) == []
        yield conn


def test_pg_session_is_read_only_with_timeouts(pg_audit):
    settings = dict(
        pg_audit.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN"
            " ('default_transaction_read_only', 'statement_timeout', 'lock_timeout', 'application_name')"
        ).fetchall()
    )
    assert settings == {
        "default_transaction_read_only": "on",
        "statement_timeout": "30000",
        "lock_timeout": "2000",
        "application_name": "schemacite",
    }
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        pg_audit.execute("CREATE TABLE app.should_not_exist (id int)")


def test_pg_keys_and_indexes(pg_audit):
    schema, _notes = pg_catalog.read_schema(pg_audit, ["app", "public"])
    assert schema.dialect == "postgres"

    no_pk = schema.tables["app.no_pk"]
    assert no_pk.primary_key is None and no_pk.indexes == [] and not no_pk.not_null_unique_keys
    assert no_pk.columns["a"].nullable

    nn = schema.tables["app.nn_unique"]
    assert nn.primary_key is None
    assert [i.name for i in nn.not_null_unique_keys] == ["nn_unique_code"]
    assert nn.not_null_unique_keys[0].columns == ("code",)

    null_unique = schema.tables["app.null_unique"]
    assert [i.name for i in null_unique.unique_keys] == ["null_unique_code"]
    assert null_unique.not_null_unique_keys == []

    accounts = schema.tables["app.accounts"]
    assert accounts.primary_key.columns == ("id",) and accounts.primary_key.primary
    assert accounts.columns["id"].identity == "always" and accounts.columns["id"].default is None
    assert not accounts.columns["email"].nullable and accounts.columns["tags"].nullable
    assert accounts.columns["created"].default == "now()"
    indexes = {i.name: i for i in accounts.indexes}
    assert set(indexes) == {"accounts_email", "accounts_created", "accounts_tags", "accounts_unused"}
    assert indexes["accounts_email"].unique and indexes["accounts_email"].columns == ("lower(email)",)
    assert indexes["accounts_created"].partial and indexes["accounts_created"].columns == ("created",)
    assert indexes["accounts_tags"].kind == "gin"
    assert indexes["accounts_unused"].columns == ("email", "created") and not indexes["accounts_unused"].unique
    block = int(pg_audit.execute("SHOW block_size").fetchone()[0])
    assert indexes["accounts_unused"].bytes and indexes["accounts_unused"].bytes % block == 0  # relpages x block

    # the default schema is dropped from keys, as replay does
    assert schema.tables["plain"].schema == "public"
    assert schema.tables["plain"].qualified_name == "public.plain"


def test_pg_partitioning(pg_audit):
    schema, _notes = pg_catalog.read_schema(pg_audit, ["app"])
    events = schema.tables["app.events"]
    assert events.partitioning.method == "range"
    assert events.partitioning.columns == ("created",)
    assert events.partitioning.expression == "RANGE (created)"
    assert events.primary_key.columns == ("id", "created")
    assert events.partition_of is None
    for name in ("app.events_2024", "app.events_2025"):
        part = schema.tables[name]
        assert part.partition_of == "app.events" and part.partitioning is None
        assert part.primary_key.columns == ("id", "created")

    logs = schema.tables["app.logs"]
    assert logs.partitioning.method == "list"
    assert logs.partitioning.columns == ("region",)  # read out of the expression lower(region)
    assert logs.primary_key is None
    logs_eu = schema.tables["app.logs_eu"]
    assert logs_eu.partition_of == "app.logs"
    assert logs_eu.primary_key.columns == ("id",)  # the partition key column is not in it


def test_pg_views_are_not_tables(pg_audit):
    schema, _notes = pg_catalog.read_schema(pg_audit, ["app"])
    assert "app.account_emails" in schema.views and not schema.views["app.account_emails"].materialized
    assert schema.views["app.event_days"].materialized
    assert not {"app.account_emails", "app.event_days"} & set(schema.tables)


def test_pg_workload(pg_audit):
    schema, notes = pg_catalog.read_schema(pg_audit, ["app"])
    assert not any("track_counts" in note for note in notes)

    p2024, p2025 = schema.tables["app.events_2024"].workload, schema.tables["app.events_2025"].workload
    assert p2024.inserts > 0 and p2025.inserts > 0
    events = schema.tables["app.events"].workload
    assert events.inserts == p2024.inserts + p2025.inserts == 1000  # the parent sums its partitions
    assert events.rows == 1000 and events.reads == 0
    assert events.source == "pg_stat_user_tables" and events.since and events.sampled_at

    no_pk = schema.tables["app.no_pk"].workload
    assert no_pk.inserts == 10 and no_pk.reads >= 30  # three full scans of ten rows

    accounts = schema.tables["app.accounts"]
    assert accounts.workload.inserts == 20 and accounts.workload.reads >= 5
    assert accounts.primary_key.scans >= 5
    assert accounts.index_named("accounts_unused").scans == 0
    # partitioned indexes: the parent's index sums its partitions' indexes
    assert schema.tables["app.events"].index_named("events_payload").scans == 0


def test_pg_counters_off_are_reported(pg_audit):
    pg_audit.execute("SET track_counts = off")  # superuser-only setting, this session only
    schema, notes = pg_catalog.read_schema(pg_audit, ["app"])
    assert any("track_counts is off" in note and "track_counts = on" in note for note in notes)
    assert all(t.workload is None for t in schema.tables.values())
    assert all(i.scans is None for t in schema.tables.values() for i in t.indexes)


def test_pg_bare_login_role_reads_the_same(pg_server, pg_db, pg_audit):
    """No grant beyond CONNECT: catalogs and counters are readable by every role."""
    with pg_server.connect(pg_db) as admin:
        admin.execute("DROP ROLE IF EXISTS auditor")
        admin.execute("CREATE ROLE auditor LOGIN NOSUPERUSER")
        member_of = admin.execute(
            "SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = 'auditor'"
        ).fetchone()[0]
        assert member_of == 0  # not pg_read_all_stats, not pg_monitor
    as_admin, _ = pg_catalog.read_schema(pg_audit, ["app"])
    with pg_server.connect(pg_db, user="auditor") as conn:
        pg_catalog.prepare_session(conn)
        as_auditor, _notes = pg_catalog.read_schema(conn, ["app"])
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM app.accounts")  # cannot read the data itself
    assert set(as_auditor.tables) == set(as_admin.tables)
    for key, table in as_admin.tables.items():
        other = as_auditor.tables[key]
        assert other.primary_key == table.primary_key
        assert other.indexes == table.indexes
        assert other.partitioning == table.partitioning
        assert (other.workload.inserts, other.workload.reads) == (table.workload.inserts, table.workload.reads)


NOT_ANALYSED = """
CREATE SCHEMA fresh;
CREATE TABLE fresh.filled (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, k int, payload text);
CREATE INDEX filled_k ON fresh.filled (k);
CREATE TABLE fresh.empty (id int PRIMARY KEY);
CREATE TABLE fresh.counted (id int PRIMARY KEY);
CREATE TABLE fresh.parted (id int, d date) PARTITION BY RANGE (d);
CREATE TABLE fresh.parted_a PARTITION OF fresh.parted FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE fresh.parted_b PARTITION OF fresh.parted FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE INDEX parted_d ON fresh.parted (d);
INSERT INTO fresh.filled (k, payload) SELECT i % 100, repeat('x', 50) FROM generate_series(1, 20000) AS i;
INSERT INTO fresh.counted SELECT generate_series(1, 5000);
ANALYZE fresh.counted;
INSERT INTO fresh.counted SELECT generate_series(5001, 10000);
INSERT INTO fresh.parted SELECT i, date '2024-06-01' + i % 500 FROM generate_series(1, 3000) AS i;
"""


@pytest.mark.parametrize("major", [12, 15])  # 12 says 0 rows for a table never analysed, 14+ says -1
def test_pg_sizes_of_tables_never_analysed(pg_majors, major):
    """Sizes are the files' own whether or not a table was analysed; rows the statistics have not
    counted are unknown, not 0."""
    server = pg_majors(major)
    dbname = server.create_database("catalog_pg_fresh")
    with server.connect(dbname) as conn:
        assert conn.execute("SHOW autovacuum").fetchone()[0] == "off"  # nothing analyses behind the test
        conn.execute(NOT_ANALYSED)
        files = dict(
            conn.execute(
                "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c"
                " WHERE c.relnamespace = 'fresh'::regnamespace AND c.relkind IN ('r', 'i')"
            ).fetchall()
        )
        pg_catalog.prepare_session(conn)
        schema, _notes = pg_catalog.read_schema(conn, ["fresh"])
    filled = schema.tables["fresh.filled"]
    assert (filled.bytes, filled.rows, filled.analysed) == (files["filled"], None, False)
    assert filled.bytes > 1_000_000
    assert filled.index_named("filled_k").bytes == files["filled_k"] > 100_000
    assert filled.primary_key.bytes == files["filled_pkey"] > 100_000
    empty = schema.tables["fresh.empty"]
    assert (empty.bytes, empty.rows) == (0, 0)  # no page, no row
    counted = schema.tables["fresh.counted"]
    # 5,000 rows counted, the file twice as large since: the planner's rows per page, times its pages now
    assert counted.analysed and counted.bytes == files["counted"] and 9_500 <= counted.rows <= 10_500
    parted = schema.tables["fresh.parted"]  # no file of its own: its partitions' sums
    assert parted.bytes == files["parted_a"] + files["parted_b"] > 0
    assert (parted.rows, parted.analysed) == (None, False)
    partition_indexes = [size for name, size in files.items() if name.startswith("parted_") and name.endswith("_idx")]
    assert len(partition_indexes) == 2
    assert parted.index_named("parted_d").bytes == sum(partition_indexes)


def _pg_many_tables(conn, schema: str, count: int) -> None:
    conn.execute(f"CREATE SCHEMA {schema}")
    for start in range(1, count + 1, 50):  # 50 tables a transaction: stays within max_locks_per_transaction
        conn.execute(
            "".join(
                f"CREATE TABLE {schema}.t{i} (id bigint PRIMARY KEY, a int, b text UNIQUE);"
                f" CREATE INDEX ON {schema}.t{i} (a);"
                for i in range(start, min(start + 50, count + 1))
            )
        )
    conn.execute(
        f"""
        CREATE TABLE {schema}.parted (id int, k int, PRIMARY KEY (id, k)) PARTITION BY HASH (k);
        CREATE TABLE {schema}.parted_0 PARTITION OF {schema}.parted FOR VALUES WITH (MODULUS 2, REMAINDER 0);
        CREATE TABLE {schema}.parted_1 PARTITION OF {schema}.parted FOR VALUES WITH (MODULUS 2, REMAINDER 1);
        CREATE VIEW {schema}.v AS SELECT 1 AS one;
        """
    )


def test_pg_constant_number_of_queries(pg_server):
    dbname = pg_server.create_database("catalog_pg_many")
    with pg_server.connect(dbname) as conn:
        _pg_many_tables(conn, "small", 50)
        _pg_many_tables(conn, "large", 2000)
    sent = {}
    with pg_server.connect(dbname) as conn:
        pg_catalog.prepare_session(conn)
        for name, count in (("small", 50), ("large", 2000)):
            counting = CountingConnection(conn)
            schema, _notes = pg_catalog.read_schema(counting, [name])
            assert len(schema.tables) == count + 3
            assert all(len(t.indexes) == 2 for k, t in schema.tables.items() if k.startswith(f"{name}.t"))
            sent[name] = counting.sent
        counting = CountingConnection(conn)
        schema, _notes = pg_catalog.read_schema(counting, ["small", "large"])
        assert len(schema.tables) == 50 + 3 + 2000 + 3
        sent["both"] = counting.sent
    assert len(sent["small"]) == len(sent["large"]) == len(sent["both"]) == 6
    assert sent["small"] == sent["large"]  # the same statements, not just as many


# ================================================================ MariaDB

MARIADB_SCHEMA = [
    "CREATE TABLE no_pk (a int, b varchar(20))",
    # no primary key: COLUMN_KEY shows `code` as PRI, but this is a unique key
    "CREATE TABLE nn_unique (code varchar(20) NOT NULL, note text, UNIQUE KEY uk_code (code))",
    "CREATE TABLE null_unique (code varchar(20), UNIQUE KEY uk_code (code))",
    (
        "CREATE TABLE accounts (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, email varchar(100) NOT NULL,"
        " bio text, created datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,"
        " UNIQUE KEY uk_email (email), KEY k_created (created), KEY k_bio (bio(10)), FULLTEXT KEY ft_bio (bio),"
        " KEY k_unused (created, email))"
    ),
    (
        "CREATE TABLE events (id bigint NOT NULL AUTO_INCREMENT, created date NOT NULL, payload varchar(50),"
        " PRIMARY KEY (id, created), KEY k_payload (payload)) PARTITION BY RANGE (year(created))"
        " (PARTITION p2024 VALUES LESS THAN (2025), PARTITION pmax VALUES LESS THAN MAXVALUE)"
    ),
    (
        "CREATE TABLE by_key (id int NOT NULL, tenant int NOT NULL, PRIMARY KEY (id, tenant))"
        " PARTITION BY KEY () PARTITIONS 4"
    ),
    (
        "CREATE TABLE by_columns (a int NOT NULL, b int NOT NULL, PRIMARY KEY (a, b)) PARTITION BY RANGE COLUMNS (a, b)"
        " (PARTITION p0 VALUES LESS THAN (10, 10), PARTITION p1 VALUES LESS THAN (MAXVALUE, MAXVALUE))"
    ),
    (
        "CREATE TABLE sub (id int NOT NULL, d date NOT NULL, PRIMARY KEY (id, d))"
        " PARTITION BY RANGE (to_days(d)) SUBPARTITION BY HASH (id) SUBPARTITIONS 2"
        " (PARTITION a VALUES LESS THAN (740000), PARTITION b VALUES LESS THAN MAXVALUE)"
    ),
    "CREATE VIEW account_emails AS SELECT id, email FROM accounts",
]

MARIADB_WORKLOAD = [
    (
        "INSERT INTO events (created, payload)"
        " SELECT '2024-07-01' + INTERVAL seq DAY, CONCAT('p', seq) FROM seq_1_to_1000"
    ),
    "INSERT INTO accounts (email) SELECT CONCAT('u', seq, '@example.com') FROM seq_1_to_20",
    "INSERT INTO no_pk SELECT seq, 'x' FROM seq_1_to_10",
    *[f"SELECT * FROM accounts WHERE id = {i}" for i in range(1, 6)],  # reads through the primary key
    *["SELECT count(*) FROM no_pk"] * 3,  # whole-table reads
]


def _mariadb_setup(server, dbname: str) -> str:
    server.create_database(dbname)
    conn = server.connect(dbname)
    try:
        cur = conn.cursor()
        for statement in MARIADB_SCHEMA + MARIADB_WORKLOAD:
            cur.execute(statement)
            cur.fetchall()
    finally:
        conn.close()
    return dbname


@pytest.fixture(scope="module")
def maria_db(mariadb_server):
    return _mariadb_setup(mariadb_server, "catalog_maria")


@pytest.fixture
def maria_audit(mariadb_server, maria_db):
    conn = mariadb_server.connect()
    assert mysql_catalog.prepare_session(conn, "mariadb") == []
    yield conn
    conn.close()


def _scalar(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    value = cur.fetchone()
    cur.close()
    return value[0] if value else None


def test_mariadb_session_is_read_only_with_timeouts(maria_audit, maria_db):
    assert _scalar(maria_audit, "SELECT @@session.tx_read_only") == 1
    assert _scalar(maria_audit, "SELECT @@session.max_statement_time") == 30
    assert _scalar(maria_audit, "SELECT @@session.lock_wait_timeout") == 2
    assert _scalar(maria_audit, "SELECT @@session.innodb_lock_wait_timeout") == 2
    with pytest.raises(MySQLdb.OperationalError) as info:
        _scalar(maria_audit, f"INSERT INTO {maria_db}.no_pk VALUES (99, 'no')")
    assert info.value.args[0] == 1792  # ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION


def test_mariadb_keys_and_indexes(maria_audit, maria_db):
    schema, _notes = mysql_catalog.read_schema(maria_audit, [maria_db], "mariadb")
    assert schema.dialect == "mariadb"

    no_pk = schema.tables["no_pk"]
    assert no_pk.primary_key is None and not no_pk.not_null_unique_keys and no_pk.schema == maria_db

    # information_schema.COLUMNS says PRI here; the model must not
    assert (
        _scalar(
            maria_audit,
            f"SELECT COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{maria_db}'"
            " AND TABLE_NAME = 'nn_unique' AND COLUMN_NAME = 'code'",
        )
        == "PRI"
    )
    nn = schema.tables["nn_unique"]
    assert nn.primary_key is None
    assert [(i.name, i.columns) for i in nn.not_null_unique_keys] == [("uk_code", ("code",))]

    null_unique = schema.tables["null_unique"]
    assert [i.name for i in null_unique.unique_keys] == ["uk_code"] and not null_unique.not_null_unique_keys

    accounts = schema.tables["accounts"]
    assert accounts.engine == "InnoDB"
    assert accounts.primary_key.primary and accounts.primary_key.columns == ("id",)
    assert accounts.columns["created"].default == "current_timestamp()"
    assert accounts.columns["bio"].nullable and accounts.columns["bio"].default is None
    indexes = {i.name: i for i in accounts.indexes}
    assert set(indexes) == {"uk_email", "k_created", "k_bio", "ft_bio", "k_unused"}
    assert indexes["uk_email"].unique and not indexes["k_created"].unique
    assert indexes["k_bio"].columns == ("bio",) and indexes["k_bio"].kind == "btree"  # prefix index
    assert indexes["ft_bio"].kind == "fulltext"
    assert indexes["k_unused"].columns == ("created", "email")
    # sizes from InnoDB's persistent statistics: whole pages, a partitioned table's summed over its partitions
    page = _scalar(maria_audit, "SELECT @@innodb_page_size")
    assert indexes["k_created"].bytes and indexes["k_created"].bytes % page == 0
    assert schema.tables["events"].index_named("k_payload").bytes >= 2 * page  # two partitions, a page at least each


def test_mariadb_partitioning(maria_audit, maria_db):
    schema, _notes = mysql_catalog.read_schema(maria_audit, [maria_db], "mariadb")
    events = schema.tables["events"].partitioning
    assert (events.method, events.columns, events.uses_primary_key) == ("range", ("created",), False)
    assert events.expression == "RANGE(year(`created`))"
    assert set(events.columns) <= set(schema.tables["events"].primary_key.columns)

    by_key = schema.tables["by_key"].partitioning
    assert (by_key.method, by_key.uses_primary_key, by_key.columns) == ("key", True, ("id", "tenant"))
    by_columns = schema.tables["by_columns"].partitioning
    assert (by_columns.method, by_columns.columns) == ("range", ("a", "b"))
    sub = schema.tables["sub"].partitioning
    assert (sub.method, sub.columns) == ("range", ("d", "id"))
    assert "SUBPARTITION BY HASH(`id`)" in sub.expression
    assert schema.tables["accounts"].partitioning is None


def test_mariadb_rejects_partition_key_outside_primary_key(mariadb_server, maria_db):
    """The rule's premise: the server refuses such a table (error 1503), so live catalogs never show one."""
    conn = mariadb_server.connect(maria_db)
    try:
        with pytest.raises(MySQLdb.OperationalError) as info:
            _scalar(
                conn,
                "CREATE TABLE bad (id int PRIMARY KEY, d date NOT NULL)"
                " PARTITION BY RANGE (year(d)) (PARTITION p0 VALUES LESS THAN (2025))",
            )
        assert info.value.args[0] == 1503
    finally:
        conn.close()


def test_mariadb_views_are_not_tables(maria_audit, maria_db):
    schema, _notes = mysql_catalog.read_schema(maria_audit, [maria_db], "mariadb")
    assert "account_emails" in schema.views and "account_emails" not in schema.tables


def test_mariadb_workload_from_performance_schema(maria_audit, maria_db):
    schema, notes = mysql_catalog.read_schema(maria_audit, [maria_db], "mariadb")
    assert notes == []
    events = schema.tables["events"]
    assert events.workload.source == "performance_schema"
    assert events.workload.inserts == 1000 and events.workload.reads == 0
    assert events.workload.since and events.workload.sampled_at and events.workload.rows >= 0
    no_pk = schema.tables["no_pk"].workload
    assert no_pk.inserts == 10 and no_pk.reads >= 30
    accounts = schema.tables["accounts"]
    assert accounts.workload.inserts == 20 and accounts.workload.reads >= 5
    assert accounts.primary_key.scans >= 5
    assert accounts.index_named("k_unused").scans == 0
    assert schema.tables["events"].index_named("k_payload").scans == 0


def _maria_account(server, user: str, *grants: str) -> None:
    conn = server.connect()
    try:
        cur = conn.cursor()
        for host in ("localhost", "127.0.0.1"):
            cur.execute(f"DROP USER IF EXISTS '{user}'@'{host}'")
            cur.execute(f"CREATE USER '{user}'@'{host}'")
            for grant in grants:
                cur.execute(f"GRANT {grant} TO '{user}'@'{host}'")
    finally:
        conn.close()


def test_mariadb_privileges(mariadb_server, maria_db, maria_audit):
    """SELECT on the schema reads the structure; performance_schema counters need SELECT on it."""
    as_root, _ = mysql_catalog.read_schema(maria_audit, [maria_db], "mariadb")

    _maria_account(mariadb_server, "auditor", f"SELECT ON {maria_db}.*")
    conn = mariadb_server.connect(user="auditor")
    try:
        assert mysql_catalog.prepare_session(conn, "mariadb") == []
        schema, notes = mysql_catalog.read_schema(conn, [maria_db], "mariadb")
    finally:
        conn.close()
    assert set(schema.tables) == set(as_root.tables)

    def unsized(table):
        return [replace(i, bytes=None) for i in table.indexes]

    assert unsized(schema.tables["accounts"]) == unsized(as_root.tables["accounts"])
    # index sizes come from mysql.innodb_index_stats, which the schema grant does not open: unknown, no note
    assert all(i.bytes is None for i in schema.tables["accounts"].indexes)
    assert as_root.tables["accounts"].index_named("k_created").bytes >= 16384
    # performance_schema is refused, so the counters come from userstat, which needs no grant
    assert any("GRANT SELECT ON performance_schema.*" in note for note in notes)
    assert schema.tables["events"].workload.source == "userstat"
    assert schema.tables["events"].workload.inserts == 1000

    _maria_account(
        mariadb_server,
        "auditor",
        f"SELECT ON {maria_db}.*",
        "SELECT ON performance_schema.*",
        "SELECT ON mysql.innodb_index_stats",
    )
    conn = mariadb_server.connect(user="auditor")
    try:
        mysql_catalog.prepare_session(conn, "mariadb")
        schema, notes = mysql_catalog.read_schema(conn, [maria_db], "mariadb")
    finally:
        conn.close()
    assert notes == []
    assert schema.tables["events"].workload.source == "performance_schema"
    assert schema.tables["events"].workload.inserts == 1000
    assert schema.tables["accounts"].indexes == as_root.tables["accounts"].indexes  # sizes included


def _maria_many_tables(server, dbname: str, count: int) -> None:
    server.create_database(dbname)
    from MySQLdb.constants import CLIENT

    conn = server.connect(dbname, client_flag=CLIENT.MULTI_STATEMENTS)
    try:
        cur = conn.cursor()
        for start in range(0, count, 250):  # a batch a round trip
            cur.execute(
                "".join(
                    f"CREATE TABLE t{i} (id bigint NOT NULL PRIMARY KEY, a int, b varchar(20), UNIQUE KEY (b), KEY (a));"
                    for i in range(start, min(start + 250, count))
                )
            )
            while cur.nextset():  # one result per statement; an error surfaces here
                pass
        cur.execute(
            "CREATE TABLE parted (id int NOT NULL, k int NOT NULL, PRIMARY KEY (id, k)) PARTITION BY HASH (k) PARTITIONS 2"
        )
        cur.execute("CREATE VIEW v AS SELECT 1 AS one")
        cur.execute("INSERT INTO t0 VALUES (1, 1, 'x')")
    finally:
        conn.close()


def test_mariadb_constant_number_of_queries(mariadb_server):
    _maria_many_tables(mariadb_server, "many_small", 50)
    _maria_many_tables(mariadb_server, "many_large", 2000)
    conn = mariadb_server.connect()
    try:
        mysql_catalog.prepare_session(conn, "mariadb")
        sent, questions = {}, {}
        for name, count in (("many_small", 50), ("many_large", 2000)):
            before = int(_scalar_status(conn))
            counting = CountingConnection(conn)
            schema, notes = mysql_catalog.read_schema(counting, [name], "mariadb")
            questions[name] = int(_scalar_status(conn)) - before  # the server's own count
            assert notes == []
            assert len(schema.tables) == count + 1
            assert schema.tables["t0"].workload.inserts == 1
            sent[name] = counting.sent
    finally:
        conn.close()
    assert len(sent["many_small"]) == len(sent["many_large"]) == 11
    assert sent["many_small"] == sent["many_large"]
    assert questions["many_small"] == questions["many_large"]


def _scalar_status(conn) -> str:
    cur = conn.cursor()
    cur.execute("SHOW SESSION STATUS LIKE 'Questions'")
    value = cur.fetchone()[1]
    cur.close()
    return value


# ---------------------------------------------------------------- MariaDB without performance_schema


@pytest.fixture(scope="module")
def mariadb_userstat_only():
    """A second private MariaDB: performance_schema off, so userstat is the only counter source."""
    with servers.mariadb_server({"performance_schema": "OFF", "userstat": "ON"}) as server:
        _mariadb_setup(server, "catalog_userstat")
        yield server


def test_mariadb_workload_from_userstat(mariadb_userstat_only):
    conn = mariadb_userstat_only.connect()
    try:
        mysql_catalog.prepare_session(conn, "mariadb")
        schema, notes = mysql_catalog.read_schema(conn, ["catalog_userstat"], "mariadb")
    finally:
        conn.close()
    assert any("ROWS_CHANGED" in note for note in notes)
    events = schema.tables["events"].workload
    assert events.source == "userstat"
    assert events.inserts == 1000 and events.reads == 0
    no_pk = schema.tables["no_pk"].workload
    assert no_pk.inserts == 10 and no_pk.reads >= 30
    accounts = schema.tables["accounts"]
    assert accounts.primary_key.scans >= 5
    assert accounts.index_named("k_unused").scans == 0
    # counting began when userstat was turned on, which the server does not record: no start time
    assert events.since is None and any("userstat counts since it was turned on" in note for note in notes)
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter

    found = Linter(load_config(None, {"dialect": "mariadb", "target": "mariadb-10.11"})).check_schema(schema)
    unused = [f for f in found.findings if f.rule == "unused-index" and "k_unused" in f.message]
    assert unused and "never used since userstat began counting (the server does not record when)" in unused[0].message


def test_mariadb_userstat_needs_no_extra_grant(mariadb_userstat_only):
    _maria_account(mariadb_userstat_only, "auditor", "SELECT ON catalog_userstat.*")
    conn = mariadb_userstat_only.connect(user="auditor")
    try:
        mysql_catalog.prepare_session(conn, "mariadb")
        schema, _notes = mysql_catalog.read_schema(conn, ["catalog_userstat"], "mariadb")
    finally:
        conn.close()
    assert schema.tables["events"].workload.inserts == 1000


def test_mariadb_counters_off_are_reported(mariadb_userstat_only):
    conn = mariadb_userstat_only.connect()
    try:
        _scalar(conn, "SET GLOBAL userstat = OFF")  # our throwaway server, before the read-only session
        try:
            mysql_catalog.prepare_session(conn, "mariadb")
            schema, notes = mysql_catalog.read_schema(conn, ["catalog_userstat"], "mariadb")
        finally:
            other = mariadb_userstat_only.connect()
            _scalar(other, "SET GLOBAL userstat = ON")
            other.close()
    finally:
        conn.close()
    assert all(t.workload is None for t in schema.tables.values())
    assert any("performance_schema=ON" in note and "userstat=ON" in note for note in notes)
