"""The engine's verdict on an open document, judged as the next deploy of its project.

A document is linted as `schemacite lint` lints a file read from standard input: under the
file's own name, with the settings of the config found from it (`resolve_config`'s search),
after the history that config names. The history is replayed once and kept: the schema it
leaves is the `base` every later edit of the buffer is linted on, until a history file changes
(its name, modification time or size) or the settings do. A migration that is part of its own
history is judged after the migrations the project's runner deploys before it.

Nothing here speaks the protocol (see `server.protocol`): the benchmark and the tests call it
directly too.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from dataclasses import field, replace
from pathlib import Path

from schemacite.errors import UsageError, internal_error
from schemacite.lint.config import Config, ConfigError, find_config, load_config
from schemacite.model import Location, Schema
from schemacite.model.record import record
from schemacite.model.results import Finding
from schemacite.model.statements import CreateTable, ParseError, Statement
from schemacite.server.settings import Settings

logger = logging.getLogger(__name__)
KEPT_HISTORIES = 8  # replayed histories kept: one per project and place in it an open file takes


@record
class Checked:
    """One version of one document, as the engine judged it."""

    path: str
    text: str
    version: int | None = None
    findings: list[Finding] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)  # of this document and the files it includes
    statements: list[Statement] = field(default_factory=list)  # the document's own, in order
    config: Config | None = None
    base: Schema | None = None  # what the history left
    problem: str | None = None  # why the document could not be judged (a settings mistake)
    notes: list[str] = field(default_factory=list)
    excluded: bool = False  # the config's exclude names it: replayed by others, never linted
    rows: list | None = None  # its lock-table rows (`locks.report.Row`), made when first asked for
    unsuppressible: set[str] = field(default_factory=set)  # rules judging the suppression comments themselves

    def statement_at(self, line: int, column: int = 0) -> Statement | None:
        """The statement written at (1-based) `line`: the one starting at `column` if several do,
        else the last one starting at or before the position, else the one spanning the line."""
        on_line = [s for s in self.statements if s.location.line == line]
        exact = next((s for s in on_line if s.location.column == column), None)
        if exact is not None:
            return exact
        before = [s for s in on_line if s.location.column <= column] if column else []
        if before or on_line:
            return (before or on_line)[-1]
        return next((s for s in self.statements if s.location.line < line <= (s.end_line or s.location.line)), None)

    def created_at(self, table: str) -> Location | None:
        """Where `table` was created: by this document, else by its history (or a snapshot)."""
        for stmt in self.statements:
            if isinstance(stmt.op, CreateTable) and table in (stmt.table, stmt.table and stmt.table.split(".")[-1]):
                return stmt.location
        if self.base is None:
            return None
        found = self.base.tables.get(table) or next(
            (t for t in self.base.tables.values() if t.name == table or t.qualified_name == table), None
        )
        return found.defined_at if found is not None else None


@record
class History:
    schema: Schema
    framework: str
    notes: list[str]


class _Recorder:
    """A parse cache that stores nothing and keeps the files a run parsed, by name: the lint run
    parses the buffer, and its statements (with their extents) serve the diagnostics' ranges."""

    def __init__(self) -> None:
        self.parsed: dict[str, object] = {}

    def key(self, raw: bytes, dialect: str) -> str:
        return ""

    def get(self, key: str, path: str) -> None:
        return None

    def put(self, key: str, parsed, size: int = 0) -> None:
        self.parsed[parsed.path] = parsed


class Project:
    """Judges documents; keeps the settings, rules and replayed histories between edits."""

    def __init__(self, settings: Settings | None = None, parse_cache: bool = True):
        # start-up: the language server loads this on the first request that needs it
        from schemacite.lint.plugins import evidence_paths, plugin_manager

        self.settings = settings or Settings()
        self.pm = plugin_manager()
        self.plugin_evidence = evidence_paths(self.pm)
        self.parse_cache = parse_cache
        self._linters: dict[str, object] = {}
        self._histories: OrderedDict[tuple, History] = OrderedDict()
        self._detected: dict[tuple, tuple[str, list[str]]] = {}  # the framework and history heads, by stamp

    def check(self, path: str, text: str, version: int | None = None) -> Checked:
        """Lint `text` as the file `path` holds it now; never raises."""
        path = os.path.abspath(path)
        checked = Checked(path, text, version)
        try:
            self._check(checked)
        except (ConfigError, UsageError, ValueError) as e:  # settings mistakes: said, not raised
            checked.problem = str(e)
        except Exception as e:  # a defect of ours: said in the document and logged, the server goes on
            checked.problem = f"schemacite: {internal_error(e)}"
            logger.exception("checking %s", path)
        return checked

    def _check(self, checked: Checked) -> None:
        # start-up: the language server loads this on the first request that needs it
        from schemacite.sources.files import expand, path_matches

        path = checked.path
        config = self.config_for(path)
        if config.exclude and path_matches(path, config.exclude, config.root):
            checked.config, checked.excluded = config, True
            return
        files, _ = expand(config.history) if config.history else ([], [])
        history = [f for f in files if os.path.abspath(f) != path]
        stamp = (len(history) < len(files), *(_stamp(f) for f in history))  # first: whether it is history
        config = self._with_project(config, path, checked.text, history, stamp)
        checked.config = config
        kept = self._history(config, path, files, stamp)
        checked.base = kept.schema
        checked.notes += kept.notes
        recorder = _Recorder()
        linter = self._linter(config)
        result = linter.lint([path], [], kept.schema, recorder, stdin=(path, checked.text.encode()))
        parsed = recorder.parsed.get(path)
        checked.statements = list(getattr(parsed, "statements", []))
        checked.findings = result.findings
        checked.errors = result.errors
        checked.notes += result.notes
        checked.unsuppressible = {r.name for r in linter.rules if r.defines("check_suppression")}
        if config.baseline:
            # start-up: loaded only with a baseline
            from schemacite.lint.baseline import BaselineError, filter_new

            try:
                checked.findings, _ = filter_new(checked.findings, config.baseline)
            except (BaselineError, OSError) as e:
                checked.notes.append(f"baseline {config.baseline}: {e} (every finding is shown)")

    def locks(self, checked: Checked) -> list:
        """The document's lock-table rows (`schemacite locks`), against the same history."""
        if checked.rows is None:
            # start-up: the language server loads this on the first request that needs it
            from schemacite.locks.report import analyse

            config = checked.config
            if config is None or checked.excluded or checked.problem:
                return []
            checked.rows, _, _ = analyse(
                config.dialect,
                config.target,
                [checked.path],
                [],
                framework=config.framework,
                stdin=(checked.path, checked.text.encode()),
                search_path=config.search_path,
                base=checked.base,
            )
        return checked.rows

    # ---- settings ---------------------------------------------------------------------

    def config_for(self, path: str) -> Config:
        """The file's settings: the config the server's settings name, else the nearest one to
        the file (none: the defaults), with the server's settings on top."""
        source = Path(self.settings.config) if self.settings.config else find_config(Path(path))
        if source is not None and not source.is_file():
            raise ConfigError(f"{source}: no such config file (the server's `config` setting)")
        return load_config(source, self.settings.overrides())

    def _with_project(self, config: Config, path: str, text: str, history: list[str], stamp: tuple) -> Config:
        """The config with what the files tell when it does not say: the framework, the dialect."""
        # start-up: the language server loads this on the first request that needs it
        from schemacite.sources.dialect import FILES, HEAD
        from schemacite.sources.files import head
        from schemacite.sources.frameworks import detect

        key = (str(config.source), stamp, path)
        if key not in self._detected:
            found, _ = detect(history + ([path] if os.path.isfile(path) else []))
            if len(self._detected) >= KEPT_HISTORIES:
                self._detected.clear()
            self._detected[key] = (found.name, [head(f, HEAD) for f in history[:FILES]])
        framework, heads = self._detected[key]
        if not config.dialect_given:
            dialect, why = _dialect([text[:HEAD], *heads], history)
            if dialect is None:
                raise ConfigError(f"cannot tell the SQL dialect ({why}): set `dialect` in the config or the settings")
            config = load_config(config.source, {**self.settings.overrides(), "dialect": dialect})
            config.dialect_given = False
        self._use_evidence(config)
        return replace(config, framework=config.framework or framework)

    def _use_evidence(self, config: Config) -> None:
        # start-up: the language server loads this on the first request that needs it
        from schemacite.cli.common import use_evidence

        use_evidence([*self.plugin_evidence, *config.evidence])

    def _linter(self, config: Config):
        # start-up: the language server loads this on the first request that needs it
        from schemacite.lint.engine import Linter

        key = repr(config)  # every setting, the rules' included
        linter = self._linters.get(key)
        if linter is None:
            if len(self._linters) >= KEPT_HISTORIES:
                self._linters.clear()
            linter = self._linters[key] = Linter(config, self.pm)
        return linter

    # ---- history ----------------------------------------------------------------------

    def _history(self, config: Config, path: str, files: list[str], stamp: tuple) -> History:
        """The schema the history (`files`, which may name `path` among them) leaves before `path`,
        replayed once per change of its files."""
        snapshot = _stamp(config.snapshot) if config.snapshot else None
        key = (
            config.dialect,
            config.framework,
            config.search_path,
            config.lock_timeout,
            snapshot,
            path,
            stamp,
        )
        kept = self._histories.get(key)
        if kept is not None:
            self._histories.move_to_end(key)
            return kept
        kept = self._replay(config, path, files)
        self._histories[key] = kept
        while len(self._histories) > KEPT_HISTORIES:
            self._histories.popitem(last=False)
        return kept

    def _replay(self, config: Config, path: str, files: list[str]) -> History:
        # start-up: the language server loads this on the first request that needs it
        from schemacite.sources.cache import ParseCache
        from schemacite.sources.replay import Replay

        base = None
        notes = []
        if config.snapshot:
            # start-up: the language server loads this on the first request that needs it
            from schemacite.sources.snapshot import SnapshotError, load_snapshot

            try:
                base = load_snapshot(config.snapshot)
            except SnapshotError as e:
                raise ConfigError(str(e)) from None
        before = [f for f in files if os.path.abspath(f) != path]
        if len(before) < len(files):  # one of its own history: the runner's order says which files deploy first
            order = Replay(config.dialect, [path], files, framework=config.framework).order
            before = order[: next(n for n, f in enumerate(order) if os.path.abspath(f) == path)]
        run = Replay(
            config.dialect,
            [],
            before,
            base,
            ParseCache() if self.parse_cache else None,
            config.framework,
            search_path=config.search_path,
            lock_timeout=config.lock_timeout,
        )
        for _ in run:
            pass
        notes += [f"history {error}; its changes are not replayed" for error in run.errors]
        return History(run.schema, config.framework or run.framework.name, notes)


def _dialect(texts: list[str], history: list[str]) -> tuple[str | None, str]:
    """The dialect the texts (the document's, its history's) bear the marks of, as `lint` tells it."""
    # start-up: the language server loads this on the first request that needs it
    from schemacite.sources.dialect import DEFAULT_DIALECT, NO_MARKS, detect_dialect
    from schemacite.sources.frameworks.named import prisma_provider
    from schemacite.sources.frameworks.node import journal_dialect

    provider = prisma_provider(history) if history else None
    named = (provider, f'migration_lock.toml: provider = "{provider}"') if provider else journal_dialect(history)
    dialect, why = detect_dialect(texts, named)
    if dialect is None and why == NO_MARKS:  # portable SQL: the documented default reads it
        return DEFAULT_DIALECT, f"the default: {NO_MARKS}"
    return dialect, why


def _stamp(path: str) -> tuple[str, int, int]:
    """A file as far as replaying it goes: its name, modification time and size."""
    try:
        st = os.stat(path)
    except OSError:
        return (path, 0, -1)
    return (path, st.st_mtime_ns, st.st_size)
