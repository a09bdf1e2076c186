"""The MySQL/MariaDB online DDL matrix, checked against a real MariaDB server.

Each case builds a table on the throwaway MariaDB server (the `mariadb_server`
fixture), asks the server for the cheapest ALGORITHM and least LOCK it accepts for
one statement (schemacite.live.verify_mysql.measure), and asserts that
impacts(statement, schema, "mariadb", <that server's version>) predicts the same.
Together the cases cover every row of the matrix that holds for MariaDB 10.11.

Compared per case, when the server lets us see it:
  algorithm  always (None on both sides: the statement takes no ALGORITHM clause)
  lock       when the server takes a LOCK clause for the statement
  rebuild    table id changed, or (partition maintenance) rows copied
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from schemacite.live.verify_mysql import measure, run_as_written
from schemacite.locks import mysql as locks
from schemacite.locks import mysql_table as T
from schemacite.locks.modes import ALGORITHMS, MYSQL_LOCKS
from schemacite.model import Schema
from schemacite.model.schema import Location
from schemacite.model.statements import PARTITION_MAINTENANCE, Statement
from schemacite.sources import replay
from schemacite.sources.mysql.statements import describe

HERE = Path(__file__).parent


# --------------------------------------------------------------------------- tables
ROWS3 = "INSERT INTO t (id, a, b, c, d, e, n) VALUES (1,1,'a','a','a','x',1),(2,2,'b','b','b','y',2),(3,NULL,NULL,'c',NULL,NULL,3)"
BASE_SQL = [
    (
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT NULL, b VARCHAR(50) NULL, "
        "c VARCHAR(20) NOT NULL DEFAULT '', d VARCHAR(100) NULL, e ENUM('x','y') NULL, n INT NULL, "
        "KEY ib (b)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
    ),
    ROWS3,
]
SIMPLE_ROWS = "INSERT INTO t (id, a, b) VALUES (1,1,'a'),(2,2,'b'),(3,3,'c')"

# each table as SQL: the server runs it, and the parser and replay build the model from it
TABLES: dict[str, list[str]] = {
    "base": BASE_SQL,
    "nopk": ["CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(50))", SIMPLE_ROWS],
    "nopk_token": [
        "CREATE TABLE t (id INT NOT NULL, a INT, token VARCHAR(50) NOT NULL)",
        "INSERT INTO t VALUES (1, 1, 'aa'), (2, 2, 'bb'), (3, 3, 'cc')",
    ],
    "nopk_null": ["CREATE TABLE t (id INT NULL, a INT, b VARCHAR(50))", SIMPLE_ROWS],
    "fulltext": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), c VARCHAR(50), FULLTEXT KEY fb (b))",
        "INSERT INTO t VALUES (1,1,'a','a'),(2,2,'b','b'),(3,3,'c','c')",
    ],
    "fulltext2": [
        (
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), c VARCHAR(50), "
            "FULLTEXT KEY fb (b), FULLTEXT KEY fc (c))"
        ),
        "INSERT INTO t VALUES (1,1,'a','a'),(2,2,'b','b'),(3,3,'c','c')",
    ],
    "geo": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, g GEOMETRY NOT NULL)",
        "INSERT INTO t VALUES (1,1,POINT(1,1)),(2,2,POINT(2,2))",
    ],
    "spatial": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, g GEOMETRY NOT NULL, SPATIAL KEY sg (g))",
        "INSERT INTO t VALUES (1,1,POINT(1,1)),(2,2,POINT(2,2))",
    ],
    "generated": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, s INT AS (a + 1) STORED, v INT AS (a + 2) VIRTUAL)",
        "INSERT INTO t (id, a) VALUES (1,1),(2,2)",
    ],
    "compressed": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50)) ROW_FORMAT=COMPRESSED",
        "INSERT INTO t VALUES (1,1,'a'),(2,2,'b')",
    ],
    "utf8mb3": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50)) DEFAULT CHARSET=utf8mb3",
        "INSERT INTO t VALUES (1,1,'a'),(2,2,'b')",
    ],
    "unicode_520": [
        (
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), KEY ib (b)) ENGINE=InnoDB "
            "DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci"
        ),
        "INSERT INTO t VALUES (1,1,'a'),(2,2,'b')",
    ],
    "unicode_520_unindexed": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci",
        "INSERT INTO t VALUES (1,1,'a'),(2,2,'b')",
    ],
    "latin1": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50)) DEFAULT CHARSET=latin1",
        "INSERT INTO t VALUES (1,1,'a'),(2,2,'b')",
    ],
    "parent": [
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "INSERT INTO p VALUES (1),(2),(3)",
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50))",
        SIMPLE_ROWS,
    ],
    "child": [
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "INSERT INTO p VALUES (1),(2),(3)",
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), CONSTRAINT fk FOREIGN KEY (a) REFERENCES p (id))",
        SIMPLE_ROWS,
    ],
    "composite": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), KEY iab (a, b))",
        SIMPLE_ROWS,
    ],
    "composite_unique": [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), UNIQUE KEY uab (a, b))",
        SIMPLE_ROWS,
    ],
    "parent_str": [
        "CREATE TABLE p (code VARCHAR(20) NOT NULL PRIMARY KEY)",
        "INSERT INTO p VALUES ('a'), ('b')",
        "CREATE TABLE t (id INT PRIMARY KEY, code VARCHAR(20), CONSTRAINT fk FOREIGN KEY (code) REFERENCES p (code))",
        "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
    ],
    "referenced": [
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(50))",
        SIMPLE_ROWS,
        "CREATE TABLE c (id INT PRIMARY KEY, t_id INT, CONSTRAINT fk_t FOREIGN KEY (t_id) REFERENCES t (id))",
        "INSERT INTO c VALUES (1, 1), (2, 2)",
    ],
    "check": ["CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), CONSTRAINT ck CHECK (a > 0))", SIMPLE_ROWS],
    "noai": ["CREATE TABLE t (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(50))", SIMPLE_ROWS],
    "range": [
        (
            "CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(50), PRIMARY KEY (id)) PARTITION BY RANGE (id) "
            "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
            "PARTITION p2 VALUES LESS THAN (30))"
        ),
        "INSERT INTO t VALUES (1,1,'a'),(11,2,'b'),(21,3,'c')",
    ],
    "hash": [
        (
            "CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(50), PRIMARY KEY (id)) "
            "PARTITION BY HASH (id) PARTITIONS 4"
        ),
        "INSERT INTO t VALUES (1,1,'a'),(11,2,'b'),(21,3,'c')",
    ],
    "exchange": [
        (
            "CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(50), PRIMARY KEY (id)) PARTITION BY RANGE (id) "
            "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
            "PARTITION p2 VALUES LESS THAN (30))"
        ),
        "INSERT INTO t VALUES (1,1,'a'),(11,2,'b'),(21,3,'c')",
        "CREATE TABLE x (id INT NOT NULL, a INT, b VARCHAR(50), PRIMARY KEY (id))",
        "INSERT INTO x VALUES (25,5,'e')",
    ],
}


# --------------------------------------------------------------------------- cases
@dataclasses.dataclass
class Case:
    id: str
    table: str
    sql: str
    setup: list[str] = dataclasses.field(default_factory=list)  # extra setup after the table's


def alter(id_, table, clause, setup=()):
    return Case(id_, table, f"ALTER TABLE t {clause}", list(setup))


CASES = [
    # ---- columns
    alter("add_column", "base", "ADD COLUMN x INT"),
    alter("add_column_not_null_default", "base", "ADD COLUMN x INT NOT NULL DEFAULT 5"),
    alter("add_column_first", "base", "ADD COLUMN x INT FIRST"),
    alter("add_column_after", "base", "ADD COLUMN x INT AFTER a"),
    alter("add_column_auto_increment", "base", "ADD COLUMN x INT AUTO_INCREMENT UNIQUE"),
    alter("add_column_stored", "base", "ADD COLUMN x INT AS (a + 1) STORED"),
    alter("add_column_virtual", "base", "ADD COLUMN x INT AS (a + 1) VIRTUAL"),
    # a DEFAULT MariaDB computes row by row copies the table (add_column.default_copy); one the same
    # for every existing row stays INSTANT
    alter("add_column_default_uuid", "base", "ADD COLUMN token uuid DEFAULT (uuid())"),
    alter("add_column_default_sysdate", "base", "ADD COLUMN x DATETIME DEFAULT (sysdate())"),
    alter("add_column_default_utc_timestamp", "base", "ADD COLUMN x DATETIME DEFAULT utc_timestamp()"),
    alter("add_column_default_other_column", "base", "ADD COLUMN x INT DEFAULT (a + 1)"),
    alter("add_column_default_now", "base", "ADD COLUMN x DATETIME DEFAULT (now())"),
    alter("add_column_default_rand", "base", "ADD COLUMN x DOUBLE DEFAULT (rand())"),
    alter("add_column_default_user", "base", "ADD COLUMN x VARCHAR(80) DEFAULT (user())"),
    alter("add_column_default_constant_expression", "base", "ADD COLUMN x INT DEFAULT (1 + 1)"),
    alter("add_column_default_interval", "base", "ADD COLUMN x DATETIME DEFAULT (now() + INTERVAL 1 DAY)"),
    alter("add_column_fulltext_table", "fulltext", "ADD COLUMN x INT"),
    alter("add_column_spatial_table", "spatial", "ADD COLUMN x INT"),
    alter("drop_column", "base", "DROP COLUMN a"),
    alter("add_column_compressed", "compressed", "ADD COLUMN x INT"),
    alter("drop_column_compressed", "compressed", "DROP COLUMN a"),
    alter("drop_column_indexed", "base", "DROP COLUMN b"),
    alter("drop_column_in_composite_index", "composite", "DROP COLUMN b"),
    alter("drop_column_leading_composite_index", "composite", "DROP COLUMN a"),
    alter("drop_column_stored", "generated", "DROP COLUMN s"),
    alter("drop_column_virtual", "generated", "DROP COLUMN v"),
    alter("drop_column_fulltext_table", "fulltext", "DROP COLUMN a"),
    alter("rename_column", "base", "RENAME COLUMN a TO a2"),
    alter("change_rename", "base", "CHANGE a a2 INT"),
    alter("modify_same_comment", "base", "MODIFY a INT COMMENT 'hello'"),
    alter("modify_default", "base", "MODIFY a INT DEFAULT 7"),
    alter("modify_reorder_after", "base", "MODIFY a INT AFTER c"),
    alter("modify_reorder_first", "base", "MODIFY a INT FIRST"),
    alter("modify_reorder_fulltext_table", "fulltext", "MODIFY a INT AFTER c"),
    alter("modify_type_widen", "base", "MODIFY a BIGINT"),
    alter("modify_type_narrow", "base", "MODIFY a SMALLINT"),
    alter("modify_type_unsigned", "base", "MODIFY a INT UNSIGNED"),
    alter("change_rename_and_type", "base", "CHANGE a a2 BIGINT"),
    alter("modify_varchar_shrink", "base", "MODIFY b VARCHAR(40)"),
    alter("modify_varchar_to_char", "base", "MODIFY c CHAR(20) NOT NULL DEFAULT ''"),
    alter("modify_varchar_extend_within_255", "base", "MODIFY b VARCHAR(60)"),
    alter("modify_varchar_extend_over_256", "base", "MODIFY d VARCHAR(120)"),
    alter("modify_varchar_extend_from_127", "base", "MODIFY c VARCHAR(100) NOT NULL DEFAULT ''"),
    alter("modify_varchar_extend_crossing_255", "base", "MODIFY b VARCHAR(100)"),
    alter("modify_varchar_latin1_crossing_255", "latin1", "MODIFY b VARCHAR(300)"),
    alter("modify_varchar_latin1_within_255", "latin1", "MODIFY b VARCHAR(255)"),
    alter("modify_not_null", "base", "MODIFY n INT NOT NULL"),
    alter(
        "modify_not_null_fulltext_table",
        "fulltext",
        "MODIFY c VARCHAR(50) NOT NULL",
        setup=["UPDATE t SET c = '' WHERE c IS NULL"],
    ),
    alter("modify_null", "base", "MODIFY c VARCHAR(20) NULL DEFAULT ''"),
    alter("modify_null_implicit", "base", "MODIFY id INT"),
    alter("modify_pk_column_not_null_omitted", "base", "MODIFY id INT"),
    alter("modify_nullable_column_same", "base", "MODIFY a INT"),
    # the primary key moved to c: id is still NOT NULL, and MODIFY id INT makes it nullable
    alter(
        "modify_former_pk_column",
        "base",
        "MODIFY id INT",
        setup=["ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (c)"],
    ),
    alter(
        "modify_former_pk_column_not_null", "base", "MODIFY id INT NOT NULL", setup=["ALTER TABLE t DROP PRIMARY KEY"]
    ),
    alter("replace_pk_and_modify_its_column", "base", "DROP PRIMARY KEY, ADD PRIMARY KEY (c), MODIFY id INT"),
    alter("drop_pk_and_modify_its_column", "base", "DROP PRIMARY KEY, MODIFY id INT"),
    alter("modify_enum_append", "base", "MODIFY e ENUM('x','y','z')"),
    alter("modify_enum_reorder", "base", "MODIFY e ENUM('y','x')"),
    alter("modify_charset_latin1", "base", "MODIFY b VARCHAR(50) CHARACTER SET latin1"),
    alter("modify_charset_utf8mb3_to_utf8mb4", "utf8mb3", "MODIFY b VARCHAR(50) CHARACTER SET utf8mb4"),
    alter("modify_collation_unindexed", "base", "MODIFY d VARCHAR(100) COLLATE utf8mb4_bin"),
    alter("modify_auto_increment", "noai", "MODIFY id INT NOT NULL AUTO_INCREMENT"),
    alter("column_invisible", "base", "MODIFY a INT INVISIBLE"),
    alter("set_default", "base", "ALTER COLUMN a SET DEFAULT 3"),
    alter("drop_default", "base", "ALTER COLUMN c DROP DEFAULT"),
    alter("auto_increment_value", "base", "AUTO_INCREMENT = 100"),
    # ---- indexes
    alter("add_index", "base", "ADD INDEX ia (a)"),
    alter("add_index_fulltext_table", "fulltext", "ADD INDEX ia (a)"),
    alter("add_unique", "base", "ADD UNIQUE KEY ua (a)"),
    alter("add_unique_becomes_clustered", "nopk", "ADD UNIQUE KEY u (id)"),
    # a prefix key never becomes the clustered index: the hidden row id stays
    alter("add_unique_prefix_stays_secondary", "nopk_token", "ADD UNIQUE KEY u (token(2))"),
    alter("add_fulltext_first", "base", "ADD FULLTEXT KEY fb (b)"),
    alter("add_fulltext_second", "fulltext", "ADD FULLTEXT KEY fc (c)"),
    alter("add_spatial", "geo", "ADD SPATIAL KEY sg (g)"),
    Case("create_index", "base", "CREATE INDEX ia ON t (a)"),
    # MariaDB skips ADD ... IF NOT EXISTS of what exists
    alter("add_column_if_not_exists_existing", "base", "ADD COLUMN IF NOT EXISTS b VARCHAR(10) FIRST"),
    alter("add_index_if_not_exists_existing", "base", "ADD INDEX IF NOT EXISTS ib (a)"),
    alter("add_fulltext_if_not_exists_existing", "fulltext", "ADD FULLTEXT INDEX IF NOT EXISTS fb (c)"),
    alter("add_columns_one_existing", "base", "ADD COLUMN IF NOT EXISTS a INT, ADD COLUMN IF NOT EXISTS z INT"),
    Case("create_index_if_not_exists_existing", "base", "CREATE INDEX IF NOT EXISTS ib ON t (a)"),
    Case("create_unique_index", "base", "CREATE UNIQUE INDEX ua ON t (a)"),
    Case("create_fulltext_index", "base", "CREATE FULLTEXT INDEX fb ON t (b)"),
    Case("create_spatial_index", "geo", "CREATE SPATIAL INDEX sg ON t (g)"),
    alter("drop_index", "base", "DROP INDEX ib"),
    Case("drop_index_statement", "base", "DROP INDEX ib ON t"),
    alter("drop_index_and_readd", "base", "DROP INDEX ib, ADD INDEX ib (b, a)"),
    alter("rename_index", "base", "RENAME INDEX ib TO ib2"),
    alter("ignore_index", "base", "ALTER INDEX ib IGNORED"),
    alter("add_primary_key", "nopk", "ADD PRIMARY KEY (id)"),
    alter("add_primary_key_nullable_column", "nopk_null", "ADD PRIMARY KEY (id)"),
    alter("drop_primary_key", "base", "DROP PRIMARY KEY"),
    alter("replace_primary_key", "base", "DROP PRIMARY KEY, ADD PRIMARY KEY (id, c)"),
    # ---- foreign keys and checks
    alter("add_foreign_key", "parent", "ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES p (id)"),
    alter(
        "add_foreign_key_checks_off",
        "parent",
        "ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES p (id)",
        setup=["SET SESSION foreign_key_checks = 0"],
    ),
    alter("drop_foreign_key", "child", "DROP FOREIGN KEY fk"),
    # MariaDB 10.5+: an inline REFERENCES in ADD COLUMN creates a foreign key
    alter("add_column_references", "parent", "ADD COLUMN pid INT REFERENCES p (id)"),
    alter("add_column_references_first", "parent", "ADD COLUMN pid INT REFERENCES p (id) FIRST"),
    alter(
        "add_column_references_checks_off",
        "parent",
        "ADD COLUMN pid INT REFERENCES p (id)",
        setup=["SET SESSION foreign_key_checks = 0"],
    ),
    alter("add_column_inline_unique", "base", "ADD COLUMN x INT UNIQUE"),
    alter("modify_foreign_key_column_comment", "child", "MODIFY a INT COMMENT 'parent'"),
    alter("modify_foreign_key_column_not_null", "child", "MODIFY a INT NOT NULL"),
    alter("add_check", "base", "ADD CONSTRAINT ck CHECK (n > 0)"),
    alter("drop_check", "check", "DROP CONSTRAINT ck"),
    # ---- table options
    alter("row_format", "base", "ROW_FORMAT=COMPACT"),
    alter("key_block_size", "base", "KEY_BLOCK_SIZE=8"),
    alter("stats_persistent", "base", "STATS_PERSISTENT=0"),
    alter("table_comment", "base", "COMMENT='hello'"),
    alter("default_charset", "base", "DEFAULT CHARACTER SET latin1"),
    alter("convert_charset", "base", "CONVERT TO CHARACTER SET latin1"),
    alter("convert_charset_latin1_to_utf8mb4", "latin1", "CONVERT TO CHARACTER SET utf8mb4"),
    alter("convert_charset_utf8mb3_to_utf8mb4", "utf8mb3", "CONVERT TO CHARACTER SET utf8mb4"),
    alter("convert_charset_same", "base", "CONVERT TO CHARACTER SET utf8mb4"),
    alter(
        "convert_charset_same_collation",
        "unicode_520",
        "CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
    ),
    alter(
        "convert_charset_same_with_engine",
        "unicode_520",
        "ENGINE=InnoDB, CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
    ),
    alter(
        "convert_charset_other_collation_indexed", "unicode_520", "CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
    ),
    alter("convert_charset_default_collation_indexed", "unicode_520", "CONVERT TO CHARACTER SET utf8mb4"),
    alter(
        "convert_charset_other_collation_unindexed",
        "unicode_520_unindexed",
        "CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
    ),
    alter("engine_same", "base", "ENGINE=InnoDB"),
    alter("engine_change", "base", "ENGINE=MyISAM"),
    alter("force", "base", "FORCE"),
    alter("force_fulltext_table", "fulltext", "FORCE"),
    alter("force_two_fulltext_table", "fulltext2", "FORCE"),
    alter("force_spatial_table", "spatial", "FORCE"),
    alter("order_by", "base", "ORDER BY a"),
    alter("disable_keys", "base", "DISABLE KEYS"),
    alter("enable_keys", "base", "ENABLE KEYS"),
    alter("rename_table", "base", "RENAME TO t2"),
    Case("rename_table_statement", "base", "RENAME TABLE t TO t2"),
    Case("optimize_table", "base", "OPTIMIZE TABLE t"),
    Case("optimize_table_fulltext", "fulltext", "OPTIMIZE TABLE t"),
    Case("truncate", "base", "TRUNCATE TABLE t"),
    Case("drop_table", "base", "DROP TABLE t"),
    # ---- combinations
    alter("add_column_and_index", "base", "ADD COLUMN x INT, ADD INDEX ix (x)"),
    alter("add_column_and_type_change", "base", "ADD COLUMN x INT, MODIFY a BIGINT"),
    alter("set_default_and_add_first", "base", "ALTER COLUMN a SET DEFAULT 5, ADD COLUMN y INT FIRST"),
    # ---- partitions
    Case("partition_by", "noai", "ALTER TABLE t PARTITION BY HASH (id) PARTITIONS 4"),
    alter("remove_partitioning", "range", "REMOVE PARTITIONING"),
    alter("add_partition_range", "range", "ADD PARTITION (PARTITION p3 VALUES LESS THAN (40))"),
    alter("add_partition_hash", "hash", "ADD PARTITION PARTITIONS 2"),
    alter("drop_partition", "range", "DROP PARTITION p0"),
    alter("truncate_partition", "range", "TRUNCATE PARTITION p0"),
    alter("coalesce_partition", "hash", "COALESCE PARTITION 2"),
    alter(
        "reorganize_partition",
        "range",
        "REORGANIZE PARTITION p2 INTO (PARTITION p2a VALUES LESS THAN (25), PARTITION p2b VALUES LESS THAN (30))",
    ),
    alter("exchange_partition", "exchange", "EXCHANGE PARTITION p2 WITH TABLE x"),
    alter("rebuild_partition", "range", "REBUILD PARTITION p0"),
    alter("optimize_partition", "range", "OPTIMIZE PARTITION p0"),
    alter("analyze_partition", "range", "ANALYZE PARTITION p0"),
    alter("check_partition", "range", "CHECK PARTITION p0"),
    alter("repair_partition", "range", "REPAIR PARTITION p0"),
]


def parsed(setup: list[str], sql: str, dialect: str = "mariadb") -> tuple[Statement, Schema]:
    """The statement and the schema before it, as the SQL reader and replay build them."""
    from schemacite.sources.read import parse_text
    from schemacite.sources.replay import Session, apply

    pf = parse_text(";\n".join([*setup, sql]) + ";\n", "case.sql", dialect)
    assert not pf.errors, [str(e) for e in pf.errors]
    schema = Schema(dialect)
    state = Session()
    for st in pf.statements:
        state.see(st)
        if st is pf.statements[-1]:
            return st, schema
        apply(schema, st, new=False)
    raise AssertionError("no statement")


def statement_and_schema(case: Case) -> tuple[Statement, Schema]:
    return parsed(TABLES[case.table] + case.setup, case.sql)


def predict(case: Case, version: tuple[int, ...]):
    st, schema = statement_and_schema(case)
    out = locks.impacts(st, schema, "mariadb", version)
    assert out, f"no prediction for {case.id}"
    return out[-1]  # the statement as a whole when there are several actions


# --------------------------------------------------------------------------- server
@pytest.fixture(scope="module")
def maria(request):
    """A MySQLdb connection to a MariaDB server, and its version."""
    try:
        server = request.getfixturevalue("mariadb_server")
    except pytest.FixtureLookupError:
        server = None
    if server is not None:
        conn = server.connect()
    else:  # fallback: the shared local server; measure() only touches its own scratch database
        MySQLdb = pytest.importorskip("MySQLdb")
        conn = MySQLdb.connect(host="127.0.0.1", user="root", autocommit=True)
    cur = conn.cursor()
    cur.execute("SELECT VERSION()")
    full = cur.fetchone()[0]
    cur.close()
    assert "mariadb" in full.lower(), f"not a MariaDB server: {full}"
    version = tuple(int(p) for p in full.split("-")[0].split(".")[:3])
    yield conn, version, full
    conn.close()


RESULTS: dict[str, dict] = {}


def compare(case: Case, pred, m) -> dict[str, tuple]:
    """{aspect: (predicted, measured)} for every aspect the measurement can see."""
    out: dict[str, tuple] = {"algorithm": (pred.algorithm, m.algorithm)}
    kind = statement_and_schema(case)[0].kind
    if m.clauses is False and kind in ("truncate", "drop_table"):
        out.pop("algorithm")  # these statements have no algorithm on any server
    pred_lock = pred.locks[0].mode if pred.locks else None
    if m.lock is not None:
        out["lock"] = (pred_lock, m.lock)
    st, _schema = statement_and_schema(case)
    ops = {a.op for a in st.actions}
    if ops & PARTITION_MAINTENANCE:
        if m.rows_affected is not None:
            out["rebuild"] = (pred.rewrite, m.rows_affected > 0)
        elif m.rebuild is not None:
            out["rebuild"] = (pred.rewrite, m.rebuild)
    elif m.rebuild is not None and kind != "drop_table":
        out["rebuild"] = (pred.rewrite, m.rebuild)
    return out


MEASURED: dict[str, object] = {}


def measured(case: Case, conn):
    """The server's answer for a case, measured once per session."""
    if case.id not in MEASURED:
        MEASURED[case.id] = measure(conn, TABLES[case.table] + case.setup, case.sql)
    return MEASURED[case.id]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matrix_matches_mariadb(case: Case, maria):
    conn, version, full = maria
    m = measured(case, conn)
    assert m.error is None, f"{case.sql}: {m.error}"
    pred = predict(case, version)
    aspects = compare(case, pred, m)
    agreed = {k: p == v for k, (p, v) in aspects.items()}
    RESULTS[case.id] = {
        "sql": case.sql,
        "server": full,
        "aspects": {k: list(v) for k, v in aspects.items()},
        "agreed": all(agreed.values()),
        "measured_note": m.note,
    }
    assert all(agreed.values()), (
        f"{case.sql}: predicted vs measured {aspects} (prediction note: {pred.note}; measurement: "
        f"{m.note}; attempts: {[(a.algorithm, a.lock, a.ok) for a in m.attempts]})"
    )


CLAUSE_CASES = [
    # (table, ALTER clause, actions incl. algorithm/lock) -> does the server run it as written?
    ("base", "ADD COLUMN x INT, ALGORITHM=INPLACE"),
    ("base", "ADD COLUMN x INT, ALGORITHM=COPY"),
    ("base", "ADD COLUMN x INT, ALGORITHM=INSTANT, LOCK=SHARED"),
    ("base", "MODIFY a BIGINT, LOCK=NONE"),
    ("base", "MODIFY a BIGINT, ALGORITHM=INPLACE"),
    ("base", "MODIFY a BIGINT, ALGORITHM=COPY, LOCK=EXCLUSIVE"),
    ("base", "ADD INDEX ia (a), ALGORITHM=INSTANT"),
    ("base", "ADD INDEX ia (a), ALGORITHM=NOCOPY, LOCK=NONE"),
    ("base", "ADD FULLTEXT KEY fb (b), LOCK=NONE"),
    ("base", "RENAME TO t2, LOCK=NONE"),
    ("base", "DROP PRIMARY KEY, ALGORITHM=NOCOPY"),
    ("base", "ENGINE=MyISAM, ALGORITHM=INSTANT"),
    ("base", "ADD COLUMN x INT, ADD INDEX ix (x), ALGORITHM=NOCOPY"),
    ("fulltext", "FORCE, LOCK=NONE"),
    # refused whatever the clauses: MariaDB 10.2.8+ keeps a multi-column unique key whole (error 1072)
    ("composite_unique", "DROP COLUMN b"),
    ("composite", "DROP COLUMN b"),
    # a column a foreign key uses keeps its type and stays (MariaDB errors 1832, 1833, 1553)
    ("child", "MODIFY a BIGINT"),
    ("child", "MODIFY a INT UNSIGNED"),
    ("child", "DROP COLUMN a"),
    ("child", "DROP FOREIGN KEY fk, DROP COLUMN a"),
    ("child", "MODIFY a INT NOT NULL"),
    ("child", "CHANGE a a2 INT"),
    ("parent_str", "MODIFY code VARCHAR(30)"),
    ("referenced", "MODIFY id BIGINT NOT NULL"),
    ("referenced", "MODIFY id INT NOT NULL AUTO_INCREMENT"),
    ("referenced", "DROP COLUMN a"),
]


@pytest.mark.parametrize("table, clause", CLAUSE_CASES, ids=[c[1] for c in CLAUSE_CASES])
def test_clause_refusals_match_mariadb(table, clause, maria):
    """A clause the prediction says the server refuses is refused, and only such a clause."""
    conn, version, _full = maria
    case = alter(clause, table, clause)
    ok, error, _rows = run_as_written(conn, TABLES[table], case.sql)
    pred = predict(case, version)
    predicted_refused = bool(pred.note and pred.note.startswith("server refuses"))
    assert predicted_refused == (not ok), f"{case.sql}: server error {error!r}, prediction note {pred.note!r}"


def test_every_mariadb_10_11_row_is_measured():
    """Each row marked verified for MariaDB 10.11 is the row at least one case lands on."""
    verified_keys = {
        key
        for key in T.tables()["mariadb"]
        if (row := locks.lookup("mariadb", key, (10, 11))) is not None and not row.unmeasured
    }
    covered = {key for key in verified_keys if _key_hit(key)}
    missing = sorted(verified_keys - covered)
    assert not missing, f"rows marked verified but measured by no case: {missing}"


def _key_hit(key: str) -> bool:
    """Some case's prediction (without table-fact adjustments) resolves to `key`."""
    return key in KEYS_HIT


def _keys_for(case: Case) -> set[str]:
    """The matrix rows the prediction for `case` rests on."""
    st, schema = statement_and_schema(case)
    return {i.row for i in locks.impacts(st, schema, "mariadb", (10, 11, 999)) if i.row}


KEYS_HIT = set().union(*(_keys_for(c) for c in CASES))


def test_zz_summary(maria):
    """Write the checked/agreed figures next to the tests (tests/data/locks_mysql_verified.json)."""
    if not RESULTS:
        pytest.skip("no server case ran in this session")
    checked = len(RESULTS)
    agreed = sum(1 for r in RESULTS.values() if r["agreed"])
    aspects = sum(len(r["aspects"]) for r in RESULTS.values())
    aspects_agreed = sum(1 for r in RESULTS.values() for k, (p, v) in r["aspects"].items() if p == v)
    by_aspect: dict[str, list[int]] = {}
    for r in RESULTS.values():
        for k, (p, v) in r["aspects"].items():
            by_aspect.setdefault(k, [0, 0])
            by_aspect[k][0] += 1
            by_aspect[k][1] += p == v
    summary = {
        "server": maria[2],
        "statements_checked": checked,
        "statements_agreed": agreed,
        "aspects_checked": aspects,
        "aspects_agreed": aspects_agreed,
        "by_aspect_checked_agreed": by_aspect,
        "disagreements": {k: r for k, r in RESULTS.items() if not r["agreed"]},
    }
    out = os.environ.get("SCHEMACITE_LOCKS_SUMMARY")
    if out:
        Path(out).write_text(json.dumps(summary, indent=2, default=str))
    print(f"\nMariaDB {maria[2]}: {agreed}/{checked} statements agreed, {aspects_agreed}/{aspects} aspects {by_aspect}")


# --------------------------------------------------------------------------- no server needed
FULLTEXT_T = ["CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(50), FULLTEXT KEY fb (b))"]


def _one(server, version, clause, table=BASE_SQL):
    """The whole-statement impact of `ALTER TABLE t <clause>` on the table `table` builds."""
    st, schema = parsed(table, f"ALTER TABLE t {clause}", "mysql" if server == "mysql" else "mariadb")
    return locks.impacts(st, schema, server, version)[-1]


def _statement(server, sql, table=BASE_SQL):
    st, schema = parsed(table, sql, "mysql" if server == "mysql" else "mariadb")
    return locks.impacts(st, schema, server, (10, 11) if server == "mariadb" else (8, 0))


@pytest.mark.parametrize(
    ("version", "clause", "algorithm", "rewrite"),
    [
        ((5, 7, 40), "ADD COLUMN x INT", "INPLACE", True),
        ((8, 0, 11), "ADD COLUMN x INT", "INPLACE", True),
        ((8, 0, 12), "ADD COLUMN x INT", "INSTANT", False),
        ((8, 0, 28), "ADD COLUMN x INT FIRST", "INPLACE", True),
        ((8, 0, 29), "ADD COLUMN x INT FIRST", "INSTANT", False),
        ((8, 4), "ADD COLUMN x INT FIRST", "INSTANT", False),
        ((8, 0, 28), "DROP COLUMN a", "INPLACE", True),
        ((8, 0, 29), "DROP COLUMN a", "INSTANT", False),
        ((8, 0, 27), "RENAME COLUMN a TO z", "INPLACE", False),
        ((8, 0, 28), "RENAME COLUMN a TO z", "INSTANT", False),
    ],
)
def test_mysql_instant_versions(version, clause, algorithm, rewrite):
    impact = _one("mysql", version, clause)
    assert (impact.algorithm, impact.rewrite) == (algorithm, rewrite)
    assert impact.source.startswith("https://dev.mysql.com/")


def test_series_without_patch_means_newest_release():
    assert _one("mysql", (8, 0), "ADD COLUMN x INT FIRST").algorithm == "INSTANT"
    assert _one("mariadb", (10, 3), "ADD COLUMN x INT").algorithm == "INSTANT"


def test_mysql_lock_none_on_instant_falls_back_to_inplace_rebuild():
    impact = _one("mysql", (8, 0, 35), "ADD COLUMN x INT, LOCK=NONE")
    assert impact.algorithm == "INPLACE" and impact.rewrite
    assert "rules out INSTANT" in impact.note


def test_mysql_instant_with_lock_clause_is_refused():
    impact = _one("mysql", (8, 0, 35), "ADD COLUMN x INT, ALGORITHM=INSTANT, LOCK=NONE")
    assert impact.note.startswith("server refuses")


def test_lock_none_on_copy_operation_is_refused():
    for server in ("mysql", "mariadb"):
        impact = _one(server, (10, 11) if server == "mariadb" else (8, 0), "MODIFY a BIGINT, LOCK=NONE")
        assert impact.note.startswith("server refuses: LOCK=NONE"), impact.note
        assert impact.algorithm == "COPY" and impact.locks[0].mode == "SHARED"


def test_mariadb_11_4_copies_online():
    impact = _one("mariadb", (11, 4), "MODIFY a BIGINT")
    assert (impact.algorithm, impact.locks[0].mode, impact.locks[0].blocks) == ("COPY", "NONE", "nothing")
    assert _one("mariadb", (10, 11), "MODIFY a BIGINT").locks[0].mode == "SHARED"


def test_mariadb_11_4_lock_none_turns_into_online_copy():
    impact = _one("mariadb", (11, 4), "ADD FULLTEXT KEY fb (b), LOCK=NONE")
    assert (impact.algorithm, impact.locks[0].mode) == ("COPY", "NONE") and "online" in impact.note
    assert _one("mariadb", (10, 11), "ADD FULLTEXT KEY fb (b), LOCK=NONE").note.startswith("server refuses: LOCK=NONE")


def test_mariadb_drop_index_statement_takes_no_clause():
    (impact,) = _statement("mariadb", "DROP INDEX ib ON t ALGORITHM=INPLACE")
    assert impact.note.startswith("server refuses")
    (impact,) = _statement("mariadb", "DROP INDEX ib ON t")
    assert (impact.algorithm, impact.locks[0].mode) == ("NOCOPY", "NONE")


def test_mariadb_algorithm_is_a_floor_not_a_choice():
    impact = _one("mariadb", (10, 11), "ADD COLUMN x INT, ALGORITHM=INPLACE")
    assert impact.algorithm == "INSTANT" and not impact.rewrite
    impact = _one("mysql", (8, 0, 35), "ADD COLUMN x INT, ALGORITHM=INPLACE")
    assert impact.algorithm == "INPLACE" and impact.rewrite


def test_algorithm_copy_forces_a_copy():
    impact = _one("mariadb", (10, 11), "ADD COLUMN x INT, ALGORITHM=COPY")
    assert (impact.algorithm, impact.rewrite, impact.locks[0].mode) == ("COPY", True, "SHARED")


def test_blocks_follow_lock_level():
    impact = _one("mariadb", (10, 11), "DROP PRIMARY KEY")
    assert impact.locks[0].blocks == "writes" and impact.blocks == "writes"
    assert _statement("mysql", "LOCK TABLES t WRITE")[0].blocks == "reads+writes"
    assert _statement("mysql", "LOCK TABLES t READ")[0].blocks == "writes"


def test_mysql_fulltext_table_rebuilds_instead_of_instant_add():
    impact = _one("mysql", (8, 0, 35), "ADD COLUMN x INT", table=FULLTEXT_T)
    assert (impact.algorithm, impact.rewrite, impact.locks[0].mode) == ("INPLACE", True, "SHARED")
    impact = _one("mysql", (8, 0, 35), "FORCE", table=FULLTEXT_T)
    assert impact.algorithm == "COPY"


def test_general_note_recommends_lock_wait_timeout():
    for server in ("mysql", "mariadb"):
        note, source = locks.general_note(server)
        assert "lock_wait_timeout" in note and source.startswith("https://")


def test_every_row_names_its_page():
    for server, table in T.tables().items():
        for key, rows in table.items():
            assert rows, key
            for row in rows:
                assert row.source.startswith("https://"), (server, key)
                assert row.mode in MYSQL_LOCKS and row.algorithm in (*ALGORITHMS, None), (server, key)
            assert [r.since for r in rows] == sorted(r.since for r in rows), (server, key)


def test_inline_references_is_a_foreign_key_on_mariadb_10_5_only():
    parent = ["CREATE TABLE p (id INT PRIMARY KEY)", *BASE_SQL[:1]]
    clause = "ADD COLUMN pid INT REFERENCES p (id)"
    impact = _one("mariadb", (10, 11), clause, table=parent)
    assert (impact.algorithm, impact.locks[0].mode) == ("COPY", "SHARED")
    impact = _one("mariadb", (10, 4), clause, table=parent)
    assert impact.algorithm == "INSTANT" and "ignores an inline REFERENCES" in impact.note
    impact = _one("mysql", (8, 4), clause, table=parent)  # MySQL's documentation: parsed and ignored
    assert impact.algorithm == "INSTANT" and "MySQL 8 parses and ignores" in impact.note


VIEW_DDL = [
    ("DROP VIEW v", "drop_view"),
    ("CREATE OR REPLACE VIEW v AS SELECT id, 1 AS x FROM t", "replace_view"),
    ("ALTER VIEW v AS SELECT id FROM t", "replace_view"),
]


@pytest.mark.parametrize("sql, key", VIEW_DDL, ids=[k + ":" + s.split()[0] for s, k in VIEW_DDL])
def test_view_ddl_waits_for_readers_of_the_view(sql, key, mariadb_server):
    """The view rows say EXCLUSIVE on the view: the statement waits while a transaction that read
    the view is open (MariaDB error 1205 after lock_wait_timeout), as the prediction says."""
    setup = ["CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB", "CREATE VIEW v AS SELECT id FROM t"]
    schema = Schema("mariadb")
    for s in setup:
        replay.apply(schema, describe(s, Location("setup.sql", 1, 1, 0), "mariadb"), new=False)
    (impact,) = locks.impacts(describe(sql, Location("m.sql", 1, 1, 0), "mariadb"), schema, "mariadb", (10, 11))
    assert impact.operation == key and [(lk.relation, lk.mode) for lk in impact.locks] == [("v", "EXCLUSIVE")]
    db = mariadb_server.create_database("schemacite_views")
    reader, ddl = mariadb_server.connect(db), mariadb_server.connect(db)
    try:
        for s in ["DROP VIEW IF EXISTS v", "DROP TABLE IF EXISTS t", *setup]:
            reader.cursor().execute(s)
        reader.autocommit(False)
        reader.cursor().execute("SELECT * FROM v")
        ddl.cursor().execute("SET SESSION lock_wait_timeout = 1")
        with pytest.raises(Exception, match="1205"):
            ddl.cursor().execute(sql)
        reader.rollback()
        ddl.cursor().execute(sql)  # and runs once the reader is gone
    finally:
        reader.close()
        ddl.close()


def test_mysql_expression_default_refuses_instant():
    """Documentation only (no MySQL server here): MySQL refuses INSTANT for ADD COLUMN with any
    expression DEFAULT (vitessio/vitess#16024) and rebuilds in place; a literal one stays INSTANT."""
    impact = _one("mysql", (8, 0, 35), "ADD COLUMN x INT DEFAULT (2 + 5)")
    assert (impact.algorithm, impact.rewrite, impact.locks[0].mode) == ("INPLACE", True, "NONE")
    assert "16024" in impact.note
    assert _one("mysql", (8, 0, 35), "ADD COLUMN x INT DEFAULT 7").algorithm == "INSTANT"


def test_mariadb_default_computed_per_row_copies_online_from_11_2():
    """The copy a DEFAULT (uuid()) forces lets writes go on from MariaDB 11.2 (online copy)."""
    impact = _one("mariadb", (11, 4), "ADD COLUMN token uuid DEFAULT (uuid())")
    assert (impact.algorithm, impact.locks[0].mode) == ("COPY", "NONE")
    impact = _one("mariadb", (10, 11), "ADD COLUMN token uuid DEFAULT (uuid())")
    assert (impact.algorithm, impact.locks[0].mode) == ("COPY", "SHARED")
