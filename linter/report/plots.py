"""The HTML report's plots: inline SVG drawn by pygal, each naming the evidence records it draws.

(a) insert rate against the number of secondary indexes, from schemacite's own measurement for
    the audited server family, with the user's insert-heavy tables placed on the curve;
(b) how long a rewrite and an index build hold their locks against table size, at the rates
    measured for the family, with the user's largest tables marked;
(c) the sizes of the indexes SC107 reports: unused ones, and those only a foreign key needs.

The SVG is made to stand alone inside the page: pygal's script elements (its tooltips load from a
CDN) and comments are taken out, and the chart's id is fixed so the same audit draws the same
page. Without JavaScript nothing is lost: each plot's caption lists what it placed, numbered as
the points are (a table's name beside its point ran off the plot or over a neighbour's once names
were long), and a bar's name is cut to fit beside it, whole in the caption.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from typing import Any

from schemacite.evidence import Evidence
from schemacite.locks.duration import human_bytes, human_seconds
from schemacite.model import Table
from schemacite.model.dialects import MYSQL_FAMILY
from schemacite.model.record import record

# as bench/evidence/run.py's secondary-indexes experiment names its figures (live/experiments/inserts.py)
_INSERT_RATE = re.compile(r"insert_rows_per_second_(\d+)_indexes_(\d+)_writers")
LABELLED = 8  # points numbered on a plot; more would crowd it (the caption lists them all)
BAR_NAME = 24  # characters of an index's name beside its bar; more squeezed the bars to nothing
PLACED = 12  # tables placed on a plot at most
BARS = 15  # indexes in the size plot at most

COLORS = ("#1f5fa8", "#6aa5d8", "#c0392b", "#e69a28", "#5a8f29", "#7d5ba6")


@record
class Plot:
    key: str  # the source's number and a, b or c: which plot, for anchors and tests
    title: str
    svg: str  # standalone <svg> markup, every text in it escaped by the XML writer
    records: list[Evidence]  # the evidence records it draws
    caption: str = ""
    placed: list[str] = field(default_factory=list)  # the user's objects it shows, one line each
    left_out: str = ""  # what it could not place, and why


def _style() -> Any:
    # start-up: pygal loads only for the HTML report's plots
    from pygal.style import Style

    return Style(
        background="transparent",
        plot_background="transparent",
        foreground="#222",
        foreground_strong="#111",
        foreground_subtle="#bbb",
        colors=COLORS,
        font_family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
        # sizes in the chart's own units: a 520-unit chart is drawn 340 (a phone) to 600 pixels wide
        label_font_size=14,
        major_label_font_size=14,
        legend_font_size=14,
        title_font_size=17,
        value_font_size=13,
        value_label_font_size=13,
    )


def _standalone(root: Any) -> Any:
    """pygal's xml filter: drop its scripts and comments, so the SVG refers to nothing outside, and
    the ids its scripts looked legends up by (the same in every chart: one page holds several)."""
    for parent in list(root.iter()):
        for child in list(parent):
            if not isinstance(child.tag, str) or child.tag.rsplit("}", 1)[-1] == "script":
                parent.remove(child)
            elif child.get("id", "").startswith("activate-serie"):
                del child.attrib["id"]
    return root


def _chart(kind: str, key: str, **config: Any) -> Any:
    # start-up: pygal loads only for the HTML report's plots
    import pygal

    settings = {
        "width": 520,
        "height": 360,
        "legend_at_bottom": True,
        "truncate_legend": -1,
        "truncate_label": -1,
        "margin_right": 30,  # the last axis label is centred on the edge
        **config,
    }
    chart = getattr(pygal, kind)(
        style=_style(),
        js=[],  # pygal's tooltips load from a CDN by default: nothing is fetched
        disable_xml_declaration=True,
        **settings,
    )
    chart.uuid = f"plot-{key}"  # pygal draws a random one: the same audit gives the same page
    chart.add_xml_filter(_standalone)
    return chart


def _render(chart: Any) -> str:
    svg = chart.render(is_unicode=True)
    # the class pygal gives the root scales it to its container; the page's CSS sizes it
    return str(svg)


def insert_rates(record: Evidence) -> dict[int, dict[int, float]]:
    """{writers: {secondary indexes: rows per second}} of a secondary-indexes measurement."""
    rates: dict[int, dict[int, float]] = {}
    for figure in record.figures:
        m = _INSERT_RATE.fullmatch(str(figure.get("quantity", "")))
        if m and figure.get("number") is not None:
            rates.setdefault(int(m.group(2)), {})[int(m.group(1))] = float(figure["number"])
    return {w: dict(sorted(by.items())) for w, by in sorted(rates.items()) if 0 in by}


def relative(curve: dict[int, float], indexes: int) -> float | None:
    """The insert rate with `indexes` secondary indexes, as a share of the rate with none, read off
    the measured curve (straight lines between measured counts); None beyond the measured range."""
    base = curve[0]
    counts = sorted(curve)
    if indexes in curve:
        return curve[indexes] / base
    for lo, hi in zip(counts, counts[1:]):
        if lo < indexes < hi:
            share = (indexes - lo) / (hi - lo)
            return (curve[lo] + share * (curve[hi] - curve[lo])) / base
    return None


def _writers(n: int) -> str:
    return f"{n} writer{'s' if n != 1 else ''}"


def _activity(table: Table) -> str:
    w = table.workload
    return f"{w.inserts:,} inserts, {w.reads:,} reads" if w else "no counters"


def insert_rate_plot(record: Evidence | None, tables: list[Table], family: str, key: str) -> tuple[Plot | None, str]:
    """Plot (a); or (None, why not)."""
    if record is None:
        return None, f"no measurement of insert rates on {family} to draw (see `schemacite evidence list`)"
    curves = insert_rates(record)
    if not curves:
        return None, f"{record.id} holds no insert rates by index count"
    chart = _chart(
        "XY",
        key,
        title="Insert rate against secondary indexes",
        x_title="secondary indexes on the table",
        y_title="% of the rate with none",
        range=(0, 100),  # a share of the rate with none: nothing above 100 % was measured
        y_labels=[{"value": v, "label": f"{v} %"} for v in range(0, 101, 20)],
        include_x_axis=True,
        print_labels=True,
        dots_size=4,
        value_formatter=lambda y: f"{y:.0f} %",
        x_value_formatter=lambda x: f"{x:g}",
    )
    for writers, curve in curves.items():
        chart.add(
            f"measured, {_writers(writers)}",
            [{"value": (n, 100 * rate / curve[0])} for n, rate in curve.items()],
        )
    reference = next(iter(curves.values()))  # the fewest writers: one writer's inserts in a row
    heavy = sorted(tables, key=lambda t: -(t.workload.inserts if t.workload else 0))
    beyond = [t for t in heavy if relative(reference, len(t.indexes)) is None]
    shown = [t for t in heavy if t not in beyond][:PLACED]
    shares = [relative(reference, len(t.indexes)) or 0.0 for t in shown]
    points = [
        {"value": (len(t.indexes), 100 * share), "label": label}
        for t, share, label in zip(shown, shares, _labels(shown, lambda a, b: len(a.indexes) == len(b.indexes)))
    ]
    placed = [
        f"{n}. {t.qualified_name}: {len(t.indexes)} secondary index{'es' if len(t.indexes) != 1 else ''},"
        f" about {100 * share:.0f} % of the rate with none ({_activity(t)})"
        for n, (t, share) in enumerate(zip(shown, shares), start=1)
    ]
    beyond_names = [f"{t.qualified_name} ({len(t.indexes)})" for t in beyond]
    if points:
        chart.add("your insert-heavy tables", points, stroke=False, dots_size=6)
    left_out = []
    if not heavy:
        left_out.append("no insert-heavy table (by the counters or the config) to place")
    if len(heavy) - len(beyond) > PLACED:
        left_out.append(f"{len(heavy) - len(beyond) - PLACED} more insert-heavy table(s) not placed")
    if beyond:
        left_out.append(
            f"beyond the measured range ({max(reference)} indexes), not placed: {', '.join(beyond_names[:10])}"
            + (f" and {len(beyond) - 10} more" if len(beyond) > 10 else "")
        )
    caption = (
        f"Median of the runs at each count, on {record.setup.get('server', family)}"
        f" ({record.setup.get('workload', '')}). A table is placed on the {_writers(min(curves))} curve"
        " at its own number of secondary indexes (unique ones included, the primary key not)."
    )
    return Plot(
        key, "Insert rate against secondary indexes", _render(chart), [record], caption, placed, "; ".join(left_out)
    ), ""


_TIMES = [
    (0.001, "1 ms"),
    (0.01, "10 ms"),
    (0.1, "0.1 s"),
    (1, "1 s"),
    (10, "10 s"),
    (60, "1 min"),
    (600, "10 min"),
    (3600, "1 h"),
]
_TIMES += [(36000, "10 h"), (86400, "1 day"), (864000, "10 days")]


def _ticks(top: float) -> list[float]:
    """Three to five round values from 0 past `top` (1, 2 or 5 times a power of ten apart): six
    sizes crowded a plot drawn on a phone."""
    step = 10 ** (len(str(int(top))) - 1)
    for factor in (0.1, 0.2, 0.5, 1, 2):
        if top / (step * factor) <= 4:
            step = step * factor
            break
    return [i * step for i in range(int(top // step) + 2)]


def _size(n: float) -> str:
    return human_bytes(n).replace(".0 ", " ") if n else "0"


def _duration(seconds: float) -> str:
    return f"{seconds:.2g} s" if seconds < 1 else human_seconds(seconds).removeprefix("about ")


@record
class Rate:
    """A measured rate a lock estimate divides by."""

    bytes_per_second: float
    record: Evidence
    metric: str  # what ran, as the record's figure says

    def seconds(self, size: int) -> float:
        return size / self.bytes_per_second


def lock_duration_plot(
    rewrite: Rate | None, index: Rate | None, tables: list[Table], family: str, key: str
) -> tuple[Plot | None, str]:
    """Plot (b); or (None, why not)."""
    rates = [(name, r) for name, r in (("rewrite", rewrite), ("index build", index)) if r is not None]
    if not rates:
        return None, f"no measured rewrite or index-build rate on {family} to draw"
    sized = sorted((t for t in tables if t.bytes), key=lambda t: -(t.bytes or 0))[:PLACED]
    sizes = _size_decades(sized)
    fastest = max(r.bytes_per_second for _, r in rates)
    slowest = min(r.bytes_per_second for _, r in rates)
    low, high = sizes[0] / fastest, sizes[-1] / slowest
    chart = _chart(
        "XY",
        key,
        title="How long the lock lasts, by table size",
        x_title="table size (bytes of table data)",
        y_title="lock held for",
        logarithmic=True,
        print_labels=True,
        dots_size=3,
        value_formatter=_duration,
        x_value_formatter=_size,
        x_labels=[{"value": size, "label": _size(size)} for size in sizes],
        # none below the lines' start: one at the bottom corner was drawn over the first size
        y_labels=[{"value": s, "label": label} for s, label in _TIMES if low <= s <= high * 10],
        show_minor_x_labels=True,
    )
    for name, rate in rates:
        chart.add(
            f"{name} at {human_bytes(rate.bytes_per_second)}/s",
            [{"value": (size, rate.seconds(size))} for size in sizes],
            show_dots=False,
        )
    # numbers of tables less than a factor 1.5 apart would touch on the log axis: one names them all
    labels = _labels(sized, lambda a, b: 1 / 1.5 < (a.bytes or 1) / (b.bytes or 1) < 1.5)
    for (name, rate), color in zip(rates, COLORS):
        # the dots take their line's colour and legend: two more entries ran past the plot's edge
        points = [
            {
                "value": (t.bytes, rate.seconds(t.bytes or 0)),
                "label": label if name == rates[0][0] else "",
                "color": color,
            }
            for t, label in zip(sized, labels)
        ]
        if points:
            chart.add(None, points, stroke=False, dots_size=6)
    placed = [
        f"{n}. {t.qualified_name}: {human_bytes(t.bytes or 0)}, "
        + ", ".join(f"{name} {human_seconds(rate.seconds(t.bytes or 0))}" for name, rate in rates)
        for n, t in enumerate(sized, start=1)
    ]
    records = list({id(r.record): r.record for _, r in rates}.values())
    caption = " ".join(
        f"{name.capitalize()}: {human_bytes(rate.bytes_per_second)}/s, the slope measured for {rate.metric}"
        f" on {rate.record.setup.get('server', family)}."
        for name, rate in rates
    ) + (" The dots are your largest tables, numbered as listed." if sized else "")
    left_out = "" if sized else "no table of known size to mark"
    return Plot(key, "How long the lock lasts, by table size", _render(chart), records, caption, placed, left_out), ""


def _size_decades(sized: list[Table]) -> list[int]:
    """The x axis: from the decade of the smallest marked table (1 MB at most) to two decades past
    the largest (1 GB at least), the last one room for names."""
    smallest = min([t.bytes or 10**6 for t in sized] + [10**6])
    largest = max([t.bytes or 0 for t in sized] + [10**9])
    return [10**e for e in range(len(str(int(smallest))) - 1, len(str(int(largest))) + 2)]


def _labels(tables: list[Table], same_spot: Callable[[Table, Table], bool]) -> list[str]:
    """Labels for the points of `tables`: their numbers in the caption's list, at most LABELLED
    spots; a table drawn at the spot of one already labelled adds its number to that label instead
    of printing over it."""
    spots: dict[int, list[int]] = {}  # position of the labelled table -> numbers of the tables at its spot
    for n, t in enumerate(tables):
        spot = next((at for at in spots if same_spot(tables[at], t)), None)
        if spot is not None:
            spots[spot].append(n + 1)
        elif len(spots) < LABELLED:
            spots[n] = [n + 1]
    return [_numbers(spots[n]) if n in spots else "" for n in range(len(tables))]


def _numbers(numbers: list[int]) -> str:
    """1, 2, 3 and 5 as `1-3, 5`."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def _cut(name: str) -> str:
    """A name cut to BAR_NAME characters in its middle: the index's own name, at the end, stays."""
    if len(name) <= BAR_NAME:
        return name
    tail = BAR_NAME * 3 // 5
    return name[: BAR_NAME - tail - 1] + "…" + name[-tail:]


@record
class IndexSize:
    table: str
    index: str
    bytes: int | None
    foreign_key: str | None  # the key it backs, when only a foreign key needs it


def index_size_plot(
    indexes: list[IndexSize], records: list[Evidence], family: str, key: str
) -> tuple[Plot | None, str]:
    """Plot (c); or (None, why not)."""
    if not indexes:
        return None, "no unused or foreign-key-only index reported"
    known = sorted((i for i in indexes if i.bytes is not None), key=lambda i: -(i.bytes or 0))
    unknown = [i for i in indexes if i.bytes is None]
    why_unknown = (
        f"{len(unknown)} reported index(es) of unknown size"
        + (
            " (InnoDB's sizes need SELECT on mysql.innodb_index_stats)"
            if family in MYSQL_FAMILY
            else " (locked by another session while read)"
        )
        if unknown
        else ""
    )
    if not known:
        return None, why_unknown
    shown = known[:BARS]
    chart = _chart(
        "HorizontalBar",
        key,
        title="Size of the indexes SC107 reports",
        # no value printed on a bar: a short bar's ran over its name (the axis and caption give them)
        value_formatter=_size,
        y_labels=[{"value": v, "label": _size(v)} for v in _ticks(shown[0].bytes or 1)],
        x_labels=[_cut(f"{i.table}.{i.index}") for i in reversed(shown)],
        height=max(220, 130 + 30 * len(shown)),
        legend_at_bottom_columns=1,  # beside each other they ran past the right edge, names being long
    )
    chart.add("unused", [None if i.foreign_key else i.bytes for i in reversed(shown)])
    if any(i.foreign_key for i in shown):
        chart.add("only a foreign key needs it", [i.bytes if i.foreign_key else None for i in reversed(shown)])
    total = sum(i.bytes or 0 for i in known if not i.foreign_key)
    placed = [
        f"{i.table}.{i.index}: {human_bytes(i.bytes or 0)}"
        + (f", backs foreign key {i.foreign_key}" if i.foreign_key else "")
        for i in shown
    ]
    left_out = "; ".join(
        p
        for p in (
            f"{len(known) - len(shown)} smaller one(s) not drawn" if len(known) > len(shown) else "",
            why_unknown,
        )
        if p
    )
    caption = (
        f"Unused indexes take {human_bytes(total)} together; every insert into their tables also writes them."
        " An index a foreign key needs is kept: InnoDB refuses to drop it while the key needs it."
    )
    return Plot(key, "Size of the indexes SC107 reports", _render(chart), records, caption, placed, left_out), ""
