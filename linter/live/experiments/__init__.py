"""Experiments that measure what the rules claim, on a real server, inside a scratch area.

An experiment backs one or more rules (`rules`), runs on some dialects, says before it starts
how much data it will write (`plan`), and returns figures: each a metric and a number with its
unit (`12,400 rows/s`) named by a `quantity` (`rewrite_bytes_per_second`, 3.1e7), or a text value
for what is not a number. `run_experiment` runs it `repeat` times (each run in a scratch area of
its own) and keeps each figure's median and spread (`evidence.figures`). `run_experiment` gives it a scratch area (a PostgreSQL
schema or a MySQL/MariaDB database named `schemacite_scratch_...`, see `live.scratch`) and
drops the area at the end, on failure, Ctrl-C, SIGTERM and SIGHUP too. Nothing outside the
area is written, with one exception said before the run: the logical replication experiment
creates a publication, a replication slot and a subscription, all named after the area and
dropped with it.

`bench/evidence/run.py` runs every experiment on throwaway servers for the built-in catalogue;
`schemacite evidence reproduce RULE --dsn DSN` runs a rule's experiments on the user's server.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import field
from typing import Any

from schemacite.evidence.figures import Figure, summarise
from schemacite.live import scratch
from schemacite.live.servers import AuditError, connect, parse_dsn, server_dialect
from schemacite.live.servers import query as execute
from schemacite.model.dialects import Dialect
from schemacite.model.record import record

REPEAT = 5  # runs of each experiment: a record keeps their median and spread


class ExperimentError(Exception):
    """The experiment cannot run here; the message says why (never holds a password)."""


@record
class Area:
    """A scratch area on one server, and how to open more sessions inside it."""

    dialect: str  # postgres | mysql | mariadb
    name: str
    version: str  # as the server reports it: "PostgreSQL 16.4", "10.11.6-MariaDB-0+deb12u1"
    connect: Callable[[], Any]  # a new autocommit session whose default schema is the area
    target: Any = None  # the parsed DSN
    sessions: list[Any] = field(default_factory=list)  # every session opened, to stop at the end

    @property
    def postgres(self) -> bool:
        return self.dialect == Dialect.POSTGRES

    def q(self, table: str) -> str:
        """A table of the area, qualified and quoted."""
        return f'"{self.name}"."{table}"' if self.postgres else f"`{self.name}`.`{table}`"


def timed(conn: Any, sql: str) -> float:
    start = time.perf_counter()
    execute(conn, sql)
    return time.perf_counter() - start


def until(done: Callable[[], bool], what: str, seconds: float) -> None:
    """Wait until `done()`, stopping on a stop signal; an ExperimentError naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not done():
        scratch.check()
        if time.monotonic() > deadline:
            raise ExperimentError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.01)


def in_parallel(area: Area, writers: int, work: Callable[[Any, int], None]) -> float:
    """Run `work(session, writer_number)` in `writers` threads, each with its own session, started
    together; the seconds from the start to the last one's end. An error in any writer is raised."""
    sessions = [area.connect() for _ in range(writers)]
    errors: list[BaseException] = []
    gate = threading.Barrier(writers + 1)

    def body(n: int) -> None:
        gate.wait()
        try:
            work(sessions[n], n)
        except BaseException as e:  # reported below, in the caller's thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(n,), daemon=True) for n in range(writers)]
    for t in threads:
        t.start()
    gate.wait()
    start = time.perf_counter()
    for t in threads:
        while t.is_alive():
            t.join(0.2)
            scratch.check()
    seconds = time.perf_counter() - start
    for s in sessions:
        with contextlib.suppress(Exception):
            s.close()
    if errors:
        raise errors[0]
    return seconds


def megabytes(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def hardware() -> str:
    """The machine the client runs on: CPUs and memory (the server's, when they are the same)."""
    cpus = os.cpu_count() or 0
    memory = ""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/meminfo", encoding="ascii") as f:
            kb = int(f.readline().split()[1])
        memory = f", {kb / 1024 / 1024:.1f} GiB RAM"
    return f"{cpus} vCPU{memory}, {platform.system()} {platform.machine()}"


def _stop_sessions(area: Area, admin: Any) -> None:
    """Cancel what the area's sessions still run (a stop signal arrived mid-statement) and close
    them, so dropping the area does not wait for a statement nobody wants any more."""
    for conn in area.sessions:
        with contextlib.suppress(Exception):
            if area.postgres:
                conn.cancel()
            else:
                execute(admin, f"KILL QUERY {int(conn.thread_id())}")
        with contextlib.suppress(Exception):
            conn.close()


@record
class Experiment:
    """One experiment: which rules it backs, on which dialects, and how it runs."""

    name: str
    title: str
    rules: tuple[str, ...]
    dialects: frozenset[str]
    default_rows: int
    shows: str
    limits: str
    plan: Callable[[str, int, int], str]  # (dialect, rows, threads) -> what it writes, in words
    run: Callable[..., list[Figure]]  # (area, rows, threads) -> figures
    default_threads: tuple[int, ...] = (1,)
    needs_subscriber: bool = False
    # what the run's own figures show, in a sentence (else `shows`)
    conclude: Callable[[list[Figure], str], str] | None = None


def registry() -> dict[str, Experiment]:
    # not at the top: the experiment modules import Area and Experiment from this package
    from schemacite.live.experiments import ddl, inserts, replication

    found = [*inserts.EXPERIMENTS, *ddl.EXPERIMENTS, *replication.EXPERIMENTS]
    return {e.name: e for e in found}


def for_rule(rule: str, dialect: str) -> list[Experiment]:
    return [e for e in registry().values() if rule in e.rules and dialect in e.dialects]


@contextlib.contextmanager
def scratch_area(dsn: str) -> Iterator[Area]:
    """A scratch area on the server `dsn` names, dropped when the block ends, however it ends."""
    try:
        target = parse_dsn(dsn)
        admin = connect(target)
    except AuditError as e:
        raise ExperimentError(str(e)) from None
    name = None
    area: Area | None = None
    try:
        dialect, _, version = server_dialect(admin, target.kind)
        with scratch.signals_stop():
            if dialect is Dialect.POSTGRES:
                scratch.pg_drop_stale(admin)
                name = scratch.pg_create(admin)
                version = execute(admin, "SELECT version()")[0][0].split(" on ")[0]

                def session(area_name: str = name) -> Any:
                    conn = connect(target)
                    execute(conn, f'SET search_path TO "{area_name}"')
                    area.sessions.append(conn)
                    return conn

            else:
                scratch.mysql_drop_stale(admin)
                name = scratch.mysql_create(admin)

                def session(area_name: str = name) -> Any:
                    conn = connect(target)
                    conn.select_db(area_name)
                    area.sessions.append(conn)
                    return conn

            area = Area(dialect, name, version, session, target)
            yield area
    except scratch.ScratchDenied as e:
        raise ExperimentError(f"{target.masked}: {e}; experiments write only inside a scratch area") from None
    finally:
        if area is not None:
            _stop_sessions(area, admin)
        if name is not None:
            with contextlib.suppress(Exception):
                (scratch.pg_drop if target.kind is Dialect.POSTGRES else scratch.mysql_drop)(admin, name)
        with contextlib.suppress(Exception):
            admin.close()


@record
class Outcome:
    """An experiment's run: what it measured, where, when, and the command that repeats it."""

    experiment: Experiment
    dialect: str
    server: str
    figures: list[Figure]
    rows: int
    threads: tuple[int, ...]
    command: str
    date: str
    hardware: str
    seconds: float
    runs: int = 1

    def record(self, ident: str, source: str = "schemacite") -> dict[str, Any]:
        """The outcome as a catalogue record (`[[evidence]]` keys)."""
        e = self.experiment
        return {
            "id": ident,
            "kind": "measurement",
            "title": f"{e.title} ({self.server})",
            "source": source,
            "published": self.date,
            "applies_to": [self.dialect],
            "rules": list(e.rules),
            "setup": {
                "server": self.server,
                "hardware": self.hardware,
                "tool": f"schemacite evidence experiment {e.name}",
                "command": self.command,
                "workload": f"{self.rows:,} rows, {' and '.join(map(str, self.threads))} writer(s), "
                f"{self.runs} run{'s' if self.runs != 1 else ''} (figures are medians and the lowest and highest run)",
            },
            "figures": [f.as_dict() for f in self.figures],
            "shows": e.conclude(self.figures, self.server) if e.conclude else e.shows,
            "limits": e.limits,
        }


def run_experiment(
    dsn: str,
    experiment: Experiment,
    rows: int | None = None,
    threads: tuple[int, ...] = (),
    subscriber: str | None = None,
    command: str = "",
    machine: str | None = None,
    repeat: int = REPEAT,
    progress: Callable[[int, list[Figure]], None] | None = None,
) -> Outcome:
    """Run `experiment` `repeat` times on the server `dsn` names, each run in a scratch area of its
    own dropped at its end; the figures are their medians and spreads (`figures.summarise`).
    `progress(run, figures)` hears of each run as it ends."""
    if repeat < 1:
        raise ExperimentError(f"--repeat must be at least 1, not {repeat}")
    rows = rows or experiment.default_rows
    threads = threads or experiment.default_threads
    started = time.perf_counter()
    runs = []
    for n in range(1, repeat + 1):
        with scratch_area(dsn) as area:
            if area.dialect not in experiment.dialects:
                raise ExperimentError(
                    f"{experiment.name} runs on {', '.join(sorted(experiment.dialects))}, not {area.dialect}"
                )
            kwargs = {"subscriber": subscriber} if experiment.needs_subscriber else {}
            try:
                runs.append(experiment.run(area, rows, threads, **kwargs))
            except ExperimentError:
                raise
            except Exception as e:  # a server error: say which statement's, without a traceback
                raise ExperimentError(f"{experiment.name} failed on {area.version}: {_describe(e)}") from None
            server = area.version
            dialect = area.dialect
        if progress:
            progress(n, runs[-1])
    return Outcome(
        experiment,
        dialect,
        server,
        summarise(runs),
        rows,
        threads,
        command,
        datetime.date.today().isoformat(),
        machine or hardware(),
        time.perf_counter() - started,
        repeat,
    )


def _describe(e: Exception) -> str:
    diag = getattr(e, "diag", None)
    if diag is not None and getattr(diag, "message_primary", None):
        return f"{getattr(e, 'sqlstate', '')} {diag.message_primary}".strip()
    args = getattr(e, "args", ())
    return " ".join(str(a) for a in args) or type(e).__name__


def toml_record(record: dict[str, Any]) -> str:
    """One `[[evidence]]` table, as the catalogue writes them (strings, lists, inline tables)."""

    def value(v: Any) -> str:
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        raise TypeError(type(v))

    lines = ["[[evidence]]"]
    for key, v in record.items():
        if key == "figures":
            lines.append("figures = [")
            lines += [f"  {value(f)}," for f in v]
            lines.append("]")
        else:
            lines.append(f"{key} = {value(v)}")
    return "\n".join(lines) + "\n"
