"""Measured figures, and many runs of one experiment as one set of figures: the median of each figure, its spread
(lowest and highest run), and whether two figures differ by more than that spread.

A figure's number is what people compare; one run's number is as noisy as the machine, so a
record keeps the median of `runs` runs and the range they covered, and a sentence states an
effect only when the ranges of the two figures it compares do not overlap (`apart`).
A rate that stands for a growth (seconds per byte of table) is the slope of a line fitted
through runs at several table sizes (`fit_rate`), kept with how well the line fits (R²).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from schemacite.model.record import record, replace

UNITS = {  # how a figure's number reads
    "rows/s": lambda n: f"{n:,.0f} rows/s",
    "updates/s": lambda n: f"{n:,.0f} updates/s",
    "bytes/s": lambda n: f"{n / 1e6:,.1f} MB/s",
    "s": lambda n: f"{n:.2f} s",
    "x": lambda n: f"{n:.2f}x",
    "scans": lambda n: f"{n:,.0f}",
}


@record
class Figure:
    """A measured number (with its `unit`, and after `summarise` its median over `runs` runs
    and the lowest and highest run), or a text `value` for what is not a number (refused, a size)."""

    metric: str
    value: str = ""
    quantity: str | None = None  # the name a number is read by: rewrite_bytes_per_second, ...
    number: float | None = None
    note: str | None = None
    unit: str = ""
    low: float | None = None
    high: float | None = None
    runs: int = 1
    fit: float | None = None  # R² of the line the rate is the slope of

    def text(self) -> str:
        if self.number is None:
            return self.value
        show = UNITS[self.unit]
        if self.runs < 2 or self.low is None or self.high is None:
            spread = "one run"
        else:
            spread = f"median of {self.runs} runs, {show(self.low)} to {show(self.high)}"
        if self.fit is not None:
            spread += f"; slope of a line through the table sizes, R² {self.fit:.3f}"
        return f"{show(self.number)} ({spread})"

    def as_dict(self) -> dict[str, str]:
        out = {"metric": self.metric, "value": self.text()}
        if self.number and self.quantity:  # a zero stays in the text: the catalogue's numbers are positive
            out.update(quantity=self.quantity, number=f"{self.number:.6g}", runs=str(self.runs))
            if self.runs > 1 and self.low is not None and self.high is not None:
                out.update(low=f"{self.low:.6g}", high=f"{self.high:.6g}")
            if self.fit is not None:
                out["fit"] = f"{self.fit:.4f}"
        if self.note:
            out["note"] = self.note
        return out


NOISE = "within noise on this machine"
ONE_RUN = "one run, no spread to judge by"


def summarise(runs: Sequence[Sequence[Figure]]) -> list[Figure]:
    """One figure per metric, in the first run's order: the median number, the lowest and highest
    run's, how many runs measured it, the worst fit; text figures as the first run had them."""
    by_metric: dict[str, list[Figure]] = {}
    for figures in runs:
        for f in figures:
            by_metric.setdefault(f.metric, []).append(f)
    out = []
    for same in by_metric.values():
        first = same[0]
        numbers = [f.number for f in same if f.number is not None]
        notes = sorted({f.note for f in same if f.note})
        fits = [f.fit for f in same if f.fit is not None]
        if not numbers:
            values = list(dict.fromkeys(f.value for f in same))  # runs that read differently all say so
            out.append(replace(first, value=" | ".join(values), note="; ".join(notes) or None))
            continue
        # a run that read no number (a time that did not grow with the table) says so beside the others
        base = next(f for f in same if f.number is not None)
        unread = [f.value for f in same if f.number is None]
        if unread:
            notes.append(f"{len(unread)} of {len(same)} runs read no number: {unread[0]}")
        out.append(
            replace(
                base,
                number=statistics.median(numbers),
                low=min(numbers),
                high=max(numbers),
                runs=len(numbers),
                fit=min(fits) if fits else None,
                note="; ".join(notes) or None,
            )
        )
    return out


def apart(a: Figure | None, b: Figure | None) -> bool:
    """Whether two figures differ by more than their spread: at least two runs each, and the
    ranges the runs covered do not overlap. One run has no spread to judge by: never apart."""
    if a is None or b is None or a.runs < 2 or b.runs < 2:
        return False
    if None in (a.low, a.high, b.low, b.high):
        return False
    return a.high < b.low or b.high < a.low  # type: ignore[operator]


def caveat(a: Figure, b: Figure) -> str:
    """What a sentence comparing `a` with `b` must add: nothing when they are apart, else why the
    difference is no effect (within noise, or a single run that has no spread)."""
    if a.runs < 2 or b.runs < 2:
        return ONE_RUN
    return "" if apart(a, b) else NOISE


def fit_rate(amounts: Sequence[float], seconds: Sequence[float]) -> tuple[float | None, float]:
    """(the amount per second a straight line through (amount, seconds) gives, R² of that line).

    The rate is None when the line does not rise (the seconds did not grow with the amount at
    these sizes, as happens when every run takes a few milliseconds of noise)."""
    if len(set(amounts)) < 2:
        raise ValueError("a fit needs at least two different amounts")
    slope, _ = statistics.linear_regression(amounts, seconds)
    try:
        r2 = statistics.correlation(amounts, seconds) ** 2
    except statistics.StatisticsError:  # every run took the same time
        r2 = 0.0
    return (1 / slope if slope > 0 else None), r2
