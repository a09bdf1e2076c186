"""The command as users and CI run it: exit codes, output formats, config, suppression, history."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli import run

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"


def test_demo_postgres_migrations_text(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")
    m = "fixtures/demo/postgres/migrations"
    code, out, _ = run(
        capsys,
        "lint",
        f"{m}/000002_tracking.up.sql",
        f"{m}/000003_orders_status.up.sql",
        f"{m}/000004_measurements.up.sql",
    )
    assert code == 1
    assert f"{m}/000002_tracking.up.sql\n  2:1 warning SC101 Table page_views has no primary key\n" in out
    assert "    | CREATE TABLE page_views (\n    fix: add a primary key: logical replication" in out
    assert "SC103 Partitioned table measurements" in out
    assert "2:1 error SC104 ALTER TABLE ADD COLUMN" in out and "rewrites the table" in out
    assert "\x1b[" not in out  # no colour when not a terminal
    assert max(map(len, out.splitlines())) <= 80
    # the one-query golang-migrate file holds line 1's lock through the index build of line 3
    # (not through line 2's rewrite, which locks orders as strongly itself)
    assert out.count(" SC109 ") == 1
    assert "  1:1 warning SC109 ALTER TABLE ADD COLUMN locks orders" in out
    # the evidence once per rule, after the findings: measurements first, with who ran them on
    # what server, each record described where first cited and named after that
    findings, evidence = out.split("\nEvidence per rule (each record in full: schemacite evidence show ID)\n")
    assert "evidence" not in findings and "no measurement" not in findings
    assert (
        "SC104 access-exclusive-lock\n  schemacite-2026-pg16-lock-durations: schemacite 2026 · PostgreSQL 16.14\n"
        in evidence
    )
    assert evidence.count("schemacite-2026-pg16-lock-durations: ") == 1
    assert (
        "SC109 lock-held-during-long-work\n  as above: schemacite-2026-pg16-lock-durations, pg-doc-explicit-locking\n"
        in evidence
    )
    assert evidence.count("no measurement: ") == 3  # SC103's, SC110's and SC112's, once each
    assert " ".join(out.split()).endswith(
        "in 3 file(s), 11 statement(s); framework golang-migrate (N_title.up.sql / .down.sql file names);"
        " target postgres-16 (fixtures/demo/postgres/.schemacite.toml)."
        # golang-migrate sends 000003 as one query: CONCURRENTLY cannot leave its transaction, so only
        # SC110's SET lock_timeout is offered, and it is unsafe
        " 1 fixable with --fix --unsafe-fixes."
    )


def test_json_format_is_stable(capsys):
    code, out, _ = run(capsys, "lint", "--dialect", "mysql", "--format", "json", DEMO / "mysql" / "schema.sql")
    doc = json.loads(out)
    assert code == 1 and doc["version"] == 3 and doc["errors"] == []
    f = next(f for f in doc["findings"] if f["rule"] == "no-primary-key" and f["severity"] == "warning")
    assert set(f) >= {
        "rule",
        "code",
        "severity",
        "file",
        "line",
        "column",
        "table",
        "message",
        "suggestion",
        "evidence",
    }
    assert f["table"] == "imports" and f["line"] == 31
    assert f["evidence"][0] == "percona-2013-hidden-rowid"  # each record once, in the top-level table
    # short: who, when, on what, where to read it; the figures are `evidence show ID`
    assert doc["evidence"]["percona-2013-hidden-rowid"] == {
        "id": "percona-2013-hidden-rowid",
        "kind": "measurement",
        "title": doc["evidence"]["percona-2013-hidden-rowid"]["title"],
        "source": "Percona",
        "published": "2013-10-18",
        "url": doc["evidence"]["percona-2013-hidden-rowid"]["url"],
        "applies_to": ["mariadb", "mysql"],
        "setup": {"server": doc["evidence"]["percona-2013-hidden-rowid"]["setup"]["server"]},
    }
    assert doc["evidence"]["percona-2013-hidden-rowid"]["setup"]["server"].startswith("MySQL 5.5")
    assert set(doc["evidence"]) == {i for x in doc["findings"] for i in x["evidence"]}
    code, out, _ = run(capsys, "evidence", "show", "percona-2013-hidden-rowid", "--format", "json")
    assert json.loads(out)["figures"]


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
    assert f'error: {bad}:2:14: syntax error at or near "("' in err  # PostgreSQL's own message and place
    assert f"error: {binary}:0: binary file, not SQL" in err
    assert f"error: {tmp_path / 'missing.sql'}:0: no such file or directory" in err
    assert "Table nopk has no primary key" in out and "Table ok has no primary key" in out
    assert "error:" not in out  # findings on stdout, errors on stderr
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
    (mig / "V1__init.sql").write_text(
        "CREATE TABLE events (id int PRIMARY KEY, a int, b int, c int, KEY (a), KEY (b));\n"
    )
    (mig / "V2__more.sql").write_text("CREATE TABLE other (id int PRIMARY KEY);\n")
    (mig / "V10__index.sql").write_text("ALTER TABLE events ADD INDEX c (c), ALGORITHM=INPLACE, LOCK=NONE;\n")
    code, out, _ = run(capsys, "lint", "--format", "json", mig / "V10__index.sql")
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["severity"], f["line"]) for f in findings] == [
        ("insert-heavy-indexes", "error", 1),
        ("lock-timeout-missing", "warning", 1),  # the ALTER's metadata lock, with no lock_wait_timeout
    ]
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
    # Markdown rendered: headings without their marks, words wrapped at 80 columns
    assert "\nWhy is this bad?\n" in out and "## " not in out
    assert "single-row INSERT" in out.replace("\n", " ").replace("single-row insert", "single-row INSERT")
    prose = [line for line in out.splitlines() if not line.startswith("    ")]  # code keeps its lines
    assert max(len(line) for line in prose) <= 80 and all(line == line.rstrip() for line in out.splitlines())
    code, out, _ = run(capsys, "explain", "no-primary-key", "--format", "json")
    doc = json.loads(out)
    assert doc["code"] == "SC101" and doc["evidence"][0]["figures"]
    assert run(capsys, "explain", "nope")[0] == 2


def test_codes_and_names_in_any_case(capsys):
    assert json.loads(run(capsys, "explain", "Sc101", "--format", "json")[1])["code"] == "SC101"
    assert json.loads(run(capsys, "explain", "No-Primary-Key", "--format", "json")[1])["code"] == "SC101"
    code, _, err = run(capsys, "explain", "Nope-Rule")
    assert code == 2 and "unknown rule 'Nope-Rule'" in err
    code, out, _ = run(capsys, "rules", "sc10", "NO-PRIMARY-KEY", "--format", "json")
    assert code == 0 and [r["code"] for r in json.loads(out)][:2] == ["SC101", "SC102"]
    code, out, _ = run(capsys, "rules", "SC104")
    assert out.startswith("SC104") and "SC105" not in out
    code, _, err = run(capsys, "rules", "Xy1")
    assert code == 2 and "unknown rule 'Xy1'" in err


def test_narrow_terminals_get_whole_locations(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    m = DEMO / "postgres" / "migrations"
    code, out, _ = run(capsys, "locks", "--history", m, m / "000003_orders_status.up.sql")
    assert "000003_orders_status.up.sql:4  blocks reads+writes  rewrite: yes" in out
    assert "ALTER TABLE orders ALTER COLUMN total_cents TYPE numeric(20, 2)" in out  # the statement is kept
    assert "safer add a new column of the new type" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "locks", "--history", m, m / "000003_orders_status.up.sql")
    assert "safer alternative" in out  # wide enough for the table


def test_installed_command_runs():
    proc = subprocess.run([sys.executable, "-m", "schemacite.cli", "rules"], capture_output=True, text=True)
    assert proc.returncode == 0 and "SC106" in proc.stdout


QUICK_EXIT_PROBE = """
import atexit, sys
from pathlib import Path
class Torn:  # its __del__ runs only in the interpreter's teardown
    def __del__(self):
        sys.stderr.write("torn down\\n")
kept = Torn()
atexit.register(Path(sys.argv[1]).write_text, "handler ran")
sys.argv = ["schemacite", *sys.argv[2:]]
from schemacite.cli import run
run()
"""


@pytest.mark.parametrize(
    "words, code, torn",
    [
        (["lint", "--format", "json", DEMO / "postgres" / "migrations"], 1, False),
        (["lint", "--exit-zero", "--format", "json", DEMO / "postgres" / "migrations"], 0, False),
        (["lint", "--format", "json", "no-such-file.sql"], 2, False),
        (["rules", "--format", "json"], 0, True),
    ],
)
def test_the_console_script_ends_a_lint_without_teardown_and_keeps_what_teardown_would_do(
    capsys, tmp_path, words, code, torn
):
    """After lint, the process ends without the interpreter's teardown (no object is freed, so the
    __del__ never runs), yet atexit handlers run and the whole report reaches a pipe; other
    commands end as usual."""
    words = [str(w) for w in words]
    marker = tmp_path / "atexit"
    proc = subprocess.run([sys.executable, "-c", QUICK_EXIT_PROBE, str(marker), *words], capture_output=True, text=True)
    assert proc.returncode == code, proc.stderr
    assert marker.read_text() == "handler ran"
    assert ("torn down" in proc.stderr) is torn
    in_process = run(capsys, *words)
    assert in_process[0] == code
    if words[0] == "lint" and code != 2:
        report = json.loads(proc.stdout)  # the whole report, flushed: it parses
        assert report == json.loads(in_process[1]) and report["findings"]


@pytest.mark.parametrize("path", sorted((DEMO / "postgres" / "migrations").glob("*.up.sql")))
def test_demo_files_parse_cleanly(capsys, path):
    code, out, _ = run(capsys, "lint", "--format", "json", path)
    assert json.loads(out)["errors"] == []


# ---- clean failures: exit 2 with a located message, never a traceback, never exit 1


def test_checking_nothing_is_not_a_pass(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    code, out, err = run(capsys, "lint", tmp_path / "empty")
    assert code == 2 and f"{tmp_path / 'empty'}:0: nothing to lint in this folder: no .sql file" in err
    downs = tmp_path / "downs"
    downs.mkdir()
    (downs / "1_x.down.sql").write_text("DROP TABLE x;\n")
    code, _, err = run(capsys, "lint", downs)
    assert code == 2 and "only down migrations (1)" in err
    code, _, err = run(capsys, "lint", tmp_path / "nothing-here" / "*.sql")
    assert code == 2 and "pattern matched no file" in err
    code, _, err = run(capsys, "lint", "--history", tmp_path / "empty", downs / "1_x.down.sql")
    assert code == 2 and "nothing to lint in this folder" in err


def test_a_run_that_lints_nothing_says_so_and_does_not_pass(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sql").write_text("CREATE TABLE a (id int PRIMARY KEY);\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--exclude", "*.sql", ".")
    assert code == 2 and "error: .:0: nothing to lint: every file here was left out (the notes say why)" in err
    assert "read but not linted (--exclude; replayed as history): ./a.sql" in err  # the flag's, not the config's
    assert " ".join(out.split()) == "no findings, 1 input error: no file was linted; target postgres-15 (the default)."
    sqlite = tmp_path / "sqlite-only"
    sqlite.mkdir()
    (sqlite / "sqlite.sql").write_text("CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT);\n")
    code, _, err = run(capsys, "lint", "sqlite-only")
    assert code == 2 and "nothing to lint: every file here was left out" in err and "named for SQLite" in err
    (tmp_path / "empty.sql").write_text("-- only a comment\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "empty.sql")
    assert (
        code == 0
        and " ".join(out.split())
        == "no findings in empty.sql: no statement to check; target postgres-15 (the default)."
    )


def test_a_mistyped_option_gets_the_commands_usage_and_the_nearest_spelling(capsys):
    def refused(*words: str) -> str:
        with pytest.raises(SystemExit) as stop:
            run(capsys, *words)
        assert stop.value.code == 2
        return capsys.readouterr().err

    err = refused("lint", "--dialekt", "mysql", "a.sql")
    assert err.startswith("usage: schemacite lint ") and "[--output-format" in err
    assert err.endswith("error: unrecognized arguments: --dialekt; did you mean --dialect?\n")
    err = refused("lint", "--output-formt=json", "a.sql")
    assert err.endswith("did you mean --output-format?\n")
    err = refused("evidence", "show", "--formt", "json", "x")
    assert err.startswith("usage: schemacite evidence show ") and err.endswith("did you mean --format?\n")
    err = refused("lint", "--dialect", "mysq", "a.sql")
    assert "(choose from 'mysql', 'mariadb', 'postgres'); did you mean mysql?" in err
    assert refused("lnt", "a.sql").endswith("did you mean lint?\n")
    assert "did you mean" not in refused("lint", "--zzzz", "a.sql")


def test_the_dialect_option_says_how_the_dialect_is_chosen(capsys):
    with pytest.raises(SystemExit):
        run(capsys, "lint", "--help")
    words = " ".join(capsys.readouterr().out.split())
    assert "else postgres)" not in words and "told from the files: their MySQL or PostgreSQL marks" in words


def test_the_summary_names_the_target_the_verdicts_assume(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int PRIMARY KEY, b int);\nALTER TABLE a ADD INDEX i (b);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "mysql", f)
    assert " ".join(out.split()).endswith(
        "; target mysql-8.4 (the default; its lock rows rest on MySQL's documentation: "
        "no MySQL server was run to measure them)."
    )
    doc = json.loads(run(capsys, "lint", "--dialect", "mysql", "--format", "json", f)[1])
    assert doc["target"] == {
        "name": "mysql-8.4",
        "why": "the default",
        "unmeasured": "its lock rows rest on MySQL's documentation: no MySQL server was run to measure them",
    }
    sarif = json.loads(
        run(capsys, "lint", "--dialect", "mysql", "--target", "mariadb-10.11", "--format", "sarif", f)[1]
    )
    assert sarif["runs"][0]["properties"]["target"] == {"name": "mariadb-10.11", "why": "--target", "unmeasured": None}
    (tmp_path / ".schemacite.toml").write_text('target = "postgres-17"\n')
    out = run(capsys, "lint", "-q", f)[1]
    assert out.endswith("; target postgres-17 (" + os.path.relpath(tmp_path / ".schemacite.toml") + ").\n")


def test_a_looping_symlink_is_a_located_error(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("loop").symlink_to("loop")
    Path("ok.sql").write_text("CREATE TABLE t (id int PRIMARY KEY);\n")
    code, out, err = run(capsys, "lint", "loop", "ok.sql")
    assert code == 2 and "loop:0: symbolic link to nothing (broken, or a loop)" in err
    assert "Traceback" not in err


def test_an_internal_error_exits_2_naming_the_file(capsys, tmp_path, monkeypatch):
    import schemacite.sources.replay

    def broken(*a, **k):
        raise KeyError("surprise")

    monkeypatch.setattr(schemacite.sources.replay, "apply", broken)
    f = tmp_path / "m.sql"
    f.write_text("CREATE TABLE t (id int PRIMARY KEY);\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", f)
    assert code == 2
    assert (
        err.strip()
        == f"schemacite: internal error while reading {f}: KeyError: 'surprise' (--debug shows the traceback)"
    )
    code, out, err = run(capsys, "--debug", "lint", "--dialect", "postgres", f)
    assert code == 2 and "Traceback (most recent call last)" in err


def test_rule_flags_as_ruff_spells_them(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int);\nBEGIN;\nCREATE INDEX CONCURRENTLY i ON a (id);\nCOMMIT;\n")
    every = sorted(
        json.loads(run(capsys, "lint", "--dialect", "postgres", "--format", "json", f)[1])["findings"], key=str
    )
    assert {x["code"] for x in every} == {"SC101", "SC106"}
    for flags, codes in [
        (("--select", "SC101,concurrently-in-transaction"), {"SC101", "SC106"}),
        (("--select", "SC101", "--select", "SC106"), {"SC101", "SC106"}),
        (("--ignore", "SC101, SC106"), set()),
        (("--ignore", "no-primary-key", "--disable", "SC106"), set()),
        (("--select", "SC1", "--ignore", "sc106"), {"SC101"}),
    ]:
        code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", *flags, f)
        assert {x["code"] for x in json.loads(out)["findings"]} == codes, flags
    code, _, _ = run(capsys, "lint", "--dialect", "postgres", f)
    assert code == 1
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--exit-zero", f)
    assert code == 0 and "SC106" in out
    (tmp_path / "bad.sql").write_text("CREATE TABLE (;\n")
    assert run(capsys, "lint", "--dialect", "postgres", "--exit-zero", tmp_path / "bad.sql")[0] == 2
    code, _, err = run(capsys, "lint", "--ignore", "SC101,No-Primary-Ky,SC1O6,zzz", f)
    assert code == 2 and err.startswith(
        "schemacite: error: --ignore/--disable: unknown rules 'No-Primary-Ky' (did you mean no-primary-key?), "
        "'SC1O6' (did you mean SC106?), 'zzz' (see `schemacite rules`)"
    ), err


def test_a_lock_timeout_the_deploys_connection_sets_is_in_force(capsys, tmp_path):
    # a runner script that runs SET lock_timeout before migrating: said once in the config
    (tmp_path / "h.sql").write_text("CREATE TABLE t (id int PRIMARY KEY);\n")
    m = tmp_path / "m.sql"
    m.write_text("ALTER TABLE t ADD COLUMN x int;\n")
    args = ("lint", "--dialect", "postgres", "--history", tmp_path / "h.sql", "--format", "json", m)
    codes = lambda out: [f["code"] for f in json.loads(out)["findings"]]  # noqa: E731
    assert codes(run(capsys, *args)[1]) == ["SC110"]
    (tmp_path / ".schemacite.toml").write_text('lock_timeout = "5s"\n')
    assert codes(run(capsys, *args)[1]) == []
    m.write_text("SET lock_timeout = 0;\nALTER TABLE t ADD COLUMN x int;\n")  # the file turns it off
    assert codes(run(capsys, *args)[1]) == ["SC110"]
    (tmp_path / ".schemacite.toml").write_text("lock_timeout = true\n")
    code, _, err = run(capsys, *args)
    assert code == 2 and "lock_timeout must be a string or a number" in err


def test_json_names_the_dialect_however_it_was_chosen(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int PRIMARY KEY);\n")
    doc = json.loads(run(capsys, "lint", "--dialect", "mariadb", "--format", "json", f)[1])
    assert doc["dialect"] == {"name": "mariadb", "why": "--dialect"}
    code, out, _ = run(capsys, "lint", "--dialect", "mariadb", f)
    assert "dialect" not in out.splitlines()[-1]  # the text summary says it only when the files told


def test_long_work_in_another_file_of_one_transaction_names_the_file(capsys, tmp_path):
    # node-pg-migrate runs every pending migration in one transaction
    (tmp_path / "package.json").write_text('{"devDependencies": {"node-pg-migrate": "^7"}}')
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "1_plan.sql").write_text("ALTER TABLE accounts ADD COLUMN plan text;\n")
    (tmp_path / "migrations" / "2_backfill.sql").write_text("UPDATE accounts SET plan = 'free';\n")
    history = tmp_path / "h.sql"
    history.write_text("CREATE TABLE accounts (id int PRIMARY KEY);\n")
    code, out, _ = run(
        capsys, "lint", "--dialect", "postgres", "--history", history, "--format", "json", tmp_path / "migrations"
    )
    (held,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC109"]
    assert held["file"].endswith("1_plan.sql") and "while 2_backfill.sql:1 does long work" in held["message"]


def test_quiet_statistics_and_output_print_only_the_summary(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int);\nCREATE TABLE b (id int);\n")
    lint = ("lint", "--dialect", "postgres", "--color", "never")
    full = run(capsys, *lint, f)[1]
    summary = "2 warnings in 1 file(s), 2 statement(s); target postgres-15 (the default)."
    assert full.count("warning SC101 ") == 2 and full.rstrip().endswith(summary)
    assert run(capsys, *lint, "-q", f)[1] == summary + "\n"
    assert run(capsys, *lint, "--statistics", f)[1] == "2\tSC101\tno-primary-key\n" + summary + "\n"
    report = tmp_path / "report.json"
    code, out, _ = run(capsys, *lint, "--output-format", "json", "-o", report, f)
    assert code == 1 and out == summary + "\n" and len(json.loads(report.read_text())["findings"]) == 2
    code, out, _ = run(capsys, *lint, "--format", "json", "-o", "-", f)  # - is standard output
    assert len(json.loads(out)["findings"]) == 2 and not (tmp_path / "-").exists()


def test_reports_follow_the_runners_order(capsys, tmp_path):
    # Flyway runs V10 after V2; a report sorted as text put V10 first
    (tmp_path / "db").mkdir()
    for version in (1, 2, 10):
        (tmp_path / "db" / f"V{version}__t{version}.sql").write_text(f"CREATE TABLE t{version} (id int);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", tmp_path / "db")
    assert [os.path.basename(f["file"]) for f in json.loads(out)["findings"]] == [
        "V1__t1.sql",
        "V2__t2.sql",
        "V10__t10.sql",
    ]


def test_color_always_colours_piped_output(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int);\n")
    assert "\x1b[" in run(capsys, "lint", "--dialect", "postgres", "--color", "always", f)[1]
    assert "\x1b[" not in run(capsys, "lint", "--dialect", "postgres", "--color", "never", f)[1]
    assert "\x1b[" in run(capsys, "locks", "--dialect", "postgres", "--color", "always", f)[1]


def test_every_option_says_what_it_does():
    import argparse

    from schemacite.cli import parser

    def bare(p, name):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sub, sp in a.choices.items():
                    yield from bare(sp, f"{name} {sub}")
            elif not a.help and a.dest != "help":
                yield f"{name} {'/'.join(a.option_strings) or a.dest}"

    assert list(bare(parser(), "schemacite")) == []


def test_listings_fit_80_columns(capsys):
    for args in (("rules",), ("evidence", "list")):
        code, out, _ = run(capsys, *args)
        assert code == 0 and out.count("\n") > 10 and max(map(len, out.splitlines())) <= 80, args


def test_explain_piped_wraps_prose_at_80_and_keeps_sql_whole(capsys):
    from schemacite.rules.insert_heavy_indexes import InsertHeavyIndexes

    code, out, _ = run(capsys, "explain", "SC102")
    doc = InsertHeavyIndexes.__doc__
    sql = [line.strip() for line in doc.split("```sql mysql")[1].split("```")[0].splitlines() if line.strip()]
    lines = [line.strip() for line in out.splitlines()]
    assert code == 0 and all(line in lines for line in sql)  # each SQL line as written
    assert all(len(line) <= 80 for line in out.splitlines() if line.strip() not in sql)


def test_concise_is_one_line_per_finding(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int);\nBEGIN;\nCREATE INDEX CONCURRENTLY i ON a (id);\nCOMMIT;\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--output-format", "concise", f)
    assert code == 1 and out.splitlines() == [
        f"{f}:1:1: SC101 [warning] Table a has no primary key",
        f"{f}:3:1: SC106 [error] CREATE INDEX CONCURRENTLY cannot run inside a transaction block (BEGIN ... COMMIT)",
        "1 error, 1 warning in 1 file(s), 4 statement(s); target postgres-15 (the default).",
    ]


def test_exclude_per_file_ignores_and_baseline_in_the_config(capsys, tmp_path, monkeypatch):
    import schemacite

    monkeypatch.chdir(tmp_path)
    m = tmp_path / "migrations"
    m.mkdir()
    (m / "001_legacy.sql").write_text("CREATE TABLE bad (id int);\n")
    (m / "002_a.sql").write_text("CREATE TABLE a (id int);\n")
    (m / "003_b.sql").write_text("ALTER TABLE bad ADD COLUMN x int;\nCREATE TABLE c (id int);\n")
    config = tmp_path / ".schemacite.toml"
    settings = (
        'dialect = "postgres"\nexclude = ["migrations/001_*"]\nper-file-ignores = {"002_*.sql" = ["no-primary-key"]}\n'
    )
    config.write_text(settings)

    def found(*flags):
        code, out, err = run(capsys, "lint", "--format", "json", *flags, "migrations")
        doc = json.loads(out)
        return sorted((os.path.basename(f["file"]), f["code"]) for f in doc["findings"]), err

    # 001 is replayed, not linted: bad exists when 003 alters it; 002's SC101 is silenced
    codes, err = found()
    assert codes == [("003_b.sql", "SC101"), ("003_b.sql", "SC110")]
    assert "1 file(s) read but not linted (the config's exclude; replayed as history): migrations/001_legacy.sql" in err
    codes, _ = found("--exclude", "migrations/003_*")  # the flag replaces the config's list
    assert codes == [("001_legacy.sql", "SC101")]
    assert run(capsys, "lint", "--write-baseline", "b.json", "migrations")[0] == 0
    config.write_text(settings + 'baseline = "b.json"\n')
    assert found()[0] == []
    assert schemacite.lint_paths(["migrations"]).findings == []  # the API and the pytest plugin too
    config.write_text(settings.replace("no-primary-key", "no-primary-ky"))
    code, _, err = run(capsys, "lint", "migrations")
    assert code == 2 and "unknown rule 'no-primary-ky' (did you mean no-primary-key?)" in err


def test_the_github_action_runs_commands_the_cli_takes():
    import re
    import shlex

    import yaml

    from schemacite.cli import parser

    action = yaml.safe_load((Path(__file__).resolve().parents[1] / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    used = set(re.findall(r"inputs\.([\w-]+)", json.dumps(action)))
    assert used <= set(action["inputs"]), used - set(action["inputs"])
    lines = [s["run"] for s in action["runs"]["steps"] if "schemacite lint" in s.get("run", "")]
    assert len(lines) == 2
    for line in lines:
        words = shlex.split(line.replace("$SINCE", "origin/main").replace("$ARGS", "--dialect mysql"))
        words = [w if w != "$PATHS" else "migrations" for w in words]
        args = parser().parse_args(words[1:])  # SystemExit (exit 2) on an option lint does not take
        assert args.since == "origin/main" and args.format in ("github", "sarif") and args.paths == ["migrations"]


def test_config_mistakes_name_who_made_them(capsys, tmp_path):
    (tmp_path / "a.sql").write_text("CREATE TABLE a (id int PRIMARY KEY);\n")
    cfg = tmp_path / ".schemacite.toml"
    cfg.write_text('dialect = "mysql"\n')
    code, _, err = run(capsys, "lint", "--target", "postgres-9", tmp_path / "a.sql")
    assert code == 2 and err.startswith("schemacite: error: --target: unknown target 'postgres-9'")
    code, _, err = run(capsys, "lint", "--select", "nope", tmp_path / "a.sql")
    assert code == 2 and "--select: unknown rule 'nope'" in err
    for text, message in [
        ('infer_insert_heavy = "no"\n', "infer_insert_heavy must be true or false"),
        ("max_secondary_indexes = true\n", "max_secondary_indexes must be a whole number"),
        ("dialect = 5\n", "dialect must be a string"),
        ("[rules.no-primary-key]\nseverity = 3\n", "rule no-primary-key: severity must be info, warning or error"),
        ('[rules.no-primary-key]\nseverity = "loud"\n', "rule no-primary-key: unknown severity 'loud'"),
    ]:
        cfg.write_text(text)
        code, _, err = run(capsys, "lint", tmp_path / "a.sql")
        assert code == 2 and err.startswith(f"schemacite: error: {cfg}: ") and message in err, err


def test_dotfile_takes_the_pyproject_table_header(capsys, tmp_path):
    (tmp_path / "a.sql").write_text("CREATE TABLE a (v int);\n")
    cfg = tmp_path / ".schemacite.toml"
    cfg.write_text(
        '[tool.schemacite]\ndialect = "mysql"\n\n[tool.schemacite.rules.no-primary-key]\nseverity = "error"\n'
    )
    code, out, err = run(capsys, "lint", "--format", "json", tmp_path / "a.sql")
    assert code == 1 and json.loads(out)["findings"][0]["severity"] == "error"
    assert "hidden row id" in json.loads(out)["findings"][0]["suggestion"]  # the MySQL wording: dialect taken
    cfg.write_text('[tool.schemacite]\ndialect = "mysql"\n[tool.black]\nline-length = 1\n')
    code, _, err = run(capsys, "lint", tmp_path / "a.sql")
    assert code == 2 and "unknown setting(s): tool.black" in err


def test_snapshot_flag_and_its_old_spelling(capsys, tmp_path):
    snap = tmp_path / "s.json"
    snap.write_text(
        json.dumps(
            {
                "version": 1,
                "dialect": "postgres",
                "tables": [
                    {
                        "name": "orders",
                        "columns": [{"name": "id", "type": "bigint", "nullable": False}],
                        "primary_key": {"name": "orders_pkey", "columns": ["id"]},
                    }
                ],
            }
        )
    )
    m = tmp_path / "m.sql"
    m.write_text("ALTER TABLE orders ADD COLUMN n int;\n")
    code, out, err = run(capsys, "lint", "--format", "json", "--snapshot", snap, m)
    assert code == 1 and json.loads(out)["findings"][0]["table"] == "orders" and err == ""
    code, out2, err = run(capsys, "lint", "--format", "json", "--schema", snap, m)
    assert out2 == out and "`--schema FILE` is now `--snapshot FILE`" in err


def test_snapshot_output_is_checked_before_reading_the_server(capsys, tmp_path):
    code, _, err = run(capsys, "snapshot", "postgresql://nobody@127.0.0.1:1/x", "-o", tmp_path / "no" / "x.json")
    assert code == 2 and f"no such folder {tmp_path / 'no'}" in err and "cannot connect" not in err


def test_coloured_text_prints_the_plain_lines(monkeypatch):
    """--color always (rich) and piped plain text print the same lines, at most 80 columns each."""
    import io
    import re

    from schemacite import lint_paths
    from schemacite.report.text import TextReporter

    m = DEMO / "postgres" / "migrations"
    result = lint_paths([str(m / "000003_orders_status.up.sql")], history=[str(m)], dialect="postgres")
    monkeypatch.setenv("COLUMNS", "80")
    coloured, plain = io.StringIO(), io.StringIO()
    TextReporter(color=True).render(result, coloured)
    TextReporter().render(result, plain)
    assert "\x1b[" in coloured.getvalue() and "\x1b]8;" in coloured.getvalue()  # colour and links to the docs
    text = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;[^\x1b]*\x1b\\", "", coloured.getvalue())
    assert text == plain.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    for f in result.findings:
        assert f"  {f.location.line}:{f.location.column} {f.severity} {f.code} " in text


# ---- includes, line endings, and files that would leave the repository ----------------------


def test_crlf_files_keep_their_delimiter_blocks(capsys, tmp_path):
    f = tmp_path / "crlf.sql"
    f.write_bytes(
        b"DELIMITER $$\r\nCREATE PROCEDURE p()\r\nBEGIN\r\n  ALTER TABLE t ADD PRIMARY KEY (id);\r\nEND$$\r\n"
        b"DELIMITER ;\r\nCREATE TABLE t (id int NOT NULL);\r\nCALL p();\r\n"
    )
    code, out, err = run(capsys, "lint", "--dialect", "mysql", f)
    assert (code, err) == (0, "") and "4 statement(s)" in out  # the PK added by the procedure is seen


def test_psql_and_mysql_includes_are_followed(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tables.sql").write_text("CREATE TABLE events (v int);\n")
    (tmp_path / "main.sql").write_text("\\ir sub/tables.sql\nCREATE INDEX events_v ON events (v);\n\\i missing.sql\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--format", "json", tmp_path / "main.sql")
    doc = json.loads(out)
    assert code == 2
    assert [(Path(f["file"]).name, f["line"], f["rule"]) for f in doc["findings"]] == [
        ("tables.sql", 1, "no-primary-key")
    ]
    assert f"{tmp_path / 'main.sql'}:3: included file missing.sql not found (looked in the working directory" in err
    (tmp_path / "dump.sql").write_text("source sub/tables.sql\nALTER TABLE events ADD COLUMN w int;\n")
    code, out, err = run(capsys, "lint", "--dialect", "mysql", "--format", "json", "dump.sql")
    assert code == 1 and err == ""
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"no-primary-key"}  # events is new: no lock finding
    (tmp_path / "loop.sql").write_text("\\ir loop.sql\n")
    code, _, err = run(capsys, "lint", "--dialect", "postgres", tmp_path / "loop.sql")
    assert code == 2 and "included file loop.sql includes itself" in err


def test_nothing_is_read_from_outside_the_repository(capsys, tmp_path):
    secret = tmp_path / "home" / ".pgpass"
    secret.parent.mkdir()
    secret.write_text("localhost:5432:*:postgres:hunter2\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "migrations").mkdir()
    (repo / "migrations" / "001_ok.sql").write_text("CREATE TABLE t (id int PRIMARY KEY);\n")
    (repo / "migrations" / "002_link.sql").symlink_to(secret)
    (repo / "migrations" / "003_include.sql").write_text(f"\\i {secret}\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", repo / "migrations")
    assert code == 2 and "hunter2" not in out + err
    assert (
        f"{repo / 'migrations' / '002_link.sql'}:0: resolves to {secret}, outside the repository {repo}: not read"
        in err
    )
    assert f"003_include.sql:1: included file {secret} resolves to {secret}, outside the repository" in err
    # a file named through a folder that links out: found outside, by the folder's link (a folder's
    # walk does not follow such a link at all)
    (secret.parent / "more.sql").write_text("CREATE TABLE hunter2 (id int PRIMARY KEY);\n")
    (repo / "migrations" / "004_linked").symlink_to(secret.parent, target_is_directory=True)
    linked = repo / "migrations" / "004_linked" / "more.sql"
    code, out, err = run(capsys, "lint", "--dialect", "postgres", repo / "migrations" / "001_ok.sql", linked)
    assert f"{linked}:0: resolves to {secret.parent / 'more.sql'}, outside the repository {repo}: not read" in err
    assert code == 2 and "CREATE TABLE hunter2" not in out + err
    (repo / "pyproject.toml").write_text('[tool.schemacite]\nhistory = ["../home/*"]\n')
    code, out, err = run(capsys, "lint", "--dialect", "postgres", repo / "migrations" / "001_ok.sql")
    assert code == 2 and "history: " in err and "outside the repository" in err and "hunter2" not in out + err


@pytest.mark.parametrize(
    "dialect, refusal",
    [("postgres", "(42P07)"), ("mysql", "(error 1050)")],
)
def test_create_table_of_a_table_the_history_has_is_refused_and_the_table_stays_existing(
    capsys, tmp_path, dialect, refusal
):
    (tmp_path / "001_inbox.sql").write_text("CREATE TABLE inbox (id int PRIMARY KEY, status varchar(20));\n")
    (tmp_path / "002_again.sql").write_text(
        "CREATE TABLE inbox (id int PRIMARY KEY, status varchar(20));\nCREATE INDEX inbox_status ON inbox (status);\n"
    )
    code, out, err = run(capsys, "lint", "--dialect", dialect, "--format", "json", tmp_path)
    assert code == 2
    assert f"002_again.sql:1: CREATE TABLE inbox: the table exists (created at {tmp_path / '001_inbox.sql'}:1)" in err
    assert refusal in err
    # the existing table is judged as existing: the index build on it is a finding
    found = [(Path(f["file"]).name, f["line"], f["rule"]) for f in json.loads(out)["findings"]]
    lock_rule = "write-blocking-lock" if dialect == "postgres" else "lock-timeout-missing"
    assert ("002_again.sql", 2, lock_rule) in found
    # IF NOT EXISTS of an existing table does nothing, and the server says nothing either
    (tmp_path / "002_again.sql").write_text(
        "CREATE TABLE IF NOT EXISTS inbox (id int PRIMARY KEY);\nALTER TABLE inbox ADD COLUMN note text NOT NULL;\n"
    )
    code, out, err = run(capsys, "lint", "--dialect", dialect, "--format", "json", tmp_path)
    assert err == "" and code == 1
    assert ("002_again.sql", 2) in [(Path(f["file"]).name, f["line"]) for f in json.loads(out)["findings"]]
    # a schema for fresh installs beside the migrations re-creates every table: one error for the file, naming both
    (tmp_path / "001_inbox.sql").write_text("CREATE TABLE inbox (id int PRIMARY KEY);\nCREATE TABLE memo (id int);\n")
    (tmp_path / "002_again.sql").write_text("CREATE TABLE inbox (id int PRIMARY KEY);\nCREATE TABLE memo (id int);\n")
    code, _, err = run(capsys, "lint", "--dialect", dialect, tmp_path)
    assert code == 2 and err.count("the table exists") == 1 and "so do 1 more CREATE TABLE in this file (memo)" in err
    assert f"if {tmp_path / '002_again.sql'} or {tmp_path / '001_inbox.sql'} sets up a fresh database" in err


def test_a_folder_is_linted_wherever_it_stands_and_hidden_folders_in_it_are_not(capsys, tmp_path, monkeypatch):
    """A folder named as `../../db/migrations` (a run from a nested folder) or under a hidden folder
    (a checkout in ~/.cache) is walked; hidden folders inside it (.git, a backup) are not."""
    migrations = tmp_path / ".checkouts" / "app" / "db" / "migrations"
    migrations.mkdir(parents=True)
    (migrations / "001_t.sql").write_text("CREATE TABLE t (v text);\n")
    (migrations / ".old").mkdir()
    (migrations / ".old" / "003_gone.sql").write_text("CREATE TABLE gone (v text);\n")
    nested = tmp_path / ".checkouts" / "app" / "web" / "src"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    for named in ("../../db/migrations", str(migrations)):
        code, out, err = run(capsys, "lint", "--dialect", "postgres", "--no-cache", "--format", "json", named)
        assert code == 1, err  # findings: the folder was linted
        found = {(os.path.basename(f["file"]), f["rule"]) for f in json.loads(out)["findings"]}
        assert found == {("001_t.sql", "no-primary-key")}  # .old's table has no key either: not linted
