"""pytest plugin: run schemacite as part of the test suite, one test item per SQL file.

Turn it on with `pytest --schemacite`, or for every run with::

    [tool.schemacite]
    pytest = true
    pytest_paths = ["db/migrations"]   # optional; relative to the config file
    fail_on = "warning"                # the same key the CLI reads

Which files are linted, first match wins:

1. `--schemacite-paths PATH` (repeatable; files, folders or globs, relative to the
   directory pytest was started in);
2. `pytest_paths` from `[tool.schemacite]` in the rootdir's `pyproject.toml` (or a
   `.schemacite.toml` there), relative to that file;
3. otherwise every folder named `migrations` under the rootdir, at most four levels down,
   skipping hidden folders, virtualenvs, `node_modules`, `build` and `dist`.

Every `*.sql` file found becomes a `SchemaciteItem` (marker `schemacite`, so
`-m "not schemacite"` leaves them out). The files are linted together, once per session,
through `schemacite.lint_paths` with the same config file: their project is resolved as the
command line resolves it (`schemacite.lint.project`), so `history`, `dialect`, `target`, rule
settings and a dialect told by the files apply exactly as on the command line. An item fails when its
file has findings at or above `fail_on` (`--schemacite-fail-on`, else the config, else
`warning`) or could not be parsed, and prints each as `file:line:col: CODE name [severity]
message` with the suggestion, evidence ids and rule doc URL.

Files under the chosen paths are added to the session even when the pytest arguments do
not name them, so `pytest tests/` still gates the migrations; `-p no:schemacite` disables
the plugin. When the plugin is off it reads only the config file and imports nothing else.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import schemacite

SKIP_DIRS = {"node_modules", "build", "dist", "site-packages", "__pycache__", "venv", "env"}
DEFAULT_FOLDER = "migrations"
MAX_DEPTH = 4
SEVERITIES = ("info", "warning", "error")


@dataclass  # not model's @record: pytest imports this module in every session, and it must stay light
class Settings:
    enabled: bool = False
    config_path: Path | None = None
    paths: list[Path] = field(default_factory=list)
    files: dict[Path, Path] = field(default_factory=dict)  # resolved -> as found
    fail_on: str = "warning"
    collected: set[Path] = field(default_factory=set)
    outcome: Any = None  # LintResult or the exception lint_paths raised
    by_file: dict[Path, tuple[list, list]] | None = None


SETTINGS = pytest.StashKey[Settings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("schemacite", "schema linting with schemacite")
    group.addoption(
        "--schemacite",
        action="store_true",
        default=False,
        help="lint SQL migrations with schemacite, one test item per file",
    )
    group.addoption(
        "--schemacite-paths",
        action="append",
        default=None,
        metavar="PATH",
        help="files, folders or globs to lint (repeatable); default: config "
        "pytest_paths, else the 'migrations' folders under rootdir",
    )
    group.addoption(
        "--schemacite-fail-on",
        choices=SEVERITIES,
        default=None,
        help="lowest severity that fails an item (default: config fail_on, else warning)",
    )


def read_config(rootpath: Path) -> tuple[Path | None, dict[str, Any]]:
    """The `[tool.schemacite]` table from rootdir's pyproject.toml or .schemacite.toml."""
    # start-up: tomllib loads only when there is a TOML file to read
    import tomllib

    for name in ("pyproject.toml", ".schemacite.toml"):
        path = rootpath / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise pytest.UsageError(f"schemacite: cannot read {path}: {exc}") from None
        section = data.get("tool", {}).get("schemacite")
        if section is None and name == ".schemacite.toml":
            section = data
        if isinstance(section, dict):
            return path, section
    return None, {}


def setting(section: dict[str, Any], key: str, default: Any = None) -> Any:
    return section.get(key, section.get(key.replace("_", "-"), default))


def default_folders(rootpath: Path) -> list[Path]:
    found: list[Path] = []
    root_depth = len(rootpath.parts)
    for dirpath, dirnames, _ in os.walk(rootpath):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".") and d not in SKIP_DIRS and not (here / d / "pyvenv.cfg").exists()
        )
        if here.name == DEFAULT_FOLDER and here != rootpath:
            found.append(here)
            dirnames[:] = []  # nested migrations folders are inside this one already
        elif len(here.parts) - root_depth >= MAX_DEPTH:
            dirnames[:] = []
    return found


def expand(paths: list[str], base: Path) -> list[Path]:
    out: list[Path] = []
    for text in paths:
        path = Path(text).expanduser()
        path = path if path.is_absolute() else base / path
        if glob.has_magic(str(path)):
            out.extend(Path(p) for p in sorted(glob.glob(str(path), recursive=True)))
        else:
            out.append(path)
    return out


def sql_files(paths: list[Path]) -> dict[Path, Path]:
    """The files `schemacite lint` would read under these paths (down migrations left out)."""
    # start-up: pytest loads this plugin in every session, linting or not
    from schemacite.sources.files import expand as lint_files

    found, _errors = lint_files([str(p) for p in paths if p.exists()])
    return {Path(f).resolve(): Path(f) for f in found}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "schemacite: a schemacite lint check of one SQL file")
    settings = Settings()
    config.stash[SETTINGS] = settings
    config_path, section = read_config(config.rootpath)
    settings.enabled = bool(config.getoption("schemacite")) or setting(section, "pytest") is True
    if not settings.enabled:
        return
    settings.config_path = config_path
    invocation_dir = config.invocation_params.dir
    cli_paths = config.getoption("schemacite_paths")
    configured = setting(section, "pytest_paths")
    if cli_paths:
        settings.paths = expand(cli_paths, invocation_dir)
    elif configured:
        if isinstance(configured, str):
            configured = [configured]
        settings.paths = expand([str(p) for p in configured], config_path.parent if config_path else config.rootpath)
    else:
        settings.paths = default_folders(config.rootpath)
    settings.files = sql_files(settings.paths)
    fail_on = config.getoption("schemacite_fail_on") or setting(section, "fail_on", "warning")
    if str(fail_on).lower() not in SEVERITIES:
        raise pytest.UsageError(f"schemacite: fail_on must be one of {', '.join(SEVERITIES)}, not {fail_on!r}")
    settings.fail_on = str(fail_on).lower()


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None or not settings.enabled:
        return None
    where = ", ".join(_display(p, config.invocation_params.dir) for p in settings.paths) or "no paths found"
    return f"schemacite: {len(settings.files)} SQL files from {where} (fail on {settings.fail_on})"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> SchemaciteFile | None:
    settings = parent.config.stash.get(SETTINGS, None)
    if settings is None or not settings.enabled or file_path.suffix != ".sql":
        return None
    resolved = file_path.resolve()
    if resolved not in settings.files or resolved in settings.collected:
        return None
    settings.collected.add(resolved)
    return SchemaciteFile.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the files under the schemacite paths that the pytest arguments did not reach."""
    settings = config.stash.get(SETTINGS, None)
    if settings is None or not settings.enabled:
        return
    for resolved, file in settings.files.items():
        if resolved in settings.collected:
            continue
        settings.collected.add(resolved)
        node = SchemaciteFile.from_parent(session, path=file)
        items.extend(node.collect())


class SchemaciteFile(pytest.File):
    def collect(self):
        item = SchemaciteItem.from_parent(self, name="schemacite")
        item.add_marker("schemacite")
        yield item


class SchemaciteFailure(Exception):
    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class SchemaciteItem(pytest.Item):
    # plugins that wrap every test's call and read its fixtures (pytest-lsp) stop the run when an
    # item has none; a lint item takes no fixtures
    funcargs: dict[str, object] = {}

    def runtest(self) -> None:
        # start-up: pytest loads this plugin in every session, linting or not
        from schemacite.model.results import Severity

        settings = self.config.stash[SETTINGS]
        findings, errors = findings_for(self.config, settings, self.path)
        threshold = Severity.parse(settings.fail_on)
        failing = [f for f in findings if f.severity >= threshold]
        if failing or errors:
            raise SchemaciteFailure(render(failing, errors, self.config.invocation_params.dir))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, SchemaciteFailure):
            return excinfo.value.text
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"schemacite: {_display(self.path, self.config.invocation_params.dir)}"


def lint_once(config: pytest.Config, settings: Settings) -> Any:
    """Lint every configured path in one run (history replay needs them together)."""
    if settings.outcome is None:
        paths = [str(p) for p in settings.paths]
        config_path = str(settings.config_path) if settings.config_path else None
        try:
            settings.outcome = schemacite.lint_paths(paths, config_path=config_path)
        except Exception as exc:  # every item reports the same failure
            settings.outcome = exc
    if isinstance(settings.outcome, BaseException):
        raise settings.outcome
    return settings.outcome


def findings_for(config: pytest.Config, settings: Settings, path: Path) -> tuple[list, list]:
    result = lint_once(config, settings)
    if settings.by_file is None:
        base = config.invocation_params.dir
        by_file: dict[Path, tuple[list, list]] = {}

        def key(file: str) -> Path:
            p = Path(file)
            return (p if p.is_absolute() else base / p).resolve()

        for f in result.findings:
            by_file.setdefault(key(f.location.file), ([], []))[0].append(f)
        for e in result.errors:
            by_file.setdefault(key(e.file), ([], []))[1].append(e)
        settings.by_file = by_file
    return settings.by_file.get(path.resolve(), ([], []))


def _display(path: Path, base: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def _citations() -> dict[str, str]:
    try:
        # start-up: the evidence catalogue loads only when something cites it
        from schemacite.evidence import load_catalogue

        return {key: entry.citation() for key, entry in load_catalogue().items()}
    except Exception:  # the ids alone still say what to look up
        return {}


def render(findings: list, errors: list, base: Path) -> str:
    lines: list[str] = []
    for e in sorted(errors, key=lambda e: e.line):
        lines.append(f"{_display(Path(e.file), base)}:{e.line}: parse error: {e.message}")
    citations = _citations() if findings else {}
    for f in sorted(findings, key=lambda f: f.sort_key()):
        where = _display(Path(f.location.file), base)
        if f.location.line:
            where += f":{f.location.line}" + (f":{f.location.column}" if f.location.column else "")
        lines.append(f"{where}: {f.code} {f.rule} [{f.severity}] {f.message}")
        if f.suggestion:
            lines.append(f"    suggestion: {f.suggestion}")
        if f.evidence:
            cited = [f"{i} ({citations[i]})" if i in citations else i for i in f.evidence]
            lines.append("    evidence: " + "; ".join(cited))
        if f.evidence_note:
            lines.append(f"    no measurement: {f.evidence_note}")
        if f.url:
            lines.append(f"    see: {f.url}")
    count = f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
    if errors:
        count += f", {len(errors)} parse error{'s' if len(errors) != 1 else ''}"
    lines.append(f"schemacite: {count}")
    return "\n".join(lines)
