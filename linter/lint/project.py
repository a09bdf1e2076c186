"""The project a run lints, worked out once and the same way whichever door the run came in by.

ruff resolves a workspace once and hands its settings to the linter, the formatter and the server
alike; sqlfluff builds one `FluffConfig.from_root` for its command line, its API and its language
server. Here `Project.resolve` takes what a door was given (paths and flags; an editor's settings
and open buffer; the pytest plugin's paths; `lint_paths`'s arguments) and works out, in this order:

- the plugins (the built-in rules and output formats are plugins too), and the output format
  the door will write, checked against them before anything is read;
- the config: the file the door names, else the nearest one to the first path, else to the
  current directory; read and checked once, with the door's settings on top;
- the evidence catalogue files the plugins and the config add;
- the inputs: the change, its history (the config's, then the door's), standard input or an open
  buffer, and with `since` the files git says changed (the others become history);
- the snapshot the history starts from;
- the dialect and target, each with what chose it: a flag or setting, the config, the snapshot's
  server, else the marks of the files (then of the files beside them);
- the framework, for a door that lints a buffer apart from its history (the language server);
  the other doors leave it to the replay, which reads the same files;
- and on first use, the `Linter`: the rules the config turns on for the dialect.

The command line, the language server, the pytest plugin and `lint_paths` all start here: none
reads a config or tells a dialect of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from schemacite.errors import UsageError
from schemacite.lint.config import Config, ConfigError, SettingsError, find_config, load_config, told
from schemacite.lint.plugins import (
    evidence_paths,
    plugin_manager,
    reporter_class,
    rule_entries,
    unknown_format,
)
from schemacite.lint.rule import check_rule_names
from schemacite.locks import unmeasured
from schemacite.model import Schema
from schemacite.model.dialects import DIALECTS
from schemacite.model.record import replace
from schemacite.model.results import LintResult
from schemacite.sources.dialect import DEFAULT_DIALECT, FILES, HEAD, NAMED, NO_MARKS, detect_dialect
from schemacite.sources.engines import named_dialect, neutral
from schemacite.sources.files import expand, head
from schemacite.sources.frameworks import FRAMEWORKS, Framework, detect, journal_dialect, prisma_provider

if TYPE_CHECKING:
    from schemacite.lint.engine import Linter
    from schemacite.lint.hookspecs import Reporter
    from schemacite.sources.cache import ParseCache

# how the user of `lint_paths` names a dialect the files do not tell; each door says its own
ASK = "set `dialect` in the config, or pass dialect= mysql, mariadb or postgres"
KEPT = 8  # linters a long-lived door keeps, one per set of settings its files take


def load_plugins(load_entrypoints: bool = True) -> pluggy.PluginManager:
    """The built-in plugins and, unless turned off, the installed packs, with the evidence files
    they add cited from now on (a bad record stops the run)."""
    pm = plugin_manager(load_entrypoints=load_entrypoints)
    use_evidence(evidence_paths(pm))
    return pm


def use_evidence(paths: Iterable[Path | str]) -> None:
    """Cite these catalogue files too (checked now: a bad record is a usage error)."""
    paths = list(paths)
    if not paths:
        return
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import read_catalogue, use_files

    use_files(paths)
    try:
        read_catalogue()  # the files named are read whole, each record checked
    except ValueError as e:
        raise UsageError(f"evidence: {e}") from None


def read_config(
    paths: list[str], config_file: str | None, named_by: str, overrides: dict[str, Any] | None = None
) -> Config:
    """The settings: the file named (by `named_by`: `--config`, the editor's setting), else the
    nearest config to the first path, else to the current directory; `overrides` on top."""
    source: Path | None
    if config_file:
        source = Path(config_file)
        if not source.is_file():
            raise ConfigError(f"{source}: no such config file ({named_by})")
    else:
        first = Path(paths[0]).absolute() if paths else Path.cwd()
        source = find_config(first)
        if source is None and Path.cwd() not in (first, *first.parents):  # the search passed it already
            source = find_config(Path.cwd())
    return load_config(source, overrides)


class Memo:
    """What a long-lived door (the language server, resolving a project on every edit) keeps from
    one resolution to the next: the files' heads and the framework a set of files shows, each by
    the files' names, modification times and sizes, the snapshots the same way, and the linters by
    their settings. A one-off run keeps nothing."""

    def __init__(self) -> None:
        self.heads: dict[tuple[str, int, int], str] = {}
        self.frameworks: dict[tuple[tuple[str, int, int], ...], tuple[Framework, str]] = {}
        self.snapshots: dict[tuple[str, int, int], tuple[Schema, str | None]] = {}
        self.linters: dict[str, Linter] = {}

    def head(self, path: str) -> str:
        key = stamp(path)
        if key not in self.heads:
            if len(self.heads) >= 50 * FILES:
                self.heads.clear()
            self.heads[key] = head(path, HEAD)
        return self.heads[key]

    def framework(self, files: list[str]) -> tuple[Framework, str]:
        key = tuple(stamp(f) for f in files)
        if key not in self.frameworks:
            if len(self.frameworks) >= KEPT:
                self.frameworks.clear()
            self.frameworks[key] = detect(files)
        return self.frameworks[key]

    def snapshot(self, path: str) -> tuple[Schema, str | None]:
        """The snapshot's schema and the server version it recorded, if any."""
        key = stamp(path)
        if key not in self.snapshots:
            self.snapshots.clear()  # one project's snapshot at a time
            self.snapshots[key] = _load_snapshot(path)
        return self.snapshots[key]

    def dialect(self, texts: list[str], named: tuple[str, str] | None) -> tuple[str | None, str]:
        """What the files' marks (or a runner's setting) tell of the dialect: `detect_dialect`."""
        return detect_dialect(texts, named)


class _Once(Memo):
    """A one-off run's memo: reads every time, keeps nothing but, given the run's cache, what the
    files' marks told of the dialect (counting them over a history's 200 heads is a tenth of a
    pre-commit run with no dialect configured)."""

    def __init__(self, cache: ParseCache | None = None) -> None:
        super().__init__()
        self.cache = cache

    def head(self, path: str) -> str:
        return head(path, HEAD)

    def framework(self, files: list[str]) -> tuple[Framework, str]:
        return detect(files)

    def snapshot(self, path: str) -> tuple[Schema, str | None]:
        return _load_snapshot(path)

    def dialect(self, texts: list[str], named: tuple[str, str] | None) -> tuple[str | None, str]:
        if self.cache is None or named and named[0] in NAMED:  # a runner's setting says it outright
            return detect_dialect(texts, named)
        raw = "\0".join([*(named or ("", "")), *texts]).encode("utf-8", "surrogatepass")
        kept = self.cache.memo("dialect", raw, lambda: list(detect_dialect(texts, named)))
        # read back from a file: only the shape it was written in is taken
        if isinstance(kept, list) and len(kept) == 2 and kept[0] in (None, *DIALECTS) and isinstance(kept[1], str):
            return kept[0], kept[1]
        return detect_dialect(texts, named)


class Project:
    """What one run lints and how: made by `Project.resolve`, once a run (once an edit in the
    language server), and read by the door that asked."""

    def __init__(self, config: Config, pm: pluggy.PluginManager | None, history: list[str], memo: Memo):
        self.config = config  # the settings, with the dialect and target in force
        self._pm = pm  # the plugins (rules, output formats, evidence files), loaded when first asked for
        self._entrypoints = True  # whether the installed packs load with the built-ins
        self.paths: list[str] = []  # the change: what is linted (standard input by the name it is given)
        self.history = history  # replayed before it: the config's, then the door's
        self.stdin: tuple[str, bytes] | None = None  # standard input's or an editor's buffer: (name, bytes)
        self.base: Schema | None = None  # the snapshot the history starts from
        self.dialect_why = ""  # --dialect, the config file, the snapshot's server, the files' marks
        self.detected = False  # whether the files told the dialect
        self.target_why = ""  # --target, the config file, the snapshot's server, the default
        self.notes: list[str] = []  # what the resolution has to say (--since's split)
        self._memo = memo
        self._linter: Linter | None = None

    @classmethod
    def resolve(
        cls,
        paths: Iterable[str] | str = (),
        *,
        config_file: str | None = None,
        named_by: str = "config_path",
        config: Config | None = None,
        overrides: dict[str, Any] | None = None,
        history: Iterable[str] = (),
        stdin: tuple[str, bytes] | None = None,
        since: str | None = None,
        pm: pluggy.PluginManager | None = None,
        plugins: bool = True,
        output: str | None = None,
        rules: bool = True,
        files: bool = True,
        settle_framework: bool = False,
        memo: Memo | None = None,
        cache: ParseCache | None = None,
        ask: str = ASK,
    ) -> Project:
        """The project `paths` (files, folders, globs; `-` is `stdin`) belong to.

        `config_file` names the config (`named_by` says who did, for the message when it is
        missing); `config`, settings already made, is taken as it is; `overrides` go on top of the
        file's. `plugins=False` leaves the installed packs out. `output` is the format the door will
        write. A door that runs no rules (`locks`) passes `rules=False`: its plugins load only if
        something asks for them. A door that lints no files (`audit`, `evidence`) passes
        `files=False`: no inputs, snapshot or dialect are looked for. The
        language server passes `settle_framework` (it lints a buffer apart from its history) and
        a `memo` it keeps; a one-off run, the `cache` it will lint with. `ask` says how the door's user names a dialect the files do not tell.
        Settings mistakes are ConfigErrors (ValueErrors), anything else that stops the run a
        UsageError.
        """
        paths = [paths] if isinstance(paths, str) else list(paths)
        memo = memo or _Once(cache)
        if rules or output is not None:
            pm = pm or load_plugins(plugins)
            if output is not None and pm.hook.schemacite_reporter(format=output) is None:
                raise UsageError(unknown_format(pm, output))
        if config is None:
            config = read_config(paths, config_file, named_by, overrides)
        use_evidence(config.evidence)
        project = cls(config, pm, [*config.history, *history], memo)
        project._entrypoints = plugins
        if not files:
            project._chosen()
            return project
        if rules:  # settings mistakes first, before the files are read for their dialect
            check_rule_names(config, rule_entries(project.pm))
        project._inputs(paths, stdin, since)
        if config.snapshot:
            project.base, recorded = memo.snapshot(config.snapshot)
            if not config.dialect_given:  # the snapshot knows which server it came from
                server = "the snapshot's server"
                project.config = told(config, project.base.dialect, recorded, server)
                project.dialect_why = project.target_why = server
        elif not config.dialect_given:
            found = project._tell_dialect(ask)
            if found is not None:
                project.config = told(config, found[0])
                project.dialect_why, project.detected = found[1], True
        if settle_framework and not project.config.framework:
            project.config = replace(project.config, framework=project.framework[0].name)
        project._chosen()
        return project

    # ---- what the resolution reads -----------------------------------------------------------

    def _inputs(self, paths: list[str], stdin: tuple[str, bytes] | None, since: str | None) -> None:
        """The change, its history and standard input; with `since`, git splits the files named."""
        if stdin is not None:
            self.stdin = stdin
            paths = [stdin[0] if p == "-" else p for p in paths]
        self.paths = paths
        if since:
            self._since(since)

    def _since(self, rev: str) -> None:
        # start-up: loaded only with --since
        from schemacite.sources.git import GitError, changed_since

        stdin_name = self.stdin[0] if self.stdin else None
        others = [p for p in self.paths if p != stdin_name]
        try:
            changed, base = changed_since(rev, others[0] if others else ".")
        except GitError as e:
            raise UsageError(str(e)) from None
        files, _ = expand(others)  # errors are reported when the run reads them
        change = [f for f in files if os.path.realpath(f) in changed]
        self.history += [f for f in files if os.path.realpath(f) not in changed]
        kept = [p for p in others if not os.path.exists(p) and not any(c in p for c in "*?[")]  # missing: errors
        self.paths = change + kept + ([stdin_name] if stdin_name else [])
        self.notes.append(
            f"--since {rev} (merge base {base}): {len(change)} changed file(s) linted, "
            f"{len(files) - len(change)} unchanged file(s) replayed as history"
        )

    def _files(self) -> tuple[list[str], bool]:
        """The files of the history and the change (standard input's name left out: its text is
        read instead), and whether a name led nowhere."""
        stdin_name = self.stdin[0] if self.stdin else None
        found, missing = expand([*self.history, *(p for p in self.paths if p != stdin_name)])
        buffer = os.path.abspath(stdin_name) if stdin_name else None
        return [f for f in found if os.path.abspath(f) != buffer], bool(missing)

    def _tell_dialect(self, ask: str) -> tuple[str, str] | None:
        """(dialect, why) the files tell: the marks of the history's and the change's files, else
        of the files beside them; a Prisma or Drizzle project's provider; files named for one
        engine. None when there are no files to tell it (the run reports the names that led
        nowhere, in any dialect); a UsageError when they disagree."""
        files, missing = self._files()
        if not files and not self.stdin:
            return None
        engines = named_dialect(files)  # files named for an engine: only those any engine runs bear marks
        files = neutral(files) if engines else files
        texts = [self._memo.head(f) for f in files[:FILES]]
        if self.stdin:
            texts.append(self.stdin[1][:HEAD].decode("utf-8", "replace"))
        provider = prisma_provider(files)
        named = (provider, f'migration_lock.toml: provider = "{provider}"') if provider else journal_dialect(files)
        if not named and engines and engines[0]:
            named = (engines[0], engines[1])
        dialect, why = self._memo.dialect(texts, named)
        if dialect is None:  # a file or two may not say: the other files of their folders may
            # (standard input's among them: an editor's buffer is named for its file)
            read = [*files, *([self.stdin[0]] if self.stdin else [])]
            # the folders themselves, not the trees below them: a file at a repository's root would
            # otherwise walk the whole repository on every pre-commit run
            folders = sorted({os.path.dirname(f) or "." for f in read})
            more = [
                os.path.join(d, n)
                for d in folders
                if os.path.isdir(d)
                for n in sorted(os.listdir(d))
                if _sibling_sql(d, n)
            ]
            seen = {os.path.abspath(f) for f in read}
            more = neutral(more) if engines else more  # another engine's file says nothing of this run's
            texts += [self._memo.head(f) for f in [m for m in more if os.path.abspath(m) not in seen][:FILES]]
            dialect, why = self._memo.dialect(texts, named)
            why = why if dialect is None else f"{why}, in the files beside them"
        if dialect is None and engines:  # files for several engines: the default would pick one blindly
            why = engines[1] if why == NO_MARKS else f"{engines[1]}; {why}"
        if dialect is None and why == NO_MARKS:  # portable SQL: the documented default reads it
            return DEFAULT_DIALECT, f"the default: {NO_MARKS}"
        if dialect is None:
            if missing:  # the run stops on the names that led nowhere: no dialect question first
                return None
            raise UsageError(f"cannot tell the SQL dialect ({why}): {ask}")
        return dialect, why

    def _chosen(self) -> None:
        """What chose the dialect and the target, where the files or a snapshot did not."""
        config = self.config
        self.dialect_why = self.dialect_why or config.where("dialect")
        if self.target_why:
            return
        if not config.target_given:
            self.target_why = "the default"
        elif "target" in config.from_cli:
            self.target_why = "--target"
        else:
            self.target_why = os.path.relpath(config.where("target"))

    # ---- what the doors read -----------------------------------------------------------------

    @property
    def pm(self) -> pluggy.PluginManager:
        """The plugins: the built-in rules and formats, and the installed packs unless left out."""
        if self._pm is None:
            self._pm = load_plugins(self._entrypoints)
        return self._pm

    @property
    def framework(self) -> tuple[Framework, str]:
        """The migration framework and what showed it: the config's, else the one the history's
        and the change's files show (an open buffer's file among them), as the replay tells it."""
        if self.config.framework:
            return FRAMEWORKS[self.config.framework], "configured"
        files, _ = self._files()
        if self.stdin and os.path.isfile(self.stdin[0]):
            files.append(self.stdin[0])
        return self._memo.framework(files)

    @property
    def linter(self) -> Linter:
        """The rules the settings turn on for the dialect, built on first use: once a run, once a
        set of settings in a long-lived door. A SettingsError (a ValueError) says what is wrong with
        a rule's settings."""
        if self._linter is None:
            # start-up: the engine and the rules load after a read-ahead child is forked to plan the run
            from schemacite.lint.engine import Linter

            key = repr(self.config)  # every setting, the rules' included
            kept = self._memo.linters
            if key not in kept:
                if len(kept) >= KEPT:
                    kept.clear()
                try:
                    kept[key] = Linter(self.config, self.pm)
                except ValueError as e:
                    raise SettingsError(str(e)) from None
            self._linter = kept[key]
        return self._linter

    def _load_for_checks(self) -> None:
        self.linter.load_for_checks()

    def reporter(self, name: str, **options: Any) -> Reporter:
        """A reporter writing the output format `name`."""
        try:
            return reporter_class(self.pm, name)(**options)
        except ValueError as e:
            raise UsageError(str(e)) from None

    @property
    def target(self) -> tuple[str, str, str]:
        """(target, what chose it, why its lock rows rest on documentation alone, or "") for a report."""
        return str(self.config.target), self.target_why, unmeasured(self.config.target)

    def lint(
        self,
        cache: ParseCache | None = None,
        overlay: dict[str, bytes] | None = None,
        *,
        paths: list[str] | None = None,
        history: list[str] | None = None,
        base: Schema | None = None,
        read_ahead: bool = False,
    ) -> LintResult:
        """Lint the change after its history (or the `paths` after the `history` onto the `base`
        given: the language server replays a document's history apart) and say in the result what
        was resolved: the notes, the dialect and the target and what chose them. `read_ahead`:
        the CLI's runs may parse in a second process (see sources.ahead)."""
        # with read-ahead the replay is made first: a child forked to plan it plans while the rules
        # load here (`Linter.load_for_checks`, the replay's work meanwhile)
        run = self.config.replay(
            self.paths if paths is None else paths,
            self.history if history is None else history,
            self.base if base is None else base,
            cache,
            self.stdin,
            overlay,
            read_ahead=self._load_for_checks if read_ahead else False,
        )
        result = self.linter.check(run)
        result.notes[:0] = self.notes
        result.dialect = (self.config.dialect, self.dialect_why)
        result.dialect_given = not self.detected
        result.target = self.target
        return result


def lint_paths(
    paths: Iterable[str] | str,
    *,
    config_path: str | None = None,
    config: Config | None = None,
    history: Iterable[str] = (),
    **overrides: Any,
) -> LintResult:
    """Lint SQL files the way `schemacite lint` does and return the LintResult.

    `overrides` take the config file's keys (dialect="mysql", target="mysql-8.0", ...); `config`,
    settings already made, replaces the config file. The config's baseline is honoured.
    """
    project = Project.resolve(paths, config_file=config_path, config=config, overrides=overrides, history=history)
    result = project.lint()
    if project.config.baseline:  # the pytest plugin and other callers honour the config's baseline
        # start-up: loaded only with a baseline
        from schemacite.lint.baseline import leave_out_baselined

        leave_out_baselined(result, project.config.baseline)
    return result


def stamp(path: str) -> tuple[str, int, int]:
    """A file as far as reading it goes: its name, modification time and size."""
    try:
        st = os.stat(path)
    except OSError:
        return (path, 0, -1)
    return (path, st.st_mtime_ns, st.st_size)


def _sibling_sql(folder: str, name: str) -> bool:
    low = name.lower()
    return low.endswith(".sql") and not low.endswith(".down.sql") and os.path.isfile(os.path.join(folder, name))


def _load_snapshot(path: str) -> tuple[Schema, str | None]:
    """A snapshot's schema and the server version it recorded, read once."""
    # start-up: loaded only with a snapshot
    from schemacite.sources.snapshot import SnapshotError, read_snapshot

    try:
        return read_snapshot(path)
    except SnapshotError as e:
        raise UsageError(str(e)) from None
