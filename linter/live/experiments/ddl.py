"""How long DDL holds its lock: the rates at which a server rewrites a table, builds an index,
scans to validate a constraint and backfills a column, and what a second session waits for.

Each run times every statement on tables of a quarter, a half and all of `rows` rows and fits a
line through the three (seconds against bytes, or rows for the backfill): its slope is the rate
a lock estimate divides a table's size by (`quantity` figures, per byte of the table's own data
as the catalog reports it: PostgreSQL pg_relation_size, InnoDB data_length), and R² says how well the
time grew in line with the table. Then, on one more small table, a plain SELECT and a plain
INSERT in other sessions meet each statement (`_probe`): the server says whether they waited
for its lock, and the clock how long.
"""

from __future__ import annotations

import threading
import time

from schemacite.evidence.figures import Figure, fit_rate
from schemacite.live import scratch
from schemacite.live.experiments import (
    Area,
    Experiment,
    execute,
    megabytes,
    timed,
    until,
)
from schemacite.model.record import record


def _fill(area: Area, conn, table: str, rows: int) -> None:
    if area.postgres:
        execute(
            conn,
            f"CREATE TABLE {table} (id bigint PRIMARY KEY, a int NOT NULL, b int NOT NULL, pad text NOT NULL)",
        )
        execute(
            conn,
            f"INSERT INTO {table} SELECT g, (g::bigint * 7919) % 1000003, g % 1000, repeat('x', 60)"
            f" FROM generate_series(1, {rows}) g",
        )
        execute(conn, f"VACUUM ANALYZE {table}")
        return
    execute(
        conn,
        f"CREATE TABLE {table} (id bigint NOT NULL PRIMARY KEY, a int NOT NULL, b int NOT NULL,"
        " pad varchar(64) NOT NULL) ENGINE=InnoDB",
    )
    execute(conn, f"INSERT INTO {table} VALUES (1, 7919, 1, REPEAT('x', 60))")
    have = 1
    while have < rows:  # doubling: no generator table on MySQL
        step = min(have, rows - have)
        execute(
            conn,
            f"INSERT INTO {table} SELECT id + {have}, ((id + {have}) * 7919) % 1000003, (id + {have}) % 1000, pad"
            f" FROM {table} ORDER BY id LIMIT {step}",
        )
        have += step
    execute(conn, f"ANALYZE TABLE {table}")


def _size(area: Area, conn, table: str) -> int:
    """Bytes of the table's own data, as the catalog reads it for a snapshot."""
    if area.postgres:
        return int(execute(conn, f"SELECT pg_relation_size('{table}')")[0][0])
    found = execute(
        conn,
        "SELECT data_length FROM information_schema.TABLES WHERE table_schema = %s AND table_name = %s",
        (area.name, table),
    )
    return int(found[0][0])


@record(frozen=True)
class Step:
    """One statement whose lock lasts as long as its work: the SQL run as written (the sessions'
    default schema is the area), the lock it takes in words, and the rate its time gives."""

    sql: str
    lock: str
    key: str  # names the figures: {key}_bytes_per_second, select_wait_seconds_{key}, ...
    per: str = "bytes"  # the rate is per byte of the table, or per row
    after: str = ""  # run untimed afterwards, so the next step finds the table as it expects
    probe: bool = True  # whether a second session's SELECT and INSERT are run against it

    @property
    def metric(self) -> str:
        return f"{self.sql} ({self.lock})"

    @property
    def quantity(self) -> str:
        return f"{self.key}_{self.per}_per_second"


POSTGRES_STEPS = (
    Step("CREATE INDEX big_a ON big (a)", "ShareLock: writes wait", "index", after="DROP INDEX big_a"),
    Step(
        "CREATE INDEX CONCURRENTLY big_a ON big (a)",
        "ShareUpdateExclusiveLock: reads and writes go on",
        "concurrent_index",
    ),
    Step(
        "ALTER TABLE big ADD CONSTRAINT big_b_check CHECK (b >= 0)",
        "AccessExclusiveLock, validated by a full scan",
        "scan",
    ),
    Step(
        "ALTER TABLE big ALTER COLUMN a TYPE bigint",
        "AccessExclusiveLock: the table and its 2 indexes rewritten",
        "rewrite",
    ),
    Step("UPDATE big SET b = b + 1", "every row in one statement: a backfill", "backfill", per="rows", probe=False),
)
MARIADB_STEPS = (
    Step("ALTER TABLE big ADD INDEX big_a (a), ALGORITHM=INPLACE, LOCK=NONE", "writes allowed", "index"),
    Step("ALTER TABLE big FORCE, ALGORITHM=INPLACE, LOCK=NONE", "table rebuilt in place, writes allowed", "rebuild"),
    Step(
        "ALTER TABLE big MODIFY a bigint NOT NULL, ALGORITHM=COPY, LOCK=SHARED",
        "table copied, writes wait",
        "rewrite",
    ),
    Step("UPDATE big SET b = b + 1", "every row in one statement: a backfill", "backfill", per="rows", probe=False),
)
SIZES = (1, 2, 4)  # quarters of `rows`: the table sizes each run times the work at, for a line to fit
# an uncommitted write the DDL must wait for, so a second session can be queued behind the DDL
HOLD = "UPDATE big SET b = b WHERE id = 1"
WAITED, FREE = "waited for the DDL's lock", "did not wait for a lock"  # as the server showed it
FITS = 0.9  # the R² every run's line must reach for a sentence to say the work grows in line with the table
WAIT = 120.0  # seconds a session may take to reach the state the probe waits for


def lock_durations(area: Area, rows: int, threads: tuple[int, ...] = (1,)) -> list[Figure]:
    conn = area.connect()
    steps = POSTGRES_STEPS if area.postgres else MARIADB_STEPS
    sizes = [max(2, rows * k // SIZES[-1]) for k in SIZES]
    amounts: dict[Step, list[float]] = {s: [] for s in steps}
    seconds: dict[Step, list[float]] = {s: [] for s in steps}
    tables = []
    for n in sizes:
        _fill(area, conn, "big", n)
        size = _size(area, conn, "big")
        tables.append(f"{n:,} rows, {megabytes(size)}")
        for step in steps:
            seconds[step].append(timed(conn, step.sql))
            amounts[step].append(size if step.per == "bytes" else n)
            if step.after:
                execute(conn, step.after)
        execute(conn, "DROP TABLE big")
    figures = [Figure("tables timed, one after another", "; ".join(tables) + " of table data")]
    for step in steps:
        rate, r2 = fit_rate(amounts[step], seconds[step])
        unit = "bytes/s" if step.per == "bytes" else "rows/s"
        if rate is None:
            figures.append(Figure(step.metric, f"did not grow with the table at these sizes (R² {r2:.2f})", fit=r2))
        else:
            figures.append(Figure(step.metric, quantity=step.quantity, number=rate, unit=unit, fit=r2))
    if area.postgres:
        plain, concurrent = POSTGRES_STEPS[0], POSTGRES_STEPS[1]
        figures.append(
            Figure(
                "time of CREATE INDEX CONCURRENTLY over the plain CREATE INDEX, largest table",
                quantity="concurrent_index_time_ratio",
                number=seconds[concurrent][-1] / seconds[plain][-1],
                unit="x",
            )
        )
    _fill(area, conn, "big", sizes[0])
    for step in steps:
        if step.probe:
            figures += _probe(area, step, sizes[0])
        else:
            timed(conn, step.sql)
        if step.after:
            execute(conn, step.after)
    execute(conn, "DROP TABLE big")
    conn.close()
    return figures


def _probe(area: Area, step: Step, rows: int) -> list[Figure]:
    """How long a plain SELECT and a plain INSERT in other sessions wait for `step`'s lock.

    A third session holds an uncommitted write, so the DDL queues behind it; the SELECT and the
    INSERT start behind the DDL, each until the server shows it waiting for a lock or it has
    finished; then the write commits. A probe whose lock conflicts with the DDL's waits for the
    whole DDL (its wait is counted from that commit); one that does not finishes at once. Whether
    a probe waited is read from the server (pg_locks, the process list), not from the clock."""
    watch, holder = area.connect(), area.connect()
    execute(holder, "BEGIN")
    execute(holder, HOLD)
    ddl = _Session(area, step.sql)
    until(lambda: _waiting(area, watch, ddl) or ddl.done(), f"{step.sql} to queue behind a write", WAIT)
    ident = -len(area.sessions)  # a fresh id for the probe's row
    probes = {
        "SELECT": _Session(area, "SELECT b FROM big WHERE id = 2"),
        "INSERT": _Session(area, f"INSERT INTO big (id, a, b, pad) VALUES ({ident}, 0, 0, 'x')"),
    }
    waited = {}
    for what, probe in probes.items():
        until(lambda p=probe: _waiting(area, watch, p) or p.done(), f"the {what} to start", WAIT)
        waited[what] = not probe.done()
    released = time.perf_counter()
    execute(holder, "COMMIT")
    for session in (ddl, *probes.values()):
        session.join()
    figures = [
        Figure(
            f"{step.sql} itself, from the write's commit, while the sessions below waited ({rows:,} rows)",
            quantity=f"ddl_seconds_{step.key}",
            number=max(ddl.ended - released, 1e-6),
            unit="s",
        )
    ]
    for what, probe in probes.items():
        wait = probe.ended - (released if waited[what] else probe.started)
        figures.append(
            Figure(
                f"{what} in a second session during {step.sql} ({rows:,} rows)",
                quantity=f"{what.lower()}_wait_seconds_{step.key}",
                number=max(wait, 1e-6),
                unit="s",
                note=WAITED if waited[what] else FREE,
            )
        )
    watch.close()
    holder.close()
    return figures


class _Session:
    """A statement running in a session of its own, in a thread: when it started and ended."""

    def __init__(self, area: Area, sql: str):
        self.conn = area.connect()
        self.pid = self.conn.info.backend_pid if area.postgres else self.conn.thread_id()
        self.error: BaseException | None = None
        self.started = time.perf_counter()
        self.ended = 0.0
        self.thread = threading.Thread(target=self._run, args=(sql,), daemon=True)
        self.thread.start()

    def _run(self, sql: str) -> None:
        try:
            execute(self.conn, sql)
        except BaseException as e:  # raised in the caller's thread by join()
            self.error = e
        self.ended = time.perf_counter()

    def done(self) -> bool:
        return not self.thread.is_alive()

    def join(self) -> None:
        while self.thread.is_alive():
            self.thread.join(0.2)
            scratch.check()
        self.conn.close()
        if self.error is not None:
            raise self.error


def _waiting(area: Area, watch, session: _Session) -> bool:
    """Whether the server shows `session` waiting for a lock."""
    if area.postgres:
        sql = "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted"
        return bool(execute(watch, sql, (session.pid,))[0][0])
    found = execute(watch, "SELECT state FROM information_schema.PROCESSLIST WHERE id = %s", (session.pid,))
    return bool(found) and "lock" in (found[0][0] or "").lower()


def _plan(dialect: str, rows: int, threads: tuple[int, ...]) -> str:
    sizes = " then ".join(f"{max(2, rows * k // SIZES[-1]):,}" for k in SIZES)
    return (
        f"tables of {sizes} rows (the largest about {rows * 110 / 1e6:,.0f} MB, at most about twice that while it "
        f"is rewritten or updated), one at a time, each indexed, altered and updated, then one more of "
        f"{max(2, rows // SIZES[-1]):,} rows altered while other sessions read and write it; each dropped after use"
    )


def _conclude(figures: list[Figure], server: str) -> str:
    """What the runs show, decided from the figures: which work grew in line with the table (a
    line fits every run with R² of at least FITS), and which DDL a second session waited for."""
    steps = POSTGRES_STEPS if "PostgreSQL" in server else MARIADB_STEPS
    by_metric = {f.metric: f for f in figures}
    grew = [s.sql for s in steps if (f := by_metric.get(s.metric)) and f.fit is not None and f.fit >= FITS]
    loose = [s.sql for s in steps if s.metric in by_metric and s.sql not in grew]
    parts = [f"On {server}"]
    if grew:
        parts.append(
            f", the time of {_listed(grew)} grew in line with the table (a line through {len(SIZES)} sizes fits "
            f"every run with R² of at least {FITS}): its rate turns a table's size into the seconds the lock is held"
        )
    if loose:
        parts.append(f"; the time of {_listed(loose)} did not follow a line closely enough to say how it grows")
    by_quantity = {f.quantity: f for f in figures if f.quantity}
    met = []
    for step in steps:
        seen = {w: by_quantity.get(f"{w.lower()}_wait_seconds_{step.key}") for w in ("SELECT", "INSERT")}
        if None in seen.values():
            continue
        waited = [w for w, f in seen.items() if f.note == WAITED]
        free = [w for w, f in seen.items() if f.note == FREE]
        said = [f"the {w} waited (median {seen[w].number:.2f} s)" for w in waited]
        said += [f"the {w} did not" for w in free]
        said += [f"the {w} waited in some runs only" for w in seen if w not in waited + free]
        met.append(f"{step.sql}: {', '.join(said)}")
    if met:
        parts.append(f". A plain SELECT and INSERT in other sessions, queued behind each statement: {'; '.join(met)}")
    return "".join(parts) + "."


def _listed(items: list[str]) -> str:
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]


LOCK_DURATIONS = Experiment(
    name="lock-durations",
    title="How fast DDL rewrites, indexes, validates and backfills a table, and what waits for it",
    rules=("access-exclusive-lock", "write-blocking-lock", "lock-held-during-long-work"),
    dialects=frozenset({"postgres", "mysql", "mariadb"}),
    default_rows=1_000_000,
    default_threads=(1,),
    shows="A lock held by a rewrite, an index build, a validating scan or a backfill lasts as long as the work: "
    "the rates, fitted over several table sizes, turn a table's size into the seconds its lock is held.",
    limits="Tables that fit in memory, with nothing else running: on a busy server, a table larger than "
    "memory or slower storage, every rate is lower and the lock lasts longer. The second session's wait is "
    "measured on the smallest table.",
    plan=_plan,
    run=lock_durations,
    conclude=_conclude,
)

EXPERIMENTS = [LOCK_DURATIONS]
