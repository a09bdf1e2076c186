"""`schemacite locks`: the per-statement report, and --verify against the real servers."""
from __future__ import annotations

import json
from pathlib import Path

from schemacite.cli import main

ROOT = Path(__file__).resolve().parents[1]
MIGRATIONS = ROOT / "fixtures" / "demo" / "postgres" / "migrations"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_report_for_postgres(capsys):
    code, out, _ = run(capsys, "locks", "--format", "json", MIGRATIONS / "000003_orders_status.up.sql")
    rows = json.loads(out)
    assert code == 0
    by_line = {r["line"]: r for r in rows}
    assert by_line[2]["locks"] == [{"relation": "orders", "mode": "AccessExclusiveLock", "blocks": "reads+writes"}]
    assert by_line[2]["rewrite"] is True and "backfill" in by_line[2]["alternative"]
    assert by_line[1]["rewrite"] is False and by_line[1]["alternative"] is None
    assert by_line[3]["locks"][0]["mode"] == "ShareLock" and by_line[3]["blocks"] == "writes"
    assert set(rows[0]) >= {"file", "line", "sql", "locks", "rewrite", "blocks", "alternative"}


def test_new_tables_block_nothing(capsys, tmp_path):
    f = tmp_path / "m.sql"
    f.write_text("CREATE TABLE t (id int PRIMARY KEY);\nCREATE INDEX t_i ON t (id);\n")
    rows = json.loads(run(capsys, "locks", "--dialect", "postgres", "--format", "json", f)[1])
    assert [r["blocks"] for r in rows] == ["nothing", "nothing"]


def test_mysql_report_has_algorithm_and_lock(capsys, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int PRIMARY KEY, note text);\n")
    f = tmp_path / "m.sql"
    f.write_text("ALTER TABLE t ADD COLUMN c int;\nALTER TABLE t MODIFY note varchar(20);\n")
    code, out, _ = run(capsys, "locks", "--dialect", "mysql", "--target", "mysql-8.0", "--history", h, "--format", "json", f)
    rows = json.loads(out)
    assert [(r["algorithm"], r["locks"][0]["lock"]) for r in rows] == [("INSTANT", "NONE"), ("COPY", "SHARED")]
    code, out, err = run(capsys, "locks", "--dialect", "mysql", "--target", "mysql-8.0", "--history", h, f)
    assert "metadata lock" in err and "lock_wait_timeout" in err


def test_verify_against_postgres(capsys, pg_server):
    pg_server.create_database("verify_demo")
    dsn = pg_server.dsn("verify_demo")
    code, out, _ = run(capsys, "locks", "--verify", dsn, "--format", "json", MIGRATIONS / "000003_orders_status.up.sql")
    rows = json.loads(out)
    assert code == 0, [r["verified"] for r in rows]
    assert all(r["verified"]["agrees"] for r in rows) and len(rows) == 5
    with pg_server.connect("verify_demo") as conn:  # nothing left behind
        left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' "
                            "AND nspname NOT IN ('public', 'information_schema')").fetchone()[0]
    assert left == 0


def test_verify_marks_a_disagreement(capsys, pg_server, tmp_path, monkeypatch):
    """A wrong prediction must show up as a difference, not pass silently."""
    from schemacite.locks import postgres_table

    pg_server.create_database("verify_wrong")
    f = tmp_path / "m.sql"
    f.write_text("CREATE TABLE t (id int PRIMARY KEY);\n")
    g = tmp_path / "n.sql"
    g.write_text("CREATE INDEX t_i ON t (id);\n")
    rows = postgres_table.ROWS["create_index"]
    monkeypatch.setitem(postgres_table.ROWS, "create_index", tuple(
        type(r)(**{**r.__dict__, "mode": postgres_table.ACCESS_EXCLUSIVE}) for r in rows))
    code, out, _ = run(capsys, "locks", "--dialect", "postgres", "--history", f, "--verify",
                       pg_server.dsn("verify_wrong"), "--format", "json", g)
    row = json.loads(out)[0]
    assert code == 1 and not row["verified"]["agrees"]
    assert any("measured ShareLock" in d for d in row["verified"]["differences"])


def test_verify_against_mariadb(capsys, mariadb_server, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int PRIMARY KEY, note text, body text);\n")
    f = tmp_path / "m.sql"
    f.write_text("ALTER TABLE t ADD COLUMN c int;\nALTER TABLE t MODIFY note varchar(20);\n"
                 "ALTER TABLE t ADD FULLTEXT INDEX ft (body);\nCREATE INDEX i ON t (c);\n")
    code, out, _ = run(capsys, "locks", "--dialect", "mariadb", "--target", "mariadb-10.11", "--history", h,
                       "--verify", mariadb_server.dsn("mysql"), "--format", "json", f)
    rows = json.loads(out)
    assert code == 0, [r["verified"] for r in rows]
    assert len(rows) == 4 and all(r["verified"]["agrees"] for r in rows)
    conn = mariadb_server.connect()
    cur = conn.cursor()
    cur.execute("SHOW DATABASES LIKE 'schemacite_scratch%'")
    assert cur.fetchall() == ()


def test_unreachable_server_is_exit_2(capsys):
    code, _, err = run(capsys, "locks", "--verify", "postgresql://u:secret@127.0.0.1:1/x", MIGRATIONS / "000003_orders_status.up.sql")
    assert code == 2 and "secret" not in err and "127.0.0.1" in err
