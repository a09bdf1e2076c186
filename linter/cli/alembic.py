"""`schemacite alembic`: the SQL Alembic's offline mode (`upgrade --sql`) writes for the project's
revisions, linted with Alembic's transactions, each finding at the `op.` call of its revision.

Unlike `schemacite lint`, this runs the project's code: its env.py and revision files, through
Alembic's own API, in this process, started by the user, as `alembic upgrade --sql` does. Offline
mode connects to no database.
"""

from __future__ import annotations

import argparse
import bisect
import io
import os
import re
import sys
import tempfile
from pathlib import Path

from schemacite.cli.common import emit_report, resolve_project
from schemacite.errors import UsageError
from schemacite.lint.config import find_config
from schemacite.lint.relocate import relocated
from schemacite.model.results import LintResult
from schemacite.sources.split import Lines


def cmd_alembic(args: argparse.Namespace) -> int:
    try:
        # an optional dependency: the `alembic` extra
        from alembic import command
        from alembic.config import Config
        from alembic.script import ScriptDirectory
    except ImportError:
        raise UsageError("schemacite alembic needs Alembic: pip install 'schemacite[alembic]'") from None
    if args.alembic_since:  # Alembic's words: a revision, or a range
        start, colon, end = args.alembic_since.partition(":")
        if colon:
            args.start, args.end = start or None, end or None
        else:
            args.after = start
    if not os.path.isfile(args.alembic_config):
        raise UsageError(f"{args.alembic_config}: no such Alembic config (give -c FILE)")
    buffer = io.StringIO()
    config = Config(args.alembic_config, output_buffer=buffer)
    try:  # the project's own code runs from here (its package, its env.py, its revisions)
        script = ScriptDirectory.from_config(config)
    except Exception as e:
        raise UsageError(f"{args.alembic_config}: Alembic could not read the project: {e!r}") from None
    calls: list[tuple[int, str, int]] = []  # (offset in the SQL, revision file, line of the op. call)
    with _recording(buffer, script.dir, calls):
        try:
            end = args.end or "head"
            command.upgrade(config, f"{args.start}:{end}" if args.start else end, sql=True)
        except Exception as e:  # the project's own code failed: say so, located, and stop
            where = _where_failed(e, script.dir, args.alembic_config)
            raise UsageError(f"{where}: alembic upgrade --sql failed: {e!r}") from None
    sql = buffer.getvalue()
    since = _offset_after(sql, args.after) if args.after else 0
    with tempfile.TemporaryDirectory(prefix="schemacite-alembic-") as folder:
        path = os.path.join(folder, "upgrade.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sql)
        args.framework = args.framework or "alembic"
        # the project's config, found from where alembic runs, not from the temporary folder
        found = find_config(Path.cwd())
        args.config = args.config or (str(found) if found is not None else None)
        args.dialect = args.dialect or _dialect(config)
        project = resolve_project(args, [path], output=args.format)
        try:
            project.linter  # noqa: B018 (built for its checks: the rules' settings)
        except ValueError as e:
            raise UsageError(str(e)) from None
        result = project.lint()
    lines = Lines(sql)
    result = _pointed(result, path, lines, calls + _revision_heads(sql, script), lines.line(since))
    result.notes = [n for n in result.notes if folder not in n]
    if args.only:  # one revision's findings (the post-write hook's), linted after all the others
        only = os.path.relpath(args.only)
        result.findings = [f for f in result.findings if f.location.file == only]
    emit_report(args, project, result)
    code = result.exit_code(project.config.fail_on)
    return 0 if args.exit_zero and code == 1 else code


class _recording:
    """While Alembic runs: each `op.` call a revision file makes, with where the SQL stood."""

    def __init__(self, buffer: io.StringIO, versions: str, calls: list[tuple[int, str, int]]):
        self.buffer, self.versions, self.calls = buffer, os.path.abspath(versions), calls

    def __enter__(self):
        # an optional dependency, imported by cmd_alembic before this runs
        from alembic.operations.base import AbstractOperations

        # the base class's: `op.` and a batch's `batch_op.` calls both go through it
        self.patched = AbstractOperations
        self.original = original = AbstractOperations.invoke
        recording = self

        def invoke(ops, operation):
            frame = sys._getframe(1)
            while frame is not None and not os.path.abspath(frame.f_code.co_filename).startswith(recording.versions):
                frame = frame.f_back
            if frame is not None:
                recording.calls.append((recording.buffer.tell(), frame.f_code.co_filename, frame.f_lineno))
            return original(ops, operation)

        AbstractOperations.invoke = invoke
        return self

    def __exit__(self, *exc):
        self.patched.invoke = self.original
        return False


def _where_failed(error: BaseException, versions: str, config: str) -> str:
    """`revision file:line` of the innermost frame of the revisions that the error passed through
    (a revision that needs a database, which offline mode does not have), else the config."""
    versions = os.path.abspath(versions)
    where = config
    tb = error.__traceback__
    while tb is not None:
        name = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if name.startswith(versions):
            where = f"{os.path.relpath(name)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _dialect(config) -> str | None:
    url = config.get_main_option("sqlalchemy.url") or ""
    name = url.split(":", 1)[0].split("+", 1)[0]
    return {"postgresql": "postgres", "postgres": "postgres", "mysql": "mysql", "mariadb": "mariadb"}.get(name)


def _offset_after(sql: str, revision: str) -> int:
    """Where the first revision after `revision` starts in the printed SQL."""
    marker = f"-- Running upgrade {revision} -> "
    at = sql.find(marker)
    if at < 0:
        raise UsageError(f"--after {revision}: no revision of the upgrade follows it")
    return at


def _revision_heads(sql: str, script) -> list[tuple[int, str, int]]:
    """Where each revision's SQL starts, as a place of its file (its `def upgrade` line): the
    statements a revision runs other than through `op.` (a bound connection's execute, a batch)
    belong to it, not to the op. call of the revision before."""
    heads = []
    for mark in _RUNNING.finditer(sql):
        revision = script.get_revision(mark.group(1))
        if revision is not None and revision.path:
            heads.append((mark.start(), revision.path, _upgrade_line(revision.path)))
    return heads


_RUNNING = re.compile(r"^-- Running upgrade .*?-> (\S+?),?(?: |$)", re.M)


def _upgrade_line(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            return next((n for n, line in enumerate(f, 1) if line.startswith("def upgrade")), 1)
    except OSError:
        return 1


def _pointed(result: LintResult, path: str, lines: Lines, calls, first_line: int) -> LintResult:
    """Findings in the printed SQL moved to the revision file, at the `op.` call that wrote the
    statement (or the revision's `def upgrade` when no op. call of the revision did); those before
    `first_line` (revisions up to --after) left out."""
    starts = sorted((lines.line(offset), file, line) for offset, file, line in calls)
    first_lines = [start for start, _, _ in starts]

    def place(file: str, line: int) -> tuple[str, int] | None:
        at = bisect.bisect_right(first_lines, line) - 1  # the last call at or before the line
        if file != path or at < 0:
            return None
        return os.path.relpath(starts[at][1]), starts[at][2]

    result.findings = [f for f in result.findings if f.location.file != path or f.location.line >= first_line]
    relocated(result, place)
    result.files = [os.path.relpath(f) for f in sorted({c[1] for c in calls})] or result.files
    return result
