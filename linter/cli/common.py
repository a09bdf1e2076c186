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

    overrides = {
        "dialect": getattr(args, "dialect", None),
        "target": getattr(args, "target", None),
        "snapshot": getattr(args, "snapshot", None),
        "fail_on": getattr(args, "fail_on", None),
        "select": getattr(args, "select", None),
        "disable": getattr(args, "disable", None),
    }
    try:
        config = resolve_config(paths, getattr(args, "config", None), overrides)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    return config


def _cache(args: argparse.Namespace, config):
    if getattr(args, "no_cache", False):
        return None
    from schemacite.sources.cache import ParseCache

    return ParseCache()


def _plugin_manager(args: argparse.Namespace):
    from schemacite.lint.plugins import plugin_manager

    return plugin_manager(load_entrypoints=not getattr(args, "no_plugins", False))


def _reporter(pm, fmt: str, **kw):
    cls = pm.hook.schemacite_reporter(format=fmt)
    if cls is None:
        raise UsageError(f"no reporter for format {fmt!r}")
    return cls(**kw)


def emit_report(args: argparse.Namespace, pm, result) -> None:
    """Write the report where asked; with --output, the terminal still gets the text summary.
    Findings go to stdout (or the file); input errors and notes go to stderr."""
    statistics = getattr(args, "statistics", False)
    diagnostics(result.errors, result.notes)
    if args.output:
        buf = io.StringIO()
        _reporter(pm, args.format, statistics=statistics).render(result, buf)
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(buf.getvalue())
        except OSError as e:
            raise UsageError(f"cannot write {args.output}: {e.strerror}") from None
        if args.format == "text":
            return
        fmt = "text"
    else:
        fmt = args.format
    reporter = _reporter(pm, fmt, color=use_color(args.color, sys.stdout), statistics=statistics)
    reporter.render(result, sys.stdout)


def diagnostics(errors, notes=()) -> None:
    """Input errors (`file:line: message`) and notes, on stderr."""
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
