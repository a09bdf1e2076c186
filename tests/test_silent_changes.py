"""The server behaviour the silent-changes rules (and their neighbours) rest on, checked on the real
servers, beside what the rule says about the same SQL."""

from __future__ import annotations

import pytest

from schemacite.testing import run_case


def _codes(sql: str, rule: str, dialect: str, history: str = "", target: str | None = None) -> list[str]:
    case = {"rule": rule, "dialect": dialect, "target": target, "sql": sql, "history": history}
    result = run_case(case)
    assert not result.errors, [str(e) for e in result.errors]
    return [str(f.severity) for f in result.findings if rule in (f.rule, f.code)]


PG_TABLE = "CREATE TABLE orders (id int PRIMARY KEY, status text, qty int);"


@pytest.mark.parametrize("major", [12, 18])
def test_pg_drops_before_sets_in_one_alter_table(pg_majors, major):
    """PostgreSQL runs a DROP DEFAULT or DROP NOT NULL written after the SET of the same column
    first, so the SET stays; two TYPE changes of one column it refuses, and so an UPDATE, INSERT or
    MERGE that assigns one column twice, and a table, view or CREATE TABLE AS whose columns come out
    under one name twice. The rule warns of the first and calls the others errors; a SET written
    after the DROP, which runs as written, it leaves."""
    server = pg_majors(major)
    dbname = server.create_database("silent_dup_column")
    cases = {
        "ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'new', ALTER COLUMN status DROP DEFAULT": (
            ("'new'::text", False),
            ["warning"],
        ),
        "ALTER TABLE orders ALTER COLUMN status SET NOT NULL, ALTER COLUMN status DROP NOT NULL": (
            (None, True),
            ["warning"],
        ),
        "ALTER TABLE orders ALTER COLUMN status DROP DEFAULT, ALTER COLUMN status SET DEFAULT 'new'": (
            ("'new'::text", False),
            [],
        ),
        "ALTER TABLE orders ALTER COLUMN qty TYPE bigint, ALTER COLUMN qty TYPE numeric": ("refused", ["error"]),
        "UPDATE orders SET status = 'a', qty = 1, status = 'b'": ("refused", ["error"]),
        "UPDATE orders SET (status, qty) = ('a', 1), status = 'b'": ("refused", ["error"]),
        "INSERT INTO orders (id, qty, qty) VALUES (1, 2, 3)": ("refused", ["error"]),
        "INSERT INTO orders VALUES (1) ON CONFLICT (id) DO UPDATE SET qty = 1, qty = 2": ("refused", ["error"]),
        # a relation's columns under one name twice: declared so, or named so by the server
        "CREATE TABLE pairs (a int, a text)": ("refused", ["error"]),
        "CREATE VIEW pairs (a, a) AS SELECT 1, 2": ("refused", ["error"]),
        "CREATE VIEW pairs AS SELECT id a, qty a FROM orders": ("refused", ["error"]),
        "CREATE VIEW pairs AS SELECT 1, 2": ("refused", ["error"]),
        "CREATE VIEW pairs AS SELECT 1::int, 2::int": ("refused", ["error"]),
        "CREATE VIEW pairs AS SELECT count(*), count(qty) FROM orders": ("refused", ["error"]),
        "CREATE MATERIALIZED VIEW pairs AS SELECT id, id FROM orders": ("refused", ["error"]),
        "SELECT id a, qty a INTO pairs FROM orders": ("refused", ["error"]),
    }
    if major >= 15:  # MERGE came in PostgreSQL 15
        merge = "MERGE INTO orders USING (SELECT 1 id) s ON orders.id = s.id WHEN "
        cases[merge + "MATCHED THEN UPDATE SET qty = 1, qty = 2"] = ("refused", ["error"])
        cases[merge + "NOT MATCHED THEN INSERT (id, id) VALUES (1, 2)"] = ("refused", ["error"])
    with server.connect(dbname) as conn:
        for sql, (stored, flagged) in cases.items():
            conn.execute(f"DROP TABLE IF EXISTS orders; {PG_TABLE}")
            try:
                conn.execute(sql)
                got = conn.execute(
                    "SELECT pg_get_expr(d.adbin, d.adrelid), a.attnotnull FROM pg_attribute a"
                    " LEFT JOIN pg_attrdef d ON (d.adrelid, d.adnum) = (a.attrelid, a.attnum)"
                    " WHERE a.attrelid = 'orders'::regclass AND a.attname = 'status'"
                ).fetchone()
            except Exception as e:
                assert "cannot alter type of column" in str(e) or "more than once" in str(e) or "multiple" in str(e)
                got = "refused"
            assert got == stored, sql
            assert _codes(sql + ";", "SC127", "postgres", PG_TABLE, f"postgres-{major}") == flagged, sql


def test_mariadb_refuses_a_second_change_of_one_column(mariadb_server):
    """MariaDB refuses with "Unknown column" (1054) a second sub-command naming a column the
    statement already changed, whichever the two are; a DROP and ADD of one name it runs, and an
    UPDATE setting a column twice. The rule says the same."""
    import MySQLdb

    dbname = mariadb_server.create_database("silent_dup_column")
    table = "CREATE TABLE orders (id int PRIMARY KEY, status varchar(10), qty int)"
    refused = [
        "ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'a', ALTER COLUMN status SET DEFAULT 'b'",
        "ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'a', ALTER COLUMN status DROP DEFAULT",
        "ALTER TABLE orders MODIFY status varchar(20) NOT NULL, ALTER COLUMN status SET DEFAULT 'new'",
        "ALTER TABLE orders MODIFY qty bigint, MODIFY qty int",
        "ALTER TABLE orders CHANGE status state varchar(20), MODIFY status varchar(30)",
        "ALTER TABLE orders RENAME COLUMN qty TO amount, MODIFY qty bigint",
        "ALTER TABLE orders DROP COLUMN qty, ALTER COLUMN qty SET DEFAULT 1",
    ]
    accepted = [
        "ALTER TABLE orders DROP COLUMN status, ADD COLUMN status varchar(20)",
        "ALTER TABLE orders MODIFY status varchar(20), MODIFY qty bigint",
        "UPDATE orders SET qty = 1, qty = qty + 1",  # assignments run in order
    ]
    conn = mariadb_server.connect(dbname)
    try:
        cur = conn.cursor()
        for sql in refused + accepted:
            cur.execute("DROP TABLE IF EXISTS orders")
            cur.execute(table)
            try:
                cur.execute(sql)
                code = 0
            except MySQLdb.OperationalError as e:
                code = e.args[0]
            assert code == (1054 if sql in refused else 0), sql
            assert _codes(sql + ";", "SC127", "mariadb", table + ";") == (["error"] if sql in refused else []), sql
    finally:
        conn.close()


DOMAIN_HISTORY = """CREATE DOMAIN quantity AS integer;
CREATE TABLE order_lines (id int PRIMARY KEY, qty quantity);
CREATE TABLE stock (id int PRIMARY KEY, on_hand quantity);
CREATE TABLE notes (id int PRIMARY KEY, body text);
"""


@pytest.mark.parametrize("major", [12, 18])
def test_pg_domain_constraint_locks_every_table_of_the_domain(pg_majors, major):
    """ADD CONSTRAINT, SET NOT NULL and VALIDATE CONSTRAINT of a domain hold a SHARE lock (writes
    wait) on each table with a column of the domain, and no other, until the transaction ends; ADD
    ... NOT VALID locks none. A stored value that breaks the constraint makes the ADD fail: it reads
    the rows. The rule flags the three and names both tables; NOT VALID it leaves."""
    import psycopg

    server = pg_majors(major)
    dbname = server.create_database("silent_domain")
    with server.connect(dbname) as conn:
        conn.execute(DOMAIN_HISTORY + "INSERT INTO order_lines VALUES (1, 5); INSERT INTO stock VALUES (1, 0);")
        expected = {
            "ALTER DOMAIN quantity ADD CONSTRAINT q_nonneg CHECK (VALUE >= 0)": {"order_lines", "stock"},
            "ALTER DOMAIN quantity ADD CONSTRAINT q_small CHECK (VALUE < 100) NOT VALID": set(),
            "ALTER DOMAIN quantity VALIDATE CONSTRAINT q_small": {"order_lines", "stock"},
            "ALTER DOMAIN quantity SET NOT NULL": {"order_lines", "stock"},
        }
        for sql, locked in expected.items():
            with server.connect(dbname, autocommit=False) as other:
                other.execute(sql)
                held = conn.execute(
                    "SELECT c.relname, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    " WHERE l.pid <> pg_backend_pid() AND c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace"
                ).fetchall()
                other.commit()
            assert sorted(held) == sorted((t, "ShareLock") for t in locked), sql
            flagged = run_case(
                {
                    "rule": "SC129",
                    "dialect": "postgres",
                    "target": f"postgres-{major}",
                    "sql": sql + ";",
                    "history": DOMAIN_HISTORY,
                }
            ).findings
            assert len(flagged) == (1 if locked else 0), sql
            if locked:
                assert "blocks writes to order_lines, stock" in flagged[0].message
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("ALTER DOMAIN quantity ADD CONSTRAINT q_positive CHECK (VALUE > 0)")


ENUM_HISTORY = """CREATE TYPE order_status AS ENUM ('new', 'paid');
CREATE TABLE orders (id int PRIMARY KEY, status order_status, note text);
"""
ENUM_CASES = {  # statements run in one transaction after BEGIN -> the line the server refuses (0: none)
    "update": (["ALTER TYPE order_status ADD VALUE 'refunded'", "UPDATE orders SET status = 'refunded'"], 3),
    "default": (
        [
            "ALTER TYPE order_status ADD VALUE 'draft' BEFORE 'new'",
            "ALTER TABLE orders ALTER status SET DEFAULT 'draft'",
        ],
        3,
    ),
    "cast": (["ALTER TYPE order_status ADD VALUE 'lost'", "DELETE FROM orders WHERE status = 'lost'::order_status"], 3),
    "other_column": (["ALTER TYPE order_status ADD VALUE 'void'", "UPDATE orders SET note = 'void'"], 0),
    "old_label": (["ALTER TYPE order_status ADD VALUE 'held'", "UPDATE orders SET status = 'paid'"], 0),
    "type_of_the_transaction": (
        [
            "CREATE TYPE ticket_state AS ENUM ('open')",
            "ALTER TYPE ticket_state ADD VALUE 'closed'",
            "CREATE TABLE tickets (id int, state ticket_state DEFAULT 'closed')",
        ],
        4,  # from PostgreSQL 17: none
    ),
}


@pytest.mark.parametrize("major", [12, 18])
def test_pg_refuses_a_new_enum_label_before_commit(pg_majors, major):
    """In one transaction, PostgreSQL refuses ("unsafe use of new value") the first statement that
    uses a label ALTER TYPE ... ADD VALUE added, unless (from 17) the transaction created the type
    too; the rule flags that statement and no other."""
    import psycopg

    server = pg_majors(major)
    for name, (statements, refused) in ENUM_CASES.items():
        dbname = server.create_database(f"silent_enum_{name}")
        with server.connect(dbname) as conn:
            conn.execute(ENUM_HISTORY)
        failed = 0
        with server.connect(dbname, autocommit=False) as conn:
            for line, sql in enumerate(statements, start=2):
                try:
                    conn.execute(sql)
                except psycopg.errors.UnsafeNewEnumValueUsage:
                    failed = line
                    break
            conn.rollback()
        if name == "type_of_the_transaction" and major >= 17:
            refused = 0
        assert failed == refused, name
        sql = "BEGIN;\n" + "".join(s + ";\n" for s in statements) + "COMMIT;\n"
        case = {"rule": "SC128", "dialect": "postgres", "target": f"postgres-{major}", "sql": sql}
        lines = [f.location.line for f in run_case({**case, "history": ENUM_HISTORY}).findings]
        assert lines == ([refused] if refused else []), name


LONG_A = "orders_by_customer_and_creation_time_for_the_reporting_dashboard_a"  # 66 bytes
LONG_B = LONG_A[:-1] + "b"


@pytest.mark.parametrize("major", [12, 18])
def test_pg_cuts_long_names_and_refuses_two_cut_alike(pg_majors, major):
    """PostgreSQL stores a name over 63 bytes cut to 63 (a multibyte character whole or not at all),
    with a NOTICE only, and refuses a second name cut alike as existing; the rule warns of the first
    and calls the second an error."""
    import psycopg

    server = pg_majors(major)
    dbname = server.create_database("silent_long_names")
    history = "CREATE TABLE t (a int, b int);"
    with server.connect(dbname) as conn:
        notices = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute(history)
        conn.execute(f"CREATE INDEX {LONG_A} ON t (a)")
        assert notices and "will be truncated" in notices[0]
        kept = conn.execute("SELECT relname::text FROM pg_class WHERE relname LIKE 'orders_by%'").fetchone()[0]
        assert kept == LONG_A[:63]
        with pytest.raises(psycopg.errors.DuplicateTable):
            conn.execute(f"CREATE INDEX {LONG_B} ON t (b)")
        conn.execute('CREATE TABLE "' + "é" * 40 + '" (id int)')  # 80 bytes: 31 characters are kept
        stored = conn.execute("SELECT relname::text FROM pg_class WHERE relname LIKE 'é%'").fetchone()[0]
        assert stored == "é" * 31
    sql = (
        f"CREATE INDEX {LONG_A} ON t (a);\nCREATE INDEX {LONG_B} ON t (b);\n"
        + 'CREATE TABLE "'
        + "é" * 40
        + '" (id int);\n'
    )
    case = {"rule": "SC126", "dialect": "postgres", "target": f"postgres-{major}", "sql": sql, "history": history}
    found = [(f.location.line, str(f.severity)) for f in run_case(case).findings]
    assert found == [(1, "warning"), (2, "error"), (3, "warning")]


def test_pg_takes_a_name_cut_like_one_in_another_schema_or_like_its_table(pg_server):
    """A relation name cut like one in another schema, and a foreign key constraint cut like its
    table's name (constraints are not relations), are no clash: PostgreSQL 15 takes both, and the
    rule only warns of the cut."""
    a70 = "a" * 70
    history = f"CREATE SCHEMA audit;\nCREATE TABLE {a70} (id int PRIMARY KEY)"
    sql = (
        f"CREATE TABLE audit.{a70} (id int PRIMARY KEY);\n"
        f"ALTER TABLE {a70} ADD CONSTRAINT {a70}_fk FOREIGN KEY (id) REFERENCES audit.{a70} (id)"
    )
    dbname = pg_server.create_database("silent_long_names_apart")
    with pg_server.connect(dbname) as conn:
        conn.execute(history)
        conn.execute(sql)
    with pg_server.connect() as conn:
        conn.execute(f"DROP DATABASE {dbname}")
    case = {"rule": "SC126", "dialect": "postgres", "target": "postgres-15", "sql": sql + ";\n", "history": history}
    found = [(f.location.line, str(f.severity)) for f in run_case(case).findings]
    assert found == [(1, "warning"), (2, "warning")]


def test_mariadb_refuses_names_over_64_characters(mariadb_server):
    """MariaDB refuses a column or index name over 64 characters (1059) and a table name over 64
    (1103), counting characters, not bytes; it cuts nothing. The rule says the same."""
    import MySQLdb

    dbname = mariadb_server.create_database("silent_long_names")
    statements = {
        "ALTER TABLE t ADD COLUMN " + "c" * 65 + " int": 1059,
        "CREATE INDEX " + "i" * 65 + " ON t (a)": 1059,
        "CREATE TABLE " + "x" * 65 + " (a int)": 1103,
        "CREATE TABLE " + "x" * 64 + " (a int)": 0,
        "CREATE TABLE " + "é" * 64 + " (a int)": 0,
    }
    conn = mariadb_server.connect(dbname)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (a int)")
        for sql, code in statements.items():
            try:
                cur.execute(sql)
                got = 0
            except (MySQLdb.OperationalError, MySQLdb.ProgrammingError) as e:
                got = e.args[0]
            assert got == code, sql
            found = _codes(sql + ";", "SC126", "mariadb", "CREATE TABLE t (a int);")
            assert found == (["error"] if code else []), sql
    finally:
        conn.close()
