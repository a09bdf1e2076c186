"""A rehearsal written out: text at 80 columns, JSON (version 1) and an HTML page with a plot a
statement."""

from __future__ import annotations

import html
import textwrap
from typing import Any

from schemacite.live.rehearse.fit import MB
from schemacite.live.rehearse.run import Observed, Rehearsal, Result

VERSION = 1


def _seconds(s: float) -> str:
    return f"{s:.3f}" if s < 10 else f"{s:.1f}"


def _span(low: float, high: float) -> str:
    return f"{_seconds(low)}–{_seconds(high)} s"


def _where(r: Result) -> str:
    return f"{r.statement.file}:{r.statement.line}"


def _locks(r: Result) -> str:
    since = r.since
    return (
        ", ".join(
            f"{table} {mode}" + (f" (taken at line {since[table]})" if table in since else "")
            for table, mode in r.locks.items()
        )
        or "none seen"
    )


def to_json(rehearsal: Rehearsal) -> dict[str, Any]:
    return {
        "version": VERSION,
        "server": rehearsal.server,
        "sizes_rows": rehearsal.levels,
        "seconds_per_size": [round(s, 3) for s in rehearsal.seconds],
        "hold_transaction_seconds": rehearsal.hold,
        "notes": rehearsal.notes,
        "statements": [_statement(r) for r in rehearsal.results],
        "deploys": [
            {
                "files": d.files,
                "held_seconds_at_production_low": round(d.low, 3),
                "held_seconds_at_production_high": round(d.high, 3),
                "blocks_reads": d.blocks_reads,
                "blocks_writes": d.blocks_writes,
            }
            for d in rehearsal.deploys()
        ],
    }


def _statement(r: Result) -> dict[str, Any]:
    out: dict[str, Any] = {
        "file": r.statement.file,
        "line": r.statement.line,
        "sql": r.statement.sql,
        "locks": [
            {"relation": table, "mode": mode, "taken_at_line": r.since.get(table, r.statement.line)}
            for table, mode in r.locks.items()
        ],
        "rewrites": r.rewrites,
        "scans": r.scans,
        "sizes": [_size(s) for s in r.sizes],
        "fit": None,
        "production": None,
        "not_run": r.not_run or None,
    }
    if r.fit is not None:
        out["fit"] = {
            "seconds_per_mb": r.fit.seconds_per_mb,
            "intercept_seconds": round(r.fit.intercept, 4),
            "r2": round(r.fit.r2, 4),
            "margin": round(r.fit.margin, 3),
            "exponent": round(r.fit.exponent, 3) if r.fit.exponent is not None else None,
        }
    if r.production is not None:
        rows, size = r.production
        out["production"] = {"rows": rows, "bytes": size}
        if r.held_at_production is not None:
            low, expected, high = r.held_at_production
            out["production"].update(
                held_seconds_low=round(low, 3), held_seconds=round(expected, 3), held_seconds_high=round(high, 3)
            )
    return out


def _size(s: Observed) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rows": s.rows,
        "bytes": s.bytes,
        "seconds": round(s.seconds, 4),
        "held_seconds": round(s.held_seconds, 4),
        "reads_waited_max_seconds": round(s.reads_waited_max_seconds, 4),
        "writes_waited_max_seconds": round(s.writes_waited_max_seconds, 4),
        "reads_blocked": s.reads_blocked,
        "writes_blocked": s.writes_blocked,
    }
    if s.error:
        out["error"] = s.error
    return out


def to_text(rehearsal: Rehearsal, where: str, width: int = 80) -> str:
    wrap = textwrap.TextWrapper(width=width, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)
    sizes = ", ".join(f"{n:,}" for n in rehearsal.levels)
    took = ", ".join(f"{s:.1f} s" for s in rehearsal.seconds)
    lines = wrap.wrap(f"Rehearsed on {rehearsal.server} ({where}): tables filled to {sizes} rows ({took}).")
    if rehearsal.hold:
        lines += wrap.wrap(f"A transaction held a read lock on the first table touched for {rehearsal.hold:g} s.")
    for r in rehearsal.results:
        lines += [
            "",
            *wrap.wrap(f"{_where(r)}  {' '.join(r.statement.sql.split())}"),
        ]
        if r.not_run:
            lines += wrap.wrap(f"  not run: {r.not_run}")
            continue
        did = [w for w, yes in (("rewrites the table", r.rewrites), ("scans it", r.scans)) if yes]
        lines += wrap.wrap(f"  locks: {_locks(r)}" + (f"; {', '.join(did)}" if did else ""))
        lines.append(f"  {'rows':>11} {'MB':>8} {'held s':>8} {'reads waited':>13} {'writes waited':>14}")
        for s in r.sizes:
            if s.error:
                lines += wrap.wrap(f"  {s.rows:>11,} refused: {s.error}")
                continue
            lines.append(
                f"  {s.rows:>11,} {s.bytes / MB:>8.1f} {_seconds(s.held_seconds):>8} "
                f"{_seconds(s.reads_waited_max_seconds):>13} {_seconds(s.writes_waited_max_seconds):>14}"
            )
        if r.fit is not None:
            text = f"  fit: {r.fit.seconds_per_mb:.4f} s/MB (R² {r.fit.r2:.2f})"
            if r.fit.superlinear:
                text += f", but it grew as size^{r.fit.exponent:.2f}: the range's top follows that curve"
            if r.production is not None and r.held_at_production is not None:
                rows, size = r.production
                low, _, high = r.held_at_production
                text += f"; at production size ({rows:,} rows, {size / MB:,.0f} MB): {_span(low, high)}"
            lines += wrap.wrap(text)
    deploys = [d for d in rehearsal.deploys() if d.high > 0]
    if deploys:
        lines += ["", "Locks held per deploy at production size:"]
        for d in deploys:
            blocked = " and ".join(w for w, yes in (("reads", d.blocks_reads), ("writes", d.blocks_writes)) if yes)
            lines += wrap.wrap(
                f"  {', '.join(d.files)}: {_span(d.low, d.high)}; "
                + (f"{blocked} seen waiting for them" if blocked else "no read or write seen waiting for them")
            )
    for note in rehearsal.notes:
        lines += ["", *wrap.wrap(f"note: {note}")]
    return "\n".join(lines) + "\n"


def to_html(rehearsal: Rehearsal, where: str) -> str:
    # start-up: the plots load only for an HTML report
    import pygal

    parts = [
        "<!doctype html><html lang=en><meta charset=utf-8><title>schemacite rehearsal</title>",
        "<style>body{font:15px system-ui;max-width:60rem;margin:2rem auto;padding:0 1rem}"
        "pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}table{border-collapse:collapse}"
        "td,th{padding:.2rem .6rem;text-align:right;border-bottom:1px solid #ddd}</style>",
        f"<h1>Rehearsal on {html.escape(rehearsal.server)}</h1>",
        f"<p>{html.escape(where)}; sizes {', '.join(f'{n:,}' for n in rehearsal.levels)} rows.</p>",
    ]
    for note in rehearsal.notes:
        parts.append(f"<p class=note>note: {html.escape(note)}</p>")
    for r in rehearsal.results:
        parts.append(f"<section><h2>{html.escape(_where(r))}</h2><pre>{html.escape(r.statement.sql)}</pre>")
        parts.append(f"<p>locks: {html.escape(_locks(r))}; rewrites: {r.rewrites}; scans: {r.scans}</p>")
        parts.append(
            "<table><tr><th>rows<th>MB<th>held s<th>reads waited s<th>writes waited s"
            + "".join(
                f"<tr><td>{s.rows:,}<td>{s.bytes / MB:.1f}<td>{s.held_seconds:.3f}"
                f"<td>{s.reads_waited_max_seconds:.3f}<td>{s.writes_waited_max_seconds:.3f}"
                for s in r.sizes
                if not s.error
            )
            + "</table>"
        )
        good = [s for s in r.sizes if not s.error]
        if len(good) > 1:
            chart = pygal.XY(height=260, width=640, x_title="MB", y_title="seconds", show_legend=True)
            chart.add("held", [(s.bytes / MB, s.held_seconds) for s in good])
            chart.add("reads waited", [(s.bytes / MB, s.reads_waited_max_seconds) for s in good])
            chart.add("writes waited", [(s.bytes / MB, s.writes_waited_max_seconds) for s in good])
            parts.append(chart.render(is_unicode=True))
        if r.held_at_production is not None and r.production is not None:
            low, _, high = r.held_at_production
            parts.append(f"<p>at production size ({r.production[0]:,} rows): {html.escape(_span(low, high))}</p>")
        parts.append("</section>")
    return "\n".join(parts) + "\n</html>\n"
