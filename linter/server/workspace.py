"""The engine's verdict on an open document, judged as the next deploy of its project.

A document is linted as `schemacite lint` lints a file read from standard input: its project is
resolved the same way (`lint.project`: the config found from it, the history that config names,
the dialect its text and its neighbours' tell), and it is linted under the file's own name after
that history. The history is replayed once and kept: the schema it
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
from dataclasses import field

import pluggy

from schemacite.errors import UsageError, internal_error
from schemacite.lint.config import Config
from schemacite.lint.project import Memo, Project, load_plugins, stamp
from schemacite.model import Location, Schema
from schemacite.model.record import record
from schemacite.model.results import Finding
from schemacite.model.statements import CreateTable, ParseError, Statement
from schemacite.server.settings import Settings
from schemacite.sources.files import expand, path_matches
from schemacite.sources.replay import Replay

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

    def entries_from(self, files: int) -> int:
        return 0  # every file it parses is recorded

    def key(self, raw: bytes, dialect: str) -> str:
        return ""

    def get(self, key: str, path: str) -> None:
        return None

    def put(self, key: str, parsed, size: int = 0) -> None:
        self.parsed[parsed.path] = parsed


class Workspace:
    """Judges documents; keeps the plugins, linters and replayed histories between edits. Each
    document's project is resolved as every door resolves one (`lint.project`), on every edit,
    from what the memo keeps."""

    def __init__(self, settings: Settings | None = None, parse_cache: bool = True):
        self.settings = settings or Settings()
        self._pm: pluggy.PluginManager | None = None  # loaded by the first check: a pack's bad evidence is said there
        self.parse_cache = parse_cache
        self.memo = Memo()  # file heads, frameworks, snapshots and linters, between edits
        self._histories: OrderedDict[tuple, History] = OrderedDict()

    def check(self, path: str, text: str, version: int | None = None) -> Checked:
        """Lint `text` as the file `path` holds it now; never raises."""
        path = os.path.abspath(path)
        checked = Checked(path, text, version)
        try:
            self._check(checked)
        except (UsageError, ValueError) as e:  # settings mistakes (ConfigError is one): said, not raised
            checked.problem = str(e)
        except Exception as e:  # a defect of ours: said in the document and logged, the server goes on
            checked.problem = f"schemacite: {internal_error(e)}"
            logger.exception("checking %s", path)
        return checked

    @property
    def plugins(self) -> pluggy.PluginManager:
        """The plugins, loaded once for the server's life."""
        if self._pm is None:
            self._pm = load_plugins()
        return self._pm

    def project(self, path: str, text: str) -> Project:
        """The project of the document `path`, which holds `text` now (not what the disk holds)."""
        return Project.resolve(
            [path],
            config_file=self.settings.config,
            named_by="the server's `config` setting",
            overrides=self.settings.overrides(),
            stdin=(path, text.encode()),
            pm=self.plugins,
            settle_framework=True,  # the buffer is linted apart from its history: the replay could not tell
            memo=self.memo,
            ask="set `dialect` in the config or the settings",
        )

    def _check(self, checked: Checked) -> None:
        path = checked.path
        project = self.project(path, checked.text)
        config = checked.config = project.config
        if config.exclude and path_matches(path, config.exclude, config.root):
            checked.excluded = True
            return
        files, _ = expand(project.history) if project.history else ([], [])
        kept = self._history(project, path, files)
        checked.base = kept.schema
        checked.notes += kept.notes
        recorder = _Recorder()
        result = project.lint(recorder, paths=[path], history=[], base=kept.schema)
        parsed = recorder.parsed.get(path)
        checked.statements = list(getattr(parsed, "statements", []))
        checked.findings = result.findings
        checked.errors = result.errors
        checked.notes += result.notes
        checked.unsuppressible = {r.name for r in project.linter.rules if r.defines("check_suppression")}
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

    # ---- history ----------------------------------------------------------------------

    def _history(self, project: Workspace, path: str, files: list[str]) -> History:
        """The schema the history (`files`, which may name `path` among them) leaves before `path`,
        replayed once per change of its files."""
        config = project.config
        before = [f for f in files if os.path.abspath(f) != path]
        key = (
            config.dialect,
            config.framework,
            config.search_path,
            config.lock_timeout,
            stamp(config.snapshot) if config.snapshot else None,
            path,
            len(before) < len(files),  # whether the document is history itself
            *(stamp(f) for f in before),
        )
        kept = self._histories.get(key)
        if kept is not None:
            self._histories.move_to_end(key)
            return kept
        kept = self._replay(config, path, files, project.base)
        self._histories[key] = kept
        while len(self._histories) > KEPT_HISTORIES:
            self._histories.popitem(last=False)
        return kept

    def _replay(self, config: Config, path: str, files: list[str], base: Schema | None) -> History:
        # start-up: the language server loads this on the first request that needs it
        from schemacite.sources.cache import ParseCache

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
        notes = [f"history {error}; its changes are not replayed" for error in run.errors]
        return History(run.schema, config.framework or run.framework.name, notes)
