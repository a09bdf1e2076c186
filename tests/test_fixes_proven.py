"""Every fix proven on the real servers, PostgreSQL 12 to 18 (fixtures/fixes/postgres.yml) and
MariaDB 10.11 (fixtures/fixes/mariadb.yml).

For each case and major: the migration is linted after its history and the finding's fix applied
(`schemacite lint --fix`, `--unsafe-fixes` for an unsafe one). History + original and history +
fixed then run on the server the way the runner runs them (one transaction, one query, or each
statement alone, as the runner's rules read from the file say), and must leave the same catalog
(tables, columns, types, defaults, constraints with their validation state, indexes). The fixed
statements' locks are measured (`locks --verify`) and must be those the lock table predicts, and
re-linting the fixed file must no longer report what the fix removed.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli import run
from pg_builds import MAJORS
from schemacite import lint_paths
from schemacite.model.statements import needs_own_transaction
from schemacite.sources.frameworks import FRAMEWORKS
from schemacite.sources.names import quoted_name
from schemacite.sources.read import read_sql_file

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "fixtures" / "fixes" / "postgres.yml").read_text())
CASES = {c["name"]: c for c in SPEC["cases"]}
# what each runner's first migration (the history) starts with, and its name
UP = {
    "goose": "-- +goose Up\n",
    "sql-migrate": "-- +migrate Up\n",
    "dbmate": "-- migrate:up\n",
    "liquibase": "--liquibase formatted sql\n--changeset dev:history\n",
}
HISTORY = collections.defaultdict(
    lambda: "001_history.sql",
    {
        "golang-migrate": "000001_history.up.sql",
        "morph": "000001_history.up.sql",
        "dbmate": "20240101000000_history.sql",
        "atlas": "20240101000000_history.sql",
        "sqlx": "0001_history.sql",
        "flyway": "V1__history.sql",
        "diesel": "2024-01-01-000000_history/up.sql",
        "graphile-migrate": "migrations/committed/000001.sql",
        "prisma": "migrations/20240101000000_history/migration.sql",
    },
)


def _project(tmp_path: Path, case: dict[str, Any], spec: dict[str, Any] = SPEC, dialect: str = "postgres") -> Path:
    """The case's files: history, migration, config naming the runner and the history."""
    runner = case.get("runner", "plain")
    for name in (HISTORY[runner], case["file"]):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / HISTORY[runner]).write_text(UP.get(runner, "") + spec["history"] + case.get("history_extra", ""))
    (tmp_path / case["file"]).write_text(case["migration"])
    (tmp_path / ".schemacite.toml").write_text(
        f'dialect = "{dialect}"\nframework = "{runner}"\nhistory = ["{HISTORY[runner]}"]\n'
    )
    return tmp_path / case["file"]


def _migrations(folder: Path, runner: str) -> list[Path]:
    """The project's migrations after its history, in the runner's order."""
    framework = FRAMEWORKS[runner]
    history = folder / HISTORY[runner]
    names = [str(p) for p in folder.rglob("*.sql") if p != history and framework.deployed(str(p))]
    return [Path(p) for p in framework.order(sorted(names))]


def _units(path: Path, runner: str, dialect: str = "postgres") -> list[tuple[str, list[str]]]:
    """What the runner sends for the file's deploys: (mode, statements) each, the mode after any
    opt-out the file now carries (the framework's own reading of the file)."""
    framework = FRAMEWORKS[runner]
    parsed = read_sql_file(str(path), dialect, framework=framework)
    assert not parsed.errors, parsed.errors
    out = []
    for unit in parsed.units:
        if unit.deploy:
            # a line is the first unit's that holds it (sql-migrate's down sections come before its up)
            statements = [
                s for s in parsed.statements if next(u for u in parsed.units if u.holds(s.location.line)) is unit
            ]
            mode = unit.transaction
            if mode == "flyway":  # Flyway leaves its transaction out when every statement needs that
                mode = "script" if all(needs_own_transaction(s.op) for s in statements) else "unit"
            out.append((mode, [s.sql for s in statements]))
    return out


def _deploy(conn, units: list[tuple[str, list[str]]]) -> None:
    for mode, statements in units:
        if mode == "implicit" and len(statements) > 1:
            conn.execute(";\n".join(statements).encode())  # one query: one implicit transaction
        elif mode in ("unit", "flyway", "run"):
            with conn.transaction():
                for sql in statements:
                    conn.execute(sql.encode())
        else:
            for sql in statements:
                conn.execute(sql.encode())


def _catalog(server, db: str) -> dict[str, Any]:
    """The catalog as schemacite's reader sees it, without what varies run to run (sizes, counters)."""
    from schemacite.live.catalogs.postgres import read_schema
    from schemacite.sources.snapshot import snapshot_dict

    with server.connect(db) as conn:
        schema, _ = read_schema(conn, ["public"])
    doc = snapshot_dict(schema)
    return _without(
        doc["tables"], {"rows", "bytes", "analysed", "workload", "location", "defined_at", "key_changed_at"}
    )


def _diff(a: Any, b: Any) -> str:
    import difflib
    import json

    lines = [json.dumps(x, indent=1, sort_keys=True).splitlines() for x in (a, b)]
    return "\n".join(difflib.unified_diff(*lines, "original", "fixed", lineterm="", n=1))


_SETS = {"checks", "indexes", "foreign_keys", "referenced_by"}  # the reader's order of these is the catalog's


def _without(value: Any, keys: set[str]) -> Any:
    import json

    if isinstance(value, dict):
        return {
            k: sorted(_without(v, keys), key=json.dumps) if k in _SETS and isinstance(v, list) else _without(v, keys)
            for k, v in value.items()
            if k not in keys
        }
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _large_snapshot(server, project: Path, history, sizes: dict[str, int], capsys) -> None:
    """Lint against a snapshot of the history's schema in which `sizes` (table -> bytes) make
    tables large, as an audit of production would show them (a brief lock on a large table is a
    finding of its own); the history file leaves the project, the snapshot holds what it built."""
    db = _fresh(server, "fix_snapshot")
    with server.connect(db) as conn:
        _deploy(conn, history)
    snapshot = project / "snapshot.json"
    assert run(capsys, "snapshot", server.dsn(db), "-o", snapshot, "-q")[0] == 0
    doc = json.loads(snapshot.read_text())
    for table in doc["tables"]:
        if table["name"] in sizes:
            table["bytes"], table["rows"] = sizes[table["name"]], sizes[table["name"]] // 100
    snapshot.write_text(json.dumps(doc))
    # locks --verify builds its scratch tables by replaying history, which a snapshot does not hold
    kept = project.parent / f"{project.name}-history.sql"
    (project / HISTORY["plain"]).rename(kept)
    (project.parent / f"{project.name}-verify.toml").write_text(
        f'dialect = "postgres"\nframework = "plain"\nhistory = ["{kept}"]\n'
    )
    (project / ".schemacite.toml").write_text('dialect = "postgres"\nframework = "plain"\nsnapshot = "snapshot.json"\n')


_CREATED: set[tuple[int, str]] = set()


def _fresh(server, db: str) -> str:
    """Database `db`, empty: created once per server, its public schema dropped and made again
    after (a CREATE DATABASE costs ten times as much)."""
    if (server.port, db) not in _CREATED:
        server.create_database(db)
        _CREATED.add((server.port, db))
    else:
        with server.connect(db) as conn:
            conn.execute("DROP SCHEMA public CASCADE")
            conn.execute("CREATE SCHEMA public")
    return db


def _majors(case: dict[str, Any]) -> list[int]:
    return [m for m in case.get("majors", MAJORS) if m >= case.get("since", 12)]


def _fix_and_relint(case: dict[str, Any], fixed: Path, target: str, capsys) -> None:
    """Lint the migration, apply the case's fix with the CLI, and check that re-linting no longer
    reports it and that --fix again changes nothing."""
    before = lint_paths([str(fixed)], target=target)
    (finding,) = [f for f in before.findings if f.code == case["rule"]]
    assert finding.fix is not None and str(finding.fix.applicability) == case["applicability"], finding
    unsafe = ["--unsafe-fixes"] if case["applicability"] == "unsafe" else []
    code, out, err = run(capsys, "lint", "--fix", *unsafe, "--target", target, os.path.relpath(fixed))
    assert code in (0, 1) and "fixed" in err, err
    assert fixed.read_text() != case["migration"] or any(p.name != case["file"] for p in fixed.parent.iterdir())

    # re-linting the fixed file no longer reports what the fix removed (the rule, at the statement the
    # rewrite starts where the original did), and --fix again changes nothing
    after = lint_paths([str(fixed)], target=target)
    at = (finding.code, finding.location.line)
    assert not after.errors and at not in {(f.code, f.location.line) for f in after.findings}, after.findings
    text = fixed.read_text()
    assert run(capsys, "lint", "--fix", *unsafe, "--target", target, os.path.relpath(fixed))[0] in (0, 1)
    assert fixed.read_text() == text


@pytest.mark.parametrize(("name", "major"), [(name, major) for name, case in CASES.items() for major in _majors(case)])
def test_fix_is_proven(name, major, pg_majors, tmp_path, capsys, monkeypatch):
    case = CASES[name]
    runner = case.get("runner", "plain")
    server = pg_majors(major)
    target = f"postgres-{major}"
    original_dir, fixed_dir = tmp_path / "original", tmp_path / "fixed"
    _project(original_dir, case)
    history = _units(original_dir / HISTORY[runner], runner)
    if case.get("large"):
        _large_snapshot(server, original_dir, history, case["large"], capsys)
    shutil.copytree(original_dir, fixed_dir)
    if case.get("large"):
        shutil.copy(tmp_path / "original-verify.toml", tmp_path / "fixed-verify.toml")
    fixed = fixed_dir / case["file"]
    monkeypatch.chdir(fixed_dir)

    _fix_and_relint(case, fixed, target, capsys)

    # history + original and history + fixed, run as the runner runs them, end in the same catalog
    databases = {}
    for label, folder in (("original", original_dir), ("fixed", fixed_dir)):
        db = _fresh(server, f"fix_{label}")
        with server.connect(db) as conn:
            _deploy(conn, history)
            for path in _migrations(folder, runner):  # a fix may have added a migration after the file
                if label == "original" and case.get("original_fails"):
                    with pytest.raises(Exception, match="cannot run inside a transaction block"):
                        _deploy(conn, _units(path, runner))
                    _deploy(conn, [("script", [s for _, sts in _units(path, runner) for s in sts])])
                else:
                    _deploy(conn, _units(path, runner))  # under the runner's transaction mode: must not fail
        databases[label] = db
    fixed_catalog, original_catalog = _catalog(server, databases["fixed"]), _catalog(server, databases["original"])
    assert fixed_catalog == original_catalog, _diff(original_catalog, fixed_catalog)

    # the fixed statements' locks, measured on a database holding only the history: the statements
    # meet the tables they change
    with server.connect(_fresh(server, "fix_history")) as conn:
        _deploy(conn, history)
    verify_config = tmp_path / "fixed-verify.toml"
    _verified(capsys, server.dsn("fix_history"), target, _migrations(fixed_dir, runner), verify_config)


def _verified(capsys, dsn: str, target: str, files: list[Path], config: Path | None = None) -> None:
    """The fixed statements take the locks the table predicts, measured on the server (`locks
    --verify` writes only in a scratch area of its own)."""
    options = ["--config", config] if config is not None and config.exists() else []
    code, out, err = run(
        capsys,
        "locks",
        "--verify",
        dsn,
        *options,
        "--target",
        target,
        "--format",
        "json",
        *[os.path.relpath(p) for p in files],
    )
    rows = json.loads(out)
    checked = [r for r in rows if "verified" in r]
    # a DO block's locks are beyond the reader (it predicts none): what it takes is measured, and a
    # fix's DO block (the batched backfill) must take only locks that block no reads or writes
    blocks_nothing = {"AccessShareLock", "RowShareLock", "RowExclusiveLock"}
    for r in checked:
        if r["sql"].startswith("DO"):
            measured = (r["verified"]["measured"] or {}).get("locks")
            assert measured and set(measured.values()) <= blocks_nothing, r["verified"]
        else:
            assert r["verified"]["agrees"], r["verified"]


TEMPLATES = {c["name"]: c for c in SPEC["templates"]}


def _template(schema, case: dict[str, Any], dialect: str, target: str) -> list[str]:
    """The statements of the display-only fix the case's rule offers for its table, judged on
    `schema` as `audit` judges a server's, after the case's `large` sizes are given to its tables."""
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter
    from schemacite.sources.read import parse_text

    for table in schema.tables.values():
        if table.name in case.get("large", {}):
            table.bytes = case["large"][table.name]
            table.rows = table.bytes // 100
    result = Linter(load_config(None, {"dialect": dialect, "target": target})).check_schema(schema)
    (finding,) = [f for f in result.findings if f.code == case["rule"] and f.table.endswith(case["table"])]
    fix = finding.fix
    assert fix is not None and str(fix.applicability) == "display-only" and case["title~"] in fix.title, fix
    parsed = parse_text(fix.template, "<fix>", dialect)
    assert parsed.statements and not parsed.errors, fix.template
    return [st.sql for st in parsed.statements]


@pytest.mark.parametrize(
    ("name", "major"), [(name, major) for name, case in TEMPLATES.items() for major in _majors(case)]
)
def test_template_is_proven(name, major, pg_majors):
    from schemacite.live.catalogs.postgres import read_schema

    case = TEMPLATES[name]
    server = pg_majors(major)
    db = _fresh(server, "fix_template")
    with server.connect(db) as conn:
        _deploy(conn, [("script", [case["history"]])])
        schema, _ = read_schema(conn, ["public"])
        _deploy(conn, [("script", _template(schema, case, "postgres", f"postgres-{major}"))])
        after, _ = read_schema(conn, ["public"])
        # the parent's index is valid once every partition's is attached to it
        valid = conn.execute(
            "SELECT bool_and(indisvalid) FROM pg_index WHERE indrelid = %s::regclass AND indisprimary",
            (quoted_name(case["table"]),),
        ).fetchone()[0]
    key = after.tables[case["table"]].primary_key
    assert key is not None and list(key.columns) == case["key"] and valid, key


@pytest.mark.parametrize("major", [12, 18])
def test_no_key_is_proposed_for_a_table_partitioned_by_an_expression(major, pg_majors):
    """The server refuses every primary key there; read from its catalog, the finding says so."""
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter
    from schemacite.live.catalogs.postgres import read_schema

    server = pg_majors(major)
    with server.connect(_fresh(server, "fix_template")) as conn:
        conn.execute("CREATE TABLE e (id bigint, at timestamp) PARTITION BY RANGE (date_trunc('day', at))")
        with pytest.raises(Exception, match="cannot be used when partition keys include expressions"):
            conn.execute("ALTER TABLE e ADD PRIMARY KEY (id, at)")
        schema, _ = read_schema(conn, ["public"])
    config = load_config(None, {"dialect": "postgres", "target": f"postgres-{major}"})
    (finding,) = [f for f in Linter(config).check_schema(schema).findings if f.code == "SC101"]
    assert finding.fix is None and "no primary key can be proposed" in finding.suggestion, finding


def test_concurrent_build_if_not_exists_fix_says_what_the_server_does_on_a_retry(pg_server, tmp_path, capsys):
    """The CONCURRENTLY fix of CREATE INDEX IF NOT EXISTS says a failed build leaves an INVALID
    index that a retry skips: on the server, the fixed statement over duplicate rows fails and
    leaves one, the same statement run again succeeds without building it, and after DROP INDEX
    CONCURRENTLY a retry builds a valid one."""
    history = "CREATE TABLE sub (id int PRIMARY KEY, txn text);\n"
    change = tmp_path / "002_index.sql"
    (tmp_path / "001_history.sql").write_text(history)
    change.write_text("CREATE UNIQUE INDEX IF NOT EXISTS sub_txn ON sub (txn);\n")
    before = lint_paths([str(change)], history=[str(tmp_path / "001_history.sql")])
    fix = next(f.fix for f in before.findings if f.code == "SC105")
    assert fix is not None and fix.applicability == "unsafe" and "DROP INDEX CONCURRENTLY the INVALID" in fix.title
    run(capsys, "lint", "--fix", "--unsafe-fixes", "--history", str(tmp_path / "001_history.sql"), str(change))
    fixed = change.read_text().strip()
    assert fixed == "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS sub_txn ON sub (txn);", fixed
    db = pg_server.create_database("invalid_left")
    valid = "SELECT indisvalid FROM pg_index WHERE indexrelid = 'sub_txn'::regclass"
    with pg_server.connect(db) as conn:
        conn.execute(history + "INSERT INTO sub VALUES (1, 'a'), (2, 'a')")
        with pytest.raises(Exception, match="could not create unique index"):
            conn.execute(fixed)
        assert conn.execute(valid).fetchone() == (False,)
        conn.execute(fixed)  # the retry: no error, and nothing built
        assert conn.execute(valid).fetchone() == (False,)
        conn.execute("DELETE FROM sub WHERE id = 2")
        conn.execute("DROP INDEX CONCURRENTLY sub_txn")
        conn.execute(fixed)
        assert conn.execute(valid).fetchone() == (True,)


@pytest.mark.parametrize("major", [12, 18])
def test_expand_and_swap_template_keeps_the_column_definition(major, pg_majors, tmp_path):
    """The type change's template (a new column, a backfill, a swap), run on the server after the
    history, leaves the swapped column with the old one's NOT NULL and DEFAULT: an INSERT that
    leaves it out stores the default, one that gives NULL is refused; the old column, which new
    rows no longer fill, takes NULL."""
    history = (
        'CREATE TABLE "Account" ("id" TEXT NOT NULL PRIMARY KEY, '
        '"loggedIn" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP);\n'
    )
    (tmp_path / "000001_init.up.sql").write_text(history)
    change = tmp_path / "000002_tz.up.sql"
    change.write_text(
        'ALTER TABLE "Account" ALTER COLUMN "loggedIn" SET DATA TYPE TIMESTAMPTZ(3) USING "loggedIn" AT TIME ZONE \'UTC\';\n'
    )
    result = lint_paths([str(change)], history=[str(tmp_path / "000001_init.up.sql")], target=f"postgres-{major}")
    (fix,) = [f.fix for f in result.findings if f.code == "SC104"]
    assert fix is not None and fix.applicability == "display-only" and "a batched backfill" in fix.title, fix
    assert "SET NOT NULL" in fix.template and "stay with the old column" in fix.template, fix.template
    server = pg_majors(major)
    column = (
        "SELECT is_nullable, column_default, data_type FROM information_schema.columns "
        "WHERE table_name = 'Account' AND column_name = %s"
    )
    with server.connect(_fresh(server, "fix_template")) as conn:
        conn.execute(history + "INSERT INTO \"Account\" VALUES ('a', '2025-01-01 10:00')")
        conn.execute(fix.template.encode())
        assert conn.execute(column, ("loggedIn",)).fetchone() == (
            "NO",
            "CURRENT_TIMESTAMP",
            "timestamp with time zone",
        )
        conn.execute("INSERT INTO \"Account\" (id) VALUES ('b')")
        rows = conn.execute('SELECT id, "loggedIn" IS NOT NULL FROM "Account" ORDER BY id')
        assert rows.fetchall() == [("a", True), ("b", True)]
        assert conn.execute(column, ("loggedIn_old",)).fetchone()[0] == "YES"
        with pytest.raises(Exception, match="violates not-null constraint"):
            conn.execute('INSERT INTO "Account" (id, "loggedIn") VALUES (\'c\', NULL)')


# ---------------------------------------------------------------- MariaDB 10.11

MARIADB = yaml.safe_load((ROOT / "fixtures" / "fixes" / "mariadb.yml").read_text())
MARIADB_CASES = {c["name"]: c for c in MARIADB["cases"]}


def _maria_deploy(conn, units: list[tuple[str, list[str]]]) -> None:
    """As the runner sends them: a transaction per deploy where it opens one (each DDL statement
    commits it implicitly, as it would in production), else each statement alone."""
    cur = conn.cursor()
    for mode, statements in units:
        transaction = mode in ("unit", "flyway", "run", "implicit")
        if transaction:
            cur.execute("BEGIN")
        for sql in statements:
            cur.execute(sql)
        if transaction:
            cur.execute("COMMIT")


def _maria_catalog(server, db: str) -> dict[str, Any]:
    from schemacite.live.catalogs.mysql import read_schema
    from schemacite.sources.snapshot import snapshot_dict

    conn = server.connect(db)
    try:
        schema, _ = read_schema(conn, [db], "mariadb")
    finally:
        conn.close()
    doc = snapshot_dict(schema)
    return _without(
        doc["tables"], {"rows", "bytes", "analysed", "workload", "location", "defined_at", "key_changed_at"}
    )


@pytest.mark.parametrize("name", list(MARIADB_CASES))
def test_fix_is_proven_on_mariadb(name, mariadb_server, tmp_path, capsys, monkeypatch):
    case = MARIADB_CASES[name]
    runner = case.get("runner", "plain")
    target = "mariadb-" + ".".join(str(p) for p in mariadb_server.version[:2])
    assert target == "mariadb-10.11", target
    original_dir, fixed_dir = tmp_path / "original", tmp_path / "fixed"
    original = _project(original_dir, case, MARIADB, "mariadb")
    shutil.copytree(original_dir, fixed_dir)
    fixed = fixed_dir / case["file"]
    monkeypatch.chdir(fixed_dir)

    _fix_and_relint(case, fixed, target, capsys)
    assert fixed.read_text() == case["fixed"]

    # history + original and history + fixed, run as the runner runs them, end in the same catalog
    # (one database name for both, since the catalog reader names tables by their database)
    history = _units(original_dir / "001_history.sql", runner, "mariadb")
    catalogs = {}
    for label, path in (("original", original), ("fixed", fixed)):
        db = mariadb_server.create_database("fix_maria")
        conn = mariadb_server.connect(db)
        try:
            _maria_deploy(conn, history)
            _maria_deploy(conn, _units(path, runner, "mariadb"))  # under the runner's transaction mode
        finally:
            conn.close()
        catalogs[label] = _maria_catalog(mariadb_server, db)
    assert catalogs["original"] and catalogs["fixed"] == catalogs["original"], _diff(
        catalogs["original"], catalogs["fixed"]
    )

    _verified(capsys, mariadb_server.dsn("fix_maria"), target, [fixed])


MARIADB_TEMPLATES = {c["name"]: c for c in MARIADB["templates"]}


@pytest.mark.parametrize("name", list(MARIADB_TEMPLATES))
def test_template_is_proven_on_mariadb(name, mariadb_server):
    from schemacite.live.catalogs.mysql import read_schema

    case = MARIADB_TEMPLATES[name]
    db = mariadb_server.create_database("fix_template")
    conn = mariadb_server.connect(db)
    try:
        _maria_deploy(conn, [("script", [s for s in case["history"].split(";\n") if s.strip()])])
        schema, _ = read_schema(conn, [db], "mariadb")
        _maria_deploy(conn, [("script", _template(schema, case, "mariadb", "mariadb-10.11"))])
        after, _ = read_schema(conn, [db], "mariadb")
    finally:
        conn.close()
    (table,) = [t for t in after.tables.values() if t.name == case["table"]]
    assert table.primary_key is not None and list(table.primary_key.columns) == case["key"], table
