"""`schemacite rehearse`: the change run at several sizes on a scratch server, with traffic beside it."""

from __future__ import annotations

import argparse
import json
import os
import sys

from schemacite.cli.common import EXIT_CLEAN, EXIT_FINDINGS, cache, diagnostics, resolve_project
from schemacite.errors import UsageError
from schemacite.live import scratch
from schemacite.live.rehearse import mariadb, postgres
from schemacite.live.rehearse.cluster import ClusterError, throwaway
from schemacite.live.rehearse.plan import make_plan
from schemacite.live.rehearse.report import to_html, to_json, to_text
from schemacite.live.rehearse.run import RehearsalError, rehearse
from schemacite.live.servers import AuditError, mask, parse_dsn
from schemacite.model.dialects import Dialect


def cmd_rehearse(args: argparse.Namespace) -> int:
    project = resolve_project(args, args.paths, rules=False)
    config = project.config
    if config.dialect is Dialect.MYSQL:
        raise UsageError(
            "rehearsals run on MariaDB and PostgreSQL (none could be tested on MySQL): pass --dialect mariadb "
            "to rehearse MySQL migrations on a MariaDB server"
        )
    for note in project.notes:
        print(f"note: {note}", file=sys.stderr)
    plan = make_plan(
        config.dialect,
        project.paths,
        project.history,
        cache=cache(args),
        framework=config.framework,
        search_path=config.search_path,
    )
    # the change's own files: history statements deploying between them run in place, unmeasured
    change_files = {os.path.abspath(st.file) for st in plan.change if st.measured}
    change_files |= {os.path.abspath(p) for p in project.paths}
    wrong = [e for e in plan.errors if os.path.abspath(e.file) in change_files]
    if wrong:  # a statement of the change read wrongly would be rehearsed wrongly
        diagnostics(wrong)
        raise UsageError(f"{len(wrong)} statement(s) of the change could not be read: nothing was rehearsed")
    for e in plan.errors:  # as lint says it: the history's unread statements are left out
        print(f"note: history {e}; its changes are not replayed", file=sys.stderr)
    production, row_bytes = _sizes(args, project, plan)
    for table in plan.touched:
        if table not in production:
            print(
                f"note: no production size for {table}: give --snapshot FILE or --rows {table}=N for a figure there",
                file=sys.stderr,
            )

    def progress(what: str) -> None:
        if not args.quiet:
            print(f"rehearsing at {what}", file=sys.stderr)

    try:
        with scratch.signals_stop():
            if args.dsn:
                side = _side(args.dsn, config.dialect)
                foreign = side.foreign_tables()
                if foreign and not args.scratch_ok:
                    raise UsageError(
                        f"{mask(args.dsn)} holds tables the rehearsal did not create ({', '.join(foreign)}): "
                        "name a scratch server, or pass --scratch-ok if it is one (the rehearsal writes only in "
                        "databases of its own, named schemacite_scratch_..., and drops them)"
                    )
                rehearsal = _rehearse(side, plan, args, production, row_bytes, progress)
                where = mask(args.dsn)
            else:
                with throwaway(config.dialect) as url:
                    rehearsal = _rehearse(_side(url, config.dialect), plan, args, production, row_bytes, progress)
                where = "a throwaway server, removed afterwards"
    except (RehearsalError, ClusterError) as e:
        raise UsageError(str(e)) from None
    except scratch.ScratchDenied as e:  # the account may not create databases there
        raise UsageError(f"{mask(args.dsn or '')}: {e}; a rehearsal writes only in databases it creates") from None
    _write(args, rehearsal, where)
    return EXIT_FINDINGS if rehearsal.failed else EXIT_CLEAN


def _rehearse(side, plan, args, production, row_bytes, progress):
    rehearsal = rehearse(
        side,
        plan,
        max_rows=args.max_rows,
        production=production,
        hold=args.hold_transaction,
        row_bytes=row_bytes,
        progress=progress,
    )
    rehearsal.notes[:0] = side.notes
    return rehearsal


def _side(url: str, dialect: Dialect):
    try:
        kind = parse_dsn(url).kind
    except AuditError as e:
        raise UsageError(str(e)) from None
    if (kind is Dialect.POSTGRES) != (dialect is Dialect.POSTGRES):
        raise UsageError(f"{mask(url)} is not a {dialect} server: the migrations are {dialect}")
    try:
        if kind is Dialect.POSTGRES:
            return postgres.Side(url)
        return mariadb.Side(url)
    except ImportError as e:
        extra = "postgres" if kind is Dialect.POSTGRES else "mysql"
        raise UsageError(f"{e.name} is not installed: pip install 'schemacite[{extra}]'") from None
    except Exception as e:  # the driver's own connection errors
        raise UsageError(f"{mask(url)}: {str(e).strip().splitlines()[0] if str(e).strip() else e!r}") from None


def _sizes(args, project, plan) -> tuple[dict[str, tuple[int, int | None]], dict[str, float]]:
    """Each table's (rows, bytes) in production, from the snapshot and --rows (which wins), and the
    snapshot's bytes a row, for rows as wide as production's."""
    production: dict[str, tuple[int, int | None]] = {}
    row_bytes: dict[str, float] = {}
    if project.base is not None:
        for key, table in project.base.tables.items():
            if table.rows:
                production[key] = (table.rows, table.bytes)
                if table.bytes:
                    row_bytes[key] = table.bytes / table.rows
    for given in args.rows:
        table, _, n = given.partition("=")
        try:
            production[table.strip()] = (int(n.replace("_", "").replace(",", "")), None)
        except ValueError:
            raise UsageError(f"--rows {given}: expected TABLE=N, a whole number of rows") from None
    return production, row_bytes


def _write(args, rehearsal, where: str) -> None:
    if args.format == "json":
        text = json.dumps(to_json(rehearsal), indent=2) + "\n"
    elif args.format == "html":
        text = to_html(rehearsal, where)
    else:
        text = to_text(rehearsal, where)
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write {args.output}: {e.strerror}") from None
    print(f"wrote {args.output}", file=sys.stderr)
