"""Scratch areas: the only place `locks --verify` and the lock measurements write.

A scratch area is a PostgreSQL schema or a MySQL/MariaDB database named
``schemacite_scratch_<UTC creation time>_<pid>_<count>x<random>``. While its creator runs, it holds a
session lock named after it (a PostgreSQL advisory lock, a MySQL/MariaDB `GET_LOCK`), which the
server releases when the session ends, however it ends. The next run drops every area with the
prefix whose lock is free: areas left by a run that was killed (SIGKILL, a lost connection).
SIGTERM and SIGHUP become `Stopped` while a `signals_stop()` block runs, so the `finally` that
drops an area runs before the process exits.
"""

from __future__ import annotations

import calendar
import contextlib
import itertools
import os
import re
import secrets
import signal
import time
from collections.abc import Iterator
from typing import Any

from schemacite.errors import Stopped
from schemacite.live.servers import query

PREFIX = "schemacite_scratch_"

# Statements that write outside any one database (roles, databases, tablespaces, server settings,
# replication) or reach files and programs on the server: never run in a scratch area. (family,
# pattern on the statement's text with comments stripped, why)
OUTSIDE = (
    (
        "postgres",
        r"(CREATE|ALTER|DROP)\s+(ROLE|USER|GROUP|DATABASE|TABLESPACE|SUBSCRIPTION)\b|ALTER\s+SYSTEM\b"
        r"|GRANT\s+(?![^;]*\bON\b)|REVOKE\s+(?![^;]*\bON\b)|COMMENT\s+ON\s+(DATABASE|ROLE|TABLESPACE)\b",
        "roles, databases, tablespaces and server settings belong to the whole server",
    ),
    (
        "postgres",
        r"COPY\b[^;]*\b(FROM|TO)\s+(PROGRAM\b|'|E')|CHECKPOINT\b|LOAD\b",
        "it reads or writes files or runs programs on the server",
    ),
    (
        "mysql",
        r"(CREATE|ALTER|DROP|RENAME)\s+USER\b|(CREATE|ALTER|DROP)\s+(DATABASE|SCHEMA|ROLE|SERVER|TABLESPACE"
        r"|LOGFILE\s+GROUP|RESOURCE\s+GROUP)\b|GRANT\b|REVOKE\b|SET\s+(GLOBAL|PERSIST|PERSIST_ONLY|PASSWORD"
        r"|DEFAULT\s+ROLE)\b|SET\s+@@(GLOBAL|PERSIST)|FLUSH\b|PURGE\b|RESET\b|KILL\b|SHUTDOWN\b"
        r"|(INSTALL|UNINSTALL)\s+(PLUGIN|COMPONENT|SONAME)\b|CHANGE\s+(MASTER|REPLICATION)\b"
        r"|(START|STOP)\s+(SLAVE|REPLICA|GROUP_REPLICATION)\b",
        "users, databases, tablespaces and server settings belong to the whole server",
    ),
    ("mysql", r"USE\b", "it switches to another database"),
    (
        "mysql",
        r"LOAD\s+(DATA|XML)\b|[^;]*\bINTO\s+(OUT|DUMP)FILE\b",
        "it reads or writes files on the server or the client",
    ),
)


def outside(sql: str, family: str) -> str | None:
    """Why `sql` may not run in a scratch area (it writes outside it), or None."""
    text = re.sub(r"/\*!\d*(.*?)\*/", r"\1", sql, flags=re.S)  # MySQL runs executable comments
    text = re.sub(r"--[^\n]*|/\*.*?\*/", " ", text, flags=re.S).strip()
    for fam, pattern, why in OUTSIDE:
        if fam == family and re.match(pattern, text, re.I):
            return why
    return None


_PG_CLASS = 0x5C17E  # the advisory lock's first key: schemacite's own space


class ScratchDenied(Exception):
    """The account may not create a scratch area here; the message says what it lacks."""


_made = itertools.count()


def new_name() -> str:
    # the counter keeps one process's names apart (a verify run makes several areas in one second,
    # and two random bytes alone met once in a test run); the random part keeps processes whose pids
    # recur apart
    return f"{PREFIX}{time.strftime('%Y%m%dt%H%M%S', time.gmtime())}_{os.getpid()}_{next(_made)}x{secrets.token_hex(2)}"


_pending: list[int] = []  # a stop signal that arrived, kept in case a driver swallowed the exception


def check() -> None:
    """Raise `Stopped` if a stop signal arrived (its exception may have been lost inside a driver)."""
    if _pending:
        raise Stopped(_pending[0])


def pending() -> int | None:
    return _pending[0] if _pending else None


@contextlib.contextmanager
def signals_stop() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into `Stopped` inside the block (main thread only)."""

    def stop(signum: int, _frame: Any) -> None:
        _pending.append(signum)
        raise Stopped(signum)

    try:
        saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


# ---- PostgreSQL: one schema per area, an advisory lock per schema ----------------------------

# PostgreSQL's SQLSTATEs these answer to: told by the code the driver's error carries, so this
# module needs no driver until a connection, made elsewhere, is handed to it
INSUFFICIENT_PRIVILEGE = "42501"
OBJECT_IN_USE = "55006"


def _sqlstate(error: BaseException) -> str | None:
    return getattr(error, "sqlstate", None)


def pg_create(conn: Any, name: str | None = None) -> str:
    """Create and claim a scratch schema on `conn` (autocommit); ScratchDenied without CREATE."""
    name = name or new_name()
    conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (_PG_CLASS, name))
    try:
        conn.execute(f'CREATE SCHEMA "{name}"')
    except Exception as e:
        if _sqlstate(e) != INSUFFICIENT_PRIVILEGE:
            raise
        pg_release(conn, name)
        raise ScratchDenied(
            f"cannot create a scratch schema: {e.diag.message_primary} (needs CREATE on the database)"
        ) from None
    return name


def pg_drop(conn: Any, name: str) -> None:
    if conn.info.transaction_status != 0:  # not idle: leave any open transaction first
        conn.execute("ROLLBACK")
    conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    pg_release(conn, name)


def pg_release(conn: Any, name: str) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (_PG_CLASS, name))


def pg_drop_stale(conn: Any) -> list[str]:
    """Drop the scratch schemas no live session holds; return their names."""
    names = [
        n
        for (n,) in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (PREFIX,)
        ).fetchall()
    ]
    dropped = []
    for name in names:
        if conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (_PG_CLASS, name)).fetchone()[0]:
            pg_drop(conn, name)
            dropped.append(name)
    return dropped


# ---- PostgreSQL: scratch databases, for `locks --verify` ---------------------------------------
# A migration may name `public.` or create schemas: only a database of its own keeps every write
# inside the scratch area. A database in use shows in pg_stat_activity, which every role reads.

_STALE_AFTER = 5  # seconds: a live run connects to its database at once


def _created(name: str) -> float | None:
    stamp = name[len(PREFIX) :].split("_", 1)[0]
    try:
        return calendar.timegm(time.strptime(stamp, "%Y%m%dt%H%M%S"))
    except ValueError:
        return None


def pg_create_database(admin: Any, name: str | None = None) -> str:
    name = name or new_name()
    try:
        admin.execute(f'CREATE DATABASE "{name}"')
    except Exception as e:
        if _sqlstate(e) != INSUFFICIENT_PRIVILEGE:
            raise
        raise ScratchDenied(f"cannot create a scratch database: {e.diag.message_primary} (needs CREATEDB)") from None
    return name


def pg_drop_database(admin: Any, name: str) -> None:
    for attempt in range(50):
        try:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            return
        except Exception as e:
            if _sqlstate(e) != OBJECT_IN_USE or attempt == 49:
                raise
            # our own sessions still in it: a query cut short by a signal, helpers closing
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            time.sleep(0.1)


def pg_drop_stale_databases(admin: Any) -> list[str]:
    rows = admin.execute(
        "SELECT d.datname, EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)"
        " FROM pg_database d WHERE starts_with(d.datname, %s)",
        (PREFIX,),
    ).fetchall()
    dropped = []
    for name, busy in rows:
        created = _created(name)
        if not busy and created is not None and time.time() - created > _STALE_AFTER:
            pg_drop_database(admin, name)
            dropped.append(name)
    return dropped


# ---- MySQL/MariaDB: one database per area, a named lock per database -------------------------


def mysql_create(conn: Any, name: str | None = None) -> str:
    """Create and claim a scratch database; ScratchDenied without CREATE."""
    name = name or new_name()
    query(conn, "SELECT GET_LOCK(%s, 0)", (name,))
    try:
        query(conn, f"CREATE DATABASE `{name}` DEFAULT CHARACTER SET utf8mb4")
    except Exception as e:
        code = getattr(e, "args", (None,))[0]
        if code in (1044, 1045, 1142, 1227):  # access denied
            query(conn, "SELECT RELEASE_LOCK(%s)", (name,))
            raise ScratchDenied(f"cannot create a scratch database: {e.args[-1]} (needs CREATE)") from None
        raise
    return name


def mysql_drop(conn: Any, name: str) -> None:
    query(conn, "SET SESSION foreign_key_checks = 0")
    query(conn, f"DROP DATABASE IF EXISTS `{name}`")
    query(conn, "SELECT RELEASE_LOCK(%s)", (name,))


def mysql_drop_stale(conn: Any) -> list[str]:
    names = [
        n.decode() if isinstance(n, bytes) else n
        for (n,) in query(conn, "SHOW DATABASES LIKE %s", (PREFIX.replace("_", "\\_") + "%",))
    ]
    dropped = []
    for name in names:
        if query(conn, "SELECT IS_FREE_LOCK(%s)", (name,))[0][0] == 1:
            query(conn, "SELECT GET_LOCK(%s, 0)", (name,))
            mysql_drop(conn, name)
            dropped.append(name)
    return dropped
