"""The `schemacite` command."""
from __future__ import annotations

import argparse
import io
import os
import sys
from typing import IO

from schemacite.errors import UsageError, internal_error
from schemacite.locks.scratch import Stopped

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dialect", choices=("mysql", "mariadb", "postgres"), help="SQL dialect (default from config, else postgres)")
    p.add_argument("--target", help="server version: mysql-5.7|8.0|8.4, mariadb-10.6|10.11|11.4, postgres-12..17")
    p.add_argument("--history", action="append", default=[], metavar="PATH",
                   help="migrations (file, folder or glob) replayed before PATHS; repeatable")
    p.add_argument("--snapshot", metavar="FILE", help="start from a snapshot taken with `schemacite snapshot`")
    p.add_argument("--schema", dest="old_snapshot", metavar="FILE", help=argparse.SUPPRESS)  # before 0.2
    p.add_argument("--config", metavar="FILE", help="pyproject.toml or .schemacite.toml to read (default: nearest one)")
    p.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache (in ~/.cache/schemacite)")


def _output(p: argparse.ArgumentParser, formats=FORMATS) -> None:
    p.add_argument("--format", choices=formats, default="text")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE (the terminal gets the text summary)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")


def parser() -> argparse.ArgumentParser:
    from schemacite import __version__

    top = argparse.ArgumentParser(prog="schemacite", description="Evidence-backed schema linter for MySQL, MariaDB and PostgreSQL.")
    top.add_argument("--version", action="version", version=f"schemacite {__version__}")
    top.add_argument("--debug", action="store_true", help="print the traceback of an internal error")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    lint = sub.add_parser("lint", help="lint migration files and schema dumps")
    lint.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or globs (default: .)")
    _common(lint)
    _output(lint)
    lint.add_argument("--fail-on", choices=("info", "warning", "error"), help="lowest severity that fails the run (default: warning)")
    lint.add_argument("--select", action="append", default=[], metavar="RULE", help="only these rules (name, code or code prefix)")
    lint.add_argument("--disable", action="append", default=[], metavar="RULE", help="turn a rule off; repeatable")
    lint.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    lint.add_argument("--write-baseline", metavar="FILE", help="record today's findings in FILE and exit 0")
    lint.add_argument("--statistics", action="store_true", help="count findings per rule")

    rules = sub.add_parser("rules", help="list the rules")
    rules.add_argument("selectors", nargs="*", metavar="RULE", help="only these rules (code, name or code prefix, any case)")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--no-plugins", action="store_true")

    explain = sub.add_parser("explain", aliases=["rule"], help="a rule's documentation and evidence")
    explain.add_argument("rule", help="rule name or code, in any case")
    explain.add_argument("--format", choices=("text", "json"), default="text")
    explain.add_argument("--no-plugins", action="store_true")

    sub.add_parser("plugins", help="list loaded plugins")

    locks = sub.add_parser("locks", help="what each statement locks, per server version")
    locks.add_argument("paths", nargs="*", metavar="PATH")
    _common(locks)
    locks.add_argument("--format", choices=("text", "json"), default="text")
    locks.add_argument("--verify", metavar="DSN", help="measure each statement on a scratch copy on this server")
    locks.add_argument("--color", choices=("auto", "always", "never"), default="auto")

    audit = sub.add_parser("audit", help="audit live servers (read-only)")
    audit.add_argument("dsns", nargs="+", metavar="DSN", help="mysql://, mariadb:// or postgresql:// URL")
    audit.add_argument("--schema", dest="schemas", action="append", default=[], metavar="NAME", help="limit to schema; repeatable")
    audit.add_argument("--sample", type=float, default=0, metavar="SECONDS", help="read counters twice, SECONDS apart, and use the difference")
    audit.add_argument("--config", metavar="FILE")
    audit.add_argument("--fail-on", choices=("info", "warning", "error"))
    audit.add_argument("--no-plugins", action="store_true")
    audit.add_argument("--statistics", action="store_true")
    audit.add_argument("--jobs", type=int, default=4, help="targets audited at once (default 4)")
    audit.add_argument("--timeout", type=float, default=10, metavar="SECONDS", help="connection timeout per target (default 10)")
    _output(audit)

    snap = sub.add_parser("snapshot", help="write a server's schema and workload to JSON")
    snap.add_argument("dsn", metavar="DSN")
    snap.add_argument("-o", "--output", required=True, metavar="FILE")
    snap.add_argument("--schema", dest="schemas", action="append", default=[], metavar="NAME")
    snap.add_argument("--sample", type=float, default=0, metavar="SECONDS", help="read counters twice, SECONDS apart, and use the difference")
    snap.add_argument("--timeout", type=float, default=10, metavar="SECONDS", help="connection timeout (default 10)")
    snap.add_argument("--quiet", "-q", action="store_true", help="no progress display or summary line")
    return top


def use_color(choice: str, stream: IO[str]) -> bool:
    if choice == "always" or (choice == "auto" and os.environ.get("FORCE_COLOR")):
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
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
        from schemacite.locks.scratch import pending

        if pending():  # a stop signal, whose exception a database driver replaced with its own
            return 128 + pending()
        if args.debug:
            import traceback

            traceback.print_exc()
        print(f"schemacite: {internal_error(e)}", file=sys.stderr)
        return EXIT_ERROR


def _config(args: argparse.Namespace, paths: list[str]):
    from schemacite.config import ConfigError
    from schemacite.engine import resolve_config

    if getattr(args, "old_snapshot", None):
        print("schemacite: note: `--schema FILE` is now `--snapshot FILE` for lint and locks "
              "(`audit --schema NAME` names a schema)", file=sys.stderr)
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
    from schemacite.cache import ParseCache

    return ParseCache()


def _plugin_manager(args: argparse.Namespace):
    from schemacite.plugins import plugin_manager

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


def cmd_lint(args: argparse.Namespace) -> int:
    from schemacite.engine import Linter

    paths = args.paths or ["."]
    config = _config(args, paths)
    base = None
    if config.snapshot:
        from schemacite.snapshot import SnapshotError, load_snapshot, snapshot_target

        try:
            base = load_snapshot(config.snapshot)
        except SnapshotError as e:
            raise UsageError(str(e)) from None
        if not config.dialect_given:  # the snapshot knows which server it came from
            args.dialect, args.target = base.dialect, snapshot_target(config.snapshot)
            config = _config(args, paths)
    pm = _plugin_manager(args)
    try:
        linter = Linter(config, pm)
    except ValueError as e:
        raise UsageError(str(e)) from None
    result = linter.lint(paths, [*config.history, *args.history], base, cache=_cache(args, config))
    if args.write_baseline:
        from schemacite.baseline import write_baseline

        write_baseline(args.write_baseline, result.findings)
        diagnostics(result.errors, result.notes)
        print(f"schemacite: recorded {len(result.findings)} finding(s) in {args.write_baseline}", file=sys.stderr)
        return EXIT_ERROR if result.errors else EXIT_CLEAN
    if args.baseline:
        from schemacite.baseline import BaselineError, filter_new

        try:
            result.findings, matched = filter_new(result.findings, args.baseline)
        except (BaselineError, OSError) as e:
            raise UsageError(f"baseline {args.baseline}: {e}") from None
        if matched:
            result.notes.append(f"{matched} finding(s) already in baseline {args.baseline} not shown")
    emit_report(args, pm, result)
    return result.exit_code(config.fail_on)


def cmd_rules(args: argparse.Namespace) -> int:
    from schemacite.plugins import rule_classes

    classes = rule_classes(_plugin_manager(args))
    if args.selectors:
        chosen = []
        for typed in args.selectors:
            key = typed.lower()
            hits = [c for c in classes if key in (c.name, c.code.lower()) or c.code.lower().startswith(key)]
            if not hits:
                raise UsageError(f"unknown rule {typed!r} (see `schemacite rules`)")
            chosen += [c for c in hits if c not in chosen]
        classes = chosen
    if args.format == "json":
        import json

        print(json.dumps([_rule_json(c) for c in classes], indent=2))
        return EXIT_CLEAN
    width = max(len(c.name) for c in classes)
    for c in classes:
        dialects = ",".join(sorted(c.dialects))
        print(f"{c.code}  {c.name:<{width}}  {str(c.default_severity):<7}  {c.status:<7}  {dialects:<22}  {c.doc().splitlines()[0]}")
    return EXIT_CLEAN


def _rule_json(cls) -> dict:
    return {
        "code": cls.code,
        "name": cls.name,
        "summary": cls.doc().splitlines()[0],
        "severity": str(cls.default_severity),
        "status": cls.status,
        "dialects": sorted(cls.dialects),
        "options": {k: {"default": o.default, "help": o.help} for k, o in cls.options.items()},
        "evidence": list(cls.evidence),
        "evidence_note": cls.evidence_note,
        "url": cls.url(),
    }


def find_rule(classes, typed: str):
    key = typed.lower()
    for c in classes:
        if key in (c.name, c.code.lower()):
            return c
    raise UsageError(f"unknown rule {typed!r} (see `schemacite rules`)")


def explanation(cls) -> str:
    """The rule's documentation followed by the full evidence it cites."""
    from schemacite.evidence import load_catalogue

    catalogue = load_catalogue()
    lines = [f"# {cls.code} {cls.name}", "", cls.doc(), "", "## Evidence", ""]
    if not cls.evidence:
        lines.append(cls.evidence_note or "No measurement supports this rule.")
    for eid in cls.evidence:
        e = catalogue.get(eid)
        if e is None:
            lines.append(f"- `{eid}` (missing from the catalogue)")
            continue
        lines.append(f"### {e.title} (`{e.id}`)")
        lines.append(f"{e.kind}; {e.source}{', ' + e.published if e.published else ''}; applies to {', '.join(sorted(e.applies_to))}")
        if e.url:
            lines.append(f"<{e.url}>")
        if e.setup:
            lines.append("Setup: " + "; ".join(f"{k}: {v}" for k, v in e.setup.items()))
        for fig in e.figures:
            lines.append(f"- {fig.get('metric')}: **{fig.get('value')}**" + (f" ({fig['note']})" if fig.get("note") else ""))
        if e.shows:
            lines.append(f"Shows: {e.shows}")
        if e.limits:
            lines.append(f"Limits: {e.limits}")
        lines.append("")
    if cls.evidence_note and cls.evidence:
        lines.append(f"Note: {cls.evidence_note}")
    return "\n".join(lines)


def cmd_explain(args: argparse.Namespace) -> int:
    from schemacite.plugins import rule_classes

    cls = find_rule(rule_classes(_plugin_manager(args)), args.rule)
    if args.format == "json":
        import json

        from schemacite.evidence import load_catalogue

        catalogue = load_catalogue()
        doc = _rule_json(cls)
        doc["explanation"] = cls.doc()
        doc["evidence"] = [catalogue[i].as_dict() if i in catalogue else {"id": i} for i in cls.evidence]
        print(json.dumps(doc, indent=2))
        return EXIT_CLEAN
    from rich.console import Console
    from rich.markdown import Markdown

    # Markdown rendered to the terminal's width (80 columns, without colour, when piped)
    color = use_color("auto", sys.stdout)
    if color:
        Console(highlight=False).print(Markdown(explanation(cls)))
        return EXIT_CLEAN
    console = Console(highlight=False, no_color=True, width=int(os.environ.get("COLUMNS") or 80))
    with console.capture() as captured:
        console.print(Markdown(explanation(cls)))
    print("\n".join(line.rstrip() for line in captured.get().splitlines()))
    return EXIT_CLEAN


def cmd_plugins(args: argparse.Namespace) -> int:
    pm = _plugin_manager(args)
    for name, plugin in pm.list_name_plugin():
        hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
        print(f"{name}  {', '.join(hooks)}")
    return EXIT_CLEAN


def cmd_locks(args: argparse.Namespace) -> int:
    from schemacite.lockreport import run_locks

    config = _config(args, args.paths or ["."])
    return run_locks(args, config, _cache(args, config))


def cmd_audit(args: argparse.Namespace) -> int:
    from schemacite.audit import run_audit

    return run_audit(args, _config(args, []), _plugin_manager(args))


def cmd_snapshot(args: argparse.Namespace) -> int:
    from schemacite.audit import run_snapshot

    return run_snapshot(args)


COMMANDS = {
    "lint": cmd_lint,
    "rules": cmd_rules,
    "explain": cmd_explain,
    "rule": cmd_explain,
    "plugins": cmd_plugins,
    "locks": cmd_locks,
    "audit": cmd_audit,
    "snapshot": cmd_snapshot,
}

if __name__ == "__main__":
    sys.exit(main())
