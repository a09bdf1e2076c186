"""Traffic beside the change: a session per touched table and kind (read, write) sending one short
statement every `INTERVAL` seconds, each timed; and the session `--hold-transaction` keeps open."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from schemacite.model.record import record

INTERVAL = 0.02  # seconds between one probe statement's end and the next one's start


@record(frozen=True)
class Op:
    kind: str  # "read" | "write"
    table: str
    start: float  # time.perf_counter()
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


class Prober(threading.Thread):
    """One session sending `sql` over and over until stopped."""

    def __init__(self, conn: Any, kind: str, table: str, sql: str, fallback: str, execute: Callable[[Any, str], None]):
        super().__init__(daemon=True)
        self.conn, self.kind, self.table, self.sql, self.fallback = conn, kind, table, sql, fallback
        self.execute = execute
        self.ops: list[Op] = []
        self.stop = threading.Event()
        self.pid = 0  # the server's id of its session

    def run(self) -> None:
        while not self.stop.is_set():
            start = time.perf_counter()
            try:
                self.execute(self.conn, self.sql)
            except Exception:  # the change dropped the key column, say: go on with the lock-only form
                self.sql = self.fallback
            self.ops.append(Op(self.kind, self.table, start, time.perf_counter()))
            self.stop.wait(INTERVAL)

    def finish(self, timeout: float) -> list[Op]:
        self.stop.set()
        self.join(timeout)
        with contextlib.suppress(Exception):
            self.conn.close()
        return self.ops


class LockWaits(threading.Thread):
    """Asks the server every few milliseconds which probe sessions wait for a lock (`waiting`:
    their ids -> the ones waiting), so that whether traffic was blocked is the server's word, not
    read off a clock. Keeps (time, kind, table) of every probe seen waiting."""

    def __init__(self, conn: Any, probers: dict[int, Prober], waiting: Callable[[Any, list[int]], set[int]]):
        super().__init__(daemon=True)
        self.conn, self.probers, self.waiting = conn, probers, waiting
        self.seen: list[tuple[float, str, str]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        ids = list(self.probers)
        with contextlib.suppress(Exception):
            while not self.stop.is_set():
                now = time.perf_counter()
                for pid in self.waiting(self.conn, ids):
                    p = self.probers[pid]
                    self.seen.append((now, p.kind, p.table))
                self.stop.wait(0.003)

    def finish(self) -> list[tuple[float, str, str]]:
        self.stop.set()
        self.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()
        return self.seen


def blocked(seen: list[tuple[float, str, str]], kind: str, tables: tuple[str, ...], start: float, end: float) -> bool:
    """Whether the server showed a `kind` probe of one of `tables` waiting for a lock in [start, end]."""
    return any(k == kind and t in tables and start <= at <= end for at, k, t in seen)


class Holder(threading.Thread):
    """A transaction that takes a read's lock on a table and stays open `seconds`."""

    def __init__(self, conn: Any, sql: str, seconds: float, execute: Callable[[Any, str], None]):
        super().__init__(daemon=True)
        self.conn, self.sql, self.seconds, self.execute = conn, sql, seconds, execute
        self.holding = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.execute(self.conn, "BEGIN")
            self.execute(self.conn, self.sql)
            self.holding.set()
            time.sleep(self.seconds)
            self.execute(self.conn, "COMMIT")
        except Exception as e:
            self.error = e
        finally:
            self.holding.set()

    def finish(self) -> None:
        self.join()
        with contextlib.suppress(Exception):
            self.conn.close()


def longest(ops: list[Op], kind: str, start: float, end: float) -> float:
    """The longest time a `kind` probe statement took among those running at some point in
    [start, end]: how long traffic waited while the statement held its locks."""
    return max((op.seconds for op in ops if op.kind == kind and op.start <= end and op.end >= start), default=0.0)
