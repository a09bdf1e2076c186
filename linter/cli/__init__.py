"""The `schemacite` command."""

# ruff: noqa: E402 (the imports follow the collector's setting)

from __future__ import annotations

import gc

# a run builds many small objects and few reference cycles: collecting the youngest generation
# every 700 allocations cost a sixth of the time on dumps, and 1 ms of loading the modules below
gc.set_threshold(50_000, 20, 100)

import argparse
import atexit
import importlib
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn

from schemacite import __version__, terminal
from schemacite.cli.common import EXIT_CLEAN, EXIT_ERROR, add_project_options
from schemacite.errors import Stopped, UsageError, closest, internal_error
from schemacite.model.dialects import DEFAULT_TARGET, DIALECTS, TARGETS, Dialect

# the output formats are the plugins' (report/builtin.py's and any pack's): listed when help is asked for
FORMATS_HELP = "how the report is written: one of the output formats (default full)"


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors suggest the nearest option, choice or command (Python 3.14's
    `suggest_on_error`, by hand), and whose unknown options are told by the command's own parser."""

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        known, extras = self.parse_known_args(args, namespace)
        if extras:  # argparse would leave them to the top level, whose usage names no option of the command
            own = self.chosen(known)
            own.error(f"unrecognized arguments: {' '.join(extras)}{own.nearest(extras)}")
        return known

    def chosen(self, known: argparse.Namespace) -> Parser:
        """The parser of the command (and sub-command) the words chose."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                command = action.choices.get(getattr(known, action.dest, None) or "")
                if isinstance(command, Parser):
                    return command.chosen(known)
        return self

    def nearest(self, words: list[str]) -> str:
        """`; did you mean --dialect?` for the first unknown option that is near one of ours."""
        options = [o for action in self._actions for o in action.option_strings]
        for word in words:
            if word.startswith("-") and (close := closest(word.split("=", 1)[0], options)):
                return f"; did you mean {close}?"
        return ""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's own asks shutil for the width, and importing shutil costs a run's start-up
        return self.formatter_class(prog=self.prog, width=terminal.columns() - 2)

    def format_help(self) -> str:
        for action in self._actions:
            if action.help == FORMATS_HELP:  # the registry of output formats, read only for --help
                action.help = _formats_help()
        return super().format_help()

    def error(self, message: str):  # type: ignore[override]
        wrong = re.match(r"argument .*: invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if wrong:
            choices = re.findall(r"'([^']*)'", wrong.group(2)) or [c.strip() for c in wrong.group(2).split(",")]
            close = closest(wrong.group(1), choices)
            if close:
                message += f"; did you mean {close}?"
        super().error(message)


def _comma_list(text: str) -> list[str]:
    """`SC101,SC104` or `SC101`: a flag's values, comma-separated as ruff and squawk take them."""
    return [part.strip() for part in text.split(",") if part.strip()]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dialect",
        choices=[str(d) for d in DIALECTS],  # named as typed in an error, not as the enum's repr
        help="SQL dialect (default: the config's, else the --snapshot's server, else told from the files: their "
        "MySQL or PostgreSQL marks, or a Prisma or Drizzle project's provider; files with no mark of either are "
        f"read as {Dialect.POSTGRES}, files with marks of both stop the run)",
    )
    versions = ", ".join(f"{d}-{'|'.join(TARGETS[d])}" for d in DIALECTS)
    p.add_argument(
        "--target",
        help=f"server version: {versions} (default: the dialect's {', '.join(DEFAULT_TARGET.values())})",
    )
    p.add_argument(
        "--history",
        action="append",
        default=[],
        metavar="PATH",
        help="migrations (file, folder or glob) replayed before PATHS; repeatable",
    )
    p.add_argument("--snapshot", metavar="FILE", help="start from a snapshot taken with `schemacite snapshot`")
    p.add_argument("--schema", dest="old_snapshot", metavar="FILE", help=argparse.SUPPRESS)  # before 0.2
    p.add_argument("--config", metavar="FILE", help="pyproject.toml or .schemacite.toml to read (default: nearest one)")
    p.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")
    p.add_argument(
        "--no-cache", action="store_true", help="do not read or write the parse cache (in ~/.cache/schemacite)"
    )


def _formats_help() -> str:
    """`--format`'s help: the output formats the plugins offer (the README's table says what each writes)."""
    # start-up: the plugins load only for --help here; a run checks its format when it resolves its project
    from schemacite.lint.plugins import output_formats, plugin_manager

    names = ", ".join(output_formats(plugin_manager()))
    return f"how the report is written: {names.replace('%', '%%')} (default full; text is its former name)"


def _output(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--output-format",
        "--format",
        dest="format",
        metavar="FORMAT",
        default="full",
        help=FORMATS_HELP,
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report to FILE and print only the summary (- is standard output)",
    )
    p.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colour the text report (default auto)"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary line; no progress display")


def _lint_options(lint: argparse.ArgumentParser) -> None:
    lint.add_argument(
        "paths", nargs="*", metavar="PATH", help="files, folders or globs (default: .); - reads standard input"
    )
    _common(lint)
    add_project_options(lint)
    _output(lint)
    lint.add_argument(
        "--fail-on", choices=("info", "warning", "error"), help="lowest severity that fails the run (default: warning)"
    )
    comma_list = {"action": "extend", "type": _comma_list, "default": []}
    lint.add_argument(
        "--select",
        metavar="RULES",
        help="only these rules (names, codes or code prefixes, comma-separated; repeatable)",
        **comma_list,
    )
    lint.add_argument(
        "--ignore",
        "--disable",
        dest="disable",
        metavar="RULES",
        help="turn these rules off (comma-separated; repeatable)",
        **comma_list,
    )
    lint.add_argument(
        "--exclude",
        metavar="PATTERNS",
        help="path patterns to replay as history but not lint (comma-separated; replaces the config's exclude)",
        **comma_list,
    )
    lint.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when there are findings (input errors still exit 2)",
    )
    lint.add_argument("--fix", action="store_true", help="apply the safe fixes in place, then report what is left")
    lint.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix or --diff, apply the unsafe fixes too (see `explain`)"
    )
    lint.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff of what --fix would change; change nothing; exit 1 when there is a change",
    )
    lint.add_argument(
        "--fix-committed",
        action="store_true",
        help="with --fix or --diff, fix files git holds as committed too (by default, in a git work tree, only "
        "files new or changed since the last commit, or since --since REV, are fixed: a committed migration "
        "may be deployed already)",
    )
    lint.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    lint.add_argument("--write-baseline", metavar="FILE", help="record today's findings in FILE and exit 0")
    lint.add_argument(
        "--statistics", action="store_true", help="print only how many findings each rule produced, and the summary"
    )


def _rules_options(rules: argparse.ArgumentParser) -> None:
    rules.add_argument(
        "selectors", nargs="*", metavar="RULE", help="only these rules (code, name or code prefix, any case)"
    )
    rules.add_argument("--format", choices=("text", "json"), default="text", help="text or json (default text)")
    rules.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")


def _explain_options(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("rule", help="rule name or code, in any case")
    explain.add_argument("--format", choices=("text", "json"), default="text", help="text or json (default text)")
    explain.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")


def _evidence_options(evidence: argparse.ArgumentParser) -> None:
    actions = evidence.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every record: id, kind, source, dialects")
    show = actions.add_parser("show", help="one record in full")
    show.add_argument("id", help="the record's id (see `schemacite evidence list`)")
    reproduce = actions.add_parser(
        "reproduce", help="run a rule's experiments on your server, inside a scratch area dropped at the end"
    )
    reproduce.add_argument("rule", help="rule name or code")
    reproduce.add_argument("--dsn", required=True, help="the server: mysql://, mariadb:// or postgresql:// URL")
    reproduce.add_argument("--rows", type=int, metavar="N", help="rows per table (default: each experiment's own)")
    reproduce.add_argument(
        "--threads", type=int, metavar="N", help="concurrent writers (default: each experiment's own)"
    )
    reproduce.add_argument(
        "--subscriber-dsn",
        metavar="DSN",
        help="PostgreSQL no-primary-key: the subscriber server (default: a scratch database on the same server)",
    )
    reproduce.add_argument(
        "--repeat",
        type=int,
        default=5,
        metavar="N",
        help="runs of each experiment; the figures are their medians and spreads (default: 5)",
    )
    reproduce.add_argument("--save", metavar="FILE", help="append the results to FILE as evidence records")
    for p in (listing, show, reproduce):
        p.add_argument("--format", choices=("text", "json"), default="text", help="text or json (default text)")
        p.add_argument("--config", metavar="FILE", help="config whose evidence files to read (default: nearest one)")
        p.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")


def _locks_options(locks: argparse.ArgumentParser) -> None:
    locks.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or globs (default: .)")
    _common(locks)
    add_project_options(locks)
    locks.add_argument("--format", choices=("text", "json"), default="text", help="text or json (default text)")
    locks.add_argument("--verify", metavar="DSN", help="measure each statement on a scratch copy on this server")
    locks.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colour the table (default auto)"
    )


def _audit_options(audit: argparse.ArgumentParser) -> None:
    audit.add_argument("dsns", nargs="+", metavar="DSN", help="mysql://, mariadb:// or postgresql:// URL")
    audit.add_argument(
        "--schema", dest="schemas", action="append", default=[], metavar="NAME", help="limit to schema; repeatable"
    )
    audit.add_argument(
        "--sample",
        type=float,
        default=0,
        metavar="SECONDS",
        help="read counters twice, SECONDS apart, and use the difference",
    )
    audit.add_argument("--config", metavar="FILE", help="pyproject.toml or .schemacite.toml to read")
    audit.add_argument(
        "--fail-on", choices=("info", "warning", "error"), help="lowest severity that fails the run (default: warning)"
    )
    audit.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")
    audit.add_argument(
        "--statistics", action="store_true", help="print only how many findings each rule produced, and the summary"
    )
    audit.add_argument("--jobs", type=int, default=4, help="targets audited at once (default 4)")
    audit.add_argument(
        "--timeout", type=float, default=10, metavar="SECONDS", help="connection timeout per target (default 10)"
    )
    _output(audit)


def _server_options(server: argparse.ArgumentParser) -> None:
    server.add_argument(
        "--stdio",
        action="store_true",
        help="talk over standard input and output (the only transport; accepted for clients that pass it)",
    )


def _snapshot_options(snap: argparse.ArgumentParser) -> None:
    snap.add_argument("dsn", metavar="DSN", help="mysql://, mariadb:// or postgresql:// URL")
    snap.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the snapshot file to write (- is standard output)"
    )
    snap.add_argument(
        "--schema", dest="schemas", action="append", default=[], metavar="NAME", help="limit to schema; repeatable"
    )
    snap.add_argument(
        "--sample",
        type=float,
        default=0,
        metavar="SECONDS",
        help="read counters twice, SECONDS apart, and use the difference",
    )
    snap.add_argument("--timeout", type=float, default=10, metavar="SECONDS", help="connection timeout (default 10)")
    snap.add_argument("--quiet", "-q", action="store_true", help="no progress display or summary line")


def _alembic_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-c", "--alembic-config", default="alembic.ini", metavar="FILE", help="Alembic's config (default: alembic.ini)"
    )
    p.add_argument("--after", metavar="REV", help="only the revisions after REV, the earlier ones as history")
    p.add_argument(
        "--from",
        dest="start",
        metavar="REV",
        help="print only REV:head (Alembic's own range): for revisions before REV that offline mode cannot run; "
        "give their schema with --history or --snapshot",
    )
    p.add_argument("--to", dest="end", metavar="REV", help="the last revision to print (default: head)")
    p.add_argument(
        "--since",
        dest="alembic_since",
        metavar="REV|A:B",
        help="REV: as --after REV; A:B: as --from A --to B (Alembic's range)",
    )
    p.add_argument("--only", metavar="FILE", help="only this revision file's findings (the post-write hook's)")
    _common(p)
    _output(p)
    p.set_defaults(framework=None, since=None, stdin_filename=None, exclude=[])
    p.add_argument("--fail-on", choices=("info", "warning", "error"), help="lowest severity that fails the run")
    comma_list = {"action": "extend", "type": _comma_list, "default": []}
    p.add_argument("--select", metavar="RULES", help="only these rules (comma-separated)", **comma_list)
    p.add_argument("--ignore", dest="disable", metavar="RULES", help="turn these rules off", **comma_list)
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")


def _rehearse_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="the change: migration files, folders or globs")
    p.add_argument("--dialect", choices=[str(d) for d in DIALECTS], help="SQL dialect (default: told from the files)")
    p.add_argument(
        "--history",
        action="append",
        default=[],
        metavar="PATH",
        help="the migrations before the change (file, folder or glob), replayed first; repeatable",
    )
    p.add_argument(
        "--snapshot", metavar="FILE", help="production's table sizes, from `schemacite snapshot` (no row is read)"
    )
    p.add_argument(
        "--rows",
        action="append",
        default=[],
        metavar="TABLE=N",
        help="a table's rows in production (overrides the snapshot's); repeatable",
    )
    p.add_argument(
        "--dsn",
        metavar="URL",
        help="a scratch server you own (postgresql:// or mariadb://); default: a throwaway server started from the "
        "server programs on PATH and removed afterwards",
    )
    p.add_argument(
        "--scratch-ok",
        action="store_true",
        help="rehearse on --dsn even though its database holds tables (the rehearsal writes only in databases it "
        "creates, schemacite_scratch_..., and drops them)",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=250_000,
        metavar="N",
        help="rows of the largest size rehearsed; the others are a quarter and a half of it (default 250,000)",
    )
    p.add_argument(
        "--hold-transaction",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="keep a transaction holding a read lock on the first table touched open this long, to show a lock "
        "queue forming behind the change",
    )
    p.add_argument("--format", choices=("text", "json", "html"), default="text", help="text, json or html")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    p.add_argument("--config", metavar="FILE", help="pyproject.toml or .schemacite.toml to read (default: nearest one)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    add_project_options(p)


def _plugins_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")


COMMAND_PARSERS: list[tuple[str, dict, Callable[[argparse.ArgumentParser], None] | None]] = [
    ("lint", {"help": "lint migration files and schema dumps"}, _lint_options),
    ("rules", {"help": "list the rules"}, _rules_options),
    ("explain", {"aliases": ["rule"], "help": "a rule's documentation and evidence"}, _explain_options),
    ("plugins", {"help": "list loaded plugins and the rules and formats each adds"}, _plugins_options),
    ("evidence", {"help": "the evidence catalogue; its experiments on your own server"}, _evidence_options),
    ("locks", {"help": "what each statement locks, per server version"}, _locks_options),
    ("audit", {"help": "audit live servers (read-only)"}, _audit_options),
    (
        "server",
        {
            "help": "language server for editors: diagnostics, hover and fixes as you type (LSP)",
            "description": "A Language Server Protocol server on standard input and output; see docs/editors.md.",
        },
        _server_options,
    ),
    ("snapshot", {"help": "write a server's schema and workload to JSON"}, _snapshot_options),
    (
        "rehearse",
        {
            "help": "run the change at several table sizes on a scratch server, with traffic, and measure it",
            "description": "Replays the history into scratch databases, fills the tables the change touches with "
            "synthetic rows at three sizes, runs the change as its runner does while probe sessions read and write "
            "those tables, and reports the locks taken, the time they were held, how long traffic waited, and the "
            "time expected at production size. Never connects to a production server.",
        },
        _rehearse_options,
    ),
    (
        "alembic",
        {
            "help": "lint the SQL of an Alembic project's revisions (runs its env.py, offline: no database)",
            "description": "Runs `alembic upgrade head --sql` through Alembic's API in this process (the "
            "project's env.py and revisions run, as with alembic itself) and lints what it prints, each finding "
            "at the op. call of its revision.",
        },
        _alembic_options,
    ),
]


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `command`, one of ours, only that command is built (a run parses one
    command, and building all of them was a fortieth of a one-file lint); otherwise every command,
    options and all, for the top level's help and its list of commands."""
    top = Parser(prog="schemacite", description="Evidence-backed schema linter for MySQL, MariaDB and PostgreSQL.")
    top.add_argument("--version", action="version", version=f"schemacite {__version__}")
    top.add_argument("--debug", action="store_true", help="print the traceback of an internal error")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = [c for c in COMMAND_PARSERS if command == c[0] or command in c[1].get("aliases", ())]
    for name, kwargs, options in named or COMMAND_PARSERS:
        p = sub.add_parser(name, **kwargs)
        if options is not None:
            options(p)
    return top


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = parser(_command_word(words)).parse_args(words)
    args.argv = words  # what a report says produced it
    try:
        return _command(args.command)(args)
    except UsageError as e:
        print(f"schemacite: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Stopped as e:  # SIGTERM or SIGHUP during locks --verify, after its scratch area was dropped
        return 128 + e.signum
    except BrokenPipeError:  # `schemacite ... | head`
        sys.stderr.close()
        return EXIT_CLEAN
    except Exception as e:  # a defect of ours: exit 2, never 1, which CI reads as "findings"
        # start-up: needed only when a command crashed
        from schemacite.live.scratch import pending

        if pending():  # a stop signal, whose exception a database driver replaced with its own
            return 128 + pending()
        if args.debug:
            # start-up: needed only when a command crashed
            import traceback

            traceback.print_exc()
        print(f"schemacite: {internal_error(e)}", file=sys.stderr)
        return EXIT_ERROR


def _command_word(words: list[str]) -> str | None:
    # the top level's options take no value: the first other word is the command
    return next((w for w in words if not w.startswith("-")), None)


# commands that leave nothing for the interpreter's teardown to close when they return: no
# connection, no thread, no file open (lint writes its cache, baseline and fixes through `with`)
QUICK_EXIT = frozenset({"lint"})


def run() -> NoReturn:
    """The console script: `main()`, then, after a command of QUICK_EXIT, an end without the
    interpreter's teardown, which frees every object one by one (a tenth of the instructions of a
    one-file lint, 40 million on the PostgreSQL corpus). What teardown does that anyone could see is
    done first: the atexit handlers (a plugin's, logging's, `weakref.finalize`'s) and flushing
    stdout and stderr."""
    code = main()
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)  # CPython's; elsewhere the usual exit
    threads = sys.modules.get("threading")
    if _command_word(sys.argv[1:]) not in QUICK_EXIT or run_exit_handlers is None:
        sys.exit(code)
    if threads is not None and threads.active_count() > 1:  # teardown waits for them
        sys.exit(code)
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or a stream already closed
            pass
    os._exit(code)


def _command(name: str):
    """The function running a command; its module is imported only when that command runs."""
    module, function = COMMANDS[name]
    return getattr(importlib.import_module(f"schemacite.cli.{module}"), function)


COMMANDS = {
    "lint": ("lint", "cmd_lint"),
    "rules": ("rules", "cmd_rules"),
    "explain": ("rules", "cmd_explain"),
    "rule": ("rules", "cmd_explain"),
    "plugins": ("rules", "cmd_plugins"),
    "locks": ("locks", "cmd_locks"),
    "audit": ("audit", "cmd_audit"),
    "snapshot": ("audit", "cmd_snapshot"),
    "evidence": ("evidence", "cmd_evidence"),
    "server": ("server", "cmd_server"),
    "alembic": ("alembic", "cmd_alembic"),
    "rehearse": ("rehearse", "cmd_rehearse"),
}
