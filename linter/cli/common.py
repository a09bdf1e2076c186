"""What every command shares: configuration, cache and plugins from the command line, the
report and its streams (findings on stdout, errors and notes on stderr)."""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import IO

from schemacite.errors import UsageError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def use_color(choice: str, stream: IO[str]) -> bool:
    if choice == "always" or (choice == "auto" and os.environ.get("FORCE_COLOR")):
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _config(args: argparse.Namespace, paths: list[str]):
    # start-up: loaded only when this runs, not by every import of this module
    from schemacite.lint.config import ConfigError
    from schemacite.lint.engine import resolve_config

    if getattr(args, "old_snapshot", None):
        print(
            "schemacite: note: `--schema FILE` is now `--snapshot FILE` for lint and locks "
            "(`audit --schema NAME` names a schema)",
            file=sys.stderr,
        )
        args.snapshot = args.snapshot or args.old_snapshot
        args.old_snapshot = None

    try:
        config = resolve_config(paths, getattr(args, "config", None), _overrides(args))
    except ConfigError as e:
        raise UsageError(str(e)) from None
    use_evidence(config.evidence)
    return config


def use_evidence(paths) -> None:
    """Cite these catalogue files too (checked now: a bad record stops the run, exit 2)."""
    if not paths:
        return
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import load_catalogue, use_files

    use_files(paths)
    try:
        load_catalogue()
    except ValueError as e:
        raise UsageError(f"evidence: {e}") from None


def _overrides(args: argparse.Namespace) -> dict:
    return {
        key: getattr(args, key, None)
        for key in ("dialect", "target", "snapshot", "fail_on", "select", "disable", "framework", "exclude")
    }


def _cache(args: argparse.Namespace, config):
    if getattr(args, "no_cache", False):
        return None
    # start-up: loaded only when this runs, not by every import of this module
    from schemacite.sources.cache import ParseCache

    return ParseCache()


def _plugin_manager(args: argparse.Namespace):
    # start-up: loaded only when this runs, not by every import of this module
    from schemacite.lint.plugins import evidence_paths, plugin_manager

    pm = plugin_manager(load_entrypoints=not getattr(args, "no_plugins", False))
    use_evidence(evidence_paths(pm))
    return pm


def _reporter(pm, fmt: str, **kw):
    cls = pm.hook.schemacite_reporter(format=fmt)
    if cls is None:
        raise UsageError(f"no reporter for format {fmt!r}")
    return cls(**kw)


def emit_report(args: argparse.Namespace, pm, result) -> None:
    """Write the report where asked. The terminal gets only the summary (and the counts) with
    -o FILE, -q or --statistics, as ruff does; `-o -` is standard output. Findings go to stdout
    (or the file); input errors and notes go to stderr."""
    statistics = getattr(args, "statistics", False)
    result.command = result.command or command_line(getattr(args, "argv", []))
    diagnostics(result.errors, result.notes)
    output = None if args.output in (None, "-") else args.output
    if output:
        buf = io.StringIO()
        _reporter(pm, args.format, statistics=statistics).render(result, buf)
        try:
            with open(output, "w", encoding="utf-8") as f:
                f.write(buf.getvalue())
        except OSError as e:
            raise UsageError(f"cannot write {output}: {e.strerror}") from None
    brief = bool(output or getattr(args, "quiet", False) or statistics)
    if args.format in ("full", "text") or (brief and args.format == "concise") or output:
        reporter = _reporter(pm, "full", color=use_color(args.color, sys.stdout), statistics=statistics)
        reporter.summary_only = brief
    else:
        reporter = _reporter(pm, args.format, statistics=statistics)
    reporter.render(result, sys.stdout)


def _sibling_sql(folder: str, name: str) -> bool:
    low = name.lower()
    return low.endswith(".sql") and not low.endswith(".down.sql") and os.path.isfile(os.path.join(folder, name))


def command_line(argv: list[str]) -> str:
    """`schemacite ARGS` as a shell would take it, with any password in a server URL masked."""
    # start-up: loaded only when this runs, not by every import of this module
    import shlex

    if not any("://" in a for a in argv):  # no server URL to mask: a lint run never loads the server code
        return shlex.join(["schemacite", *argv])
    # start-up: server code loads only when a server is reached
    from schemacite.live.servers import mask

    return shlex.join(["schemacite", *(mask(a) for a in argv)])


def diagnostics(errors, notes=()) -> None:
    """Input errors (`file:line: message`) and notes, on stderr."""
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def add_project_options(p: argparse.ArgumentParser) -> None:
    """Options saying what the files are: their framework, the change among them, standard input."""
    # the names are checked with the settings (an unknown one lists them): importing every
    # framework here would slow down each start
    p.add_argument(
        "--framework",
        metavar="NAME",
        help="migration framework: goose, sql-migrate, dbmate, liquibase, sqitch, flyway, golang-migrate, morph, prisma, atlas, "
        "diesel, sqlx, drizzle, node-pg-migrate, supabase, graphile-migrate, pop, hasura, synapse, "
        "django, alembic, rails or plain (default: detected from the files)",
    )
    p.add_argument(
        "--since",
        metavar="REV",
        help="git: files changed since REV are the change, the other files under PATHS its history",
    )
    p.add_argument(
        "--stdin-filename",
        metavar="NAME",
        default="stdin.sql",
        help="the name SQL read from standard input (PATH -) is reported under (default stdin.sql)",
    )


class Inputs:
    """What a lint or locks run reads: the change, its history, standard input, and the settings
    once the dialect is known (from the config, the command line, or the files)."""

    def __init__(self, args: argparse.Namespace, config, paths: list[str]):
        self.args, self.config, self.notes = args, config, []
        self.paths = list(paths)
        self.history = [*config.history, *getattr(args, "history", [])]
        self.stdin: tuple[str, bytes] | None = None
        self.dialect: tuple[str, str] | None = None
        if "-" in self.paths:
            name = args.stdin_filename
            self.stdin = (name, sys.stdin.buffer.read())
            self.paths = [name if p == "-" else p for p in self.paths]
        if getattr(args, "since", None):
            self._since(args.since)
        if not config.dialect_given and not config.snapshot:
            self._detect()

    def _since(self, rev: str) -> None:
        # start-up: loaded only when this runs, not by every import of this module
        from schemacite.sources.files import expand
        from schemacite.sources.git import GitError, changed_since

        others = [p for p in self.paths if not self.stdin or p != self.stdin[0]]
        try:
            changed, base = changed_since(rev, others[0] if others else ".")
        except GitError as e:
            raise UsageError(str(e)) from None
        files, _ = expand(others)  # errors are reported when the run reads them
        change = [f for f in files if os.path.realpath(f) in changed]
        self.history += [f for f in files if os.path.realpath(f) not in changed]
        kept = [p for p in others if not os.path.exists(p) and not any(c in p for c in "*?[")]  # missing: errors
        self.paths = change + kept + ([self.stdin[0]] if self.stdin else [])
        self.notes.append(
            f"--since {rev} (merge base {base}): {len(change)} changed file(s) linted, "
            f"{len(files) - len(change)} unchanged file(s) replayed as history"
        )

    def _detect(self) -> None:
        # start-up: loaded only when this runs, not by every import of this module
        from schemacite.lint.config import ConfigError
        from schemacite.lint.engine import resolve_config
        from schemacite.sources.dialect import DEFAULT_DIALECT, FILES, HEAD, NO_MARKS, detect_dialect
        from schemacite.sources.engines import named_dialect, neutral
        from schemacite.sources.files import expand, head
        from schemacite.sources.frameworks import journal_dialect, prisma_provider

        named = [p for p in self.paths if not self.stdin or p != self.stdin[0]]
        files, missing = expand([*self.history, *named])
        if missing or not files and not self.stdin:
            return  # names that lead nowhere: the run reports them (exit 2) in any dialect
        engines = named_dialect(files)  # files named for an engine: only those any engine runs bear marks
        files = neutral(files) if engines else files
        texts = [head(f, HEAD) for f in files[:FILES]]
        if self.stdin:
            texts.append(self.stdin[1][:HEAD].decode("utf-8", "replace"))
        provider = prisma_provider(files)
        provider = (provider, f'migration_lock.toml: provider = "{provider}"') if provider else journal_dialect(files)
        if not provider and engines and engines[0]:
            provider = (engines[0], engines[1])
        dialect, why = detect_dialect(texts, provider)
        if dialect is None and files:  # a file or two may not say: the other files of their folders may
            # the folders themselves, not the trees below them: a file at a repository's root would
            # otherwise walk the whole repository on every pre-commit run
            folders = sorted({os.path.dirname(f) or "." for f in files})
            more = [os.path.join(d, n) for d in folders for n in sorted(os.listdir(d)) if _sibling_sql(d, n)]
            seen = set(files)
            texts += [head(f, HEAD) for f in [m for m in more if m not in seen][:FILES]]
            dialect, why = detect_dialect(texts, provider)
            why = why if dialect is None else f"{why}, in the files beside them"
        if dialect is None and engines:  # files for several engines: the default would pick one blindly
            why = engines[1] if why == NO_MARKS else f"{engines[1]}; {why}"
        if dialect is None and why == NO_MARKS:  # portable SQL: the documented default reads it
            dialect, why = DEFAULT_DIALECT, f"the default: {NO_MARKS}"
        if dialect is None:
            raise UsageError(f"cannot tell the SQL dialect ({why}): pass --dialect mysql, mariadb or postgres")
        self.dialect = (dialect, why)
        overrides = _overrides(self.args)
        overrides["dialect"] = dialect
        try:
            self.config = resolve_config(self.paths, getattr(self.args, "config", None), overrides)
        except ConfigError as e:
            raise UsageError(str(e)) from None
        self.config.dialect_given = False
