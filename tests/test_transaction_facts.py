"""What PostgreSQL and MariaDB do with a migration's own transaction control, checked on the
servers: the facts the transactions rules (SC121-SC123) and their messages rest on."""

from __future__ import annotations

import psycopg
import pytest


def _tables(conn, names: tuple[str, ...]) -> set[str]:
    rows = conn.execute("SELECT tablename FROM pg_tables WHERE tablename = ANY(%s)", (list(names),)).fetchall()
    return {r[0] for r in rows}


def test_postgres_nested_begin_commits_the_runners_transaction_early(pg_server):
    """A runner's BEGIN, the file's BEGIN ... COMMIT, then a failing statement: PostgreSQL only
    warns at the inner BEGIN, the inner COMMIT commits the runner's transaction, and the runner's
    ROLLBACK finds none, so what ran before the failure stays."""
    pg_server.create_database("tx_nested")
    notices: list[str] = []
    with pg_server.connect("tx_nested") as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute("BEGIN")  # the runner's
        conn.execute("CREATE TABLE before_inner (id int)")
        conn.execute("BEGIN")  # the file's
        conn.execute("CREATE TABLE inside_inner (id int)")
        conn.execute("COMMIT")
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("CREATE TABLE after_inner AS SELECT 1 / 0 AS x")
        conn.execute("ROLLBACK")  # the runner's, on the error
        assert _tables(conn, ("before_inner", "inside_inner", "after_inner")) == {"before_inner", "inside_inner"}
    assert "there is already a transaction in progress" in notices
    assert "there is no transaction in progress" in notices


def test_postgres_commit_in_the_runners_transaction_ends_it(pg_server):
    """The file's COMMIT inside the runner's transaction: statements after it commit one by one,
    and the runner's own COMMIT warns that no transaction is in progress."""
    pg_server.create_database("tx_commit")
    notices: list[str] = []
    with pg_server.connect("tx_commit") as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE first_part (id int)")
        conn.execute("COMMIT")
        conn.execute("CREATE TABLE second_part (id int)")
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("SELECT 1 / 0")
        conn.execute("COMMIT")
        assert _tables(conn, ("first_part", "second_part")) == {"first_part", "second_part"}
    assert notices == ["there is no transaction in progress"]


def test_postgres_begin_in_a_multi_statement_query_is_not_nested(pg_server):
    """golang-migrate sends a file as one query: its BEGIN turns the implicit transaction into
    its own, with no warning, and the statements before the BEGIN roll back with it."""
    pg_server.create_database("tx_query")
    notices: list[str] = []
    with pg_server.connect("tx_query") as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("CREATE TABLE q_before (id int); BEGIN; CREATE TABLE q_inside (id int); SELECT 1 / 0; COMMIT")
        conn.execute("ROLLBACK")
        assert _tables(conn, ("q_before", "q_inside")) == set()
        conn.execute("BEGIN; CREATE TABLE q_done (id int); COMMIT")
        assert _tables(conn, ("q_done",)) == {"q_done"}
    assert notices == []


def test_postgres_begin_left_open_rolls_back_when_the_session_ends(pg_server):
    """A plain script's BEGIN with no COMMIT: the session ends (psql at the end of the file) and
    the server rolls back what ran after the BEGIN."""
    pg_server.create_database("tx_open")
    conn = pg_server.connect("tx_open")  # closed as psql leaves it, not committed by a with block
    conn.execute("CREATE TABLE committed_before (id int)")
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE left_open (id int)")
    conn.close()
    with pg_server.connect("tx_open") as conn:
        assert _tables(conn, ("committed_before", "left_open")) == {"committed_before"}


def test_mariadb_begin_commits_the_open_transaction(mariadb_server):
    """MariaDB's BEGIN inside a transaction commits it first: the ROLLBACK that follows cannot
    undo what ran before the second BEGIN."""
    mariadb_server.create_database("tx_nested")
    conn = mariadb_server.connect("tx_nested")
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id int) ENGINE=InnoDB")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1)")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (2)")
        cur.execute("ROLLBACK")
        cur.execute("SELECT id FROM t")
        assert [r[0] for r in cur.fetchall()] == [1]
    finally:
        conn.close()
