"""Real migration projects: frameworks detected, their deploys and transactions, the change
chosen by --since, SQL from standard input, and the dialect told from the files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cli import run
from schemacite.sources.dialect import detect_dialect
from schemacite.sources.frameworks import FRAMEWORKS, detect

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "cases"


# ------------------------------------------------------------------ detection and deploys


@pytest.mark.parametrize(
    "case, framework",
    [
        ("goose", "goose"),
        ("sql-migrate", "sql-migrate"),
        ("dbmate", "dbmate"),
        ("liquibase", "liquibase"),
        ("sqitch", "sqitch"),
        ("flyway-postgres", "flyway"),
        ("flyway-mysql", "flyway"),
        ("golang-migrate-history", "golang-migrate"),
        ("morph", "morph"),
        ("prisma", "prisma"),
        ("atlas", "atlas"),
        ("alembic", "alembic"),
        ("rails", "rails"),
        ("diesel", "diesel"),
        ("sqlx", "sqlx"),
        ("pop", "pop"),
        ("supabase", "supabase"),
        ("drizzle", "drizzle"),
        ("graphile-migrate", "graphile-migrate"),
        ("node-pg-migrate", "node-pg-migrate"),
        ("hasura", "hasura"),
        ("synapse", "synapse"),
        ("pop-templates", "pop"),
        ("flyway-vendors", "flyway"),
    ],
)
def test_each_fixture_project_is_recognised(case, framework, monkeypatch):
    monkeypatch.chdir(CASES / case)
    from schemacite.sources.files import expand

    files, errors = expand(["."])
    assert not errors
    found, why = detect(files)
    assert found.name == framework and why


def test_plain_files_are_plain():
    assert detect([str(CASES / "golang-migrate-history" / "pyproject.toml")])[0].name == "plain"
    assert detect([])[0].name == "plain"


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_byte_order_mark_does_not_hide_the_runner(tmp_path, encoding):
    migration = tmp_path / "00001_orders.sql"
    migration.write_text("-- +goose Up\nCREATE INDEX i ON t (a);\n", encoding=encoding)  # Windows editors write a BOM
    assert detect([str(migration)])[0].name == "goose"


def test_goose_sections():
    text = "-- +goose Up\nCREATE TABLE a (id int);\n\n-- +goose Down\nDROP TABLE a;\n"
    up, down = FRAMEWORKS["goose"].units("1_a.sql", text)
    assert (up.first, up.last, up.deploy, up.transaction) == (2, 3, True, "unit")
    assert (down.first, down.deploy) == (5, False)
    (up,) = [u for u in FRAMEWORKS["goose"].units("1_a.sql", "-- +goose NO TRANSACTION\n" + text) if u.deploy]
    assert up.transaction == "script" and "NO TRANSACTION" in up.why


def test_sql_migrate_sections_transaction_and_order():
    sql_migrate = FRAMEWORKS["sql-migrate"]
    text = (
        "-- a comment before any mark\n-- +migrate Up\nCREATE TABLE a (id int);\n-- +migrate Down\nDROP TABLE a;\n"
        "-- +migrate Up\nCREATE INDEX i ON a (id);\n-- +migrate Down\nDROP INDEX i;\n"
    )
    units = sql_migrate.units("1_a.sql", text)
    # both Up sections are one deploy in one transaction; the Down sections and line 1 never run
    assert [(u.holds(3), u.holds(7)) for u in units if u.deploy] == [(True, True)]
    assert {n: [u.deploy for u in units if u.holds(n)][0] for n in (1, 3, 5, 7, 9)} == {
        1: False,
        3: True,
        5: False,
        7: True,
        9: False,
    }
    assert [u.transaction for u in units if u.deploy] == ["unit"]
    # notransaction on any Up line leaves the transaction out of the whole migration
    later = text.replace("-- +migrate Up\nCREATE INDEX", "-- +migrate Up notransaction\nCREATE INDEX")
    assert [u.transaction for u in sql_migrate.units("1_a.sql", later) if u.deploy] == ["script"]
    # sql-migrate reads its marks case-sensitively, at the start of the line, after exactly "-- "
    for unread in ("-- +migrate up\n", "--+migrate Up\n", " -- +migrate Up\n", "-- +migrate Upgrade\n"):
        assert not any(u.deploy for u in sql_migrate.units("1_a.sql", unread + "SELECT 1;\n"))
    assert sql_migrate.order(["m/10_b.sql", "m/9_a.sql", "m/init.sql", "m/10_a.sql"]) == [
        "m/9_a.sql",
        "m/10_a.sql",
        "m/10_b.sql",
        "m/init.sql",
    ]


def test_sql_migrate_statement_block_ends_at_statement_end_and_is_one_query(capsys, tmp_path):
    f = tmp_path / "1_f.sql"
    f.write_text(
        "-- +migrate Up notransaction\n-- +migrate StatementBegin\nCREATE FUNCTION f() RETURNS trigger AS $$\n"
        "BEGIN\n  RETURN NEW;\nEND;\n$$ LANGUAGE plpgsql\n-- +migrate StatementEnd\n\n-- +migrate Down\nDROP FUNCTION f();\n"
    )
    code, out, err = run(capsys, "lint", "--format", "json", f)
    assert code == 0 and json.loads(out)["errors"] == [], err
    text = "-- +migrate Up notransaction\n-- +migrate StatementBegin\nSELECT 1;\nSELECT 2;\n-- +migrate StatementEnd\n"
    assert FRAMEWORKS["sql-migrate"].sent_together(lambda: text, 3)


def test_liquibase_changesets_and_end_delimiter():
    text = (
        "--liquibase formatted sql\n--changeset a:1 runInTransaction:false splitStatements:false\nSELECT 1;\n"
        "--changeset a:2 endDelimiter:/\nCREATE TABLE t (id int)\n/\n--changeset a:3 ignore:true\nDROP TABLE t;\n"
    )
    lb = FRAMEWORKS["liquibase"]
    units = lb.units("x.sql", text)
    assert [(u.name, u.deploy, u.transaction) for u in units] == [
        ("x (before the first changeset)", False, "script"),
        ("changeset a:1", True, "implicit"),
        ("changeset a:2", True, "unit"),
        ("changeset a:3 (ignore:true)", False, "script"),
    ]
    prepared = lb.prepare("x.sql", text)
    assert prepared.splitlines()[5] == ";" and len(prepared) == len(text)


def test_flyway_versions_order_as_numbers_and_undo_files_do_not_deploy():
    fw = FRAMEWORKS["flyway"]
    files = ["V10__c.sql", "R__view.sql", "V2__b.sql", "V1.1__a2.sql", "V1__a.sql", "U2__b.sql"]
    deployed = [f for f in fw.order(files) if fw.deployed(f)]
    assert deployed == ["V1__a.sql", "V1.1__a2.sql", "V2__b.sql", "V10__c.sql", "R__view.sql"]
    assert not fw.deployed("U2__b.sql") and not fw.deployed("afterMigrate.sql") and fw.deployed("R__view.sql")


def test_placeholders_keep_lines_and_columns():
    from schemacite.sources.frameworks import blank_placeholders

    text = "CREATE TABLE ${schema}.t (a ${type});\n"
    out = blank_placeholders(text)
    assert len(out) == len(text) and "${" not in out and out.startswith("CREATE TABLE           t")


# ------------------------------------------------------------------ deploys on real projects


def test_a_folder_is_a_series_of_deploys(capsys, tmp_path):
    """Linting a whole migrations folder judges each migration against the ones before it: the
    tables earlier migrations created exist by then, while a table is new within the migration
    that creates it."""
    m = tmp_path / "migrations"
    m.mkdir()
    (m / "000001_orders.up.sql").write_text("CREATE TABLE orders (id int PRIMARY KEY, total int);\n")
    (m / "000001_orders.down.sql").write_text("DROP TABLE orders;\n")
    (m / "000002_note.up.sql").write_text(
        "ALTER TABLE orders ADD COLUMN note text;\nCREATE TABLE notes (id int PRIMARY KEY);\n"
        "CREATE INDEX notes_id ON notes (id);\n"
    )
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", m)
    doc = json.loads(out)
    assert [(Path(f["file"]).name, f["line"], f["rule"]) for f in doc["findings"]] == [
        ("000002_note.up.sql", 1, "lock-timeout-missing")
    ]
    assert doc["framework"] == {"name": "golang-migrate", "why": "N_title.up.sql / .down.sql file names"}


def test_down_sections_are_read_for_syntax_only(capsys, tmp_path):
    m = tmp_path / "db"
    m.mkdir()
    (m / "001_a.sql").write_text("-- +goose Up\nCREATE TABLE a (id int PRIMARY KEY);\n-- +goose Down\nDROP TABLE a;\n")
    (m / "002_b.sql").write_text(
        "-- +goose Up\nALTER TABLE a ADD COLUMN b int;\n-- +goose Down\nALTER TABLE a DROPP b;\n"
    )
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--format", "json", m)
    doc = json.loads(out)
    assert [(Path(f["file"]).name, f["line"]) for f in doc["findings"]] == [("002_b.sql", 2)]
    assert code == 2 and "002_b.sql:4:" in err  # the down section's syntax error is still reported


def test_framework_option_and_setting(capsys, tmp_path):
    f = tmp_path / "1_a.sql"
    f.write_text("CREATE TABLE a (id int PRIMARY KEY);\nCREATE INDEX CONCURRENTLY a_i ON a (id);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", f)
    assert code == 0 and "framework" not in out  # plain: no transaction, the table is new
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--framework", "atlas", f)
    assert code == 1 and "SC106" in out and "framework atlas (configured)" in out
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\nframework = "nope"\n')
    code, _, err = run(capsys, "lint", f)
    assert code == 2 and "unknown framework 'nope'" in err


# ------------------------------------------------------------------ standard input


def test_sql_from_standard_input(capsys, monkeypatch, tmp_path):
    history = tmp_path / "0001.sql"
    history.write_text("CREATE TABLE orders (id int PRIMARY KEY, total int);\n")
    sql = b"BEGIN;\nALTER TABLE orders ADD COLUMN note text;\nUPDATE orders SET total = 0;\nCOMMIT;\n"
    code, out, err = run(
        capsys,
        "lint",
        "--dialect",
        "postgres",
        "--history",
        history,
        "--stdin-filename",
        "shop/0002_note.sql",
        "-",
        stdin=sql,
        monkeypatch=monkeypatch,
    )
    assert code == 1 and err == ""
    assert out.startswith("shop/0002_note.sql\n  2:1 warning SC109")
    assert "2:1 warning SC110" in out


def test_django_sqlmigrate_piped_in(capsys, monkeypatch):
    monkeypatch.chdir(CASES / "django")
    sql = (CASES / "django" / "sql" / "shop" / "0002_order_status.sql").read_bytes()
    code, out, err = run(
        capsys,
        "lint",
        "--framework",
        "django",
        "--stdin-filename",
        "shop/0002_order_status",
        "-",
        stdin=sql,
        monkeypatch=monkeypatch,
    )
    assert code == 1, err
    assert "shop/0002_order_status\n  5:1 warning SC109" in out and "5:1 warning SC110" in out and "SC105" in out
    assert "framework django (configured)" in out


def test_a_syntax_error_on_standard_input_is_located(capsys, monkeypatch):
    code, _, err = run(
        capsys, "lint", "--dialect", "postgres", "-", stdin=b"SELECT 1;\nALTER TABLE;\n", monkeypatch=monkeypatch
    )
    assert code == 2 and err.startswith("error: stdin.sql:2:")


# ------------------------------------------------------------------ --since


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed for --since")
    r = tmp_path / "repo"
    (r / "migrations").mkdir(parents=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "HOME": str(tmp_path),
    }

    def git(*args):
        subprocess.run(["git", *args], cwd=r, check=True, capture_output=True, env=env)

    git("init", "-q", "-b", "main")
    (r / "migrations" / "000001_orders.up.sql").write_text("CREATE TABLE orders (id int PRIMARY KEY, total int);\n")
    (r / "migrations" / "000002_events.up.sql").write_text("CREATE TABLE events (at timestamptz);\n")
    git("add", ".")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "feature")
    (r / "migrations" / "000003_note.up.sql").write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    git("add", ".")
    git("commit", "-q", "-m", "note")
    (r / "migrations" / "000004_index.up.sql").write_text("CREATE INDEX orders_total ON orders (total);\n")
    return r, git


def test_since_lints_the_change_against_everything_before(capsys, repo, monkeypatch):
    r, _ = repo
    monkeypatch.chdir(r)
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--format", "json", "--since", "main", "migrations")
    doc = json.loads(out)
    # committed on the branch, and untracked: both are the change; 000002's missing key is history
    assert {(Path(f["file"]).name, f["rule"]) for f in doc["findings"]} == {
        ("000003_note.up.sql", "lock-timeout-missing"),
        ("000004_index.up.sql", "write-blocking-lock"),
    }
    assert "2 changed file(s) linted, 2 unchanged file(s) replayed as history" in doc["notes"][0]


def test_since_with_nothing_changed_passes_and_says_so(capsys, repo, monkeypatch):
    r, git = repo
    (r / "migrations" / "000004_index.up.sql").unlink()
    monkeypatch.chdir(r)
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--since", "feature", "migrations")
    assert code == 0 and "nothing changed under the given paths" in err
    assert out.endswith("no findings: no file was linted.\n")  # a pull request without migrations: not a clean lint


def test_since_refuses_what_is_not_a_revision(capsys, repo, monkeypatch):
    r, _ = repo
    monkeypatch.chdir(r)
    code, _, err = run(capsys, "lint", "--dialect", "postgres", "--since=--output=/tmp/x", "migrations")
    assert code == 2 and "not a revision" in err
    code, _, err = run(capsys, "lint", "--dialect", "postgres", "--since", "no-such-branch", "migrations")
    assert code == 2 and "--since no-such-branch: git knows no such commit or branch here" in err
    assert "git fetch origin no-such-branch" in err and "fatal:" not in err


# ------------------------------------------------------------------ dialect


def test_dialect_is_told_from_the_files():
    assert detect_dialect(["CREATE TABLE `a` (id int AUTO_INCREMENT) ENGINE=InnoDB;"])[0] == "mysql"
    assert detect_dialect(["-- MariaDB dump 10.19\nCREATE TABLE `a` (id int) ENGINE=InnoDB;"])[0] == "mariadb"
    assert detect_dialect(["CREATE TABLE a (id bigserial, d jsonb); SELECT 1::int;"])[0] == "postgres"
    # words in comments and strings are not marks
    assert detect_dialect(["-- ENGINE=InnoDB `x`\nCREATE TABLE a (note text DEFAULT 'AUTO_INCREMENT');"])[0] is None
    assert detect_dialect(["CREATE TABLE a (id int);"]) == (None, "no mark of either dialect in the files")


def test_every_mark_counts_what_findall_finds():
    """A mark tried only where its words are (`starts`) or only on texts holding one (`holds`)
    counts the matches, and the first, that the plain regular expression finds."""
    import re

    from schemacite.sources.dialect import MYSQL_MARKS, POSTGRES_MARKS, SQLITE_MARKS, _count

    texts = [
        (ROOT / "fixtures" / "demo" / "mysql" / "schema.sql").read_text(),
        *(p.read_text() for p in sorted((ROOT / "fixtures" / "demo" / "postgres" / "migrations").glob("*.sql"))),
        "alter table altered modify x int; salter table t change column c d int; ALTER TABLE t MODIFY c int;",
        "create extension x; recreate extension y; create  extension\n z; alter table only t add c int;",
        "select bigint unsigned, tinyint(3) unsigned, point unsigned, 'a'::text, x::int, $$ $body$",
    ]
    for marks in (MYSQL_MARKS, POSTGRES_MARKS, SQLITE_MARKS):
        for name, mark in marks.items():
            for text in texts:
                lower = text.lower()
                found = [m.start() for m in re.finditer(mark.pattern, lower, mark.flags)]
                assert _count(mark, lower) == (len(found), found[0] if found else -1), (name, text[:60])


def test_portable_sql_is_linted_as_the_default_dialect_and_conflicting_marks_ask(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int PRIMARY KEY);\nCREATE INDEX a_id ON a (id);\n")
    code, out, _ = run(capsys, "lint", "--format", "json", f)
    assert code == 0 and json.loads(out)["dialect"]["name"] == "postgres"
    assert "default" in json.loads(out)["dialect"]["why"]
    code, out, _ = run(capsys, "lint", f)
    summary = " ".join(out.split())  # the summary wraps at 80 columns
    assert code == 0 and "dialect postgres (the default: no mark of either dialect" in summary
    (tmp_path / "b.sql").write_text("CREATE TABLE b (id int AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB;\n")
    code, out, err = run(capsys, "lint", f)  # the file beside it says
    summary = " ".join(out.split())
    assert code == 0 and "dialect mysql (detected from" in summary and "in the files beside them" in summary
    (tmp_path / "c.sql").write_text("CREATE TABLE c (id bigserial, d jsonb); SELECT 1::int; CREATE EXTENSION x;\n")
    code, _, err = run(capsys, "lint", f)
    assert code == 2 and "cannot tell the SQL dialect" in err and "--dialect" in err


def test_a_file_the_dialect_cannot_read_names_the_other_dialects_marks(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE `a` (id int AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB;\n")
    code, _, err = run(capsys, "lint", "--dialect", "postgres", f)
    assert code == 2 and "a.sql:1:" in err and "MySQL marks: backticks" in err and "--dialect mysql" in err


def test_a_sqlite_file_is_named_as_sqlite_not_as_the_other_dialect(capsys, tmp_path):
    f = tmp_path / "schema.sql"
    f.write_text(
        "CREATE TABLE `users` (id INTEGER PRIMARY KEY AUTOINCREMENT, `name` TEXT) WITHOUT ROWID;\n"
        "PRAGMA foreign_keys = ON;\n"
    )
    for dialect in ("postgres", "mysql"):
        code, _, err = run(capsys, "lint", "--dialect", dialect, f)
        assert code == 2 and "schema.sql:1" in err and "is it MySQL" not in err
        assert (
            "looks like SQLite's: AUTOINCREMENT ×1" in err
            and "schemacite reads MySQL, MariaDB and PostgreSQL, not SQLite" in err
        )
    named = tmp_path / "dev.sqlite.sql"  # named for SQLite: left out unread, the note says why
    named.write_text("CREATE TABLE q (id int) STRICT;\n")
    code, _, err = run(capsys, "lint", "--dialect", "postgres", named)
    assert code == 2 and "named for SQLite, which schemacite does not read" in err and "syntax error" not in err
    plain = tmp_path / "plain.sql"  # the other dialect's marks alone still name that dialect
    plain.write_text("CREATE TABLE `a` (id int AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB;\n")
    assert "SQLite" not in run(capsys, "lint", "--dialect", "postgres", plain)[2]


def test_a_mariadb_target_names_the_family(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE a (id int PRIMARY KEY);\nALTER TABLE a ADD COLUMN b int;\n")
    code, out, err = run(capsys, "lint", "--dialect", "mysql", "--target", "mariadb-10.11", "--format", "json", f)
    assert code == 0 and json.loads(out)["errors"] == [], err


# ------------------------------------------------------------------ found by linting real projects


def test_sqitch_reworked_changes_and_nested_projects_keep_their_plan_order(tmp_path):
    from schemacite.sources.frameworks import FRAMEWORKS

    top = tmp_path / "schema"
    (top / "deploy").mkdir(parents=True)
    (top / "sqitch.plan").write_text(
        "%project=p\nz 2024-01-01T00:00:00Z A <a@b> # z\na 2024-01-02T00:00:00Z A <a@b> # a\n"
        "@t1 2024-01-03T00:00:00Z A <a@b> # tag\na [a@t1] 2024-01-04T00:00:00Z A <a@b> # a again\n"
    )
    for name in ("z", "a@t1", "a"):
        (top / "deploy" / f"{name}.sql").write_text("SELECT 1;\n")
    base = top / "baseline"
    (base / "deploy").mkdir(parents=True)
    (base / "sqitch.plan").write_text(
        "%project=b\nb2 2024-01-01T00:00:00Z A <a@b> #\nb1 2024-01-02T00:00:00Z A <a@b> #\n"
    )
    for name in ("b1", "b2"):
        (base / "deploy" / f"{name}.sql").write_text("SELECT 1;\n")
    files = sorted(str(p) for p in tmp_path.rglob("*.sql"))
    order = [Path(f).relative_to(tmp_path).as_posix() for f in FRAMEWORKS["sqitch"].order(files)]
    assert order == [
        "schema/baseline/deploy/b2.sql",
        "schema/baseline/deploy/b1.sql",
        "schema/deploy/z.sql",
        "schema/deploy/a@t1.sql",  # the frozen script runs where the change first appears
        "schema/deploy/a.sql",
    ]


def test_liquibase_runs_an_included_file_without_its_header_as_one_changeset(capsys, tmp_path):
    (tmp_path / "a.sql").write_text(
        "--liquibase formatted sql\n--changeset a:1\nCREATE TABLE t (id int primary key, c char(3));\n"
    )
    (tmp_path / "b.sql").write_text("ALTER TABLE t ALTER COLUMN c TYPE varchar(3) USING c::varchar(3);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", tmp_path)
    doc = json.loads(out)
    assert doc["framework"]["name"] == "liquibase"
    assert [(Path(f["file"]).name, f["rule"]) for f in doc["findings"]] == [("b.sql", "access-exclusive-lock")]


def test_a_foreign_key_from_a_table_the_change_created_is_not_long_work(capsys, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE court (id int primary key);\nCREATE TABLE docket (id int primary key);\n")
    m = tmp_path / "m.sql"
    m.write_text(
        "BEGIN;\nCREATE TABLE transfer (id int primary key, court_id int, docket_id int);\n"
        "ALTER TABLE transfer ADD CONSTRAINT f1 FOREIGN KEY (court_id) REFERENCES court (id);\n"
        "ALTER TABLE transfer ADD CONSTRAINT f2 FOREIGN KEY (docket_id) REFERENCES docket (id);\nCOMMIT;\n"
    )
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", "--history", h, m)
    findings = json.loads(out)["findings"]
    # the referenced tables are locked briefly (one wait, SC110), the new table's check is no scan worth a word
    assert [(f["line"], f["rule"], f["table"]) for f in findings] == [(3, "lock-timeout-missing", "court, docket")]
    assert all("scan" not in f["message"] and "NOT VALID" not in (f["suggestion"] or "") for f in findings)


def test_a_lock_on_an_index_counts_on_its_table(capsys, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE q (a int NOT NULL, b int NOT NULL);\nCREATE UNIQUE INDEX q_ab ON q (a, b);\n")
    m = tmp_path / "m.sql"
    m.write_text("BEGIN;\nDROP INDEX IF EXISTS q_ab;\nALTER TABLE q ADD PRIMARY KEY (a, b);\nCOMMIT;\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", "--history", h, m)
    assert "lock-held-during-long-work" not in {f["rule"] for f in json.loads(out)["findings"]}


def test_utf16_files_are_read(capsys, tmp_path):
    f = tmp_path / "a.sql"
    f.write_bytes("CREATE TABLE é (v int);\n".encode("utf-16"))
    code, out, err = run(capsys, "lint", "--dialect", "postgres", f)
    assert code == 1 and "Table é has no primary key" in out and err == ""


def test_an_unreadable_statement_in_the_history_is_a_note(capsys, tmp_path):
    h = tmp_path / "h.sql"
    h.write_text("CREATE TABLE t (id int primary key);\nALTER TABLE;\n")
    m = tmp_path / "m.sql"
    m.write_text("ALTER TABLE t ADD COLUMN v int;\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--history", h, m)
    assert code == 1 and f"note: history {h}:2:" in err and "its changes are not replayed" in err
    code, out, err = run(capsys, "lint", "--dialect", "postgres", h)  # linted itself: an error
    assert code == 2 and f"error: {h}:2:" in err


def test_since_with_nothing_changed_still_writes_the_report(capsys, repo, monkeypatch, tmp_path):
    r, _ = repo
    (r / "migrations" / "000004_index.up.sql").unlink()
    monkeypatch.chdir(r)
    report = tmp_path / "report.sarif"
    code, out, err = run(
        capsys, "lint", "--dialect", "postgres", "--since", "feature", "--format", "sarif", "-o", report, "migrations"
    )
    assert code == 0 and json.loads(report.read_text())["runs"][0]["results"] == []
    code, out, err = run(
        capsys, "lint", "--dialect", "postgres", "--since", "feature", "--format", "json", "migrations"
    )
    assert code == 0 and json.loads(out)["findings"] == []


def test_the_help_names_every_framework(capsys):
    from schemacite.cli import parser

    text = parser()._subparsers._group_actions[0].choices["lint"].format_help()
    text = re.sub(r"-\s+", "-", " ".join(text.split()))  # argparse may wrap a line after a hyphen
    assert all(name in text for name in FRAMEWORKS)


def test_files_read_beside_the_sql_stay_inside_the_repository_and_are_read_bounded(tmp_path):
    """A plan, a lock file or a .conf that links out of the repository, or to a device, is not
    read: it would decide order, dialect or transactions from a file the change does not own, and
    /dev/zero would stall the run."""
    from schemacite.sources.frameworks import FRAMEWORKS
    from schemacite.sources.frameworks.named import prisma_provider, sqitch_plan

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "sqitch.plan").write_text(
        "%project=x\nb 2024-01-01T00:00:00Z A <a@b> #\na 2024-01-02T00:00:00Z A <a@b> #\n"
    )
    (outside / "migration_lock.toml").write_text('provider = "mysql"\n')
    (outside / "V1__a.sql.conf").write_text("executeInTransaction=false\n")

    sq = repo / "db"
    (sq / "deploy").mkdir(parents=True)
    for name in ("a", "b"):
        (sq / "deploy" / f"{name}.sql").write_text("SELECT 1;\n")
    (sq / "sqitch.plan").symlink_to(outside / "sqitch.plan")
    files = sorted(str(p) for p in (sq / "deploy").glob("*.sql"))
    assert sqitch_plan(files[0]) is None
    assert FRAMEWORKS["sqitch"].order(files) == files  # names order them, not the outside plan

    prisma = repo / "prisma" / "migrations"
    (prisma / "20240101_init").mkdir(parents=True)
    (prisma / "20240101_init" / "migration.sql").write_text("SELECT 1;\n")
    (prisma / "migration_lock.toml").symlink_to(outside / "migration_lock.toml")
    assert prisma_provider([str(prisma / "20240101_init" / "migration.sql")]) is None
    (prisma / "migration_lock.toml").unlink()
    (prisma / "migration_lock.toml").symlink_to("/dev/zero")
    assert prisma_provider([str(prisma / "20240101_init" / "migration.sql")]) is None
    (prisma / "migration_lock.toml").unlink()
    (prisma / "migration_lock.toml").write_text('provider = "postgresql"\n')
    assert prisma_provider([str(prisma / "20240101_init" / "migration.sql")]) == "postgresql"

    fly = repo / "flyway"
    fly.mkdir()
    (fly / "V1__a.sql").write_text("CREATE INDEX CONCURRENTLY i ON t (c);\n")
    (fly / "V1__a.sql.conf").symlink_to(outside / "V1__a.sql.conf")
    (unit,) = FRAMEWORKS["flyway"].units(str(fly / "V1__a.sql"), (fly / "V1__a.sql").read_text())
    assert "executeInTransaction" not in unit.why


def test_liquibase_runs_files_in_the_order_of_the_master_changelog(tmp_path):
    """Found in a real Spring project: the master changelog, not the file names, orders the SQL.
    XML, YAML and JSON changelogs, relative and classpath paths, includeAll, nested changelogs."""
    from schemacite.sources.frameworks import FRAMEWORKS

    res = tmp_path / "svc" / "src" / "main" / "resources"
    log = res / "db" / "changelog"
    (log / "more").mkdir(parents=True)
    (log / "all").mkdir()
    (res / "db" / "db.changelog-master.xml").write_text(
        '<?xml version="1.0"?>\n<databaseChangeLog xmlns="http://www.liquibase.org/xml/ns/dbchangelog">\n'
        '  <include file="db/changelog/z-create.sql"/>\n'
        '  <!-- <include file="db/changelog/a-alter.sql"/> -->\n'
        '  <include file="changelog/more/nested.yaml" relativeToChangelogFile="true"/>\n'
        '  <includeAll path="db/changelog/all/"/>\n'
        "</databaseChangeLog>\n"
    )
    (log / "more" / "nested.yaml").write_text(
        "databaseChangeLog:\n  # - include: {file: db/changelog/m-index.sql}\n"
        "  - include:\n      file: ../a-alter.sql\n      relativeToChangelogFile: true\n"
        "  - include: {file: db/changelog/m-index.sql}\n"
    )
    (log / "m-index.sql").write_text("CREATE INDEX t_c ON t (c);\n")
    (log / "z-create.sql").write_text("CREATE TABLE t (id int PRIMARY KEY, c int);\n")
    (log / "a-alter.sql").write_text("ALTER TABLE t ADD COLUMN d int;\n")
    (log / "all" / "2-b.sql").write_text("SELECT 2;\n")
    (log / "all" / "1-a.sql").write_text("SELECT 1;\n")
    (log / "stray.sql").write_text("SELECT 0;\n")  # named by no changelog: after the others
    files = sorted(str(p) for p in log.rglob("*.sql"))
    order = [Path(f).relative_to(log).as_posix() for f in FRAMEWORKS["liquibase"].order(files)]
    assert order == ["z-create.sql", "a-alter.sql", "m-index.sql", "all/1-a.sql", "all/2-b.sql", "stray.sql"]
    (tmp_path / "svc" / "src" / "main" / "resources" / "db" / "db.changelog-master.xml").unlink()
    (log / "more" / "nested.yaml").unlink()
    # no changelog: by path, as includeAll orders a folder
    assert FRAMEWORKS["liquibase"].order(files) == sorted(files)


def test_liquibase_changelog_json_and_modules_sharing_paths(tmp_path):
    from schemacite.sources.frameworks import FRAMEWORKS

    for module in ("billing", "cards"):
        log = tmp_path / module / "db" / "changelog"
        log.mkdir(parents=True)
        (log / "master.json").write_text(
            '{"databaseChangeLog": [{"include": {"file": "db/changelog/b.sql"}}, {"include": {"file": "db/changelog/a.sql"}}]}'
        )
        (log / "a.sql").write_text("SELECT 1;\n")
        (log / "b.sql").write_text("SELECT 2;\n")
    files = sorted(str(p) for p in tmp_path.rglob("*.sql"))
    order = [Path(f).relative_to(tmp_path).as_posix() for f in FRAMEWORKS["liquibase"].order(files)]
    assert order == [
        "billing/db/changelog/b.sql",
        "billing/db/changelog/a.sql",
        "cards/db/changelog/b.sql",
        "cards/db/changelog/a.sql",
    ]


def test_morph_is_told_from_the_go_module_when_no_file_is_marked(capsys, tmp_path):
    """golang-migrate and morph share their file names; a module requiring morph runs each file
    in a transaction, where CREATE INDEX CONCURRENTLY fails even alone."""
    mig = tmp_path / "server" / "db" / "migrations" / "postgres"
    mig.mkdir(parents=True)
    (mig / "000001_t.up.sql").write_text("CREATE TABLE t (id bigint PRIMARY KEY, c int);\n")
    (mig / "000002_t_c.up.sql").write_text("CREATE INDEX CONCURRENTLY t_c ON t (c);\n")

    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", mig)
    doc = json.loads(out)
    assert doc["framework"]["name"] == "golang-migrate" and not doc["findings"]
    (tmp_path / "go.mod").write_text(
        "module example.com/plugin\n\ngo 1.22\n\nrequire (\n\tgithub.com/mattermost/morph v1.1.0\n)\n"
    )
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", mig)
    doc = json.loads(out)
    assert doc["framework"]["name"] == "morph" and "github.com/mattermost/morph in" in doc["framework"]["why"]
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("SC106", 1)]


def test_liquibase_changelogs_a_pull_request_shapes_badly_cost_little(tmp_path):
    """Changelogs that include each other many times, or open thousands of XML comments, are
    each read once: the work does not multiply (it was exponential in the nesting)."""
    from schemacite.sources.frameworks import FRAMEWORKS

    log = tmp_path / "db" / "changelog"
    log.mkdir(parents=True)
    (log / "a.sql").write_text("SELECT 1;\n")
    (log / "b.sql").write_text("SELECT 2;\n")
    for level in range(9):  # each level includes the next one 40 times
        inner = f'<include file="l{level + 1}.xml" relativeToChangelogFile="true"/>\n' * 40
        (log / f"l{level}.xml").write_text(f"<databaseChangeLog>\n{inner}</databaseChangeLog>\n")
    (log / "l9.xml").write_text(
        '<databaseChangeLog>\n<include file="b.sql" relativeToChangelogFile="true"/>\n'
        '<include file="a.sql" relativeToChangelogFile="true"/>\n' + "<!--" * 50_000 + "\n</databaseChangeLog>\n"
    )
    files = [str(log / "a.sql"), str(log / "b.sql")]
    assert FRAMEWORKS["liquibase"].order(files) == [str(log / "b.sql"), str(log / "a.sql")]


# ------------------------------------------------------------------ runners read from their own source


def _read(monkeypatch, case: str, paths: list[str], dialect: str = "postgres"):
    from schemacite.sources.replay import Replay

    monkeypatch.chdir(CASES / case)
    run = Replay(dialect, paths)
    steps = list(run)
    return run, steps


def test_diesel_versions_compare_without_dashes_and_metadata_leaves_the_transaction_out(monkeypatch):
    run, steps = _read(monkeypatch, "diesel", ["migrations"])
    ran = [os.path.basename(os.path.dirname(f)) for f in run.order if run.framework.deployed(f)]
    assert ran == [
        "00000000000000_diesel_initial_setup",
        "20190401000000_create_crates",
        "2019-05-01-000000_crates_name_text",
        "2019-06-01-000000_index_crates_name",
        "2019-06-02-000000_index_crates_updated_at",
    ]
    modes = {os.path.basename(os.path.dirname(s.statement.location.file)): s.in_transaction for s in steps}
    assert modes["2019-06-01-000000_index_crates_name"] and not modes["2019-06-02-000000_index_crates_updated_at"]
    assert all(os.path.basename(s.statement.location.file) == "up.sql" for s in steps)
    assert sorted(os.path.basename(f) for f in run.unlinted["Diesel never runs them on deploy"]) == [
        *["down.sql"] * 5,
        "notes.sql",
    ]


def test_sqlx_no_transaction_first_line_and_names(monkeypatch):
    sqlx = FRAMEWORKS["sqlx"]
    assert (
        sqlx.units("1_a.sql", "-- no-transaction\nCREATE INDEX CONCURRENTLY i ON t (a);\n")[0].transaction == "implicit"
    )
    assert sqlx.units("1_a.sql", "\n-- no-transaction\n")[0].transaction == "unit"  # only as the first line
    assert not sqlx.deployed("1_a.down.sql") and sqlx.deployed("1_a.up.sql") and not sqlx.deployed("README.sql")
    assert sqlx.order(["10_b.sql", "9_a.sql"]) == ["9_a.sql", "10_b.sql"]
    assert (sqlx.opt_out, sqlx.opt_out_at) == ("-- no-transaction", "first line")


def test_golang_migrate_names_are_not_taken_for_sqlx_or_pop(tmp_path):
    for name in ("1_a.up.sql", "1_a.down.sql"):
        (tmp_path / name).write_text("CREATE TABLE a (id int);\n")
    files = [str(tmp_path / "1_a.up.sql")]
    assert detect(files)[0].name == "golang-migrate"
    (tmp_path / "Cargo.toml").write_text('[dependencies]\nsqlx = { version = "0.8" }\n')
    assert detect(files) == (
        FRAMEWORKS["sqlx"],
        f"<version>_<name>.sql file names, sqlx in {os.path.relpath(tmp_path / 'Cargo.toml')}",
    )
    (tmp_path / "Cargo.toml").unlink()
    (tmp_path / "go.mod").write_text("module x\n\nrequire github.com/gobuffalo/pop/v6 v6.1.1\n")
    assert detect(files)[0].name == "pop"
    (tmp_path / "go.mod").unlink()
    (tmp_path / "config.yaml").write_text("version: 2\nendpoint: http://localhost:8080\n")
    hasura, _ = detect(files)  # the Hasura CLI's older flat layout
    assert hasura.name == "hasura" and hasura.deployed(files[0]) and not hasura.deployed(str(tmp_path / "1_a.down.sql"))


def test_pop_names_outweigh_a_former_runners_mark(tmp_path):
    """ory/hydra: one CockroachDB file kept `-- +migrate Up` from sql-migrate days; the other files
    are pop's, and pop runs them (sql-migrate would run none of the mysql ones)."""
    files = []
    for n, name in enumerate(["networks", "client", "jwk", "oauth2"]):
        for db in ("mysql", "postgres", "cockroach"):
            path = tmp_path / f"2019010000000{n}000000_{name}.{db}.up.sql"
            mark = "-- +migrate Up\n" if (n, db) == (3, "cockroach") else ""
            path.write_text(f"{mark}CREATE TABLE t{n} (id int);\n")
            files.append(str(path))
    framework, why = detect(files)
    assert framework.name == "pop" and "<version>_<name>.<dialect>.up.sql file name" in why


def test_popx_autocommit_files_run_outside_a_transaction_on_their_database_only(tmp_path, monkeypatch):
    """ory's popx: `<version>_<name>[.<database>].autocommit.up.sql` runs without a transaction
    (hydra's CREATE INDEX CONCURRENTLY files), and a postgres one never on MariaDB."""
    from schemacite.sources.frameworks import POP

    pg = str(tmp_path / "20260420120000000000_idx.postgres.autocommit.up.sql")
    shared = str(tmp_path / "20260420120000000000_idx.autocommit.up.sql")
    mysql = str(tmp_path / "20260420120000000000_idx.mysql.up.sql")
    assert POP.skipped([pg, shared, mysql], "mariadb") == {
        pg: "pop runs a <name>.<database>.up.sql file only on that database",
        shared: "pop runs the mysql file of the same version instead of a shared one",
    }
    assert POP.skipped([pg, shared], "postgres") == {
        shared: "pop runs the postgres file of the same version instead of a shared one"
    }
    assert POP.deployed(pg) and POP.units(pg, "")[0].transaction == "script"
    # the change named as typed, the history found in a folder (`./`): the same folder all the same
    monkeypatch.chdir(tmp_path)
    shared_here, mysql_here = "./20260420120000000000_idx.autocommit.up.sql", "20260420120000000000_idx.mysql.up.sql"
    assert POP.skipped([shared_here, mysql_here], "mariadb") == {
        shared_here: "pop runs the mysql file of the same version instead of a shared one"
    }
    assert POP.units(mysql, "")[0].transaction == "unit"


def test_pop_runs_the_linted_dialects_files_and_the_shared_ones_it_does_not_replace(monkeypatch):
    for dialect, own in (("postgres", "postgres"), ("mysql", "mysql"), ("mariadb", "mysql")):
        run, steps = _read(monkeypatch, "pop", ["persistence"], dialect)
        read = {os.path.basename(f) for f in run.order}
        assert all(f".{own}." in n or n.count(".") == 2 for n in read), read
        assert not run.errors
        shared = "20200317160354000000_identity_state.up.sql"
        order = [os.path.basename(f) for f in run.order]
        assert order.index(f"20191100000001000000_identities.{own}.up.sql") < order.index(shared)
        # a version with this database's own file never runs its shared file
        assert ("20230101000000000000_identity_state_index.up.sql" in order) == (own != "postgres")
        assert sum(len(v) for v in run.skipped.values()) == 7


def test_drizzle_journal_order_breakpoints_and_one_transaction_for_the_run(monkeypatch):
    run, steps = _read(monkeypatch, "drizzle", ["drizzle"])
    assert [os.path.basename(f) for f in run.order if run.framework.deployed(f)] == [
        "0000_bright_hulk.sql",
        "0001_posts_author_index.sql",
        "0002_posts_published.sql",
    ]
    assert not run.errors  # the breakpoint ends the CREATE TABLE that has no `;`
    assert len({s.statement.transaction for s in steps}) == 1 and all(s.in_transaction for s in steps)
    assert [os.path.basename(f) for f in run.unlinted["Drizzle (drizzle-orm migrator) never runs them on deploy"]] == [
        "0003_draft_not_generated.sql"
    ]


def test_drizzle_named_for_files_without_a_journal_lints_none_of_them(tmp_path, capsys):
    """--framework drizzle on a folder with no meta/_journal.json: no file is in a journal, so none
    runs on deploy; a journal is not required to read them."""
    (tmp_path / "0000_a.sql").write_text("CREATE TABLE a (id int);\n")
    code, out, err = run(capsys, "lint", "--framework", "drizzle", str(tmp_path / "0000_a.sql"))
    assert code == 0 and "Traceback" not in err, err


def test_graphile_migrate_no_transaction_follows_the_headers():
    gm = FRAMEWORKS["graphile-migrate"]
    committed = "--! Previous: -\n--! Hash: sha1:x\n\n--! no-transaction\ncreate index concurrently i on t (a);\n"
    assert gm.units("migrations/committed/000001.sql", committed)[0].transaction == "implicit"
    assert gm.units("migrations/current.sql", "--! no-transaction\nselect 1;\n")[0].transaction == "implicit"
    assert gm.units("migrations/current.sql", "select 1;\n--! no-transaction\n")[0].transaction == "unit"
    assert not gm.deployed("migrations/fixtures/a.sql") and gm.deployed("migrations/committed/000002-x.sql")
    files = ["migrations/current.sql", "migrations/committed/000002-x.sql", "migrations/committed/000001.sql"]
    assert gm.order(files) == [files[2], files[1], files[0]]  # the history, then the change


def test_graphile_migrate_after_reset_files_are_the_base_schema(tmp_path):
    (tmp_path / "db").mkdir()
    files = [str(tmp_path / "db" / n) for n in ("base.sql", "roles.sql", "seed.sql", "current.sql")]
    for f in files:
        Path(f).write_text("select 1;\n")
    gmrc = tmp_path / ".gmrc"
    gmrc.write_text(
        '{\n  // JSON5: comments and trailing commas\n  "migrationsFolder": "./db",\n'
        '  "afterReset": [\n    "!base.sql", /* run as root */\n    {"_": "sql", "file": "roles.sql"},\n'
        '    {"_": "command", "command": "psql -f seed.sql"},\n  ],\n}\n'
    )
    gm = FRAMEWORKS["graphile-migrate"]
    assert gm.base(files) == files[:2]
    gmrc.write_text('{"afterAllMigrations": [], "afterReset": []}')
    assert gm.base(files) == []


def test_hasura_orders_versions_as_numbers_and_never_runs_down_sql():
    hasura = FRAMEWORKS["hasura"]
    files = ["m/default/1614859022945_init/up.sql", "m/default/999_old/up.sql", "m/default/999_old/down.sql"]
    assert hasura.order(files)[2] == "m/default/1614859022945_init/up.sql"  # 999 < 1614859022945
    assert [hasura.deployed(f) for f in files] == [True, True, False]


def test_node_pg_migrate_sections():
    text = "-- Up Migration\nCREATE TABLE a (id int);\n\n-- Down Migration\nDROP TABLE a;\n"
    up, down = FRAMEWORKS["node-pg-migrate"].units("1_a.sql", text)
    assert (up.first, up.last, up.deploy, up.transaction) == (1, 3, True, "run")
    assert (down.first, down.deploy) == (4, False)


def test_node_pg_migrate_without_section_marks_is_told_from_package_json(tmp_path):
    # the runner sends a SQL file without `-- Up Migration` whole, as the up migration
    (tmp_path / "migrations").mkdir()
    files = []
    for name, sql in (("001_init.sql", "CREATE TABLE a (id int);\n"), ("002_b.sql", "ALTER TABLE a ADD b int;\n")):
        (tmp_path / "migrations" / name).write_text(sql)
        files.append(str(tmp_path / "migrations" / name))
    assert detect(files)[0].name == "plain"
    (tmp_path / "package.json").write_text(json.dumps({"devDependencies": {"node-pg-migrate": "^7.1.0"}}))
    framework, why = detect(files)
    assert framework.name == "node-pg-migrate" and "package.json" in why
    (unit,) = framework.units(files[1], "ALTER TABLE a ADD b int;\n")
    assert (unit.first, unit.last, unit.deploy, unit.transaction) == (1, 0, True, "run")
    (tmp_path / "package.json").write_text('{"dependencies": ["node-pg-migrate"]}')  # not a manifest
    assert detect(files)[0].name == "plain"


def test_supabase_runs_only_timestamped_files_in_its_migrations_folder(monkeypatch):
    run, steps = _read(monkeypatch, "supabase", ["supabase"])
    assert {os.path.basename(s.statement.location.file) for s in steps} == {
        "20240101120000_create_profiles.sql",
        "20240215093000_profiles_username_index.sql",
    }
    assert all(s.in_transaction for s in steps)


def test_goose_statement_block_without_a_semicolon_ends_at_statement_end(capsys, tmp_path):
    f = tmp_path / "00001_f.sql"
    f.write_text(
        "-- +goose Up\n-- +goose StatementBegin\nCREATE FUNCTION f() RETURNS trigger AS $$\nBEGIN\n  RETURN NEW;\n"
        "END;\n$$ LANGUAGE plpgsql\n-- +goose StatementEnd\n\n-- +goose Down\nDROP FUNCTION f();\n"
    )
    code, out, err = run(capsys, "lint", "--format", "json", f)
    assert code == 0 and json.loads(out)["errors"] == [], err


def test_a_file_no_part_of_which_deploys_is_named_in_a_note(capsys, tmp_path):
    (tmp_path / "00001_a.sql").write_text(
        "-- +goose Up\nCREATE TABLE a (id int PRIMARY KEY);\n-- +goose Down\nDROP TABLE a;\n"
    )
    (tmp_path / "seeds.sql").write_text("INSERT INTO a VALUES (1);\n")
    code, out, err = run(capsys, "lint", "--format", "json", tmp_path)
    notes = json.loads(out)["notes"]
    assert code == 0 and any("not linted (goose never runs them on deploy)" in n and "seeds.sql" in n for n in notes)
    assert "seeds.sql" in err


def test_every_runner_records_its_transaction_opt_out_as_data():
    opt_outs = {name: (f.opt_out, f.opt_out_at) for name, f in FRAMEWORKS.items()}
    assert opt_outs["diesel"] == ("run_in_transaction = false", "metadata.toml beside up.sql")
    assert opt_outs["graphile-migrate"] == ("--! no-transaction", "first line of the migration's body")
    assert opt_outs["goose"][0] == "-- +goose NO TRANSACTION"
    assert opt_outs["pop"] == opt_outs["supabase"] == opt_outs["hasura"] == ("", "")  # none exists


# ------------------------------------------------------------------ files named for one engine


def test_files_named_for_one_engine_tell_the_dialect_and_the_others_are_named(capsys, tmp_path):
    (tmp_path / "01_rooms.sql").write_text("CREATE TABLE rooms (id text PRIMARY KEY);\n")
    (tmp_path / "02_rooms.sql.postgres").write_text("CREATE INDEX rooms_id ON rooms (id);\n")
    (tmp_path / "02_rooms.sql.sqlite").write_text("CREATE TABLE x (id INTEGER PRIMARY KEY AUTOINCREMENT, n tinyint);\n")
    code, out, _ = run(capsys, "lint", tmp_path, "--format", "json")
    doc = json.loads(out)
    assert doc["dialect"]["name"] == "postgres" and "files named for PostgreSQL" in doc["dialect"]["why"]
    assert any("left out (named for SQLite" in n and "02_rooms.sql.sqlite" in n for n in doc["notes"])
    assert not doc["errors"]


def test_vendor_folders_for_two_dialects_ask_which_and_each_run_reads_its_own(capsys, tmp_path):
    shutil.copytree(CASES / "flyway-vendors" / "src", tmp_path / "src")
    code, _, err = run(capsys, "lint", tmp_path / "src")
    assert code == 2 and "cannot tell the SQL dialect (files named for" in err and "db/migration/mysql/" in err
    code, out, _ = run(capsys, "lint", tmp_path / "src", "--dialect", "mysql", "--format", "json")
    doc = json.loads(out)
    assert not doc["errors"]
    assert any("a folder for PostgreSQL; the run reads MySQL" in n for n in doc["notes"])
    assert any("a folder for H2, which schemacite does not read" in n for n in doc["notes"])
    assert {os.path.basename(f["file"]) for f in doc["findings"]} <= {
        "V3__orders_note.sql",
        "V4__orders_note_index.sql",
    }


def test_pop_variants_for_two_engines_ask_which_whatever_one_variant_carries(capsys, tmp_path):
    """ory/keto: a shared file and a `.mysql.up.sql` variant with one backtick, beside `.postgres.`,
    `.cockroach.` and `.sqlite3.` variants of the same versions: the backtick once chose MySQL."""
    (tmp_path / "20200101000000000000_tuples.up.sql").write_text("CREATE TABLE tuples (id int PRIMARY KEY);\n")
    for engine, ddl in {
        "postgres": "DROP TABLE legacy;\n",
        "mysql": "DROP TABLE `legacy`;\n",
        "cockroach": "DROP TABLE legacy;\n",
        "sqlite3": "DROP TABLE legacy;\n",
    }.items():
        (tmp_path / f"20200102000000000000_cleanup.{engine}.up.sql").write_text(ddl)
    code, _, err = run(capsys, "lint", tmp_path)
    assert code == 2 and "cannot tell the SQL dialect (files named for" in err
    assert "cleanup.mysql.up.sql" in err and "cleanup.postgres.up.sql" in err
    code, out, _ = run(capsys, "lint", tmp_path, "--dialect", "postgres", "--format", "json")
    assert code in (0, 1) and json.loads(out)["dialect"]["name"] == "postgres"
    for engine in ("mysql", "cockroach", "sqlite3"):
        (tmp_path / f"20200102000000000000_cleanup.{engine}.up.sql").unlink()
    code, out, _ = run(capsys, "lint", tmp_path, "--format", "json")
    doc = json.loads(out)
    assert doc["dialect"]["name"] == "postgres" and "files named for PostgreSQL" in doc["dialect"]["why"]


def test_flyway_suffixes_from_spring_settings_are_migrations(tmp_path):
    from schemacite.sources.files import expand

    folder = tmp_path / "src" / "main" / "resources"
    (folder / "db" / "migration").mkdir(parents=True)
    (folder / "application.properties").write_text("spring.flyway.sql-migration-suffixes=.sql,.ddl\n")
    (folder / "db" / "migration" / "V1__a.ddl").write_text("CREATE TABLE a (id int);\n")
    (folder / "db" / "migration" / "notes.txt").write_text("not SQL\n")
    files, errors = expand([str(tmp_path / "src")])
    assert [os.path.basename(f) for f in files] == ["V1__a.ddl"] and not errors


def test_the_newest_flyway_baseline_runs_first_and_the_older_versions_are_left_out():
    flyway = FRAMEWORKS["flyway"]
    files = ["V1__a.sql", "V2__b.sql", "B2__base.sql", "B1__old.sql", "V3__c.sql", "R__views.sql"]
    skipped = flyway.skipped(files, "postgres")
    assert set(skipped) == {"V1__a.sql", "V2__b.sql", "B1__old.sql"}
    kept = [f for f in files if f not in skipped]
    assert flyway.order(kept) == ["B2__base.sql", "V3__c.sql", "R__views.sql"]


# ------------------------------------------------------------------ pop's Go templates


def test_go_template_placeholders_keep_lines_and_columns():
    from schemacite.sources.frameworks.go import go_template_blanked

    text = 'ALTER TABLE "{{ index .Options "Namespace" }}"."users" ADD x int; -- {{ .Name }}\n{{ if true }}SELECT 1;{{ end }}\n'
    blanked = go_template_blanked(text)
    assert [len(line) for line in blanked.split("\n")] == [len(line) for line in text.split("\n")]
    assert blanked.split("\n")[0].split() == ["ALTER", "TABLE", '"users"', "ADD", "x", "int;", "--", "p" + "_" * 10]
    assert blanked.split("\n")[1].strip() == "SELECT 1;"


def test_a_template_the_reader_cannot_see_through_names_the_file_once(capsys, tmp_path):
    (tmp_path / "go.mod").write_text("module m\n\nrequire github.com/gobuffalo/pop/v6 v6.1.1\n")
    (tmp_path / "1_a.up.sql").write_text(
        "CREATE TABLE {{ .Table }} (id int PRIMARY KEY);\n"
        "CREATE TABLE b ({{ .ColumnDefinitions }});\n"
        "INSERT INTO b VALUES {{ .Rows }};\n"
    )
    code, out, _ = run(capsys, "lint", tmp_path, "--dialect", "postgres", "--format", "json")
    errors = json.loads(out)["errors"]
    assert code == 2 and len(errors) == 1, errors
    assert "Go template placeholders are not expanded (2 statement(s) not read" in errors[0]["message"]


def test_init_scripts_replay_first_as_one_deploy(monkeypatch, tmp_path):
    from schemacite.sources.replay import Replay

    (tmp_path / "a_migrations").mkdir()
    (tmp_path / "z" / "docker-entrypoint-initdb.d").mkdir(parents=True)
    (tmp_path / "a_migrations" / "001_index.sql").write_text("CREATE INDEX t_a ON t (a);\n")
    (tmp_path / "z" / "docker-entrypoint-initdb.d" / "1.sql").write_text("CREATE TABLE t (a int);\n")
    (tmp_path / "z" / "docker-entrypoint-initdb.d" / "2.sql").write_text("CREATE INDEX t_a2 ON t (a);\n")
    monkeypatch.chdir(tmp_path)
    run = Replay("postgres", ["."])
    seen = [(os.path.basename(s.statement.location.file), [t.new for t in s.schema.tables.values()]) for s in run]
    assert [(name, new[0] if new else None) for name, new in seen] == [
        ("1.sql", None),
        ("2.sql", True),  # the script before made it, in the same deploy
        ("001_index.sql", False),
    ]
    assert run.units == 2


def test_a_folder_half_of_plain_names_is_not_golang_migrate(capsys, tmp_path):
    """golang-migrate passes over files not named N_title.up.sql; a folder where most are plain
    N_title.sql is run by the project's own runner, which reads them all in version order."""
    (tmp_path / "201701010000_create.sql").write_text("CREATE TABLE posts (id int PRIMARY KEY, title text);\n")
    (tmp_path / "201801010000_tags.sql").write_text("CREATE TABLE tags (id int PRIMARY KEY);\n")
    (tmp_path / "202501010000_idx.up.sql").write_text("CREATE INDEX posts_title ON posts (title);\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--format", "json", tmp_path)
    doc = json.loads(out)
    assert doc["framework"]["name"] == "plain", doc["framework"]
    (finding,) = [f for f in doc["findings"] if f["rule"] == "write-blocking-lock"]
    assert "not seen in the history" not in finding["message"] and "golang-migrate" not in finding["suggestion"]
