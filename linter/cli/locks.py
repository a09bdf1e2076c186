"""`schemacite locks`: what each statement locks, for a server version, and `--verify`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from schemacite.cli.common import EXIT_CLEAN, EXIT_FINDINGS, cache, resolve_project, use_color
from schemacite.errors import UsageError
from schemacite.lint.config import Config
from schemacite.locks.mysql import general_note
from schemacite.locks.report import Row, analyse, row_json
from schemacite.model.dialects import Dialect
from schemacite.sources.names import written


def cmd_locks(args: argparse.Namespace) -> int:
    # the lock table needs no rule: the plugins are not loaded
    return run_locks(args, resolve_project(args, args.paths or ["."], rules=False), cache(args))


def run_locks(args, project, parse_cache=None) -> int:
    config, paths = project.config, project.paths
    for note in project.notes:
        print(f"note: {note}", file=sys.stderr)
    if project.detected:
        print(f"note: dialect {config.dialect}, {project.dialect_why}", file=sys.stderr)
    if args.verify:
        # start-up: server code loads only when a server is reached
        from schemacite.live.verify import VerifyError, server_target, verify_rows

        try:  # predict for the server that measures, unless a target was asked for
            found = server_target(args.verify)
        except VerifyError as e:
            raise UsageError(str(e)) from None
        same_family = found.dialect.family is config.dialect.family
        if not config.target_given and same_family:
            config.target = found  # a server of another family is refused by verify_rows below
        elif same_family and found != config.target:
            print(
                f"note: the predictions are for {config.target} and the server is {found}: "
                "a difference may be the versions' (leave out --target to predict for the server)",
                file=sys.stderr,
            )
    rows, errors, script = analyse(
        config.dialect,
        config.target,
        paths,
        project.history,
        cache=parse_cache,
        framework=config.framework,
        stdin=project.stdin,
        search_path=config.search_path,
        base=project.base,
    )
    if args.verify:
        try:
            for note in verify_rows(args.verify, config.dialect, script):
                print(f"note: {note}", file=sys.stderr)
        except VerifyError as e:
            raise UsageError(str(e)) from None
    if args.format == "json":
        doc = [row_json(r, config.dialect) for r in rows]
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(rows, config, use_color(args.color, sys.stdout))
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    if errors:
        return 2
    if args.verify and rows and all(r.not_run for r in rows):
        print("error: --verify could run none of the statements: nothing was checked", file=sys.stderr)
        return 2
    return EXIT_FINDINGS if any(r.disagreements for r in rows) else EXIT_CLEAN


# below this many columns the table would squeeze the statement and the alternative away
STACK_BELOW = 120


def _print_table(rows: list[Row], config: Config, color: bool) -> None:
    # start-up: rich (tens of ms) loads only when there is something to draw
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    width = None if color else int(os.environ.get("COLUMNS") or 160)
    console = Console(highlight=False, no_color=not color, width=width, force_terminal=color or None)
    mysql = config.dialect.is_mysql_family
    verified = any(r.checked for r in rows)
    style = {"nothing": "green", "writes": "yellow", "reads+writes": "bold red", "unknown": "magenta"}
    title = f"What each statement locks on {config.target}"
    cells = [_cells(r, mysql, verified) for r in rows]
    if console.width < STACK_BELOW:
        console.print(Text(title, style="bold"))
        for r, c in zip(rows, cells):
            console.print()
            head = Text()
            head.append(c["where"], "bold")
            head.append("  blocks ")
            head.append(r.blocks, style[r.blocks])
            head.append(f"  {'rebuild' if mysql else 'rewrite'}: {c['rewrite']}")
            console.print(head, overflow="fold")
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True, style="dim")
            grid.add_column(overflow="fold")
            grid.add_row("  ", c["statement"])
            grid.add_row("  locks", c["locks"])
            if c["alternative"]:
                grid.add_row("  safer", c["alternative"])
            if verified:
                grid.add_row("  measured", Text.from_markup(c["measured"]))
            console.print(grid)
    else:
        table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left")
        table.add_column("where", no_wrap=True)
        table.add_column("statement", overflow="fold", max_width=40)
        table.add_column("locks", no_wrap=True)
        table.add_column("rewrite" if not mysql else "rebuild", no_wrap=True)
        table.add_column("blocks", no_wrap=True)
        table.add_column("safer alternative", overflow="fold", max_width=44)
        if verified:
            table.add_column("measured", overflow="fold", max_width=40)
        for r, c in zip(rows, cells):
            row = [
                c["where"],
                c["statement"][:160],
                c["locks"],
                c["rewrite"],
                f"[{style[r.blocks]}]{r.blocks}[/]",
                c["alternative"],
            ]
            table.add_row(*row, *([c["measured"]] if verified else []))
        console.print(table)
    if mysql and rows:
        print(f"note: {general_note(config.dialect)[0]}", file=sys.stderr)
    if verified:
        measured = [r for r in rows if r.measured is not None]
        agreed = sum(1 for r in measured if not r.disagreements)
        not_run = sum(1 for r in rows if r.not_run)
        console.print(
            f"verified: {agreed} of {len(measured)} statements agree with the server"
            + (f"; {not_run} not run" if not_run else "")
        )


def _cells(r: Row, mysql: bool, verified: bool) -> dict[str, str]:
    # start-up: rich (tens of ms) loads only when there is something to draw
    from rich.markup import escape

    locks = []
    for i in r.impacts:
        for lk in i.locks:
            name = lk.relation if mysql else written(lk.relation, Dialect.POSTGRES)
            text = f"{name}: {lk.mode}" + (f" ({i.algorithm})" if mysql and i.algorithm else "")
            if text not in locks:
                locks.append(text)
    measured = ""
    if verified and r.inside:
        measured = "measured with the statement that runs it"
    elif verified and r.checked:
        if r.not_run:
            measured = f"[yellow]not run: {escape(r.not_run)}[/]"
        elif r.disagreements:
            measured = "[bold red]DIFFERS[/]\n" + "\n".join(r.disagreements)
        elif getattr(r.measured, "code", None):
            measured = f"[green]refused, as predicted[/] ({r.measured.code})"
        else:
            measured = "[green]agrees[/]"
    return {
        "where": f"{Path(r.statement.location.file).name}:{r.statement.location.line}",
        "statement": " ".join(r.statement.sql.split()),
        "locks": "\n".join(locks) if r.existing else r.summary or "-",
        "rewrite": "yes" if any(i.rewrite for i in r.impacts) else ("scan" if any(i.scan for i in r.impacts) else "no"),
        "alternative": next((i.alternative for i in r.impacts if i.alternative), "") or "",
        "measured": measured,
    }
