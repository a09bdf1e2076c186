"""The preference rules (SC201-SC207): off unless selected, and the server facts their docs state,
checked on PostgreSQL 15 and MariaDB."""

from __future__ import annotations

import psycopg
import pytest

from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter

PREFERENCES = {"SC201", "SC202", "SC203", "SC204", "SC205", "SC206", "SC207"}
EVERY_PREFERENCE = """\
CREATE TABLE orders (id serial PRIMARY KEY, code char(3), email varchar(255), at timestamp, doc json);
DROP TABLE archive;
"""


def test_preferences_flag_nothing_unless_selected(tmp_path):
    sql = tmp_path / "001_orders.sql"
    sql.write_text(EVERY_PREFERENCE)

    def codes(select):
        config = load_config(None, {"dialect": "postgres", **({"select": select} if select else {})})
        result = Linter(config).lint([str(sql)], [])
        assert not result.errors
        return {f.code for f in result.findings}

    default = codes(None)
    assert default and not default & PREFERENCES  # the default run still reports (SC101 ...)
    assert codes(["preferences"]) == PREFERENCES
    assert codes(["prefer-jsonb", "SC201"]) & PREFERENCES == {"SC201", "SC207"}


def test_postgres_facts_the_preferences_state(pg_server):
    db = pg_server.create_database("prefs_facts")
    with pg_server.connect(db) as conn:
        # char(n) pads with spaces: five bytes stored for two characters
        assert conn.execute("SELECT octet_length('ab'::char(5))").fetchone()[0] == 5
        # json has no equality operator: whole-value comparisons fail
        conn.execute("CREATE TABLE docs (d json, b jsonb)")
        conn.execute("""INSERT INTO docs VALUES ('{"a": 1}', '{"a": 1}')""")
        for query in (
            "SELECT DISTINCT d FROM docs",
            "SELECT d FROM docs GROUP BY d",
            "SELECT d FROM docs UNION SELECT d FROM docs",
        ):
            with pytest.raises(
                psycopg.errors.UndefinedFunction, match="could not identify an equality operator for type json"
            ):
                conn.execute(query)
        with pytest.raises(psycopg.errors.UndefinedFunction, match="operator does not exist: json = json"):
            conn.execute("SELECT d = d FROM docs")
        with pytest.raises(psycopg.errors.UndefinedObject, match="data type json has no default operator class"):
            conn.execute("CREATE UNIQUE INDEX ON docs (d)")
        assert conn.execute("SELECT count(*) FROM (SELECT DISTINCT b FROM docs) s").fetchone()[0] == 1
        # "char"(n) and "character"(n), quoted, are refused: the one-byte "char" takes no length
        with pytest.raises(psycopg.errors.SyntaxError, match='type modifier is not allowed for type "char"'):
            conn.execute('CREATE TABLE one_byte (c "char"(100))')
        # widening a varchar keeps the table's file (no rewrite); a view reading the column blocks it
        conn.execute("CREATE TABLE users (email varchar(20))")
        before = conn.execute("SELECT relfilenode FROM pg_class WHERE relname = 'users'").fetchone()[0]
        conn.execute("ALTER TABLE users ALTER COLUMN email TYPE varchar(200)")
        assert conn.execute("SELECT relfilenode FROM pg_class WHERE relname = 'users'").fetchone()[0] == before
        conn.execute("ALTER TABLE users ALTER COLUMN email TYPE varchar(100)")  # lowering the limit rewrites
        assert conn.execute("SELECT relfilenode FROM pg_class WHERE relname = 'users'").fetchone()[0] != before
        conn.execute("CREATE VIEW user_emails AS SELECT email FROM users")
        with pytest.raises(psycopg.errors.FeatureNotSupported, match="used by a view or rule"):
            conn.execute("ALTER TABLE users ALTER COLUMN email TYPE varchar(300)")
        # an id written by hand leaves a serial's sequence behind: the next default collides
        conn.execute("CREATE TABLE invoices (id serial PRIMARY KEY)")
        conn.execute("INSERT INTO invoices (id) VALUES (1)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("INSERT INTO invoices DEFAULT VALUES")
        # a serial's sequence needs a grant of its own; an identity column's does not
        conn.execute("CREATE TABLE bills (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY)")
        conn.execute("DROP ROLE IF EXISTS prefs_writer")
        conn.execute("CREATE ROLE prefs_writer")
        conn.execute("GRANT INSERT ON invoices, bills TO prefs_writer")
        conn.execute("SET ROLE prefs_writer")
        with pytest.raises(
            psycopg.errors.InsufficientPrivilege, match="permission denied for sequence invoices_id_seq"
        ):
            conn.execute("INSERT INTO invoices DEFAULT VALUES")
        conn.execute("INSERT INTO bills DEFAULT VALUES")
        conn.execute("RESET ROLE")
        # a zone written in a timestamp without time zone is dropped; timestamptz keeps the instant
        conn.execute("SET TimeZone = 'UTC'")
        row = conn.execute(
            "SELECT '2024-01-01 12:00+02'::timestamp::text, '2024-01-01 12:00+02'::timestamptz::text"
        ).fetchone()
        assert row == ("2024-01-01 12:00:00", "2024-01-01 10:00:00+00")
    with pg_server.connect() as conn:
        conn.execute("DROP DATABASE prefs_facts")
        conn.execute("DROP ROLE prefs_writer")


def test_mariadb_strips_trailing_spaces_of_char_on_read(mariadb_server):
    conn = mariadb_server.connect()
    try:
        cur = conn.cursor()
        cur.execute("CREATE DATABASE prefs_facts")
        cur.execute("CREATE TABLE prefs_facts.codes (c char(5), v varchar(5))")
        cur.execute("INSERT INTO prefs_facts.codes VALUES ('ab  ', 'ab  ')")
        cur.execute("SELECT c, v FROM prefs_facts.codes")
        assert cur.fetchone() == ("ab", "ab  ")
    finally:
        conn.cursor().execute("DROP DATABASE IF EXISTS prefs_facts")
        conn.close()
