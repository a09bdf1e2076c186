"""The HTML report of a 10,000-table audit and of a small one: time to write, size, time to render.

    python bench/html_report.py [--tables 10000] [--small 12] [--keep DIR] [--dsn URL]

The catalogs are modelled, not read from a server (reading 10,000 tables is bench/audit_10k.py's
figure): tables with a primary key, one unique key and three secondary indexes, as audit_10k.py
creates them, sizes spread from 16 kB to 50 GB, and counters that make one table in ten
insert-heavy, most read-mostly and some idle (a fixed seed: every run draws the same catalog).
The built-in rules run over it as `schemacite audit` runs them (audit_readings), and the page is
written by the HTML reporter. `--dsn` audits a real server instead (read-only, as `audit` does).

Printed per audit: tables, findings, seconds to build and write the page, its size, and in headless
Chromium (tests/browser.py) the time to the load event and to the first contentful paint, from the
browser's own performance timeline, and the page's height. `--keep DIR` keeps the pages.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import browser  # tests/browser.py: headless Chromium
from schemacite.cli.audit import audit_readings, read_all
from schemacite.lint.config import load_config
from schemacite.live import servers as audit
from schemacite.model import Column, Index, Location, Schema, Table, Workload
from schemacite.report.html import HtmlReporter

SINCE, READ = "2026-11-01T00:00:00Z", "2026-11-27T10:00:00Z"


def modelled(tables: int, seed: int = 1) -> audit.Reading:
    """A PostgreSQL 15 catalog of `tables` tables, as an audit would have read it."""
    rng = random.Random(seed)
    target = audit.parse_dsn(f"postgresql://audit@bench-{tables}:5432/shop")
    where = Location(f"{target.server}/app")
    schema = Schema("postgres", origin=target.server)
    for i in range(tables):
        size = int(10 ** rng.uniform(4.2, 10.7))  # 16 kB .. 50 GB, evenly over the decades
        rows = size // 120
        kind = rng.random()
        if kind < 0.1:  # insert-heavy: written far more than read
            inserts, reads = rng.randrange(10_000, 50_000_000), rng.randrange(0, 5_000)
        elif kind < 0.8:  # read-mostly
            inserts, reads = rng.randrange(0, 5_000), rng.randrange(10_000, 90_000_000)
        else:  # idle since the counters started
            inserts, reads = 0, 0
        name = f"t{i}"
        scans = (
            [0 if rng.random() < 0.3 else rng.randrange(1, 10**6) for _ in range(3)] if inserts or reads else [0] * 3
        )
        schema.tables[f"app.{name}"] = Table(
            name=name,
            schema="app",
            columns={
                "id": Column("id", "bigint", nullable=False),
                **{c: Column(c, "int") for c in "abc"},
                "d": Column("d", "text"),
            },
            primary_key=Index(f"{name}_pkey", ("id",), unique=True, primary=True, scans=reads, bytes=size // 5),
            indexes=[
                Index(f"{name}_d_key", ("d",), unique=True, scans=1, bytes=size // 4),
                *(Index(f"{name}_{c}", (c,), scans=s, bytes=size // 6) for c, s in zip("abc", scans)),
            ],
            rows=rows,
            bytes=size,
            workload=Workload(
                inserts=inserts, reads=reads, rows=rows, since=SINCE, sampled_at=READ, source="pg_stat_user_tables"
            ),
            defined_at=where,
        )
    return audit.Reading(target, schema, "postgres", "postgres-15", "PostgreSQL 15.8", read_at=READ)


def measure(readings: list[audit.Reading], label: str, keep: Path | None) -> dict:
    result = audit_readings(readings, load_config(None, {"dialect": "postgres"}))
    result.command = "schemacite audit --format html -o report.html " + " ".join(r.target.masked for r in readings)
    started = time.perf_counter()
    buf = io.StringIO()
    HtmlReporter().render(result, buf)
    folder = keep or Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / f"{label}.html"
    page.write_text(buf.getvalue(), encoding="utf-8")
    write = time.perf_counter() - started
    with browser.chromium(1280, 900) as driver:
        started = time.perf_counter()
        driver.get(page.as_uri())  # returns at the load event
        wall = time.perf_counter() - started
        timing = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            " return [n.domContentLoadedEventEnd, n.loadEventEnd, document.documentElement.scrollHeight]"
        )
        # a small page paints after its load event: wait for the paint entry
        paint = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            " new PerformanceObserver((list) => {"
            "   const e = list.getEntriesByName('first-contentful-paint')[0]; if (e) done(e.startTime);"
            " }).observe({type: 'paint', buffered: true});"
        )
        errors = browser.console(driver)
    return {
        "label": label,
        "tables": sum(len(r.schema.tables) for r in readings if r.schema),
        "findings": len(result.findings),
        "write": write,
        "bytes": page.stat().st_size,
        "dom": timing[0] / 1000,
        "load": timing[1] / 1000,
        "paint": paint / 1000,
        "wall": wall,
        "height": timing[2],
        "console": len(errors),
        "path": page,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=12, help="tables of the small audit")
    parser.add_argument("--keep", type=Path, help="keep the pages in this folder")
    parser.add_argument("--dsn", action="append", default=[], help="audit this server instead (repeatable)")
    args = parser.parse_args()
    if args.dsn:
        targets = [audit.parse_dsn(url) for url in args.dsn]
        readings = read_all(targets, [], 0, 10, 4, False)
        rows = [measure(readings, "servers", args.keep)]
    else:
        rows = [
            measure([modelled(args.small)], "small", args.keep),
            measure([modelled(args.tables)], "large", args.keep),
        ]
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD)
    for column in (
        "audit",
        "tables",
        "findings",
        "write",
        "size",
        "DOM ready",
        "load",
        "1st paint",
        "height",
        "console",
    ):
        table.add_column(column, justify="left" if column == "audit" else "right")
    for r in rows:
        table.add_row(
            r["label"],
            f"{r['tables']:,}",
            f"{r['findings']:,}",
            f"{r['write']:.2f} s",
            f"{r['bytes'] / 1e6:.2f} MB",
            *(f"{r[key]:.2f} s" for key in ("dom", "load", "paint")),
            f"{r['height']:,} px",
            str(r["console"]),
        )
    Console(width=120).print(table)
    if args.keep:
        print(f"pages kept in {args.keep}")
    return 1 if any(r["console"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
