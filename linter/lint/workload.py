"""When live counters make a table insert-heavy.

A table is insert-heavy when, since its counters started, it received at least
`MIN_INSERTS` inserted rows and at least as many rows inserted as read
(`INSERT_READ_RATIO`). Both figures come from the server: performance_schema
COUNT_INSERT / COUNT_FETCH (MySQL, MariaDB), TABLE_STATISTICS ROWS_CHANGED /
ROWS_READ (MariaDB userstat) or pg_stat_user_tables n_tup_ins / seq_tup_read +
idx_tup_fetch (PostgreSQL).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from schemacite.model import Schema, Table, Workload
from schemacite.model.record import record

MIN_INSERTS = 10_000
# counters that started less than a day before the sample (a server just restarted) give no daily
# rate worth projecting years ahead, and two readings minutes apart would give different dates
MIN_WINDOW_DAYS = 1.0
INSERT_READ_RATIO = 1.0


def is_insert_heavy(w: Workload) -> bool:
    return w.inserts >= MIN_INSERTS and w.inserts >= INSERT_READ_RATIO * w.reads


def mark_insert_heavy(schema: Schema, listed: Iterable[str]) -> None:
    """Mark the tables known to be insert-heavy besides those annotated so: listed in the
    `insert_heavy` setting (names or globs), or shown so by live counters. Rules and reports read
    the mark; a rule that guesses more (from a table's name) does so itself."""
    # names are matched case-blind, as a setting cannot tell a quoted PostgreSQL name from a bare one
    patterns = [p.lower() for p in listed]
    for table in schema.tables.values():
        if table.insert_heavy:
            continue
        # and with and without the schema a replayed name holds (`app.events` is listed as `events`)
        names = (table.name.lower(), table.qualified_name.lower(), table.name.rsplit(".", 1)[-1].lower())
        if any(fnmatch.fnmatchcase(n, pat) for pat in patterns for n in names):
            table.insert_heavy = "config"
        elif table.workload is not None and is_insert_heavy(table.workload):
            table.insert_heavy = "workload"


def idle(w: Workload) -> bool:
    """No recorded activity at all since the counters started: not enough to judge the table by."""
    return not (w.inserts or w.reads or w.updates or w.deletes)


def human(n: int) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def moment(text: str) -> str:
    """A counter's start as a message prints it, to the second: `2026-01-31T10:00:00.123456Z` ->
    `2026-01-31T10:00:00Z` (the servers report microseconds no finding needs)."""
    head, dot, rest = text.partition(".")
    return head + rest.lstrip("0123456789") if dot and ":" in head else text


def describe(w: Workload, since: bool = True) -> str:
    """`12.4M inserts vs 300.0k reads since 2025-01-01T00:00:00Z`; without `since` when the
    message has already said when the counters started."""
    when = f" since {moment(w.since)}" if w.since and since else ""
    return f"{human(w.inserts)} inserts vs {human(w.reads)} reads{when}"


@record(frozen=True)
class Exhaustion:
    """When a counted key reaches a limit at the rate a table's counters show: in `days` from the
    sample (None: the counters saw no insert), and the figures that say so, for a message."""

    days: float | None
    figures: str


def _instant(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        instant = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return instant if instant.tzinfo else instant.replace(tzinfo=UTC)


def exhaustion(table: Table, limit: int) -> Exhaustion | None:
    """When the table's counted key passes `limit`: rows inserted a day over the counters' window
    (`since` to `sampled_at`), from the row count, which is a floor for the key's current value
    (deleted rows and rolled-back inserts used values too), so the date is the latest it can be.
    None when the table has no counters over a known window of a day or more, or no row count."""
    w = table.workload
    if w is None:
        return None
    start, end = _instant(w.since), _instant(w.sampled_at)
    rows = table.rows if table.rows is not None else w.rows
    if start is None or end is None or end <= start or rows is None:
        return None
    if rows >= limit:
        return Exhaustion(0.0, f"its {human(rows)} rows already reach it")
    window = (end - start).total_seconds() / 86400
    if window < MIN_WINDOW_DAYS:
        return None
    if w.inserts <= 0:
        return Exhaustion(None, "no inserts since the counters started")
    rate = w.inserts / window
    days = (limit - rows) / rate
    date = (end + timedelta(days=days)).date().isoformat()
    return Exhaustion(
        days,
        f"{human(w.inserts)} inserts in {window:.0f} days ({human(round(rate))}/day) from {human(rows)} rows "
        f"(a floor for its current value) reach it by {date} at the latest",
    )
