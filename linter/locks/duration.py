"""How long a lock lasts: a table's size divided by the rate its work was measured at.

A rewrite, an index build or a validating scan holds its lock for as long as it reads the
table. When the model knows the table's size (a snapshot or an audit read it from the
catalog: PostgreSQL pg_relation_size and reltuples, InnoDB data_length and rows), the estimate is that
size over the rate measured for the same work on the same server family: the user's own
`evidence reproduce --save` record when the config loads one, else schemacite's own measurement
on the server version nearest the target. The rate is the slope of a line fitted through runs
at three table sizes (the median over the experiment's runs; the record keeps the line's R²),
so it is how the time grew with the table, not one table's time over its size. Figures, not policy: the rules decide what to do
with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemacite.locks import LockImpact
from schemacite.model import Schema, Table
from schemacite.model.dialects import Dialect, Target
from schemacite.model.record import record

if TYPE_CHECKING:
    from schemacite.evidence import Evidence


@record(frozen=True)
class Estimate:
    """How long a statement's work under its lock lasts, from a table's size and a measured rate."""

    relation: str
    rows: int | None
    bytes: int
    work: str  # "rewrites", "builds an index over", "scans"
    seconds: float
    rate: float  # bytes per second
    evidence: str  # the record the rate comes from
    measured_on: str  # its server


def quantity(impact: LockImpact, dialect: Dialect) -> tuple[str, str]:
    """(the rate that applies, the work in words)."""
    if impact.rewrite:
        if dialect.is_mysql_family and impact.algorithm != "COPY":
            return "rebuild_bytes_per_second", "rebuilds"
        return "rewrite_bytes_per_second", "rewrites"
    if "index" in impact.operation or "unique" in impact.operation or "primary_key" in impact.operation:
        return "index_bytes_per_second", "builds an index over"
    return "scan_bytes_per_second", "scans"


def estimate(impact: LockImpact, schema: Schema, dialect: Dialect, target: Target) -> Estimate | None:
    """The time `impact`'s work keeps its lock, for the largest table of known size it locks."""
    if not (impact.rewrite or impact.scan):
        return None
    sized = []
    for lk in impact.locks:
        table = schema.tables.get(lk.relation) or schema.index_owner(lk.relation)
        if table is not None and not table.new and table.bytes:
            sized.append((table.bytes, table.rows, lk.relation))
    if not sized:
        return None
    size, rows, relation = max(sized)
    wanted, work = quantity(impact, dialect)
    found = _rate(wanted, dialect, target)
    if found is None:
        return None
    rate, record = found
    return Estimate(relation, rows, size, work, size / rate, rate, record.id, record.setup.get("server", ""))


def scan_seconds(table: Table, dialect: Dialect, target: Target) -> float | None:
    """How long reading `table` whole takes at the scan rate measured nearest `target`, when its
    size is known: what makes a table large for a lock on it."""
    if not table.bytes:
        return None
    found = _rate("scan_bytes_per_second", dialect, target)
    return table.bytes / found[0] if found and found[0] else None


def human_seconds(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"


def human_bytes(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}" if n < size * 10 else f"{n / size:.0f} {unit}"
    return f"{n:.0f} bytes"


def _rate(wanted: str, dialect: Dialect, target: Target) -> tuple[float, Evidence] | None:
    """The rate `wanted` measured on `dialect` nearest `target`, with its record (the user's own first)."""
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import rate_for, read_catalogue

    return rate_for(wanted, dialect, target, read_catalogue())
