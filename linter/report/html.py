"""`--format html`: one self-contained page for people who did not run the audit.

What was audited (servers, versions, schemas, when, since when the counters count, what the
account could not see), the totals, the command; then per server its plots, its findings grouped
by table, and its tables by size with the time a rewrite and an index build would hold their
locks at the measured rates. Nothing is fetched: styles, plots and the small table-sorting script
are inline, and the page's Content-Security-Policy allows no other source (the script by its
hash), so a name from a catalog can never become a script even if escaping failed. Every
catalog name goes through Jinja2's autoescaping; the plots' SVG through the XML writer's.

A lint run gets the same page: its one source is the schema the migrations leave, whose tables
have sizes only when the run started from a snapshot, titled by the project's folder (the git
work tree holding the files) with the files below. A plot is drawn only when it places something
of the source's own (its insert-heavy tables, its tables of known size, its unused indexes): a
curve measured elsewhere alone is evidence, and stays in the records the findings cite.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections import Counter
from dataclasses import field
from datetime import UTC, datetime
from importlib import resources
from typing import IO, Any

from schemacite import __version__
from schemacite.evidence import Evidence, load_catalogue, nearest, rate_for
from schemacite.locks.duration import human_bytes, human_seconds
from schemacite.model import Table
from schemacite.model.dialects import MYSQL_FAMILY
from schemacite.model.record import record
from schemacite.model.results import Finding, LintResult, Severity, Source
from schemacite.report import Reporter
from schemacite.report.evidence import label, short_record
from schemacite.report.plots import (
    IndexSize,
    Plot,
    Rate,
    index_size_plot,
    insert_rate_plot,
    insert_rates,
    lock_duration_plot,
)
from schemacite.sources.files import repository_root

# the tables-by-size table lists the largest this many tables of a source: all 10,000 of a large
# audit made its page 9.0 MB instead of 6.2 MB and took Chromium 3.3 s to load instead of 1.2 s
# (bench/html_report.py); the JSON report and a snapshot have them all
TABLES_SHOWN = 1000
UNUSED_INDEX = "unused-index"  # the rule whose findings plot (c) draws
SIZES = {
    "postgres": "Sizes are those of the tables' files; rows, the server's statistics"
    " (not analysed: not counted since the table was filled).",
    "mysql": "Rows and sizes are the server's estimates.",
}
REWRITE, INDEX_BUILD = "rewrite_bytes_per_second", "index_bytes_per_second"  # as linter/locks/duration.py reads them


@record
class Group:
    """The findings of one table (or one file, for statements on no table) of one source."""

    anchor: str
    table: str
    where: str
    findings: list[Finding] = field(default_factory=list)


@record
class TableRow:
    name: str
    rows: int | None
    bytes: int | None
    analysed: bool | None  # False: the server has not counted the rows
    indexes: int
    inserts: int | None
    reads: int | None
    insert_heavy: bool
    rewrite: float | None
    index_build: float | None


@record
class SourceView:
    n: int
    source: Source
    schemas: list[str]
    tables: int
    views: int
    since: str | None
    counters: str
    counts: dict[str, int]
    groups: list[Group]
    rows: list[TableRow]
    rewrite: Rate | None
    index_build: Rate | None
    title: str  # the section's heading: the server as given, or the project's folder
    plots: list[Plot]  # only those placing something of this source's own
    no_plot: list[str]  # why a plot is missing
    insert_heavy: int
    unused: int
    known_tables: int  # tables with a size or counters, of which `rows` lists the largest
    sizes: str  # where the sizes come from, in words


def _script() -> tuple[str, str]:
    """The sorting script and its CSP hash."""
    text = resources.files("schemacite.report").joinpath("templates", "sort.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    return text, f"'sha256-{digest}'"


def _environment() -> Any:
    # start-up: jinja2 loads only for the HTML report
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("schemacite.report", "templates"),
        autoescape=True,  # every name from a catalog is text, never markup
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["number"] = lambda n: "" if n is None else f"{n:,}"
    env.filters["bytes"] = lambda n: "" if n is None else _bytes(n)
    env.filters["seconds"] = lambda s: "" if s is None else _seconds(s)
    env.filters["web"] = lambda url: bool(url) and str(url).startswith(("https://", "http://"))  # links, never scripts
    return env


def _bytes(n: float) -> str:
    return human_bytes(n)


def _seconds(s: float) -> str:
    return human_seconds(s).removeprefix("about ")


def _title(source: Source, files: list[str]) -> str:
    """A server is known by its address; migrations by the project they belong to: the git work
    tree holding the first file, else that file's folder."""
    if source.version or source.location or not files:
        return source.label
    folder = repository_root(files[0]) or os.path.dirname(os.path.abspath(files[0]))
    return os.path.basename(folder.rstrip(os.sep)) or "schemacite report"


def _belongs(f: Finding, source: Source) -> bool:
    return (
        not source.location or f.location.file == source.location or f.location.file.startswith(source.location + "/")
    )


def _rate(quantity: str, source: Source, catalogue: dict[str, Evidence]) -> Rate | None:
    found = rate_for(quantity, source.dialect, source.target, catalogue)
    if found is None or not found[0]:
        return None
    rate, record = found
    metric = next((str(f.get("metric", "")) for f in record.figures if f.get("quantity") == quantity), quantity)
    return Rate(rate, record, metric)


def _insert_record(source: Source, catalogue: dict[str, Evidence]) -> Evidence | None:
    records = [e for e in catalogue.values() if e.applies(source.dialect) and insert_rates(e)]
    return nearest(records, source.target) if records else None


def _groups(findings: list[Finding], n: int) -> list[Group]:
    groups: dict[tuple[str, str], Group] = {}
    for f in findings:
        key = (f.location.file, f.table or "")
        group = groups.get(key)
        if group is None:
            anchor = f"s{n}-g{len(groups) + 1}"
            group = groups[key] = Group(anchor, f.table or "", f.location.file)
        group.findings.append(f)
    return list(groups.values())


def _rows(tables: list[Table], rewrite: Rate | None, index: Rate | None) -> list[TableRow]:
    out = []
    for t in tables:
        w = t.workload
        out.append(
            TableRow(
                name=t.qualified_name,
                rows=t.rows,
                bytes=t.bytes,
                analysed=t.analysed,
                indexes=len(t.indexes),
                inserts=w.inserts if w else None,
                reads=w.reads if w else None,
                insert_heavy=bool(t.insert_heavy),
                rewrite=rewrite.seconds(t.bytes) if rewrite and t.bytes else None,
                index_build=index.seconds(t.bytes) if index and t.bytes else None,
            )
        )
    return out


def _unused_indexes(
    tables: list[Table], findings: list[Finding], catalogue: dict[str, Evidence]
) -> tuple[list[IndexSize], list[Evidence]]:
    """The size of each index the unused-index rule reports, and the measurements its findings cite."""
    by_name = {t.qualified_name: t for t in tables}
    unused = [f for f in findings if f.rule == UNUSED_INDEX and f.table and f.index]
    sizes = []
    for f in unused:
        table = by_name.get(f.table or "")
        found = table.index_named(f.index or "") if table else None
        sizes.append(IndexSize(f.table or "", f.index or "", found.bytes if found else None, f.foreign_key))
    return sizes, [catalogue[i] for i in dict.fromkeys(i for f in unused for i in f.evidence) if i in catalogue]


def _source_view(
    n: int, source: Source, findings: list[Finding], catalogue: dict[str, Evidence], files: list[str]
) -> SourceView:
    schema = source.schema
    tables = list(schema.tables.values())
    # what to list: tables a size or counters are known for (a lint run without a snapshot has neither)
    known = [t for t in tables if t.bytes is not None or t.workload is not None]
    known.sort(key=lambda t: (-(t.bytes or -1), -(t.rows or -1), t.qualified_name))
    rewrite, index = _rate(REWRITE, source, catalogue), _rate(INDEX_BUILD, source, catalogue)
    workloads = [t.workload for t in tables if t.workload is not None]
    sinces = sorted({w.since for w in workloads if w.since})
    counters = ", ".join(sorted({w.source for w in workloads if w.source})) or "none"
    heavy = [t for t in tables if t.insert_heavy]
    sizes, unused_records = _unused_indexes(tables, findings, catalogue)

    family = source.dialect
    plots, missing = [], []
    for plot, why in (
        insert_rate_plot(_insert_record(source, catalogue), heavy, family, f"{n}a"),
        lock_duration_plot(rewrite, index, tables, family, f"{n}b"),
        index_size_plot(sizes, unused_records, family, f"{n}c"),
    ):
        if plot is not None and plot.placed:
            plots.append(plot)
        else:
            missing.append(plot.left_out if plot is not None else why)
    counts = Counter(str(f.severity) for f in findings)
    return SourceView(
        n=n,
        source=source,
        schemas=sorted({t.schema for t in tables if t.schema}),
        tables=len(tables),
        views=len(schema.views),
        since=sinces[0] if sinces else None,
        counters=counters,
        counts={s: counts.get(s, 0) for s in ("error", "warning", "info")},
        groups=_groups(findings, n),
        rows=_rows(known[:TABLES_SHOWN], rewrite, index),
        rewrite=rewrite,
        index_build=index,
        title=_title(source, files),
        plots=plots,
        no_plot=missing,
        insert_heavy=len(heavy),
        unused=sum(1 for s in sizes if not s.foreign_key),
        known_tables=len(known),
        sizes=SIZES["mysql" if source.dialect in MYSQL_FAMILY else "postgres"],
    )


def page(result: LintResult, generated: str | None = None) -> dict[str, Any]:
    """Everything the template draws."""
    catalogue = load_catalogue()
    findings = list(result.findings)
    views = []
    rest = findings
    for n, source in enumerate(result.sources, start=1):
        mine = [f for f in rest if _belongs(f, source)]
        taken = {id(f) for f in mine}
        rest = [f for f in rest if id(f) not in taken]
        views.append(_source_view(n, source, mine, catalogue, result.files))
    cited = dict.fromkeys(i for f in findings for i in f.evidence)
    for view in views:
        for plot in view.plots:
            cited.update(dict.fromkeys(r.id for r in plot.records))
        cited.update(dict.fromkeys(r.record.id for r in (view.rewrite, view.index_build) if r is not None))
    counts = Counter(str(f.severity) for f in findings)
    script, script_hash = _script()
    # each record's anchor: short, since a 10,000-table audit cites records tens of thousands of times
    anchors = {i: f"e{n}" for n, i in enumerate(cited, start=1)}
    labels = {i: label(short_record(i, catalogue)) for i in cited}  # `schemacite 2026 · PostgreSQL 15.20`
    audit = result.audited
    return {
        "kind": "audit" if audit else "lint",
        "version": __version__,
        "generated": generated or datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "command": result.command,
        "sources": views,
        "other": _groups(rest, 0),  # findings no source claims (none from an audit)
        "errors": result.errors,
        "notes": result.notes,
        "files": result.files,
        "statements": result.statements,
        "counts": {s: counts.get(s, 0) for s in ("error", "warning", "info")},
        "total": len(findings),
        "suppressed": len(result.suppressed),
        "evidence": [catalogue[i] for i in cited if i in catalogue],
        "unknown_evidence": [i for i in cited if i not in catalogue],
        "anchors": anchors,
        "labels": labels,
        "tables_shown": TABLES_SHOWN,
        "css": resources.files("schemacite.report").joinpath("templates", "report.css").read_text(encoding="utf-8"),
        "script": script,
        "script_hash": script_hash,
        "severities": [str(s) for s in sorted(Severity, reverse=True)],
    }


class HtmlReporter(Reporter):
    format = "html"

    def render(self, result: LintResult, out: IO[str]) -> None:
        out.write(_environment().get_template("report.html.j2").render(page=page(result)))
