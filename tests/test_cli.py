"""The command as users and CI run it: exit codes, output formats, config, suppression, history."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schemacite.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_postgres_migrations_text(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    m = "fixtures/demo/postgres/migrations"
    code, out, _ = run(capsys, "lint", f"{m}/000002_tracking.up.sql", f"{m}/000003_orders_status.up.sql",
                       f"{m}/000004_measurements.up.sql")
    assert code == 1
    assert f"{m}/000002_tracking.up.sql\n  2:1 warning SC101 no-primary-key Table page_views has no primary key" in out
    assert "SC103 partition-key-not-in-pk Partitioned table measurements" in out
    assert "2:1 error SC104 access-exclusive-lock" in out and "rewrites the table" in out
    assert "evidence: pg-doc-explicit-locking" in out or "pg-doc-explicit-locking (" in out
    assert "\x1b[" not in out  # no colour when not a terminal
    assert out.rstrip().endswith("in 3 file(s), 11 statement(s).")


def test_json_format_is_stable(capsys):
    code, out, _ = run(capsys, "lint", "--dialect", "mysql", "--format", "json", DEMO / "mysql" / "schema.sql")
    doc = json.loads(out)
    assert code == 1 and doc["version"] == 1 and doc["errors"] == []
    f = next(f for f in doc["findings"] if f["rule"] == "no-primary-key" and f["severity"] == "warning")
    assert set(f) >= {"rule", "code", "severity", "file", "line", "column", "table", "message", "suggestion", "evidence"}
    assert f["table"] == "imports" and f["line"] == 31
    ev = f["evidence"][0]
    assert ev["id"] == "percona-2013-hidden-rowid" and ev["published"] and ev["figures"] and ev["source"]


def test_clean_run_exits_0_and_fail_on(capsys, tmp_path):
    sql = tmp_path / "a.sql"
    sql.write_text("CREATE TABLE t (id int PRIMARY KEY);\nCREATE TABLE u (code char(2) NOT NULL UNIQUE);\n")
    assert run(capsys, "lint", "--dialect", "mysql", sql)[0] == 0  # the info nudge does not fail
    assert run(capsys, "lint", "--dialect", "mysql", "--fail-on", "info", sql)[0] == 1


def test_bad_input_is_exit_2_and_other_files_still_linted(capsys, tmp_path):
    bad = tmp_path / "bad.sql"
    bad.write_bytes(b"CREATE TABLE ok (v int);\nCREATE TABLE (;\n")
    binary = tmp_path / "x.sql"
    binary.write_bytes(b"\x00\xff")
    good = tmp_path / "good.sql"
    good.write_text("CREATE TABLE nopk (v int);\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", bad, binary, good, tmp_path / "missing.sql")
    assert code == 2
    assert f"error: {bad}:2: unrecognised statement: 'CREATE TABLE ('" in out
    assert f"error: {binary}:0: binary file, not SQL" in out
    assert f"error: {tmp_path / 'missing.sql'}:0: no such file or directory" in out
    assert "Table nopk has no primary key" in out and "Table ok has no primary key" in out
    assert "Traceback" not in out + err


def test_bad_usage_is_exit_2(capsys, tmp_path):
    (tmp_path / "a.sql").write_text("SELECT 1;")
    code, _, err = run(capsys, "lint", "--dialect", "mysql", "--target", "mysql-9.9", tmp_path / "a.sql")
    assert code == 2 and "unknown target 'mysql-9.9'" in err
    code, _, err = run(capsys, "lint", "--disable", "no-such-rule", tmp_path / "a.sql")
    assert code == 2 and "unknown rule 'no-such-rule'" in err


def test_config_in_pyproject_history_and_severity(capsys, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.schemacite]\ndialect = "mysql"\nhistory = ["migrations"]\ninsert_heavy = ["events"]\n'
        '[tool.schemacite.rules.insert-heavy-indexes]\nseverity = "error"\n'
    )
    mig = tmp_path / "migrations"
    mig.mkdir()
    (mig / "V1__init.sql").write_text("CREATE TABLE events (id int PRIMARY KEY, a int, b int, c int, KEY (a), KEY (b));\n")
    (mig / "V2__more.sql").write_text("CREATE TABLE other (id int PRIMARY KEY);\n")
    (mig / "V10__index.sql").write_text("ALTER TABLE events ADD INDEX c (c), ALGORITHM=INPLACE, LOCK=NONE;\n")
    code, out, _ = run(capsys, "lint", "--format", "json", mig / "V10__index.sql")
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["severity"], f["line"]) for f in findings] == [("insert-heavy-indexes", "error", 1)]
    assert findings[0]["file"].endswith("V10__index.sql") and code == 1


def test_unknown_config_key_is_reported(capsys, tmp_path):
    (tmp_path / ".schemacite.toml").write_text('dialekt = "mysql"\n')
    (tmp_path / "a.sql").write_text("SELECT 1;")
    code, _, err = run(capsys, "lint", tmp_path / "a.sql")
    assert code == 2 and "unknown setting(s): dialekt" in err


def test_file_level_ignore(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("-- schemacite: ignore-file[no-primary-key]\nCREATE TABLE a (v int);\nCREATE TABLE b (v int);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "mysql", f)
    assert code == 0 and "2 suppressed" in out


def test_rules_and_explain(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "SC101  no-primary-key" in out
    code, out, _ = run(capsys, "explain", "SC101")
    assert "## Why is this bad?" in out and "single-row INSERT" in out.replace("single-row insert", "single-row INSERT")
    code, out, _ = run(capsys, "explain", "no-primary-key", "--format", "json")
    doc = json.loads(out)
    assert doc["code"] == "SC101" and doc["evidence"][0]["figures"]
    assert run(capsys, "explain", "nope")[0] == 2


def test_installed_command_runs():
    proc = subprocess.run([sys.executable, "-m", "schemacite.cli", "rules"], capture_output=True, text=True)
    assert proc.returncode == 0 and "SC106" in proc.stdout


@pytest.mark.parametrize("path", sorted((DEMO / "postgres" / "migrations").glob("*.up.sql")))
def test_demo_files_parse_cleanly(capsys, path):
    code, out, _ = run(capsys, "lint", "--format", "json", path)
    assert json.loads(out)["errors"] == []
