"""`schemacite audit` and `schemacite snapshot`: the rules over live servers' catalogs.

A target is a URL: ``mysql://user@host:port/db``, ``mariadb://...``,
``postgresql://user@host:port/db`` (or ``postgres://``). Which server it really is
(MySQL or MariaDB, and its version) comes from the server, not from the scheme; the
version is mapped to the nearest supported target no newer than the server.

Passwords come from the URL, else from what the client library reads itself:
    - MySQL/MariaDB (mysqlclient on libmariadb or libmysqlclient): ``~/.my.cnf``
      ([client] group, passed as ``read_default_file`` when the file exists and the URL
      has no password), then ``MYSQL_PWD`` (read by the client library when no password
      is passed; tests/test_audit.py checks it).
    - PostgreSQL (psycopg on libpq): ``PGPASSWORD``, then ``~/.pgpass`` (or ``PGPASSFILE``).
A password is never printed: messages show ``user:***@host``, and finding locations,
snapshot origins and report files carry no password at all.

Every session is read-only with short lock and statement timeouts (the catalog
modules' `prepare_session`); the catalog readers send a fixed number of queries per
target, whatever the number of tables.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from dataclasses import field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from schemacite.live.catalogs import NothingToRead
from schemacite.model import Location, Schema, dialects
from schemacite.model.dialects import Dialect, nearest_target
from schemacite.model.record import record

# a URL's scheme -> the family of servers it reaches (one driver, one catalog reader each)
SCHEMES = {
    "mysql": Dialect.MYSQL,
    "mariadb": Dialect.MYSQL,
    "postgresql": Dialect.POSTGRES,
    "postgres": Dialect.POSTGRES,
}
DEFAULT_PORTS = {Dialect.MYSQL: 3306, Dialect.POSTGRES: 5432}
CONNECT_TIMEOUT = 10.0  # seconds, --timeout
READ_TIMEOUT = 120  # seconds a MySQL/MariaDB reply may take (catalog statements stop at 30 s server-side)
MYSQL_PARAMS = {"unix_socket", "socket", "charset", "connect_timeout"}
# the drivers by their own names: they install the same way whether schemacite came from a
# checkout (`pip install '.[mysql]'`) or a package index
EXTRAS = {
    Dialect.MYSQL: (
        "mysqlclient",
        "pip install mysqlclient (it builds from source: the MariaDB or MySQL client headers and pkg-config first, "
        "e.g. apt-get install libmariadb-dev pkg-config)",
    ),
    Dialect.POSTGRES: ("psycopg", "pip install 'psycopg[binary]'"),
}

_sleep = time.sleep  # the wait between two readings of --sample (tests replace it)


class AuditError(Exception):
    """A target that could not be read; the message never holds a password."""


class DsnError(AuditError):
    """A URL that is not a usable target: str() is `masked-url: reason`."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"{mask(url)}: {reason}")
        self.masked = mask(url)
        self.reason = reason


# ---------------------------------------------------------------- targets


def mask(text: str) -> str:
    """`text` with any URL password replaced by ***; works on URLs that do not parse."""
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)(.*)$", text, re.DOTALL)
    if not m:
        return text
    scheme, netloc, rest = m.groups()
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{hostport}"
    rest = re.sub(r"(?i)([?&](?:password|passwd|pwd)=)[^&#]*", r"\1***", rest)
    return scheme + netloc + rest


@record
class Dsn:
    """One server (and, for PostgreSQL, one database) to audit, as its URL names it: what
    `schemacite audit` and `snapshot` call a target. The server version verdicts are judged for
    is a `model.dialects.Target`."""

    url: str = field(repr=False)  # as given: may hold a password
    scheme: str
    kind: Dialect  # the family: MYSQL (MySQL or MariaDB) | POSTGRES
    user: str | None
    password: str | None = field(repr=False)
    host: str | None
    port: int | None
    database: str | None
    params: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def masked(self) -> str:
        """The URL for messages: password shown as ***."""
        return mask(self.url)

    @property
    def address(self) -> str:
        """The server alone, whatever database or account: scheme://host:port."""
        host = self.host or "localhost"
        if ":" in host:
            host = f"[{host}]"
        return f"{self.scheme}://{host}:{self.port or DEFAULT_PORTS[self.kind]}"

    @property
    def server(self) -> str:
        """Where findings are located: scheme://user@host:port, plus /database on PostgreSQL. No password."""
        user = f"{self.user}@" if self.user else ""
        base = self.address.replace("://", f"://{user}", 1)
        if self.kind is Dialect.POSTGRES:
            base += f"/{self.database or self.user or ''}"
        return base

    def scrub(self, text: str) -> str:
        """`text` (a driver's message) with the password masked where a URL or a libpq
        `password=` setting in it carries one; the same letters elsewhere ("wrong user or
        password" with the password `wrong`) are the message's own words."""
        text = _URL_IN_TEXT.sub(lambda m: mask(m.group(0)), text)
        return _CONNINFO_PASSWORD.sub(r"\1***", text)


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_CONNINFO_PASSWORD = re.compile(r"(?i)(\bpassword\s*=\s*)(?:'(?:[^'\\]|\\.)*'|[^\s'\"]+)")


def parse_dsn(url: str) -> Dsn:
    """A Dsn from a mysql://, mariadb://, postgresql:// or postgres:// URL."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise DsnError(
            url, "not a server URL (use mysql://user@host:port/db, mariadb://..., or postgresql://user@host:port/db)"
        )
    kind = SCHEMES[scheme]
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as e:
        raise DsnError(url, str(e)) from None
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    database = unquote(parts.path.lstrip("/")) or None
    if kind is Dialect.MYSQL:
        unknown = set(params) - MYSQL_PARAMS
        if unknown:
            known = ", ".join(sorted(MYSQL_PARAMS))
            raise DsnError(url, f"unknown parameter(s) {', '.join(sorted(unknown))} (known: {known})")
        if "connect_timeout" in params:
            try:
                float(params["connect_timeout"])
            except ValueError:
                raise DsnError(url, "connect_timeout must be a number of seconds") from None
        if database and "/" in database:
            raise DsnError(url, "the path names one database (mysql://user@host:port/db)")
    return Dsn(
        url=url,
        scheme=scheme,
        kind=kind,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
        host=host,
        port=port,
        database=database,
        params=params,
    )


def _version(text: str) -> tuple[int, ...]:
    text = re.sub(r"^5\.5\.5-", "", text)  # MariaDB's old replication-compatible prefix
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    return tuple(int(p) for p in m.groups() if p is not None) if m else (0,)


# ---------------------------------------------------------------- connecting


def _driver(kind: Dialect):
    module, hint = EXTRAS[kind]
    try:
        if kind is Dialect.MYSQL:
            # optional driver (the postgres or mysql extra), loaded only when a server is reached
            import MySQLdb

            return MySQLdb
        # optional driver (the postgres or mysql extra), loaded only when a server is reached
        import psycopg

        return psycopg
    except ImportError:
        raise AuditError(f"{module} is not installed; install it with: {hint}") from None


def connect(target: Dsn, timeout: float = CONNECT_TIMEOUT):
    """An open connection to `target` (autocommit); AuditError with a clear reason otherwise."""
    driver = _driver(target.kind)
    try:
        if target.kind is Dialect.MYSQL:
            kw: dict[str, Any] = {
                "connect_timeout": max(1, round(float(target.params.get("connect_timeout", timeout)))),
                "read_timeout": READ_TIMEOUT,
                "charset": target.params.get("charset", "utf8mb4"),
            }
            if target.host:
                kw["host"] = target.host
            if target.port:
                kw["port"] = target.port
            if target.user:
                kw["user"] = target.user
            socket = target.params.get("unix_socket") or target.params.get("socket")
            if socket:
                kw["unix_socket"] = socket
            if target.password is not None:
                kw["password"] = target.password
            else:
                my_cnf = os.path.expanduser("~/.my.cnf")
                if os.path.isfile(my_cnf):
                    kw["read_default_file"] = my_cnf
                    kw["read_default_group"] = "client"
            conn = driver.connect(**kw)
            conn.autocommit(True)
            return conn
        # libpq reads the URL (postgres:// too), PGPASSWORD and ~/.pgpass itself
        return driver.connect(target.url, autocommit=True, connect_timeout=max(1, round(timeout)))
    except driver.Error as e:
        raise AuditError(describe_error(target, e, connecting=True)) from None


def query(conn: Any, sql: str, params: tuple | None = None) -> list[tuple]:
    """Run one statement on a connection of either driver (psycopg, mysqlclient); the rows it
    returns, if any. No parameters means none at all, so a literal `%` needs no escaping."""
    cur = conn.cursor()
    try:
        cur.execute(sql, params or None)
        return list(cur.fetchall()) if cur.description else []
    finally:
        cur.close()


def server_dialect(conn: Any, kind: Dialect) -> tuple[Dialect, dialects.Target, str]:
    """(dialect, target, version text) of the connected server, without a query."""
    if kind is Dialect.POSTGRES:
        number = conn.info.server_version
        version = (number // 10000, number % 10000) if number >= 100000 else (number // 10000, number // 100 % 100)
        return Dialect.POSTGRES, nearest_target(Dialect.POSTGRES, version), f"PostgreSQL {version[0]}.{version[1]}"
    text = conn.get_server_info()
    text = text.decode() if isinstance(text, bytes) else text
    dialect = Dialect.MARIADB if "mariadb" in text.lower() else Dialect.MYSQL
    return dialect, nearest_target(dialect, _version(text)), text


_MYSQL_REASONS = {
    1045: "wrong user or password",
    1044: "access denied",
    1049: "unknown database",
    2002: "cannot connect",
    2003: "cannot connect",
    2005: "unknown host",
    2006: "the server went away during the audit",
    2013: "lost the connection",
    1927: "the server went away during the audit",  # ER_CONNECTION_KILLED
    4031: "the server went away during the audit",  # idle or killed session disconnected
    1205: "a catalog query waited too long for a lock (lock wait timeout)",
    1969: "a catalog query exceeded the statement timeout",
    3024: "a catalog query exceeded the statement timeout",
}


def describe_error(target: Dsn, exc: BaseException, connecting: bool = False) -> str:
    """A one-line reason, without the password, for a driver error."""
    args = getattr(exc, "args", ())
    if target.kind is Dialect.MYSQL and args and isinstance(args[0], int):
        code, detail = args[0], str(args[-1])
        reason = _MYSQL_REASONS.get(code, "server error")
        if code == 2013 and connecting:
            reason = "no answer from the server (timeout)" if "handshake" in detail or "initial" in detail else reason
        elif code == 2013:
            reason = "the server went away during the audit"
        message = f"{reason} ({code}: {detail})"
    else:
        detail = " ".join(str(exc).split())
        low = detail.lower()
        if "password authentication failed" in low or "no password supplied" in low:
            reason = "wrong user or password"
        elif "connection refused" in low:
            reason = "cannot connect"
        elif "timeout expired" in low or "timed out" in low:
            reason = "no answer from the server (timeout)"
        elif "does not exist" in low and connecting:
            reason = "unknown database or user"
        elif "lock timeout" in low:
            reason = "a catalog query waited too long for a lock (lock timeout)"
        elif "statement timeout" in low or "canceling statement" in low:
            reason = "a catalog query exceeded the statement timeout"
        elif (
            "server closed the connection" in low or "terminating connection" in low or "consuming input failed" in low
        ):
            reason = "the server went away during the audit"
        elif connecting:
            reason = "cannot connect"
        else:
            reason = "server error"
        message = f"{reason} ({detail})"
    return target.scrub(message)


# ---------------------------------------------------------------- reading


@record
class Reading:
    """What one target gave: its schema (None on failure), notes, or the error."""

    target: Dsn
    schema: Schema | None = None
    dialect: Dialect | None = None
    server_target: dialects.Target | None = None  # the nearest supported target to the server's version
    version: str = ""
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    read_at: str = ""  # when the read began (ISO, UTC)


def _catalog(kind: Dialect):
    if kind is Dialect.MYSQL:
        # start-up: server code loads only when a server is reached
        from schemacite.live.catalogs import mysql

        return mysql
    # start-up: server code loads only when a server is reached
    from schemacite.live.catalogs import postgres

    return postgres


def read_target(
    target: Dsn,
    schemas: list[str],
    sample: float = 0.0,
    timeout: float = CONNECT_TIMEOUT,
    status: Callable[[str], None] = lambda text: None,
) -> Reading:
    """Connect, read the catalog (twice with `sample`), locate every object at target.server.

    Never raises for a target that cannot be read: `Reading.error` says why.
    """
    reading = Reading(target, read_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"))
    started = time.monotonic()

    try:
        status("connecting")
        conn = connect(target, timeout)
        try:
            schema = _read(conn, target, schemas, sample, status, reading)
            if not schema.tables and not schema.views:
                raise NothingToRead("nothing to audit: no table or view here that this account can see")
        except AuditError:
            raise
        except NothingToRead as e:
            raise AuditError(str(e)) from None
        except Exception as e:
            if _is_driver_error(target.kind, e):
                raise AuditError(describe_error(target, e)) from None
            raise AuditError(target.scrub(f"unexpected error while reading: {type(e).__name__}: {e}")) from None
        finally:
            with contextlib.suppress(Exception):  # a connection the server already dropped
                conn.close()
        _relocate(schema, target)
        reading.schema = schema
    except AuditError as e:
        reading.error = str(e)
    reading.seconds = time.monotonic() - started
    return reading


def _read(
    conn: Any, target: Dsn, schemas: list[str], sample: float, status: Callable[[str], None], reading: Reading
) -> Schema:
    catalog = _catalog(target.kind)
    dialect, name, version = server_dialect(conn, target.kind)
    reading.dialect, reading.server_target, reading.version = dialect, name, version
    wanted = list(schemas) or ([target.database] if target.kind is Dialect.MYSQL and target.database else None)
    reading.notes += catalog.prepare_session(conn, dialect)
    side = _side_session(target, catalog, dialect)
    options = {"side": side} if side is not None else {}
    try:
        status("reading the catalog")
        schema, notes = catalog.read_schema(conn, wanted, dialect, **options)
        if sample > 0:
            status(f"sampling for {sample:g} s")
            _sleep(sample)
            status("reading the catalog again")
            later, notes = catalog.read_schema(conn, wanted, dialect, **options)
            reading.notes.append(_difference(schema, later, sample))
            schema = later
    finally:
        if side is not None:
            side.close()
    reading.notes += notes
    return schema


def _side_session(target: Dsn, catalog: Any, dialect: str) -> Any:
    """A second read-only session for MySQL/MariaDB counters, read alongside the catalog;
    None (read them in turn) when it cannot be opened."""
    if target.kind is not Dialect.MYSQL:
        return None
    try:
        side = connect(target)
    except AuditError:
        return None
    catalog.prepare_session(side, dialect)
    return side


def _is_driver_error(kind: Dialect, exc: BaseException) -> bool:
    try:
        return isinstance(exc, _driver(kind).Error)
    except AuditError:
        return False


def _difference(first: Schema, later: Schema, seconds: float) -> str:
    """Make `later`'s workload the change since `first`; return the note that says so."""
    sources = set()
    start = None
    for key, table in later.tables.items():
        w = table.workload
        before = first.tables.get(key)
        if w is None:
            continue
        sources.add(w.source)
        b = before.workload if before is not None else None
        if b is not None and b.sampled_at:
            start = start or b.sampled_at
            deltas = [w.inserts - b.inserts, w.reads - b.reads, w.updates - b.updates, w.deletes - b.deletes]
            if min(deltas) >= 0:  # a negative change: counters were reset between the readings
                w.inserts, w.reads, w.updates, w.deletes = deltas
            w.since = b.sampled_at
            old_scans = {
                i.name: i.scans for i in (before.indexes + ([before.primary_key] if before.primary_key else []))
            }
            for index in table.indexes + ([table.primary_key] if table.primary_key else []):
                was = old_scans.get(index.name)
                if index.scans is not None and was is not None and index.scans >= was:
                    index.scans -= was
        w.source = "sample"
    where = "/".join(sorted(s for s in sources if s and s != "sample")) or "the counters"
    return (
        f"workload figures are the change in {where} over a {seconds:g} s sample (from {start or 'the first reading'})"
    )


def _relocate(schema: Schema, target: Dsn) -> None:
    """Locate tables, indexes, partitioning and views at server/schema; origin is the server."""
    schema.origin = target.server
    for table in schema.tables.values():
        at = Location(f"{target.server}/{table.schema}" if table.schema else target.server)
        table.defined_at = at
        if table.primary_key is not None:
            table.primary_key.defined_at = at
        for index in table.indexes:
            index.defined_at = at
        if table.partitioning is not None:
            table.partitioning.defined_at = at
    for view in schema.views.values():
        view.defined_at = Location(f"{target.server}/{view.schema}" if view.schema else target.server)
