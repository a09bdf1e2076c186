"""The fails-on-rows rules against the servers themselves: each statement a rule flags is run over
rows that do not fit, and the server must refuse it with the error the finding names (or, for a
filled column, store the value the finding names); the same statement over no rows is not flagged
where a snapshot says the table is empty."""

from __future__ import annotations

import json

import pytest

from schemacite import lint_paths
from schemacite.model.record import record


@record(frozen=True)
class Case:
    rule: str  # the code that must flag `statement`
    scene: str  # the tables, as history (statements split on ";\n")
    rows: str  # rows that do not fit (run on the server only)
    statement: str
    error: str | int  # PostgreSQL SQLSTATE, or MariaDB error number


PG = {
    "add_not_null_column": Case("SC111", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
                                "ALTER TABLE t ADD COLUMN c int NOT NULL", "23502"),
    "add_primary_key_column": Case("SC111", "CREATE TABLE t (id int)", "INSERT INTO t VALUES (1)",
                                   "ALTER TABLE t ADD COLUMN c int PRIMARY KEY", "23502"),
}  # fmt: skip

MARIADB = {
    "unique_column_filled_with_zero": Case("SC111", "CREATE TABLE t (id int PRIMARY KEY)",
                                           "INSERT INTO t VALUES (1), (2)",
                                           "ALTER TABLE t ADD COLUMN c int NOT NULL UNIQUE", 1062),
}  # fmt: skip


def _findings(tmp_path, case: Case, dialect: str, target: str, snapshot: str | None = None) -> list[str]:
    history = tmp_path / "000_history.sql"
    history.write_text(case.scene + ";\n")
    change = tmp_path / "001_change.sql"
    change.write_text(case.statement + ";\n")
    extra = {"snapshot": snapshot} if snapshot else {}
    result = lint_paths(
        [str(change)], history=[] if snapshot else [str(history)], dialect=dialect, target=target, **extra
    )
    assert not result.errors, [str(e) for e in result.errors]
    return [f.code for f in result.findings]


def _pg_error(pg_server, db: str, case: Case) -> str | None:
    import psycopg

    with psycopg.connect(pg_server.dsn(db), autocommit=True) as conn:
        for sql in (case.scene, case.rows):
            conn.execute(sql)
        try:
            conn.execute(case.statement)
        except psycopg.Error as e:
            return e.sqlstate
    return None


def _maria_error(server, db: str, case: Case) -> int | None:
    import MySQLdb

    conn = server.connect(db)
    try:
        cur = conn.cursor()
        for sql in (case.scene, case.rows):
            cur.execute(sql)
        try:
            cur.execute(case.statement)
        except MySQLdb.Error as e:
            return int(e.args[0])
        return None
    finally:
        conn.close()


@pytest.mark.parametrize("name", list(PG))
def test_postgres_refuses_what_the_rule_flags(name, pg_server, tmp_path):
    case = PG[name]
    assert case.rule in _findings(tmp_path, case, "postgres", "postgres-15")
    db = pg_server.create_database(f"rows_{name}")
    assert _pg_error(pg_server, db, case) == case.error


@pytest.mark.parametrize("name", list(MARIADB))
def test_mariadb_refuses_what_the_rule_flags(name, mariadb_server, tmp_path):
    case = MARIADB[name]
    assert case.rule in _findings(tmp_path, case, "mariadb", "mariadb-10.11")
    db = mariadb_server.create_database(f"rows_{name}")
    assert _maria_error(mariadb_server, db, case) == case.error


def test_mariadb_fills_a_not_null_column_with_the_implicit_default(mariadb_server, tmp_path):
    """Strict mode does not refuse the column: every old row gets the type's implicit default,
    the value the finding names; a zero date is refused only where sql_mode holds NO_ZERO_DATE."""
    case = Case("SC111", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)", "", 0)
    added = {"n": "int", "s": "varchar(5)", "k": "enum('basic','pro')", "d": "date"}
    statement = "ALTER TABLE t " + ", ".join(f"ADD COLUMN {c} {t} NOT NULL" for c, t in added.items())
    flagged = lint_paths(
        [str(_write(tmp_path, case.scene, statement))],
        history=[str(tmp_path / "000_history.sql")],
        dialect="mariadb",
        target="mariadb-10.11",
    ).findings
    said = " ".join(f.message for f in flagged if f.code == "SC111")
    for value in ("with 0", "with ''", "with 'basic'", "with '0000-00-00'"):
        assert value in said
    conn = mariadb_server.connect(mariadb_server.create_database("rows_filled"))
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@sql_mode")
        assert "STRICT_TRANS_TABLES" in cur.fetchone()[0]
        for sql in (case.scene, case.rows, statement):
            cur.execute(sql)
        cur.execute("SELECT n, s, k, CAST(d AS CHAR) FROM t")
        assert cur.fetchall() == ((0, "", "basic", "0000-00-00"),)
        cur.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_ZERO_DATE')")
        import MySQLdb

        with pytest.raises(MySQLdb.Error) as refused:
            cur.execute("ALTER TABLE t ADD COLUMN d2 date NOT NULL")
        assert refused.value.args[0] == 1292
    finally:
        conn.close()


def _write(tmp_path, scene: str, statement: str):
    (tmp_path / "000_history.sql").write_text(scene + ";\n")
    change = tmp_path / "001_change.sql"
    change.write_text(statement + ";\n")
    return change


@pytest.mark.parametrize("rows, flagged", [(0, False), (5, True), (None, True)])
def test_a_table_a_snapshot_shows_empty_is_not_flagged(tmp_path, rows, flagged):
    """PostgreSQL adds the column to an empty table: a snapshot that counts 0 rows silences the
    rule; one that counts rows, or does not know, does not."""
    case = PG["add_not_null_column"]
    doc = {
        "version": 2,
        "dialect": "postgres",
        "tables": [
            {
                "key": "t",
                "name": "t",
                "rows": rows,
                "columns": [{"name": "id", "type": "int4", "nullable": False, "base_type": "int4"}],
                "primary_key": {"name": "t_pkey", "columns": ["id"], "unique": True, "primary": True},
            }
        ],
    }
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(doc))
    assert ("SC111" in _findings(tmp_path, case, "postgres", "postgres-15", str(snapshot))) is flagged
