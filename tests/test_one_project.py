"""One project resolution, four doors: `schemacite lint`, the language server, the pytest plugin and
`schemacite.lint_paths` resolve a project the same way (`schemacite.lint.project.Project`), so the
same files get the same findings through each; and a run reads its config once and builds its
Linter once."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import schemacite
import schemacite.lint.config as config_module
from cli import run
from schemacite.lint.engine import Linter
from schemacite.model import Schema
from schemacite.server.workspace import Workspace
from schemacite.sources.snapshot import save_snapshot

QUIET = ("-p", "no:cacheprovider", "-p", "no:asyncio")

# MySQL by its marks, with no dialect configured anywhere: `lint` read it as MySQL (a warning),
# lint_paths and the pytest plugin as PostgreSQL (a parse error at each backtick)
MYSQL = """CREATE TABLE `events` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `payload` text,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB;
CREATE TABLE `logs` (`v` int) ENGINE=InnoDB;
"""
# no mark of either dialect, though PostgreSQL refuses lines 3 and 4: MySQL only by the files beside
# it, which `lint` read and the editor did not
UNMARKED = """CREATE TABLE logs (v int);
CREATE INDEX logs_v ON logs (v);
DROP INDEX logs_v ON logs;
RENAME TABLE logs TO logs_old;
"""


def _key(file: str, base: Path) -> str:
    path = Path(file)
    return str((path if path.is_absolute() else base / path).resolve())


def through_the_cli(capsys, path: Path) -> tuple[set, str]:
    code, out, err = run(capsys, "lint", "--no-cache", "--format", "json", path)
    assert code in (0, 1, 2), err
    doc = json.loads(out)
    found = {(f["code"], _key(f["file"], Path.cwd()), f["line"]) for f in doc["findings"]}
    found |= {("error", _key(e["file"], Path.cwd()), e["line"]) for e in doc["errors"]}
    return found, doc["dialect"]["name"]


def through_the_editor(path: Path) -> tuple[set, str]:
    checked = Workspace(parse_cache=False).check(str(path), path.read_text())
    assert checked.problem is None, checked.problem
    found = {(f.code, _key(f.location.file, Path.cwd()), f.location.line) for f in checked.findings}
    found |= {("error", _key(e.file, Path.cwd()), e.line) for e in checked.errors}
    return found, str(checked.config.dialect)


def through_the_api(path: Path) -> tuple[set, str]:
    result = schemacite.lint_paths([str(path)])
    found = {(f.code, _key(f.location.file, Path.cwd()), f.location.line) for f in result.findings}
    found |= {("error", _key(e.file, Path.cwd()), e.line) for e in result.errors}
    return found, str(result.dialect[0])


def through_pytest(path: Path) -> set:
    """What the pytest plugin's items report (`file:line:col: CODE name [...]`, `file:line: parse error`),
    from a pytest run of its own (pytester's fixture would take the modules a test imported out of
    sys.modules afterwards, and the SQL readers' classes with them)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--schemacite", "--schemacite-paths", str(path), *QUIET],
        cwd=Path.cwd(),
        capture_output=True,
        text=True,
    )
    text = done.stdout
    assert "schemacite: 1 SQL files" in text, text + done.stderr
    found = {
        (code, _key(file, Path.cwd()), int(line))
        for file, line, code in re.findall(r"^(\S+?\.sql):(\d+)(?::\d+)?: ([A-Z]+\d+) ", text, re.M)
    }
    found |= {
        ("error", _key(file, Path.cwd()), int(line))
        for file, line in re.findall(r"^(\S+?\.sql):(\d+): parse error", text, re.M)
    }
    return found


@pytest.mark.parametrize(
    "files, linted, expected",
    [
        ({"mysql/001_init.sql": MYSQL}, "mysql/001_init.sql", {("SC101", 6)}),
        ({"mixed/001_init.sql": MYSQL, "mixed/002_logs.sql": UNMARKED}, "mixed/002_logs.sql", {("SC101", 1)}),
    ],
    ids=["mysql-marks-no-dialect-configured", "unmarked-file-beside-mysql-files"],
)
def test_the_four_doors_give_the_same_findings(tmp_path, monkeypatch, capsys, files, linted, expected):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    path = tmp_path / linted
    cli, cli_dialect = through_the_cli(capsys, path)
    editor, editor_dialect = through_the_editor(path)
    api, api_dialect = through_the_api(path)
    tests = through_pytest(path)
    assert {(code, line) for code, file, line in cli} == expected  # MySQL: no parse error, the table without a key
    assert {file for _, file, _ in cli} == {str(path.resolve())}
    assert cli == editor == api == tests
    assert cli_dialect == editor_dialect == api_dialect == "mysql"


# ---------------------------------------------------------------- once a run


@pytest.fixture
def counted(monkeypatch):
    """How many times a run builds its settings (Config), reads a config file and builds a Linter."""
    counts = {"config": 0, "config file": 0, "linter": 0}

    def counting(name, original):
        def call(*args, **kwargs):
            counts[name] += 1
            return original(*args, **kwargs)

        return call

    monkeypatch.setattr(config_module, "_build", counting("config", config_module._build))
    monkeypatch.setattr(config_module, "_read", counting("config file", config_module._read))
    monkeypatch.setattr(Linter, "__init__", counting("linter", Linter.__init__))

    def taken() -> dict[str, int]:
        found = dict(counts)
        counts.update(dict.fromkeys(counts, 0))
        return found

    return taken


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A config naming the history and no dialect: the files tell MySQL."""
    (tmp_path / ".schemacite.toml").write_text('history = ["migrations"]\n')
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "001_init.sql").write_text(MYSQL)
    (tmp_path / "migrations" / "002_logs.sql").write_text("ALTER TABLE events ADD COLUMN note text;\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


ONCE = {"config": 1, "config file": 1, "linter": 1}


def test_a_run_reads_its_config_once_and_builds_one_linter(project, capsys, counted):
    change = "migrations/002_logs.sql"
    code, out, _ = run(capsys, "lint", "--no-cache", "--format", "json", change)
    assert json.loads(out)["dialect"]["name"] == "mysql"  # told by the files: before, a second reading
    assert counted() == ONCE
    run(capsys, "lint", "--no-cache", "--dialect", "mysql", change)
    assert counted() == ONCE
    run(capsys, "locks", "--no-cache", change)
    assert counted() == {**ONCE, "linter": 0}  # the lock table needs no rules
    assert schemacite.lint_paths([change]).dialect[0] == "mysql"
    assert counted() == ONCE
    workspace = Workspace(parse_cache=False)
    path = str(project / change)
    assert workspace.check(path, "ALTER TABLE events ADD COLUMN note text;\n").problem is None
    assert counted() == ONCE
    workspace.check(path, "ALTER TABLE events ADD COLUMN note2 text;\n")  # an edit: the settings are the same
    assert counted() == {**ONCE, "linter": 0}


def test_a_snapshot_tells_the_dialect_without_a_second_reading(project, capsys, counted):
    save_snapshot(Schema("mariadb"), project / "snapshot.json", "mariadb-10.11")
    code, out, err = run(capsys, "lint", "--no-cache", "--snapshot", "snapshot.json", "--format", "json", "migrations")
    doc = json.loads(out)
    assert doc["dialect"] == {"name": "mariadb", "why": "the snapshot's server"}
    assert doc["target"]["name"] == "mariadb-10.11" and doc["target"]["why"] == "the snapshot's server"
    assert counted() == ONCE  # three readings and two linters before


def test_what_the_marks_told_is_kept_in_the_cache_and_read_back_checked(project, capsys, monkeypatch):
    import schemacite.lint.project as project_module

    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(project / "cache"))
    counted = []
    real = project_module.detect_dialect

    def detect(texts, named):
        counted.append(len(texts))
        return real(texts, named)

    monkeypatch.setattr(project_module, "detect_dialect", detect)
    change = "migrations/002_logs.sql"
    outs = []
    for extra in (["--no-cache"], [], []):
        code, out, _ = run(capsys, "lint", *extra, "--format", "json", change)
        outs.append(json.loads(out))
    assert counted == [2, 2]  # --no-cache, then the first cached run: the third read it back
    assert outs[0]["dialect"] == outs[1]["dialect"] == outs[2]["dialect"]
    assert outs[2]["dialect"]["name"] == "mysql" and outs[0]["findings"] == outs[2]["findings"]
    (kept,) = (project / "cache" / "dialect").glob("*.json")
    assert json.loads(kept.read_text()) == ["mysql", outs[0]["dialect"]["why"]]
    # an entry of another shape, or naming no dialect schemacite reads, is not believed
    for bad in ('["sqlite", "x"]', '{"dialect": "postgres"}', '["postgres"]'):
        kept.write_text(bad)
        code, out, _ = run(capsys, "lint", "--format", "json", change)
        assert json.loads(out)["dialect"] == outs[0]["dialect"]
    assert counted == [2, 2, 2, 2, 2]
    # another history: its files' marks are counted again
    (project / "migrations" / "000_pg.sql").write_text("CREATE TABLE p (id bigserial PRIMARY KEY, d jsonb);\n")
    run(capsys, "lint", "--format", "json", change)
    assert counted == [2, 2, 2, 2, 2, 3]
