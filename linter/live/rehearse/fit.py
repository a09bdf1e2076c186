"""A line through (bytes, seconds) at the rehearsed sizes, and the time it gives at the production
size, as a range.

The range is the line's value widened by a relative margin and a fixed one: the relative margin
is `MARGIN` or twice the worst relative miss of the line at the sizes measured, whichever is
larger (a line that fitted its own points badly is trusted less); the fixed one, `NOISE`, covers
what a short statement's time varies by from run to run (connections, the probe, the OS).
bench/rehearse_extrapolation.py measures how often the time at four times the largest size lies
inside the range the smaller sizes gave.

A line is a floor for work that grows faster than the table (a sort, a join of the table with
itself: a real migration's backfill grew as size^1.5). The exponent of size^b through the sizes
(a line through their logarithms) says so: above `SUPERLINEAR`, the range's high end is that
curve's value, widened the same way, when it is higher.
"""

from __future__ import annotations

import math
import statistics

from schemacite.model.record import record

MARGIN = 0.5  # this machine, durable settings: 96 % of 178 rewrites, builds and copies at 4N within ±50 % of the line (bench/rehearse_extrapolation.py)
NOISE = 0.05  # seconds
SUPERLINEAR = 1.15  # an exponent above it is more than the sizes' noise (a line's is 1)
TIMED = 0.1  # seconds: shorter times are too noisy to read an exponent from
MB = 1024 * 1024


@record(frozen=True)
class Fit:
    seconds_per_mb: float
    intercept: float  # seconds at no data: the statement's fixed cost
    r2: float
    margin: float  # the relative margin of the range this fit gives
    exponent: float | None = None  # b of seconds ~ size^b, when the times were long enough to read it
    last: tuple[float, float] = (0.0, 0.0)  # the largest size measured: (MB, seconds)

    @property
    def superlinear(self) -> bool:
        return self.exponent is not None and self.exponent > SUPERLINEAR

    def at(self, size: float) -> tuple[float, float, float]:
        """(low, expected, high) seconds at `size` bytes."""
        expected = max(0.0, self.intercept + self.seconds_per_mb * size / MB)
        high = expected * (1 + self.margin) + NOISE
        if self.superlinear and self.exponent is not None and size / MB > self.last[0] > 0:
            curve = self.last[1] * (size / MB / self.last[0]) ** self.exponent
            high = max(high, curve * (1 + self.margin) + NOISE)
        return max(0.0, expected / (1 + self.margin) - NOISE), expected, high


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
    exponent = None
    timed = [(x, y) for x, y in zip(xs, ys) if y > TIMED and x > 0]
    if len({x for x, _ in timed}) >= 2:
        exponent, _ = statistics.linear_regression([math.log(x) for x, _ in timed], [math.log(y) for _, y in timed])
    largest = max(zip(xs, ys))
    return Fit(max(0.0, slope), intercept, r2, max(MARGIN, 2 * max(misses, default=0.0)), exponent, largest)
