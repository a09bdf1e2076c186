"""A line through (bytes, seconds) at the rehearsed sizes, and the time it gives at the production
size, as a range.

The range is the line's value widened by a relative margin and a fixed one: the relative margin
is `MARGIN` or twice the worst relative miss of the line at the sizes measured, whichever is
larger (a line that fitted its own points badly is trusted less); the fixed one, `NOISE`, covers
what a short statement's time varies by from run to run (connections, the probe, the OS).
bench/rehearse_extrapolation.py measures how often the time at four times the largest size lies
inside the range the smaller sizes gave.
"""

from __future__ import annotations

import statistics

from schemacite.model.record import record

MARGIN = 0.35
NOISE = 0.05  # seconds
MB = 1024 * 1024


@record(frozen=True)
class Fit:
    seconds_per_mb: float
    intercept: float  # seconds at no data: the statement's fixed cost
    r2: float
    margin: float  # the relative margin of the range this fit gives

    def at(self, size: float) -> tuple[float, float, float]:
        """(low, expected, high) seconds at `size` bytes."""
        expected = max(0.0, self.intercept + self.seconds_per_mb * size / MB)
        return max(0.0, expected / (1 + self.margin) - NOISE), expected, expected * (1 + self.margin) + NOISE


def fit(points: list[tuple[float, float]]) -> Fit | None:
    """The least-squares line through (bytes, seconds); None with fewer than two sizes."""
    xs = [x / MB for x, _ in points]
    ys = [y for _, y in points]
    if len(set(xs)) < 2:
        return None
    slope, intercept = statistics.linear_regression(xs, ys)
    try:
        r2 = statistics.correlation(xs, ys) ** 2
    except statistics.StatisticsError:  # every size took the same time
        r2 = 0.0
    misses = [abs(y - (intercept + slope * x)) / y for x, y in zip(xs, ys) if y > NOISE]
    return Fit(max(0.0, slope), intercept, r2, max(MARGIN, 2 * max(misses, default=0.0)))
