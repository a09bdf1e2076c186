"""`schemacite locks`: what each statement of a migration locks, and for how long.

The answers come from the same lock tables the lint rules read. With `--verify DSN`
every statement is also run on a scratch copy on that server (history replayed
into it first) and the measurement is printed beside the prediction.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any

from schemacite.config import Config
from schemacite.engine import NO_LOCK_KINDS, Replay
from schemacite.locks import LockImpact, existing_locks, impacts_for, worst, worst_algorithm
from schemacite.sql.statement import Statement

MYSQL_MDL_NOTE = (
    "every ALTER TABLE also takes a brief exclusive metadata lock when it starts and when it ends; "
    "it waits behind any open transaction on the table and everything queued after it waits too: "
    "SET SESSION lock_wait_timeout = 5 (seconds) before the migration so it gives up instead of stalling traffic"
)


@dataclass
class Row:
    statement: Statement
    impacts: list[LockImpact]
    blocks: str  # on relations that exist before the change
    measured: Any = None
    disagreements: list[str] = field(default_factory=list)
    verify_error: str | None = None


def analyse(config: Config, paths: list[str], history: list[str], cache=None) -> tuple[list[Row], list, list]:
    """(rows, errors, script): a row per reported statement that can lock something, and, for
    --verify, every statement the run applies in order, each with its row if it has one."""
    run = Replay(config.dialect, paths, history, cache=cache)
    rows: list[Row] = []
    script: list[tuple[Statement, Row | None]] = []
    for step in run:
        stmt = step.statement
        embedded = stmt.details.get("embedded")
        row = None
        if step.reported and stmt.kind not in NO_LOCK_KINDS and not embedded:
            impacts = impacts_for(stmt, step.schema, config.target)
            blocks = worst(lk.blocks for i in impacts for lk in existing_locks(i, step.schema, stmt))
            row = Row(stmt, impacts, blocks)
            rows.append(row)
        if stmt.kind not in ("begin", "commit") and not embedded:
            script.append((stmt, row))
    return rows, run.errors, script


def row_json(row: Row, dialect: str) -> dict[str, Any]:
    mysql = dialect != "postgres"
    locks = []
    for impact in row.impacts:
        for lk in impact.locks:
            entry: dict[str, Any] = {"relation": lk.relation, "mode": lk.mode, "blocks": lk.blocks}
            if mysql:
                entry.update(algorithm=impact.algorithm, lock=lk.mode)
            if entry not in locks:
                locks.append(entry)
    out: dict[str, Any] = {
        "file": row.statement.location.file,
        "line": row.statement.location.line,
        "sql": row.statement.sql,
        "operations": [i.operation for i in row.impacts],
        "locks": locks,
        "rewrite": any(i.rewrite for i in row.impacts),
        "scan": any(i.scan for i in row.impacts),
        "blocks": row.blocks,
        "alternative": next((i.alternative for i in row.impacts if i.alternative), None),
        "notes": [i.note for i in row.impacts if i.note],
    }
    if mysql:
        out["algorithm"] = worst_algorithm(row.impacts)
    if row.measured is not None or row.verify_error:
        out["verified"] = {"agrees": not row.disagreements and not row.verify_error,
                           "differences": row.disagreements, "error": row.verify_error,
                           "measured": _measured_json(row.measured)}
    return out


def _measured_json(m: Any) -> Any:
    if m is None:
        return None
    if hasattr(m, "code") and hasattr(m, "message"):
        return {"refused": m.code, "message": m.message}
    if hasattr(m, "locks") and isinstance(getattr(m, "locks"), dict):
        return {"locks": m.locks, "rewritten": sorted(m.rewritten), "method": m.method}
    return {"algorithm": m.algorithm, "lock": m.lock, "rebuild": m.rebuild}


def run_locks(args, config: Config, cache=None) -> int:
    from schemacite.cli import use_color
    from schemacite.errors import UsageError

    paths = args.paths or ["."]
    rows, errors, script = analyse(config, paths, [*config.history, *args.history], cache=cache)
    if args.verify:
        from schemacite.verify import VerifyError, verify_rows

        try:
            for note in verify_rows(args.verify, config, script):
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
    return 1 if any(r.disagreements or r.verify_error for r in rows) else 0


# below this many columns the table would squeeze the statement and the alternative away
STACK_BELOW = 120


def _print_table(rows: list[Row], config: Config, color: bool) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    width = None if color else int(os.environ.get("COLUMNS") or 160)
    console = Console(highlight=False, no_color=not color, width=width)
    mysql = config.dialect != "postgres"
    verified = any(r.measured is not None or r.verify_error for r in rows)
    style = {"nothing": "green", "writes": "yellow", "reads+writes": "bold red"}
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
            row = [c["where"], c["statement"][:160], c["locks"], c["rewrite"], f"[{style[r.blocks]}]{r.blocks}[/]",
                   c["alternative"]]
            table.add_row(*row, *([c["measured"]] if verified else []))
        console.print(table)
    if mysql and rows:
        print(f"note: {MYSQL_MDL_NOTE}", file=sys.stderr)
    if verified:
        agreed = sum(1 for r in rows if not r.disagreements and not r.verify_error)
        console.print(f"verified: {agreed} of {len(rows)} statements agree with the server")


def _cells(r: Row, mysql: bool, verified: bool) -> dict[str, str]:
    locks = []
    for i in r.impacts:
        for lk in i.locks:
            text = f"{lk.relation}: {lk.mode}" + (f" ({i.algorithm})" if mysql and i.algorithm else "")
            if text not in locks:
                locks.append(text)
    measured = ""
    if verified:
        if r.verify_error:
            measured = f"[red]error: {r.verify_error}[/]"
        elif r.disagreements:
            measured = "[bold red]DIFFERS[/]\n" + "\n".join(r.disagreements)
        elif getattr(r.measured, "code", None):
            measured = f"[green]refused, as predicted[/] ({r.measured.code})"
        else:
            measured = "[green]agrees[/]"
    return {
        "where": f"{Path(r.statement.location.file).name}:{r.statement.location.line}",
        "statement": " ".join(r.statement.sql.split()),
        "locks": "\n".join(locks) or "-",
        "rewrite": "yes" if any(i.rewrite for i in r.impacts) else ("scan" if any(i.scan for i in r.impacts) else "no"),
        "alternative": next((i.alternative for i in r.impacts if i.alternative), "") or "",
        "measured": measured,
    }
