"""What the breaks-running-code rules say the servers do, checked on PostgreSQL and MariaDB: the
previous release's queries fail once a column or table is dropped or renamed, and the view the
rename-table fix keeps under the old name takes that release's reads and writes."""

from __future__ import annotations

import MySQLdb
import psycopg
import pytest

from schemacite import lint_paths
from schemacite.testing import run_case

# the previous release's queries, run after each change
OLD_QUERIES = (
    "SELECT id, nickname FROM users",
    "INSERT INTO users (id, nickname) VALUES (2, 'b')",
    "UPDATE users SET nickname = 'c' WHERE id = 1",
    "DELETE FROM users WHERE nickname = 'c'",
)
SETUP = "CREATE TABLE users (id int PRIMARY KEY, nickname text)"
CHANGES = {  # change: (PostgreSQL SQLSTATE, MariaDB error) of the old release's queries after it
    "ALTER TABLE users DROP COLUMN nickname": ("42703", 1054),
    "ALTER TABLE users RENAME COLUMN nickname TO handle": ("42703", 1054),
    "DROP TABLE users": ("42P01", 1146),
    "ALTER TABLE users RENAME TO members": ("42P01", 1146),
}
VIEW_FIX = ("ALTER TABLE users RENAME TO members", "CREATE VIEW users AS SELECT * FROM members")


@pytest.mark.parametrize("change", list(CHANGES))
def test_the_old_release_fails_on_postgres(pg_server, change):
    db = pg_server.create_database("breaks_running_" + str(list(CHANGES).index(change)))
    with pg_server.connect(db) as conn:
        conn.execute(SETUP)
        conn.execute("INSERT INTO users VALUES (1, 'a')")
        conn.execute(change)
        for query in OLD_QUERIES:
            with pytest.raises(psycopg.Error) as failed:
                conn.execute(query)
            assert failed.value.sqlstate == CHANGES[change][0], query
    assert _flagged(change, "postgres")


@pytest.mark.parametrize("change", list(CHANGES))
def test_the_old_release_fails_on_mariadb(mariadb_server, change):
    db = mariadb_server.create_database("breaks_running_" + str(list(CHANGES).index(change)))
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        cur.execute(SETUP)
        cur.execute("INSERT INTO users VALUES (1, 'a')")
        cur.execute(change)
        for query in OLD_QUERIES:
            with pytest.raises(MySQLdb.Error) as failed:
                cur.execute(query)
            assert failed.value.args[0] == CHANGES[change][1], query
    finally:
        conn.close()
    assert _flagged(change, "mariadb")


def test_a_view_under_the_old_name_takes_the_old_release_on_postgres(pg_server):
    db = pg_server.create_database("breaks_running_view")
    with pg_server.connect(db) as conn:
        conn.execute(SETUP)
        conn.execute("INSERT INTO users VALUES (1, 'a')")
        with conn.transaction():
            for statement in VIEW_FIX:
                conn.execute(statement)
        for query in OLD_QUERIES:
            conn.execute(query)
        assert conn.execute("SELECT id, nickname FROM members").fetchall() == [(2, "b")]
    assert not _flagged("BEGIN;\n" + ";\n".join(VIEW_FIX) + ";\nCOMMIT;", "postgres")


def test_a_view_under_the_old_name_takes_the_old_release_on_mariadb(mariadb_server):
    db = mariadb_server.create_database("breaks_running_view")
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        cur.execute(SETUP)
        cur.execute("INSERT INTO users VALUES (1, 'a')")
        for statement in VIEW_FIX:
            cur.execute(statement)
        for query in OLD_QUERIES:
            cur.execute(query)
        cur.execute("SELECT id, nickname FROM members")
        assert cur.fetchall() == ((2, "b"),)
    finally:
        conn.close()
    assert not _flagged(";\n".join(VIEW_FIX) + ";", "mariadb")


def _flagged(sql: str, dialect: str) -> list:
    rules = ["drop-column", "drop-table", "rename-column", "rename-table"]
    case = {"rule": rules[0], "rules": rules[1:], "dialect": dialect, "history": SETUP + ";", "sql": sql + ";"}
    result = run_case(case)
    assert not result.errors, [str(e) for e in result.errors]
    return [f for f in result.findings if f.rule in rules]


def test_what_the_old_release_reads_after_a_type_change_on_postgres(pg_server):
    """The values a client reads change kind (int to str, naive to aware datetimes) or print with
    other decimals; a widening within a kind reads the same."""
    db = pg_server.create_database("breaks_running_types")
    with pg_server.connect(db) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        conn.execute("CREATE TABLE t (n int, at timestamp, m numeric(12, 2), w int)")
        conn.execute("INSERT INTO t VALUES (7, '2024-01-02 03:04:05', 12.5, 7)")
        before = conn.execute("SELECT n, at, m::text, w FROM t").fetchone()
        for change in ("n TYPE text", "at TYPE timestamptz", "m TYPE numeric(14, 4)", "w TYPE bigint"):
            conn.execute(f"ALTER TABLE t ALTER COLUMN {change}")
        after = conn.execute("SELECT n, at, m::text, w FROM t").fetchone()
    assert (type(before[0]), type(after[0])) == (int, str)
    assert before[1].tzinfo is None and after[1].tzinfo is not None
    assert (before[2], after[2]) == ("12.50", "12.5000")
    assert before[3] == after[3] and type(after[3]) is int
    sql = "ALTER TABLE t ALTER COLUMN n TYPE text, ALTER COLUMN at TYPE timestamptz, ALTER COLUMN m TYPE numeric(14, 4), ALTER COLUMN w TYPE bigint"
    case = {
        "rule": "type-change-visible-to-clients",
        "dialect": "postgres",
        "history": "CREATE TABLE t (n int, at timestamp, m numeric(12, 2), w int);",
        "sql": sql + ";",
    }
    # one statement, one finding, naming the changed columns and leaving the widening out
    assert [f.identity for f in run_case(case).findings] == ["n,at,m"]


def test_what_the_old_release_reads_after_a_type_change_on_mariadb(mariadb_server):
    db = mariadb_server.create_database("breaks_running_types")
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (n int, m decimal(10), w int)")
        cur.execute("INSERT INTO t VALUES (7, 5, 7)")
        cur.execute("SELECT n, CAST(m AS char), w FROM t")
        before = cur.fetchone()
        cur.execute("ALTER TABLE t MODIFY n varchar(20), MODIFY m decimal(10, 2), MODIFY w bigint")
        cur.execute("SELECT n, CAST(m AS char), w FROM t")
        after = cur.fetchone()
    finally:
        conn.close()
    assert (type(before[0]), type(after[0])) == (int, str)
    assert (before[1], after[1]) == ("5", "5.00")
    assert before[2] == after[2] and type(after[2]) is int
    case = {
        "rule": "type-change-visible-to-clients",
        "dialect": "mariadb",
        "history": "CREATE TABLE t (n int, m decimal(10), w int);",
        "sql": "ALTER TABLE t MODIFY n varchar(20), MODIFY m decimal(10, 2), MODIFY w bigint;",
    }
    assert [f.identity for f in run_case(case).findings] == ["n,m"]


# a field Django adds with a default: the default fills the rows, then goes (insert-needs-new-column)
DJANGO_NOT_NULL = (
    "ALTER TABLE users ADD COLUMN region integer DEFAULT 1 NOT NULL",
    "ALTER TABLE users ALTER COLUMN region DROP DEFAULT",
)
OLD_INSERT = "INSERT INTO users (id, nickname) VALUES (2, 'b')"


def _needs_new_column(dialect: str, sql: str) -> list:
    case = {"rule": "insert-needs-new-column", "dialect": dialect, "history": SETUP + ";", "sql": sql}
    result = run_case(case)
    assert not result.errors, [str(e) for e in result.errors]
    return [f.identity for f in result.findings]


def test_the_old_release_cannot_insert_once_a_new_column_is_required_on_postgres(pg_server):
    db = pg_server.create_database("breaks_running_required")
    with pg_server.connect(db) as conn:
        conn.execute(SETUP)
        conn.execute("INSERT INTO users VALUES (1, 'a')")
        with conn.transaction():
            for statement in DJANGO_NOT_NULL:
                conn.execute(statement)
        with pytest.raises(psycopg.Error) as failed:
            conn.execute(OLD_INSERT)
        assert failed.value.sqlstate == "23502"
        # with the default kept, the old release's insert goes through
        conn.execute("ALTER TABLE users ALTER COLUMN region SET DEFAULT 1")
        conn.execute(OLD_INSERT)
    assert _needs_new_column("postgres", "BEGIN;\n" + ";\n".join(DJANGO_NOT_NULL) + ";\nCOMMIT;") == ["region"]
    assert _needs_new_column("postgres", DJANGO_NOT_NULL[0] + ";") == []


def test_the_old_release_cannot_insert_once_a_new_column_is_required_on_mariadb(mariadb_server):
    db = mariadb_server.create_database("breaks_running_required")
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
        cur.execute(SETUP)
        cur.execute("INSERT INTO users VALUES (1, 'a')")
        for statement in DJANGO_NOT_NULL:
            cur.execute(statement)
        with pytest.raises(MySQLdb.Error) as failed:
            cur.execute(OLD_INSERT)
        assert failed.value.args[0] == 1364
    finally:
        conn.close()
    assert _needs_new_column("mariadb", ";\n".join(DJANGO_NOT_NULL) + ";") == ["region"]


def test_the_old_release_fails_after_an_enum_label_or_a_schema_is_renamed_on_postgres(pg_server):
    """rename-enum-value and rename-schema: the old label and the old schema are gone at once."""
    db = pg_server.create_database("breaks_running_renames")
    history = (
        "CREATE TYPE status AS ENUM ('new', 'done');"
        " CREATE TABLE tasks (id int PRIMARY KEY, s status);"
        " CREATE SCHEMA billing; CREATE TABLE billing.invoices (id int PRIMARY KEY)"
    )
    changes = {
        "ALTER TYPE status RENAME VALUE 'done' TO 'completed'": ("INSERT INTO tasks VALUES (2, 'done')", "22P02"),
        "ALTER SCHEMA billing RENAME TO invoicing": ("SELECT id FROM billing.invoices", "42P01"),
    }
    with pg_server.connect(db) as conn:
        conn.execute(history)
        conn.execute("INSERT INTO tasks VALUES (1, 'done')")
        for change, (old_query, sqlstate) in changes.items():
            conn.execute(change)
            with pytest.raises(psycopg.Error) as failed:
                conn.execute(old_query)
            assert failed.value.sqlstate == sqlstate, change
        assert conn.execute("SELECT s::text FROM tasks").fetchall() == [("completed",)]
    rules = ["rename-enum-value", "rename-schema"]
    case = {"rule": rules[0], "rules": rules[1:], "dialect": "postgres", "history": history + ";"}
    result = run_case({**case, "sql": ";\n".join(changes) + ";"})
    assert sorted(f.rule for f in result.findings) == rules


def test_a_type_or_schema_an_earlier_migration_created_is_in_use(tmp_path):
    """What a deploy creates is new only within that deploy: the next migration's rename of the
    label or the schema reaches a release that has been using them."""
    (tmp_path / "001_create.sql").write_text(
        "CREATE SCHEMA app;\nCREATE TYPE mood AS ENUM ('a', 'b');\nCREATE TABLE t (id int PRIMARY KEY, m mood);\n"
    )
    (tmp_path / "002_rename.sql").write_text(
        "ALTER TYPE mood RENAME VALUE 'a' TO 'c';\nALTER SCHEMA app RENAME TO core;\n"
    )
    result = lint_paths([str(tmp_path)], dialect="postgres", select=["SC131", "SC132"])
    assert sorted((f.code, f.location.line) for f in result.findings) == [("SC131", 1), ("SC132", 2)]


# drop-not-null: the change itself writes no NULL; the new release's insert does, and the old
# release's read of the column then gets one (None to a Python client) where it always had a value
NOT_NULL_SETUP = "CREATE TABLE users (id int PRIMARY KEY, nickname varchar(20) NOT NULL)"
NEW_INSERT = "INSERT INTO users (id, nickname) VALUES (2, NULL)"


def _drop_not_null(dialect: str, sql: str) -> list:
    case = {"rule": "drop-not-null", "dialect": dialect, "history": NOT_NULL_SETUP + ";", "sql": sql}
    result = run_case(case)
    assert not result.errors, [str(e) for e in result.errors]
    return [f.identity for f in result.findings]


def test_the_old_release_reads_null_once_not_null_is_dropped_on_postgres(pg_server):
    db = pg_server.create_database("breaks_running_not_null")
    change = "ALTER TABLE users ALTER COLUMN nickname DROP NOT NULL"
    with pg_server.connect(db) as conn:
        conn.execute(NOT_NULL_SETUP)
        conn.execute("INSERT INTO users VALUES (1, 'a')")
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(NEW_INSERT)
        assert refused.value.sqlstate == "23502"
        conn.rollback()
        conn.execute(change)
        assert conn.execute("SELECT nickname FROM users ORDER BY id").fetchall() == [("a",)]
        conn.execute(NEW_INSERT)
        assert conn.execute("SELECT nickname FROM users ORDER BY id").fetchall() == [("a",), (None,)]
    assert _drop_not_null("postgres", change + ";") == ["nickname"]
    assert _drop_not_null("postgres", change + ";\nALTER TABLE users DROP COLUMN nickname;") == []


def test_the_old_release_reads_null_once_modify_leaves_not_null_out_on_mariadb(mariadb_server):
    """MODIFY restates the whole column: leaving NOT NULL out makes it nullable."""
    db = mariadb_server.create_database("breaks_running_not_null")
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
        cur.execute(NOT_NULL_SETUP)
        cur.execute("INSERT INTO users VALUES (1, 'a')")
        with pytest.raises(MySQLdb.Error) as refused:
            cur.execute(NEW_INSERT)
        assert refused.value.args[0] == 1048
        cur.execute("ALTER TABLE users MODIFY nickname varchar(30)")
        cur.execute(NEW_INSERT)
        cur.execute("SELECT nickname FROM users ORDER BY id")
        assert cur.fetchall() == (("a",), (None,))
    finally:
        conn.close()
    assert _drop_not_null("mariadb", "ALTER TABLE users MODIFY nickname varchar(30);") == ["nickname"]
    assert _drop_not_null("mariadb", "ALTER TABLE users MODIFY nickname varchar(30) NOT NULL;") == []


def test_a_dropped_view_fails_the_old_release_and_a_table_created_again_is_empty(pg_server, mariadb_server):
    """drop-table: DROP VIEW takes the name away as DROP TABLE does; a table dropped and created
    again answers the old queries with no rows."""
    history = "CREATE TABLE orders (id int PRIMARY KEY); CREATE VIEW recent AS SELECT id FROM orders"
    changes = ("DROP VIEW recent", "DROP TABLE IF EXISTS orders", "CREATE TABLE orders (id int PRIMARY KEY)")
    db = pg_server.create_database("breaks_running_drop_view")
    with pg_server.connect(db) as conn:
        for statement in (*history.split("; "), "INSERT INTO orders VALUES (1)"):
            conn.execute(statement)
        conn.execute(changes[0])
        with pytest.raises(psycopg.Error) as failed:
            conn.execute("SELECT id FROM recent")
        assert failed.value.sqlstate == "42P01"
        for statement in changes[1:]:
            conn.execute(statement)
        assert conn.execute("SELECT count(*) FROM orders").fetchone() == (0,)
    db = mariadb_server.create_database("breaks_running_drop_view")
    mdb = mariadb_server.connect(db)
    try:
        cur = mdb.cursor()
        for statement in (*history.split("; "), "INSERT INTO orders VALUES (1)", changes[0]):
            cur.execute(statement)
        with pytest.raises(MySQLdb.Error) as refused:
            cur.execute("SELECT id FROM recent")
        assert refused.value.args[0] == 1146
        for statement in changes[1:]:
            cur.execute(statement)
        cur.execute("SELECT count(*) FROM orders")
        assert cur.fetchone() == (0,)
    finally:
        mdb.close()
    for dialect in ("postgres", "mariadb"):
        case = {"rule": "drop-table", "dialect": dialect, "history": history + ";", "sql": ";\n".join(changes) + ";"}
        messages = sorted(f.message for f in run_case(case).findings)
        assert [m.split(" is ")[0] for m in messages] == ["Table orders", "View recent"], messages
        assert "its rows go" in messages[0]


def test_a_view_renamed_or_a_table_moved_to_another_schema_fails_the_old_release(pg_server):
    """rename-table: ALTER VIEW ... RENAME TO and ALTER TABLE ... SET SCHEMA take the old name away."""
    history = (
        "CREATE SCHEMA archive; CREATE TABLE orders (id int PRIMARY KEY); CREATE VIEW recent AS SELECT id FROM orders"
    )
    changes = {
        "ALTER VIEW recent RENAME TO latest": "SELECT id FROM recent",
        "ALTER TABLE orders SET SCHEMA archive": "SELECT id FROM orders",
    }
    db = pg_server.create_database("breaks_running_moves")
    with pg_server.connect(db) as conn:
        conn.execute(history)
        for change, old_query in changes.items():
            conn.execute(change)
            with pytest.raises(psycopg.Error) as failed:
                conn.execute(old_query)
            assert failed.value.sqlstate == "42P01", change
        assert conn.execute("SELECT count(*) FROM latest").fetchone() == (0,)
    case = {"rule": "rename-table", "dialect": "postgres", "history": history + ";"}
    result = run_case({**case, "sql": ";\n".join(changes) + ";"})
    assert sorted(f.table for f in result.findings) == ["orders", "recent"]


def test_the_old_release_fails_once_a_function_sequence_or_extension_is_dropped_on_postgres(pg_server):
    """drop-object: the old release's call, nextval and use of the extension's type fail after the drop."""
    history = (
        "CREATE FUNCTION order_total(bigint) RETURNS numeric LANGUAGE sql AS $$ SELECT 1.5 $$;"
        " CREATE PROCEDURE archive_orders() LANGUAGE sql AS $$ SELECT 1 $$;"
        " CREATE SEQUENCE invoice_numbers; CREATE EXTENSION hstore"
    )
    changes = {
        "DROP FUNCTION order_total(bigint)": ("SELECT order_total(1)", "42883"),
        "DROP PROCEDURE archive_orders": ("CALL archive_orders()", "42883"),
        "DROP SEQUENCE invoice_numbers": ("SELECT nextval('invoice_numbers')", "42P01"),
        "DROP EXTENSION hstore": ("SELECT 'a=>1'::hstore", "42704"),
    }
    db = pg_server.create_database("breaks_running_drop_objects")
    with pg_server.connect(db) as conn:
        conn.execute(history)
        for change, (old_query, sqlstate) in changes.items():
            conn.execute(old_query)  # the old release's statement works before the drop
            conn.execute(change)
            with pytest.raises(psycopg.Error) as failed:
                conn.execute(old_query)
            assert failed.value.sqlstate == sqlstate, change
    case = {"rule": "drop-object", "dialect": "postgres", "history": history + ";"}
    result = run_case({**case, "sql": ";\n".join(changes) + ";"})
    assert sorted(f.identity for f in result.findings) == [
        "extension hstore",
        "function order_total",
        "procedure archive_orders",
        "sequence invoice_numbers",
    ]
    # the deploy that creates the function again under its name leaves the old release's call working
    again = "DROP FUNCTION order_total(bigint);\nCREATE FUNCTION order_total(bigint) RETURNS numeric LANGUAGE sql AS $$ SELECT 2 $$;"
    assert not run_case({**case, "sql": again}).findings
