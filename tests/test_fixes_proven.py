"""Every fix proven on the real servers, PostgreSQL 12 to 18 (fixtures/fixes/postgres.yml).

For each case and major: the migration is linted after its history and the finding's fix applied
(`schemacite lint --fix`, `--unsafe-fixes` for an unsafe one). History + original and history +
fixed then run on the server the way the runner runs them (one transaction, one query, or each
statement alone, as the runner's rules read from the file say), and must leave the same catalog
(tables, columns, types, defaults, constraints with their validation state, indexes). The fixed
statements' locks are measured (`locks --verify`) and must be those the lock table predicts, and
re-linting the fixed file must no longer report what the fix removed.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli import run
from pg_builds import MAJORS
from schemacite.lint.engine import lint_paths
from schemacite.sources.frameworks import FRAMEWORKS
from schemacite.sources.read import read_sql_file

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "fixtures" / "fixes" / "postgres.yml").read_text())
CASES = {c["name"]: c for c in SPEC["cases"]}
UP = {"goose": "-- +goose Up\n"}


def _project(tmp_path: Path, case: dict[str, Any]) -> Path:
    """The case's files: history, migration, config naming the runner and the history."""
    runner = case.get("runner", "plain")
    tmp_path.mkdir()
    (tmp_path / "001_history.sql").write_text(UP.get(runner, "") + SPEC["history"])
    (tmp_path / case["file"]).write_text(case["migration"])
    (tmp_path / ".schemacite.toml").write_text(
        f'dialect = "postgres"\nframework = "{runner}"\nhistory = ["001_history.sql"]\n'
    )
    return tmp_path / case["file"]


def _units(path: Path, runner: str) -> list[tuple[str, list[str]]]:
    """What the runner sends for the file's deploys: (mode, statements) each, the mode after any
    opt-out the file now carries (the framework's own reading of the file)."""
    framework = FRAMEWORKS[runner]
    parsed = read_sql_file(str(path), "postgres", framework=framework)
    assert not parsed.errors, parsed.errors
    out = []
    for unit in parsed.units:
        if unit.deploy:
            out.append((unit.transaction, [s.sql for s in parsed.statements if unit.holds(s.location.line)]))
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
    return _without(doc["tables"], {"rows", "bytes", "workload", "location", "defined_at", "key_changed_at"})


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
    return [m for m in MAJORS if m >= case.get("since", 12)]


@pytest.mark.parametrize(("name", "major"), [(name, major) for name, case in CASES.items() for major in _majors(case)])
def test_fix_is_proven(name, major, pg_majors, tmp_path, capsys, monkeypatch):
    case = CASES[name]
    runner = case.get("runner", "plain")
    server = pg_majors(major)
    target = f"postgres-{major}"
    original_dir, fixed_dir = tmp_path / "original", tmp_path / "fixed"
    original = _project(original_dir, case)
    shutil.copytree(original_dir, fixed_dir)
    fixed = fixed_dir / case["file"]
    monkeypatch.chdir(fixed_dir)

    before = lint_paths([str(fixed)], target=target)
    (finding,) = [f for f in before.findings if f.code == case["rule"]]
    assert finding.fix is not None and str(finding.fix.applicability) == case["applicability"], finding
    unsafe = ["--unsafe-fixes"] if case["applicability"] == "unsafe" else []
    code, out, err = run(capsys, "lint", "--fix", *unsafe, "--target", target, fixed.name)
    assert code in (0, 1) and "fixed" in err, err
    assert fixed.read_text() != case["migration"] or any(p.name != case["file"] for p in fixed_dir.iterdir())

    # re-linting the fixed file no longer reports what the fix removed, and --fix again changes nothing
    after = lint_paths([str(fixed)], target=target)
    assert not after.errors and case["rule"] not in {f.code for f in after.findings}, after.findings
    text = fixed.read_text()
    assert run(capsys, "lint", "--fix", *unsafe, "--target", target, fixed.name)[0] in (0, 1)
    assert fixed.read_text() == text

    # history + original and history + fixed, run as the runner runs them, end in the same catalog
    history = _units(original_dir / "001_history.sql", runner)
    databases = {}
    for label, path in (("original", original), ("fixed", fixed)):
        db = _fresh(server, f"fix_{label}")
        with server.connect(db) as conn:
            _deploy(conn, history)
            if label == "original" and case.get("original_fails"):
                with pytest.raises(Exception, match="cannot run inside a transaction block"):
                    _deploy(conn, _units(path, runner))
                _deploy(conn, [("script", [s for _, sts in _units(path, runner) for s in sts])])
            else:
                _deploy(conn, _units(path, runner))  # under the runner's transaction mode: must not fail
        databases[label] = db
    fixed_catalog, original_catalog = _catalog(server, databases["fixed"]), _catalog(server, databases["original"])
    assert fixed_catalog == original_catalog, _diff(original_catalog, fixed_catalog)

    # the fixed statements take the locks the table predicts, measured on this server
    code, out, err = run(
        capsys,
        "locks",
        "--verify",
        server.dsn(databases["original"]),
        "--target",
        target,
        "--format",
        "json",
        fixed.name,
    )
    import json

    rows = json.loads(out)  # locks --verify writes only in a scratch area of its own
    checked = [r for r in rows if "verified" in r]
    assert checked and all(r["verified"]["agrees"] for r in checked), [r["verified"] for r in checked]
