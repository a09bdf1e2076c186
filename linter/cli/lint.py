"""`schemacite lint`: migration files and dumps, replayed and checked."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TypeVar

from schemacite.cli.common import cache, diagnostics, emit_report, resolve_project
from schemacite.errors import UsageError
from schemacite.lint.config import SettingsError
from schemacite.model.listing import first_of
from schemacite.model.results import LintResult
from schemacite.model.statements import ParseError
from schemacite.sources.edits import unified_diff
from schemacite.sources.files import expand

T = TypeVar("T")


def cmd_lint(args: argparse.Namespace) -> int:
    paths = args.paths or ["."]
    parse_cache = cache(args)
    project = resolve_project(args, paths, output=args.format, parse_cache=parse_cache)
    if not project.paths:  # --since found no changed file: a pull request without migrations
        _checked(lambda: project.linter)  # the rules' settings are still checked
        empty = LintResult(notes=[*project.notes, "nothing changed under the given paths: nothing to lint"])
        emit_report(args, project, empty)  # CI steps still find the report they upload
        return 0

    def lint(overlay: dict[str, bytes] | None = None):
        # the rules are built (their settings checked) while a read-ahead child plans the run
        return _checked(lambda: project.lint(parse_cache, overlay, read_ahead=True))

    if args.fix or args.diff:
        if project.stdin is not None and args.fix:
            raise UsageError("--fix cannot write standard input back; use --diff to see the change")
        # start-up: only --fix and --diff fix
        from schemacite.lint.fixing import fix_files

        kept = frozenset() if args.fix_committed or args.since else _committed(project)
        fixed, result = fix_files(lint, args.unsafe_fixes, write=args.fix and not args.diff, kept=kept)
        left = [_left_alone(fixed.left)] if fixed.left else []
        if args.diff:
            return _print_diff(fixed, result, left)
        result.notes += left
        result.notes.append(f"fixed {fixed.applied} finding(s) in {len(fixed.changed())} file(s)")
    else:
        result = lint()
    baseline = args.baseline or project.config.baseline
    if args.write_baseline or baseline:
        # start-up: loaded only with a baseline
        from schemacite.lint.baseline import BaselineError, leave_out_baselined, write_baseline
    if args.write_baseline:
        write_baseline(args.write_baseline, result.findings)
        diagnostics(result.errors, result.notes)
        print(f"schemacite: recorded {len(result.findings)} finding(s) in {args.write_baseline}", file=sys.stderr)
        return 2 if result.errors else 0
    if not result.files and not result.errors:  # every file was left out: checking nothing is not a pass
        result.errors += [
            ParseError(p, 0, "nothing to lint: every file here was left out (the notes say why)") for p in paths
        ]
    if baseline:
        try:
            leave_out_baselined(result, baseline)
        except BaselineError as e:  # its message starts with the file's name
            raise UsageError(f"baseline {e}") from None
        except OSError as e:
            raise UsageError(f"baseline {baseline}: {e.strerror or e}") from None
    emit_report(args, project, result)
    code = result.exit_code(project.config.fail_on)
    return 0 if args.exit_zero and code == 1 else code


def _checked(run: Callable[[], T]) -> T:
    """`run()`, a mistake in the rules' settings a usage error."""
    try:
        return run()
    except SettingsError as e:
        raise UsageError(str(e)) from None


def _committed(project) -> frozenset[str]:
    """The files to lint that git holds as committed, unchanged: migrations that may be deployed,
    which a fix would make differ from what the runner applied (and checksummed)."""
    # start-up: git is asked only when fixes are made
    from schemacite.sources.git import committed

    files, _ = expand([p for p in project.paths if not project.stdin or p != project.stdin[0]])
    return frozenset(committed(files))


def _left_alone(files: list[str], shown: int = 10) -> str:
    names = first_of(files, shown)
    return (
        f"{len(files)} committed migration(s) not fixed, as they may be deployed already: {names}; "
        f"--fix-committed fixes them too"
    )


def _print_diff(fixed, result, notes: list[str]) -> int:
    """`--diff`: the changes on stdout, a count on stderr; exit 1 when there is one, 2 on input errors."""
    changed = fixed.changed()
    for path, (before, after) in changed.items():
        sys.stdout.write(unified_diff(os.path.relpath(path), before, after))
    diagnostics(result.errors, notes)
    print(f"schemacite: would fix {fixed.applied} finding(s) in {len(changed)} file(s)", file=sys.stderr)
    if result.errors:
        return 2
    return 1 if changed else 0
