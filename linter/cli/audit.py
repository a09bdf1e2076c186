"""`schemacite audit` and `schemacite snapshot`: live servers, read-only."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from schemacite.cli.common import emit_report, resolve_project
from schemacite.errors import UsageError
from schemacite.live.servers import CONNECT_TIMEOUT, Dsn, DsnError, Reading, mask, parse_dsn, read_target
from schemacite.model.record import replace
from schemacite.model.results import Finding, LintResult, RuleInfo, Source
from schemacite.model.statements import ParseError


def cmd_audit(args: argparse.Namespace) -> int:
    return run_audit(args, resolve_project(args, [], files=False, output=args.format))


def cmd_snapshot(args: argparse.Namespace) -> int:

    return run_snapshot(args)


# ---------------------------------------------------------------- progress


class _Progress:
    """A rich progress display on a terminal (stderr); nothing when piped or --quiet."""

    def __init__(self, labels: list[str], enabled: bool):
        self.enabled = enabled
        self.tasks: list[Any] = []
        if enabled:
            # start-up: rich (tens of ms) loads only when there is something to draw
            from rich.console import Console
            from rich.progress import (
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self.progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.labels = labels
            self.tasks = [self.progress.add_task(f"{label}: waiting", total=1) for label in labels]

    def __enter__(self):
        if self.enabled:
            self.progress.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.progress.stop()

    def status(self, i: int) -> Callable[[str], None]:
        if not self.enabled:
            return lambda text: None

        def update(text: str) -> None:
            self.progress.update(self.tasks[i], description=f"{self.labels[i]}: {text}")

        return update

    def done(self, i: int, reading: Reading) -> None:
        if self.enabled:
            if reading.error:
                text = "[red]failed[/]"
            else:
                text = f"[green]{len(reading.schema.tables)} tables[/] ({reading.version}, {reading.seconds:.1f} s)"
            self.progress.update(self.tasks[i], description=f"{self.labels[i]}: {text}", completed=1)


def _show_progress(args) -> bool:
    return not getattr(args, "quiet", False) and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()


# ---------------------------------------------------------------- commands


def _targets(urls: list[str]) -> tuple[list[Dsn], list[ParseError]]:
    targets, errors = [], []
    for url in urls:
        try:
            targets.append(parse_dsn(url))
        except DsnError as e:
            errors.append(ParseError(file=e.masked, line=0, message=e.reason))
    return targets, errors


def read_all(
    targets: list[Dsn], schemas: list[str], sample: float, timeout: float, jobs: int, progress: bool
) -> list[Reading]:
    """Read every target, at most `jobs` at a time; results in the order given."""
    readings: list[Reading | None] = [None] * len(targets)
    if not targets:
        return []
    workers = max(1, min(jobs, len(targets)))
    with _Progress([t.masked for t in targets], progress) as display, ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            pool.submit(read_target, t, schemas, sample, timeout, display.status(i)): i for i, t in enumerate(targets)
        }
        for future in as_completed(futures):
            i = futures[future]
            readings[i] = future.result()
            display.done(i, readings[i])
    return [r for r in readings if r is not None]


def _order(f: Finding) -> tuple:
    """Per location: the most severe first (unused indexes on insert-heavy tables before the rest)."""
    return (f.location.file, f.location.line, -int(f.severity), f.code, f.table or "", f.message)


def audit_readings(readings: list[Reading], config, pm=None, linter=None) -> LintResult:
    """Run the table rules over every reading that succeeded and merge the results; `linter`, the
    project's, judges the servers of the config's target."""
    # start-up: `snapshot` shares this module and runs no rule
    from schemacite.lint.engine import Linter
    from schemacite.lint.workload import idle

    result = LintResult()
    linters: dict[object, Linter] = {} if linter is None else {linter.config.target: linter}
    rules: dict[str, RuleInfo] = {}
    # a note every database of one server gives (its settings, its statistics reset) is said once
    said: dict[tuple[str, str], list[str]] = {}
    for reading in readings:
        result.files.append(reading.target.masked)
        if reading.error is not None:
            result.errors.append(ParseError(file=reading.target.masked, line=0, message=reading.error))
            continue
        key = reading.server_target
        if key not in linters:
            linters[key] = Linter(replace(config, target=reading.server_target), pm)
        part = linters[key].check_schema(reading.schema, [reading.target.server])
        result.sources.append(
            Source(
                label=reading.target.masked,
                location=reading.target.server,
                schema=reading.schema,
                dialect=reading.dialect,
                target=reading.server_target,
                version=reading.version,
                read_at=reading.read_at or None,
            )
        )
        result.findings.extend(part.findings)
        for rule in part.rules:
            rules.setdefault(rule.code, rule)
        for note in reading.notes:
            said.setdefault((reading.target.address, note), []).append(reading.target.masked)
        quiet = [
            t
            for t in reading.schema.tables.values()
            if t.workload and idle(t.workload) and any(not i.unique for i in t.indexes)
        ]
        if quiet:
            result.notes.append(
                f"{reading.target.masked}: {len(quiet)} table(s) with non-unique indexes show no activity since the "
                "counters started: not enough activity to judge whether their indexes are used"
            )
    result.notes[:0] = [
        f"{targets[0]}: {note}" if len(targets) == 1 else f"{server} ({len(targets)} targets): {note}"
        for (server, note), targets in said.items()
    ]
    result.rules = [rules[c] for c in sorted(rules)]
    result.findings.sort(key=_order)
    return result


def run_audit(args, project) -> int:
    """`schemacite audit DSN...`: same rules, reports and exit codes as lint."""
    config, pm = project.config, project.pm
    try:
        linter = project.linter  # unknown rules or options: a usage error before any connection
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.sample < 0:
        raise UsageError("--sample must be a number of seconds >= 0")
    targets, errors = _targets(args.dsns)
    readings = read_all(
        targets, args.schemas, args.sample, getattr(args, "timeout", CONNECT_TIMEOUT), args.jobs, _show_progress(args)
    )
    result = audit_readings(readings, config, pm, linter)
    result.errors = errors + result.errors
    result.files = [mask(u) for u in args.dsns]
    emit_report(args, project, result)
    return result.exit_code(config.fail_on)


def _unwritable(path: str) -> str | None:
    """Why a snapshot could not be written to `path` (checked before the server is read), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return "is a folder"
    if not os.path.isdir(folder):
        return f"no such folder {folder}"
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return "not writable"
    return None


def run_snapshot(args) -> int:
    """`schemacite snapshot DSN -o FILE`: write the model of one server (or PostgreSQL database)."""
    # start-up: only `snapshot` writes a snapshot; `audit` shares this module
    from schemacite.sources.snapshot import SnapshotError, save_snapshot, snapshot_text

    try:
        target = parse_dsn(args.dsn)
    except DsnError as e:
        print(f"schemacite: error: {e}", file=sys.stderr)
        return 2
    if args.sample < 0:
        print("schemacite: error: --sample must be a number of seconds >= 0", file=sys.stderr)
        return 2
    quiet = getattr(args, "quiet", False)
    unwritable = None if args.output == "-" else _unwritable(args.output)
    if unwritable:
        print(f"schemacite: error: {args.output}: {unwritable}", file=sys.stderr)
        return 2
    (reading,) = read_all(
        [target], args.schemas, args.sample, getattr(args, "timeout", CONNECT_TIMEOUT), 1, _show_progress(args)
    )
    if reading.error is not None:
        print(f"schemacite: error: {target.masked}: {reading.error}", file=sys.stderr)
        return 2
    for note in reading.notes:
        print(f"schemacite: note: {note}", file=sys.stderr)
    try:
        if args.output == "-":  # standard output, as everywhere -o takes a file
            sys.stdout.write(snapshot_text(reading.schema, str(reading.server_target)))
        else:
            save_snapshot(reading.schema, args.output, str(reading.server_target))
    except SnapshotError as e:
        print(f"schemacite: error: {e}", file=sys.stderr)
        return 2
    if not quiet:
        schema = reading.schema
        counted = sum(1 for t in schema.tables.values() if t.workload is not None)
        print(
            f"schemacite: wrote {len(schema.tables)} table(s), {len(schema.views)} view(s)"
            f" ({counted} with workload figures) from {target.masked} ({reading.version}) to {args.output}",
            file=sys.stderr,
        )
    return 0
