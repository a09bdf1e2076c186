"""What every command shares: the project the command line names (`lint.project` resolves it), the
cache, the report and its streams (findings on stdout, errors and notes on stderr)."""

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


def resolve_project(
    args: argparse.Namespace,
    paths: list[str],
    *,
    files: bool = True,
    rules: bool = True,
    output: str | None = None,
    parse_cache=None,
):
    """The project the command line names, resolved as every door resolves one (`lint.project`):
    the flags are its settings, `-` among the paths standard input; `parse_cache`, the cache the run
    lints with, keeps what the files' marks told of the dialect."""
    # start-up: every command loads this module; --help and --version resolve no project
    from schemacite.lint.project import Project

    if getattr(args, "old_snapshot", None):
        print(
            "schemacite: note: `--schema FILE` is now `--snapshot FILE` for lint and locks "
            "(`audit --schema NAME` names a schema)",
            file=sys.stderr,
        )
        args.snapshot = args.snapshot or args.old_snapshot
        args.old_snapshot = None
    stdin = (args.stdin_filename, sys.stdin.buffer.read()) if files and "-" in paths else None
    try:
        return Project.resolve(
            paths,
            config_file=getattr(args, "config", None),
            named_by="--config",
            overrides=_overrides(args),
            history=getattr(args, "history", []),
            stdin=stdin,
            since=getattr(args, "since", None),
            plugins=not getattr(args, "no_plugins", False),
            output=output,
            rules=rules,
            files=files,
            cache=parse_cache,
            ask="pass --dialect mysql, mariadb or postgres",
        )
    except ValueError as e:  # a ConfigError, or a rule's settings
        raise UsageError(str(e)) from None


def _overrides(args: argparse.Namespace) -> dict:
    return {
        key: getattr(args, key, None)
        for key in ("dialect", "target", "snapshot", "fail_on", "select", "disable", "framework", "exclude")
    }


def cache(args: argparse.Namespace):
    if getattr(args, "no_cache", False):
        return None
    # start-up: the parse cache (and hashlib) loads only for a run that keeps one (not --no-cache)
    from schemacite.sources.cache import ParseCache

    return ParseCache()


def plugins(args: argparse.Namespace):
    """The plugins, for a command that lints nothing (`rules`, `explain`, `plugins`)."""
    # start-up: every command loads this module; --help and --version load no plugins
    from schemacite.lint.project import load_plugins

    return load_plugins(not getattr(args, "no_plugins", False))


def emit_report(args: argparse.Namespace, project, result) -> None:
    """Write the report where asked. The terminal gets only the summary (and the counts) with
    -o FILE, -q or --statistics, as ruff does; `-o -` is standard output. Findings go to stdout
    (or the file); input errors and notes go to stderr."""
    statistics = getattr(args, "statistics", False)
    result.command = result.command or command_line(getattr(args, "argv", []))
    diagnostics(result.errors, result.notes)
    output = None if args.output in (None, "-") else args.output
    if output:
        buf = io.StringIO()
        project.reporter(args.format, statistics=statistics).render(result, buf)
        try:
            with open(output, "w", encoding="utf-8") as f:
                f.write(buf.getvalue())
        except OSError as e:
            raise UsageError(f"cannot write {output}: {e.strerror}") from None
    brief = bool(output or getattr(args, "quiet", False) or statistics)
    if args.format in ("full", "text") or (brief and args.format == "concise") or output:
        reporter = project.reporter("full", color=use_color(args.color, sys.stdout), statistics=statistics)
        reporter.summary_only = brief
    else:
        reporter = project.reporter(args.format, statistics=statistics)
    reporter.render(result, sys.stdout)


def command_line(argv: list[str]) -> str:
    """`schemacite ARGS` as a shell would take it, with any password in a server URL masked."""
    # start-up: only a command that writes a report (lint, audit) names its command line
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
