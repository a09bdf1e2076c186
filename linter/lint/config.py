"""Settings from `[tool.schemacite]` in pyproject.toml or a `.schemacite.toml`, then the command line."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Set
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemacite.model.dialects import Dialect, Target, known_targets
from schemacite.model.record import default, record, replace
from schemacite.model.results import Severity
from schemacite.sources.search_path import DEFAULT as DEFAULT_SEARCH_PATH

if TYPE_CHECKING:
    from schemacite.model import Schema
    from schemacite.sources.cache import ParseCache
    from schemacite.sources.replay import Replay


class ConfigError(ValueError):
    pass


class SettingsError(ValueError):
    """Settings the rules refuse (an unknown rule, an option of the wrong type), met when the rules
    are built."""


@record
class Config:
    """Every setting with its default: the one place a default is written (the rule API, the rule
    options that a top-level setting also sets and the docs read them from here)."""

    # the server version the run judges for, parsed once here (its dialect is `dialect`)
    target: Target = field(default_factory=lambda: Dialect.POSTGRES.default_target)
    history: list[str] = field(default_factory=list)
    insert_heavy: list[str] = field(default_factory=list)  # table names or globs
    max_secondary_indexes: int = 2
    infer_insert_heavy: bool = True  # the append-only naming heuristic
    disable: list[str] = field(default_factory=list)
    select: list[str] = field(default_factory=list)  # empty: every stable rule
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {severity, options...}
    fail_on: Severity = Severity.WARNING
    snapshot: str | None = None  # snapshot JSON to start from
    framework: str | None = None  # the migration framework (None: detected from the files)
    evidence: list[str] = field(default_factory=list)  # catalogue files of one's own (evidence reproduce --save)
    max_lock_seconds: float = 5.0  # a lock estimated to last longer is an error
    search_path: str = DEFAULT_SEARCH_PATH  # PostgreSQL: the setting each deploy starts with
    lock_timeout: str = ""  # the lock timeout each deploy's connection starts with ("": none)
    exclude: list[str] = field(default_factory=list)  # path patterns replayed but never linted
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)  # path pattern -> rules it silences
    baseline: str | None = None  # findings recorded there are not reported
    pytest: bool = False
    pytest_paths: list[str] = field(default_factory=list)
    source: Path | None = None  # the file the settings came from
    dialect_given: bool = False
    target_given: bool = False  # a config file or --target named it (else the dialect's default)
    from_cli: frozenset[str] = frozenset()  # settings the command line gave, for messages

    def where(self, key: str) -> str:
        """Who set `key`: the command-line flag, else the config file."""
        if key in self.from_cli:
            return CLI_FLAGS.get(key, f"--{key.replace('_', '-')}")
        return str(self.source) if self.source else "command line"

    @property
    def dialect(self) -> Dialect:
        """The target's dialect: the one a config names, else its target's, else PostgreSQL."""
        return self.target.dialect

    @property
    def root(self) -> Path:
        return self.source.parent if self.source else Path.cwd()

    def excluded(self, path: str) -> bool:
        """Whether `exclude` leaves the file out of what is reported (it is still replayed)."""
        # start-up: the run's modules load with the run, not with its settings (a rule pack reads these)
        from schemacite.sources.files import path_matches

        return bool(self.exclude) and path_matches(path, self.exclude, self.root)

    def replay(
        self,
        paths: Iterable[str],
        history: Iterable[str] = (),
        base: Schema | None = None,
        cache: ParseCache | None = None,
        stdin: tuple[str, bytes] | None = None,
        overlay: dict[str, bytes] | None = None,
        read_ahead: bool | Callable[[], object] = False,
    ) -> Replay:
        """The replay of `paths` after `history` as these settings make it (`sources.replay`)."""
        # start-up: as above
        from schemacite.sources.replay import Replay

        return Replay(
            self.dialect,
            paths,
            history,
            base,
            cache,
            self.framework,
            stdin,
            self.search_path,
            self.lock_timeout,
            self.excluded if self.exclude else None,
            overlay,
            change_together=bool(history),
            read_ahead=read_ahead,
        )


KEYS = {
    "dialect",
    "target",
    "history",
    "insert_heavy",
    "max_secondary_indexes",
    "infer_insert_heavy",
    "disable",
    "select",
    "rules",
    "fail_on",
    "snapshot",
    "framework",
    "evidence",
    "max_lock_seconds",
    "search_path",
    "lock_timeout",
    "exclude",
    "extend_exclude",
    "per_file_ignores",
    "baseline",
    "schema",
    "pytest",
    "pytest_paths",
}


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.schemacite] table, or .schemacite.toml, from start upward."""
    try:
        start = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: look from where it sits instead
        start = Path(os.path.abspath(start))
    for folder in [start, *start.parents] if start.is_dir() else [start.parent, *start.parent.parents]:
        dotfile = folder / ".schemacite.toml"
        if dotfile.is_file():
            return dotfile
        pyproject = folder / "pyproject.toml"
        if (
            pyproject.is_file()
            and "schemacite" in pyproject.read_text(errors="replace")
            and ("schemacite" in _read(pyproject).get("tool", {}))
        ):
            return pyproject
    return None


def _read(path: Path) -> dict[str, Any]:
    # start-up: tomllib loads only when there is a TOML file to read
    import tomllib

    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None


def load_config(path: Path | None, overrides: dict[str, Any] | None = None) -> Config:
    """Settings from `path` (may be None) with command-line `overrides` on top."""
    raw: dict[str, Any] = {}
    if path is not None:
        data = _read(path)
        if path.name == "pyproject.toml" or set(data) == {"tool"}:
            # a .schemacite.toml may keep the [tool.schemacite] header copied from pyproject.toml
            tool = data.get("tool", {})
            raw = tool.get("schemacite", {}) if isinstance(tool, dict) else {}
            if path.name != "pyproject.toml" and set(tool) != {"schemacite"}:
                others = sorted(set(tool) - {"schemacite"})
                raise ConfigError(f"{path}: unknown setting(s): {', '.join(f'tool.{k}' for k in others)}")
        else:
            raw = data
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: [tool.schemacite] must be a table")
        raw = {k.replace("-", "_"): v for k, v in raw.items()}
        unknown = set(raw) - KEYS
        if unknown:
            raise ConfigError(f"{path}: unknown setting(s): {', '.join(sorted(unknown))}")
        base = path.parent
        for key in ("history", "pytest_paths", "evidence"):
            if key in raw:
                raw[key] = [_inside(base / p, path, key) for p in _as_list(raw[key], path, key)]
        if "schema" in raw:  # the name of `snapshot` before 0.2
            raw.setdefault("snapshot", raw.pop("schema"))
        if isinstance(raw.get("snapshot"), str):
            raw["snapshot"] = _inside(base / raw["snapshot"], path, "snapshot")
        if isinstance(raw.get("baseline"), str):
            raw["baseline"] = _inside(base / raw["baseline"], path, "baseline")
    given = {k: v for k, v in (overrides or {}).items() if v is not None and v != []}
    raw.update(given)
    return _build(raw, path, set(given))


def told(config: Config, dialect: str, target: str | None = None, by: str = "the files") -> Config:
    """`config`, which names no dialect, judging for the `dialect` (and `target`, else that
    dialect's default) that `by` tells: the files' marks, a snapshot's server. A copy of the
    settings already read, not a second reading of them."""
    _, _, parsed = _dialect_and_target({"dialect": dialect, "target": target or ""}, lambda key: by)
    return replace(config, target=parsed, target_given=config.target_given or bool(target))


def _inside(target: Path, config: Path, key: str) -> str:
    """`target`, which a config file names, unless it leads out of the config's repository."""
    # start-up: a pack importing schemacite.rule loads this module; only a config naming files checks them
    from schemacite.sources.files import escapes, repository_root

    root = repository_root(config)
    if root is not None:
        text = str(target)
        magic = min((text.index(c) for c in "*?[" if c in text), default=None)
        fixed = Path(text if magic is None else os.path.dirname(text[:magic]) or ".")  # a glob's fixed part
        why = escapes(fixed, root)
        if why:
            raise ConfigError(f"{config}: {key}: {target} {why}")
    return str(target)


CLI_FLAGS = {"disable": "--ignore/--disable"}  # settings whose flag has two spellings


def _per_file_ignores(value: Any, path: Path | None) -> dict[str, list[str]]:
    """`{"legacy/*.sql" = ["SC101"], ...}`: rules (codes, names, prefixes) silenced in matching files."""
    if not isinstance(value, dict):
        raise ConfigError(f"{path or 'command line'}: per_file_ignores must be a table of path pattern = rules")
    return {str(k): _as_list(v, path, f"per_file_ignores.{k}") for k, v in value.items()}


def _setting(value: Any, path: Path | None, key: str) -> str:
    """A server setting's value as SET takes it: `"5s"`, `5000` (ms on PostgreSQL, s on MySQL)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError(f"{path or 'command line'}: {key} must be a string or a number")
    return str(value)


def _as_list(value: Any, path: Path | None, key: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ConfigError(f"{path or 'command line'}: {key} must be a string or a list of strings")


def _dialect_and_target(raw: dict[str, Any], where: Callable[[str], str]) -> tuple[Dialect | None, str, Target]:
    """The dialect asked for (None: not said), the target as written, and the target it names."""
    try:
        dialect = Dialect.parse(raw["dialect"]) if raw.get("dialect") else None
    except ValueError as e:
        raise ConfigError(f"{where('dialect')}: {e}") from None
    text = str(raw.get("target", ""))
    try:
        target = Target.parse(text) if text else (dialect or Dialect.POSTGRES).default_target
    except ValueError:
        target = None
    # MySQL and MariaDB are one family: the target names the server
    if target is None or dialect is not None and target.dialect.family is not dialect.family:
        of = f" for dialect {dialect}" if dialect else ""
        raise ConfigError(f"{where('target')}: unknown target {text!r}{of} (use {known_targets(dialect)})")
    return dialect, text, target


def _framework(raw: dict[str, Any], where: Callable[[str], str]) -> str | None:
    framework: str | None = raw.get("framework")  # a string: _build checked it
    if framework is None:
        return None
    # start-up: a pack importing schemacite.rule loads this module; only a named framework is looked up
    from schemacite.sources.frameworks import FRAMEWORKS

    framework = framework.lower()
    if framework not in FRAMEWORKS:
        raise ConfigError(f"{where('framework')}: unknown framework {framework!r} (use {', '.join(FRAMEWORKS)})")
    return framework


def _limits(raw: dict[str, Any], where: Callable[[str], str]) -> tuple[int | float, int]:
    """max_lock_seconds and max_secondary_indexes, checked."""
    mls = raw.get("max_lock_seconds", default(Config, "max_lock_seconds"))
    if not isinstance(mls, int | float) or isinstance(mls, bool) or mls <= 0:
        raise ConfigError(f"{where('max_lock_seconds')}: max_lock_seconds must be a number of seconds > 0")
    msi = raw.get("max_secondary_indexes", default(Config, "max_secondary_indexes"))
    if not isinstance(msi, int) or isinstance(msi, bool) or msi < 0:
        raise ConfigError(f"{where('max_secondary_indexes')}: max_secondary_indexes must be a whole number >= 0")
    return mls, msi


def _build(raw: dict[str, Any], path: Path | None, from_cli: Set[str] = frozenset()) -> Config:
    def where(key: str) -> str:
        if key in from_cli:
            return CLI_FLAGS.get(key, f"--{key.replace('_', '-')}")
        return str(path) if path else "command line"

    for key in ("dialect", "target", "snapshot", "framework"):
        if key in raw and not isinstance(raw[key], str):
            raise ConfigError(f"{where(key)}: {key} must be a string")
    for key in ("infer_insert_heavy", "pytest"):
        if key in raw and not isinstance(raw[key], bool):
            raise ConfigError(f"{where(key)}: {key} must be true or false")
    dialect, text, target = _dialect_and_target(raw, where)
    framework = _framework(raw, where)
    try:
        fail_on = raw.get("fail_on", "warning")
        fail_on = fail_on if isinstance(fail_on, Severity) else Severity.parse(str(fail_on))
    except ValueError as e:
        raise ConfigError(f"{where('fail_on')}: fail_on: {e}") from None
    rules = raw.get("rules", {})
    if not isinstance(rules, dict) or not all(isinstance(v, dict) for v in rules.values()):
        raise ConfigError(f"{where('rules')}: [rules] must map rule names to tables of settings")
    mls, msi = _limits(raw, where)
    return Config(
        target=target,
        history=_as_list(raw.get("history", []), path, "history"),
        insert_heavy=_as_list(raw.get("insert_heavy", []), path, "insert_heavy"),
        max_secondary_indexes=msi,
        infer_insert_heavy=bool(raw.get("infer_insert_heavy", True)),
        # as typed, for messages; rules are matched in any case
        disable=[r.strip() for r in _as_list(raw.get("disable", []), path, "disable")],
        select=[r.strip() for r in _as_list(raw.get("select", []), path, "select")],
        rules={k.lower(): v for k, v in rules.items()},
        fail_on=fail_on,
        snapshot=raw.get("snapshot"),
        framework=framework,
        evidence=_as_list(raw.get("evidence", []), path, "evidence"),
        max_lock_seconds=float(mls),
        search_path=", ".join(_as_list(raw.get("search_path", DEFAULT_SEARCH_PATH), path, "search_path")),
        lock_timeout=_setting(raw.get("lock_timeout", ""), path, "lock_timeout"),
        # ruff's two keys: here both add to the (empty) default
        exclude=[
            *_as_list(raw.get("exclude", []), path, "exclude"),
            *_as_list(raw.get("extend_exclude", []), path, "extend_exclude"),
        ],
        per_file_ignores=_per_file_ignores(raw.get("per_file_ignores", {}), path),
        baseline=raw.get("baseline") if isinstance(raw.get("baseline"), str) else None,
        pytest=bool(raw.get("pytest", False)),
        pytest_paths=_as_list(raw.get("pytest_paths", []), path, "pytest_paths"),
        source=path,
        dialect_given=bool(dialect or text),
        target_given=bool(text),
        from_cli=frozenset(from_cli),
    )
