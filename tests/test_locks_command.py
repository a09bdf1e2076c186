"""`schemacite locks`: the per-statement report, and --verify against the real servers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli import run
from schemacite.model.record import replace

ROOT = Path(__file__).resolve().parents[1]
MIGRATIONS = ROOT / "fixtures" / "demo" / "postgres" / "migrations"


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


def test_postgres_names_are_the_servers_and_printed_as_sql_writes_them(capsys, tmp_path):
    """A quoted mixed-case table keeps its case, and the table prints it quoted; an unquoted
    reference folds to another table."""
    h = tmp_path / "h.sql"
    h.write_text('CREATE TABLE "InvitedUsers" ("inviteeEmail" text NOT NULL);\n')
    f = tmp_path / "m.sql"
    f.write_text('ALTER TABLE "InvitedUsers" ADD COLUMN note text;\nALTER TABLE InvitedUsers ADD COLUMN note text;\n')
    args = ("locks", "--dialect", "postgres", "--history", h)
    rows = json.loads(run(capsys, *args, "--format", "json", f)[1])
    assert [r["locks"][0]["relation"] for r in rows] == ["InvitedUsers", "invitedusers"]
    out = run(capsys, *args, "--color", "never", f)[1]
    assert '"InvitedUsers": AccessExclusiveLock' in out and "invitedusers: AccessExclusiveLock" in out, out


def test_mysql_report_has_algorithm_and_lock(capsys, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int PRIMARY KEY, note text);\n")
    f = tmp_path / "m.sql"
    f.write_text("ALTER TABLE t ADD COLUMN c int;\nALTER TABLE t MODIFY note varchar(20);\n")
    code, out, _ = run(
        capsys, "locks", "--dialect", "mysql", "--target", "mysql-8.0", "--history", h, "--format", "json", f
    )
    rows = json.loads(out)
    assert [(r["algorithm"], r["locks"][0]["lock"]) for r in rows] == [("INSTANT", "NONE"), ("COPY", "SHARED")]
    code, out, err = run(capsys, "locks", "--dialect", "mysql", "--target", "mysql-8.0", "--history", h, f)
    assert "metadata lock" in err and "lock_wait_timeout" in err


def test_verify_against_postgres(capsys, pg_server):
    pg_server.create_database("verify_demo")
    dsn = pg_server.dsn("verify_demo")
    code, out, _ = run(capsys, "locks", "--verify", dsn, "--format", "json", MIGRATIONS / "000003_orders_status.up.sql")
    rows = json.loads(out)
    checked = [r for r in rows if "verified" in r]
    assert code == 0, [r["verified"] for r in checked]
    assert all(r["verified"]["agrees"] for r in checked) and len(checked) == len(rows) == 6
    # a statement predicted to take no lock is measured too: SET lock_timeout takes none
    (session,) = [r for r in rows if r["sql"].startswith("SET")]
    assert session["notes"] == ["takes no lock on existing tables"] and session["verified"]["measured"]["locks"] == {}
    code, _, err = run(
        capsys, "locks", "--verify", dsn, "--target", "postgres-12", MIGRATIONS / "000003_orders_status.up.sql"
    )
    assert f"the predictions are for postgres-12 and the server is postgres-{pg_server.version[0]}" in err
    with pg_server.connect("verify_demo") as conn:  # nothing left behind
        left = conn.execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' "
            "AND nspname NOT IN ('public', 'information_schema')"
        ).fetchone()[0]
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
    monkeypatch.setitem(
        postgres_table.ROWS,
        "create_index",
        tuple(replace(r, mode=postgres_table.ACCESS_EXCLUSIVE) for r in rows),
    )
    code, out, _ = run(
        capsys,
        "locks",
        "--dialect",
        "postgres",
        "--history",
        f,
        "--verify",
        pg_server.dsn("verify_wrong"),
        "--format",
        "json",
        g,
    )
    row = json.loads(out)[0]
    assert code == 1 and not row["verified"]["agrees"]
    assert any("measured ShareLock" in d for d in row["verified"]["differences"])


PREPARED_ALTER = (
    "SET @s = (SELECT IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
    "AND TABLE_NAME = 't' AND COLUMN_NAME = 'c') = 0, 'ALTER TABLE t ADD COLUMN c int, ALGORITHM=COPY', 'SELECT 1'));\n"
    "PREPARE stmt FROM @s;\nEXECUTE stmt;\nDEALLOCATE PREPARE stmt;\n"
)


def test_ddl_a_prepared_string_runs_has_a_row_of_its_own(capsys, tmp_path):
    # the conditional-DDL pattern of MySQL migrations: the ALTER is listed, not hidden behind EXECUTE
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int PRIMARY KEY, note text);\n")
    f = tmp_path / "m.sql"
    f.write_text(PREPARED_ALTER)
    code, out, _ = run(capsys, "locks", "--target", "mariadb-10.11", "--history", h, "--format", "json", f)
    rows = json.loads(out)
    inside = [r for r in rows if r["inside"]]
    assert [(r["line"], r["sql"], r["algorithm"], r["blocks"]) for r in inside] == [
        (1, "ALTER TABLE t ADD COLUMN c int, ALGORITHM=COPY", "COPY", "writes")
    ]
    assert [r["sql"].split()[0] for r in rows if not r["inside"]] == ["SET", "PREPARE", "EXECUTE", "DEALLOCATE"]


def test_verify_measures_prepared_ddl_where_it_runs(capsys, mariadb_server, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int PRIMARY KEY, note text);\n")
    f = tmp_path / "m.sql"
    f.write_text(PREPARED_ALTER)
    args = ("locks", "--target", "mariadb-10.11", "--history", h, "--verify", mariadb_server.dsn("mysql"))
    code, out, _ = run(capsys, *args, "--format", "json", f)
    rows = json.loads(out)
    assert code == 0, [r.get("verified") for r in rows]
    assert [r["sql"].split()[0] for r in rows if "verified" in r] == ["SET", "PREPARE", "EXECUTE", "DEALLOCATE"]
    assert not any("verified" in r for r in rows if r["inside"])  # measured with the EXECUTE that runs it
    code, out, _ = run(capsys, *args, f)
    words = " ".join(out.split())  # the table wraps its cells
    assert "measured with the statement" in words and "4 of 4 statements agree" in words


def test_verify_against_mariadb(capsys, mariadb_server, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int PRIMARY KEY, note text, body text);\n")
    f = tmp_path / "m.sql"
    f.write_text(
        "ALTER TABLE t ADD COLUMN c int;\nALTER TABLE t MODIFY note varchar(20);\n"
        "ALTER TABLE t ADD FULLTEXT INDEX ft (body);\nCREATE INDEX i ON t (c);\n"
    )
    code, out, _ = run(
        capsys,
        "locks",
        "--dialect",
        "mariadb",
        "--target",
        "mariadb-10.11",
        "--history",
        h,
        "--verify",
        mariadb_server.dsn("mysql"),
        "--format",
        "json",
        f,
    )
    rows = json.loads(out)
    assert code == 0, [r["verified"] for r in rows]
    assert len(rows) == 4 and all(r["verified"]["agrees"] for r in rows)
    conn = mariadb_server.connect()
    cur = conn.cursor()
    cur.execute("SHOW DATABASES LIKE 'schemacite_scratch%'")
    assert cur.fetchall() == ()


def test_verify_catches_a_wrong_takes_no_lock(capsys, monkeypatch, tmp_path, pg_server, mariadb_server):
    """A statement predicted to take no lock is measured like any other: a wrong prediction shows."""
    from schemacite.locks import report

    monkeypatch.setattr(report, "NO_LOCK_KINDS", report.NO_LOCK_KINDS | {"create_index", "truncate"})
    pg_server.create_database("verify_no_lock")
    (tmp_path / "h.sql").write_text("CREATE TABLE t (id int PRIMARY KEY, v int);\n")
    (tmp_path / "m.sql").write_text("CREATE INDEX t_v ON t (v);\n")
    common = ["locks", "--history", tmp_path / "h.sql", "--format", "json", tmp_path / "m.sql"]
    code, out, _ = run(capsys, *common, "--dialect", "postgres", "--verify", pg_server.dsn("verify_no_lock"))
    (row,) = json.loads(out)
    assert row["notes"] == ["takes no lock on existing tables"]
    assert code == 1 and row["verified"]["differences"] == [
        "t: predicted no lock, measured ShareLock",
        "scan: predicted False, measured True (scanned: t)",
    ]
    (tmp_path / "m.sql").write_text("TRUNCATE TABLE t;\n")
    code, out, _ = run(capsys, *common, "--dialect", "mariadb", "--verify", mariadb_server.dsn(""))
    (row,) = json.loads(out)
    assert code == 1 and row["verified"]["differences"] == ["rebuild: predicted False, measured True"]


def test_verify_reports_what_it_cannot_run_as_not_run(capsys, tmp_path, pg_server, mariadb_server):
    """Statements that write outside the scratch area are neither run nor applied; a statement the
    server refuses for want of what the history never built is not run either: neither disagrees."""
    pg_server.create_database("verify_not_run")
    (tmp_path / "h.sql").write_text("CREATE TABLE t (id int PRIMARY KEY, v int);\n")
    (tmp_path / "pg.sql").write_text(
        "CREATE ROLE schemacite_verify_role;\nALTER TABLE missing ADD COLUMN c int;\nCREATE INDEX t_v ON t (v);\n"
        "DROP INDEX IF EXISTS never_made;\n"  # a no-op: no lock, as predicted for what exists
    )
    pg = ["--dialect", "postgres", "--verify", pg_server.dsn("verify_not_run")]
    code, out, err = run(capsys, "locks", *pg, "--history", tmp_path / "h.sql", "--format", "json", tmp_path / "pg.sql")
    role, missing, index, no_op = (r["verified"] for r in json.loads(out))
    assert code == 0, err
    assert role["agrees"] is None and "belong to the whole server" in role["not_run"]
    assert missing["agrees"] is None and missing["not_run"].startswith("the server refused it: ")
    assert index["agrees"] is True and index["not_run"] is None
    assert no_op["agrees"] is True and no_op["measured"]["locks"] == {}
    with pg_server.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'schemacite_verify_role'").fetchone()[0] == 0
    (tmp_path / "pg.sql").write_text("CREATE ROLE schemacite_verify_role;\n")  # checking nothing is no pass
    code, out, err = run(capsys, "locks", *pg, tmp_path / "pg.sql")
    assert code == 2 and "could run none of the statements" in err

    (tmp_path / "my.sql").write_text(
        "CREATE USER schemacite_verify_user;\nSET GLOBAL max_connections = 7;\nALTER TABLE t ADD COLUMN c int;\n"
        "SELECT count(*) FROM mysql.user;\n"  # another database: not run
        # information_schema cannot be written: a migration's test of what exists runs
        "SET @has_c = (SELECT count(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE());\n"
    )
    args = ["locks", "--dialect", "mariadb", "--history", tmp_path / "h.sql", "--verify", mariadb_server.dsn("")]
    code, out, err = run(capsys, *args, "--format", "json", tmp_path / "my.sql")
    user, setting, alter, other, probe = (r["verified"] for r in json.loads(out))
    assert code == 0, err
    assert "belong to the whole server" in user["not_run"] and "belong to the whole server" in setting["not_run"]
    assert other["not_run"] == "it names database mysql, outside the scratch database"
    assert alter["agrees"] is True and probe["agrees"] is True
    code, out, err = run(capsys, *args, tmp_path / "my.sql")
    assert code == 0 and "verified: 2 of 2 statements agree with the server; 3 not run" in out
    conn = mariadb_server.connect()
    cur = conn.cursor()
    cur.execute("SELECT count(*) FROM mysql.user WHERE user = 'schemacite_verify_user'")
    assert cur.fetchone()[0] == 0
    cur.execute("SELECT @@GLOBAL.max_connections")
    assert cur.fetchone()[0] != 7
    conn.close()


def test_unreachable_server_is_exit_2(capsys):
    code, _, err = run(
        capsys, "locks", "--verify", "postgresql://u:secret@127.0.0.1:1/x", MIGRATIONS / "000003_orders_status.up.sql"
    )
    assert code == 2 and "secret" not in err and "127.0.0.1" in err


# ---- --verify writes only in a scratch area it creates, and always drops it ---------------------


def _pg_scratch(pg_server) -> list[str]:
    with pg_server.connect() as conn:
        return [
            n
            for (n,) in conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE 'schemacite\\_scratch\\_%'"
            ).fetchall()
        ]


def _start_verify(tmp_path, dialect, dsn, slow) -> subprocess.Popen:
    h = tmp_path / "h.sql"
    h.write_text(f"CREATE TABLE t (id int PRIMARY KEY, v int);\n{slow}\n")
    m = tmp_path / "m.sql"
    m.write_text("CREATE INDEX t_v ON t (v);\n")
    cmd = [
        sys.executable,
        "-m",
        "schemacite.cli",
        "locks",
        "--no-cache",
        "--dialect",
        dialect,
        "--history",
        str(h),
        "--verify",
        dsn,
        str(m),
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(check, seconds=20.0):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_verify_drops_its_scratch_area_when_stopped(tmp_path, pg_server, mariadb_server, signum):
    for dialect, dsn, slow, listing in [
        ("postgres", pg_server.dsn("postgres"), "SELECT pg_sleep(30);", lambda: _pg_scratch(pg_server)),
        ("mariadb", mariadb_server.dsn(""), "SELECT SLEEP(2);", lambda: mariadb_server.scratch_databases()),
    ]:
        proc = _start_verify(tmp_path, dialect, dsn, slow)
        _wait_for(listing)  # the scratch area exists: the run is inside it
        time.sleep(0.3)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signum, (dialect, err)
        assert listing() == [], dialect
        assert "Traceback" not in err


def test_verify_drops_what_a_killed_run_left(capsys, tmp_path, pg_server, mariadb_server):
    runs = [
        ("postgres", pg_server.dsn("postgres"), "SELECT pg_sleep(1);", lambda: _pg_scratch(pg_server)),
        ("mariadb", mariadb_server.dsn(""), "SELECT SLEEP(1);", lambda: mariadb_server.scratch_databases()),
    ]
    left = {}
    for dialect, dsn, slow, listing in runs:
        folder = tmp_path / dialect
        folder.mkdir()
        proc = _start_verify(folder, dialect, dsn, slow)
        _wait_for(listing)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        left[dialect] = listing()
        assert len(left[dialect]) == 1
    time.sleep(6)  # the server ends the killed runs' sessions; a scratch database older than 5 s is fair game
    for dialect, dsn, _slow, listing in runs:
        folder = tmp_path / dialect
        code, out, err = run(
            capsys, "locks", "--dialect", dialect, "--verify", dsn, folder / "m.sql", "--history", folder / "h.sql"
        )
        assert f"note: dropped scratch database {left[dialect][0]}, left by an earlier run" in err, err
        assert listing() == []


def test_verify_without_the_right_to_create_stops_at_once(capsys, tmp_path, pg_server, mariadb_server):
    with pg_server.connect() as conn:
        conn.execute("DROP ROLE IF EXISTS verifier")
        conn.execute("CREATE ROLE verifier LOGIN NOCREATEDB")
    f = tmp_path / "m.sql"
    f.write_text("CREATE TABLE t (id int PRIMARY KEY);\nCREATE INDEX t_id ON t (id);\n")
    dsn = f"postgresql://verifier@127.0.0.1:{pg_server.port}/postgres"
    code, out, err = run(capsys, "locks", "--dialect", "postgres", "--verify", dsn, f)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"schemacite: error: {dsn}: cannot create a scratch database: permission denied to create database "
        "(needs CREATEDB); verify writes only inside a scratch area it creates and drops"
    ]
    conn = mariadb_server.connect()
    cur = conn.cursor()
    for host in ("localhost", "127.0.0.1"):
        cur.execute(f"DROP USER IF EXISTS 'verifier'@'{host}'")
        cur.execute(f"CREATE USER 'verifier'@'{host}'")
        cur.execute(f"GRANT SELECT ON mysql.* TO 'verifier'@'{host}'")
    conn.close()
    code, out, err = run(
        capsys, "locks", "--dialect", "mariadb", "--verify", f"mysql://verifier@127.0.0.1:{mariadb_server.port}/", f
    )
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "cannot create a scratch database" in err and "Access denied" in err


def test_a_refusal_the_prediction_expects_agrees(capsys, pg_server, mariadb_server):
    code, out, _ = run(
        capsys,
        "locks",
        "--verify",
        pg_server.dsn("postgres"),
        "--format",
        "json",
        MIGRATIONS / "000004_measurements.up.sql",
    )
    (row,) = json.loads(out)
    assert code == 0 and row["verified"] == {
        "agrees": True,
        "differences": [],
        "not_run": None,
        "measured": {"refused": "0A000", "message": row["verified"]["measured"]["message"]},
    }
    assert (
        "unique constraint on partitioned table must include all partitioning columns"
        in row["verified"]["measured"]["message"]
    )
    code, out, _ = run(
        capsys,
        "locks",
        "--dialect",
        "mariadb",
        "--verify",
        mariadb_server.dsn(""),
        "--format",
        "json",
        ROOT / "fixtures" / "demo" / "mysql" / "schema.sql",
    )
    rows = json.loads(out)  # the dump's SET lines are measured too: they lock and rebuild nothing
    assert code == 0 and rows and all(r["verified"]["agrees"] for r in rows)
    assert [r["verified"]["measured"] for r in rows if r["line"] == 37][0]["refused"] == "1503"


VERSIONED = (
    "CREATE TABLE pt (k int NOT NULL, v int) PARTITION BY RANGE (k);\n"
    "CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (10);\n"
    "CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (10) TO (20);\n"
    "CREATE TABLE t (id int PRIMARY KEY, c int, ts timestamp);\n"
)
CHANGE = (
    "ALTER TABLE pt DETACH PARTITION pt1;\n"  # the partition: SHARE UPDATE EXCLUSIVE before 14, then ACCESS EXCLUSIVE
    "ALTER TABLE pt ADD UNIQUE (k);\n"  # the partitions: SHARE before 18, then ACCESS EXCLUSIVE
    "ALTER TABLE t ALTER COLUMN c SET NOT NULL;\n"
    "CREATE INDEX CONCURRENTLY t_c ON t (c);\n"
    "UPDATE t SET c = 1;\n"
)


@pytest.mark.parametrize("major", [12, 13, 14, 15, 16, 17, 18], ids=lambda m: f"pg{m}")
def test_verify_works_on_every_major(capsys, tmp_path, pg_majors, major):
    """Without --target, verify predicts for the server it measures on: every major agrees."""
    server = pg_majors(major)
    server.create_database("verify_versions")
    (tmp_path / "h.sql").write_text(VERSIONED)
    (tmp_path / "m.sql").write_text(CHANGE)
    code, out, err = run(
        capsys,
        "locks",
        "--dialect",
        "postgres",
        "--history",
        tmp_path / "h.sql",
        "--verify",
        server.dsn("verify_versions"),
        "--format",
        "json",
        tmp_path / "m.sql",
    )
    rows = json.loads(out)
    assert code == 0 and len(rows) == 5, (err, [r.get("verified") for r in rows])
    assert all(r["verified"]["agrees"] for r in rows)
    detach = {lk["relation"]: lk["mode"] for lk in rows[0]["locks"]}
    assert detach["pt1"] == ("ShareUpdateExclusiveLock" if major < 14 else "AccessExclusiveLock")
    unique = {lk["relation"]: lk["mode"] for lk in rows[1]["locks"]}
    assert unique["pt2"] == ("ShareLock" if major < 18 else "AccessExclusiveLock")


def test_sql_the_reader_cannot_see_is_unknown(capsys, tmp_path):
    f = tmp_path / "m.sql"
    f.write_text(
        "CALL migrate_accounts();\n"
        "DO $$ BEGIN EXECUTE format('ALTER TABLE %I ADD COLUMN c int', 'accounts'); END $$;\n"
        "DO $$ BEGIN EXECUTE 'DROP INDEX accounts_email'; END $$;\n"
        "DO $$ BEGIN RAISE NOTICE 'execute this by hand'; END $$;\n"
        "EXECUTE add_account('x');\n"
    )
    rows = json.loads(run(capsys, "locks", "--dialect", "postgres", "--format", "json", f)[1])
    assert [r["blocks"] for r in rows] == ["unknown", "unknown", "reads+writes", "nothing", "unknown"]
    assert rows[0]["notes"] == ["unknown: CALL migrate_accounts runs SQL schemacite cannot read"]
    assert {lk["relation"] for lk in rows[2]["locks"]} == {"accounts_email"}  # its table was never seen


def test_scratch_names_made_by_one_process_never_meet():
    """A verify run makes several scratch areas within one second; a name met twice is refused by
    the server ("already exists") and the statement goes unmeasured."""
    from schemacite.live import scratch

    names = [scratch.new_name() for _ in range(20000)]
    assert len(set(names)) == len(names)
    assert all(len(n) <= 63 for n in names)  # PostgreSQL's identifier limit
    assert all(abs(scratch._created(n) - time.time()) < 60 for n in names[:3])  # the stale sweep reads the time
