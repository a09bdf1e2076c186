"""Throwaway PostgreSQL and MariaDB servers for the tests that need a real catalog.

Each server is private to one test session: its own data directory under a fresh
temporary directory, a free TCP port on 127.0.0.1, and a configuration the tests
control (counters on, little memory, no durability). Both are started through the
executors of pytest-postgresql and pytest-mysql (mirakuru underneath: start, wait for
the port, stop, kill leftovers), with two adjustments for a machine that runs as root:

* PostgreSQL's initdb and postgres refuse to run as root. The executor only ever
  calls one program, pg_ctl, so it is given a two-line wrapper that runs pg_ctl as
  the ``postgres`` OS user (``runuser``); the temporary directory belongs to that user.
* MariaDB is told ``--user=root`` and ``--no-defaults``, so that nothing from
  /etc/mysql leaks into the test server, and its root account is created with an
  empty password so that TCP logins work (``--auth-root-authentication-method=normal``).

A server that cannot start raises `ServerStartError` with the tail of its log:
tests that use it then error, they never skip.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

PG_BIN = Path(os.environ.get("SCHEMACITE_PG_BIN", "/usr/lib/postgresql/15/bin"))
MARIADBD = Path(os.environ.get("SCHEMACITE_MARIADBD", "/usr/sbin/mariadbd"))
MARIADBD_SAFE = Path(shutil.which("mariadbd-safe") or "/usr/bin/mariadbd-safe")
MARIADB_ADMIN = shutil.which("mariadb-admin") or "/usr/bin/mariadb-admin"
MARIADB_INSTALL_DB = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"

START_TIMEOUT = 30  # seconds; a healthy start takes one or two

POSTGRES_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "track_counts": "on",
    "shared_buffers": "32MB",
    "max_connections": "40",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "autovacuum": "off",  # no background work competing for the shared cores
}

MARIADB_SETTINGS = {
    "bind-address": "127.0.0.1",
    "performance_schema": "ON",
    "userstat": "ON",
    "innodb_buffer_pool_size": "64M",
    "innodb_log_file_size": "16M",
    "innodb_flush_log_at_trx_commit": "0",
    "innodb_doublewrite": "0",
    "character-set-server": "utf8mb4",
    "collation-server": "utf8mb4_general_ci",
    "max_connections": "40",
    "plugin-load-add": "metadata_lock_info",  # the metadata locks a rehearsal reports
}


class ServerStartError(RuntimeError):
    """A throwaway server could not be started (the message says why)."""


def free_port() -> int:
    """A TCP port nobody listens on right now (never 3306 or 5432: those are taken)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_wrapper(path: Path, command: list[str]) -> str:
    """Write a shell script that runs `command` followed by its own arguments."""
    quoted = " ".join(f"'{part}'" for part in command)
    path.write_text(f'#!/bin/sh\ncd / && exec {quoted} "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def _log_tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log written)"
    return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"


def _version_tuple(text: str) -> tuple[int, ...]:
    match = re.match(r"(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


# ---------------------------------------------------------------- PostgreSQL


class PostgresServer:
    """A running throwaway PostgreSQL server (superuser ``postgres``, trust auth)."""

    user = "postgres"

    def __init__(self, port: int):
        self.host = "127.0.0.1"
        self.port = port
        self.version: tuple[int, ...] = ()

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{dbname}"

    def connect(self, dbname: str = "postgres", **kw):
        """A psycopg connection in autocommit mode (pass autocommit=False to change)."""
        import psycopg

        kw.setdefault("autocommit", True)
        return psycopg.connect(self.dsn(dbname), **kw)

    def create_database(self, name: str) -> str:
        """Create (or recreate, empty) database `name` and return its name."""
        from psycopg import sql

        with self.connect() as conn:
            # DROP DATABASE ... WITH (FORCE) is 13+: end the sessions in it first, as it would
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return name


def _postgres_executor_class():
    from packaging.version import parse
    from pytest_postgresql.executors.proc import PostgreSQLExecutor

    class Executor(PostgreSQLExecutor):
        """pytest-postgresql's executor, for 12 and 13 as well: the lock table claims them, and
        initdb and pg_ctl take the same arguments there."""

        MIN_SUPPORTED_VERSION = parse("12")

    return Executor


@contextlib.contextmanager
def postgres_server(settings: dict[str, str] | None = None, bin_dir: Path | None = None) -> Iterator[PostgresServer]:
    """Start a private PostgreSQL server; stop it and delete its files on exit.

    `settings` override or extend POSTGRES_SETTINGS; `bin_dir` is the build to run (default:
    PG_BIN, the machine's own).
    """
    pg_bin = bin_dir or PG_BIN
    _PostgreSQLExecutor = _postgres_executor_class()
    try:
        postgres_user = pwd.getpwnam("postgres")
    except KeyError:
        raise ServerStartError("PostgreSQL: no 'postgres' OS user to run the server as") from None
    if not (pg_bin / "pg_ctl").exists():
        raise ServerStartError(f"PostgreSQL: {pg_bin / 'pg_ctl'} not found (set SCHEMACITE_PG_BIN)")

    base = Path(tempfile.mkdtemp(prefix="schemacite-pg-"))
    executor = None
    try:
        os.chown(base, postgres_user.pw_uid, postgres_user.pw_gid)
        pg_ctl = str(pg_bin / "pg_ctl")
        if os.geteuid() == 0:
            pg_ctl = _write_wrapper(base / "pg_ctl-as-postgres", ["runuser", "-u", "postgres", "--", pg_ctl])
        port = free_port()
        options = " ".join(f"-c {name}={value}" for name, value in {**POSTGRES_SETTINGS, **(settings or {})}.items())
        executor = _PostgreSQLExecutor(
            executable=pg_ctl,
            host="127.0.0.1",
            port=port,
            datadir=str(base / "data"),
            unixsocketdir=str(base),
            logfile=str(base / "postgresql.log"),
            startparams="-w",
            dbname="postgres",
            user=PostgresServer.user,
            timeout=START_TIMEOUT,
            postgres_options=options,
        )
        try:
            executor.start()
        except Exception as exc:
            raise ServerStartError(
                f"PostgreSQL did not start on port {port}: {exc}\n"
                f"--- {base / 'postgresql.log'} ---\n{_log_tail(base / 'postgresql.log')}"
            ) from exc
        server = PostgresServer(port)
        number = _when_ready(server)
        server.version = (int(number) // 10000, int(number) % 10000)
        yield server
    finally:
        _tear_down(executor, base)


def _when_ready(server: PostgresServer) -> str:
    """The server's version number, once it takes connections. The executor returns when the port
    opens, which is before startup ends: with fsync on, a session may first hear "the database
    system is starting up" (SQLSTATE 57P03)."""
    import time

    import psycopg

    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with server.connect() as conn:
                return conn.execute("SHOW server_version_num").fetchone()[0]
        except psycopg.OperationalError as exc:
            if "starting up" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# ---------------------------------------------------------------- MariaDB


class MariaDBServer:
    """A running throwaway MariaDB server (user ``root``, empty password)."""

    user = "root"

    def __init__(self, port: int, socket_path: str):
        self.host = "127.0.0.1"
        self.port = port
        self.socket = socket_path
        self.version: tuple[int, ...] = ()

    def dsn(self, db: str | None = None) -> str:
        return f"mariadb://{self.user}@{self.host}:{self.port}/{db or ''}"

    def connect(self, db: str | None = None, **kw):
        """A MySQLdb connection over TCP, autocommit on (pass autocommit=False to change)."""
        import MySQLdb

        kw.setdefault("user", self.user)
        kw.setdefault("autocommit", True)
        kw.setdefault("charset", "utf8mb4")
        if db:
            kw.setdefault("database", db)
        return MySQLdb.connect(host=self.host, port=self.port, **kw)

    def scratch_databases(self) -> list[str]:
        """The scratch areas schemacite left on this server (none, after a clean run)."""
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute("SHOW DATABASES LIKE 'schemacite\\_scratch\\_%'")
            return [r[0] for r in cur.fetchall()]
        finally:
            conn.close()

    def create_database(self, name: str) -> str:
        """Create (or recreate, empty) database `name` and return its name."""
        quoted = "`" + name.replace("`", "``") + "`"
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(f"DROP DATABASE IF EXISTS {quoted}")
            cur.execute(f"CREATE DATABASE {quoted}")
        finally:
            conn.close()
        return name


def _mariadb_executor_class():
    from pytest_mysql.executor import MySQLExecutor

    class MariaDBExecutor(MySQLExecutor):
        """MySQLExecutor that gives up as soon as the server dies during startup.

        mysqld_safe exits with status 0 when mariadbd aborts on a bad option, which
        mirakuru does not treat as a failure: it would wait for the port until timeout.
        """

        def after_start_check(self) -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise ServerStartError(f"mysqld_safe exited with status {self.process.returncode}")
            return super().after_start_check()

    return MariaDBExecutor


@contextlib.contextmanager
def mariadb_server(settings: dict[str, str] | None = None) -> Iterator[MariaDBServer]:
    """Start a private MariaDB server; stop it and delete its files on exit.

    `settings` override or extend MARIADB_SETTINGS (e.g. {"performance_schema": "OFF"}).
    """
    MariaDBExecutor = _mariadb_executor_class()

    for program in (MARIADBD, MARIADBD_SAFE, Path(MARIADB_INSTALL_DB)):
        if not program.exists():
            raise ServerStartError(f"MariaDB: {program} not found")

    base = Path(tempfile.mkdtemp(prefix="schemacite-mariadb-"))
    executor = None
    try:
        # --no-defaults must come first on both command lines, so they get wrappers.
        install_db = _write_wrapper(
            base / "install-db",
            [
                MARIADB_INSTALL_DB,
                "--no-defaults",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
        )
        mysqld_safe = _write_wrapper(base / "mysqld-safe", [str(MARIADBD_SAFE), "--no-defaults"])
        port = free_port()
        logfile = base / "mariadb.log"
        params = " ".join(f"--{name}={value}" for name, value in {**MARIADB_SETTINGS, **(settings or {})}.items())
        params += f" --ledir={MARIADBD.parent} --mysqld={MARIADBD.name}"
        try:
            executor = MariaDBExecutor(
                mysqld_safe=Path(mysqld_safe),
                mysqld=MARIADBD,
                admin_exec=MARIADB_ADMIN,
                logfile_path=str(logfile),
                params=params,
                base_directory=base,
                user="root",
                host="127.0.0.1",
                port=port,
                timeout=START_TIMEOUT,
                install_db=install_db,
            )
            executor.start()
        except Exception as exc:
            detail = getattr(exc, "output", b"") or b""
            if isinstance(detail, bytes):
                detail = detail.decode(errors="replace")
            raise ServerStartError(
                f"MariaDB did not start on port {port}: {exc}\n{detail[-2000:]}--- {logfile} ---\n{_log_tail(logfile)}"
            ) from exc
        server = MariaDBServer(port, executor.unixsocket)
        conn = server.connect()
        try:
            cur = conn.cursor()
            cur.execute("SELECT VERSION()")
            server.version = _version_tuple(cur.fetchone()[0])
        finally:
            conn.close()
        yield server
    finally:
        _tear_down(executor, base)


def _tear_down(executor, base: Path) -> None:
    """Stop the server (and kill anything stop() left behind), then remove its files."""
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.stop()
        with contextlib.suppress(Exception):
            executor.kill()
    shutil.rmtree(base, ignore_errors=True)


def _smoke() -> None:  # pragma: no cover - `python tests/servers.py` for a manual check
    import time

    started = time.monotonic()
    with postgres_server() as pg, mariadb_server() as maria:
        print("postgres", pg.version, pg.dsn("postgres"))
        print("mariadb", maria.version, maria.dsn("mysql"))
        print(f"both up in {time.monotonic() - started:.1f}s")
        ports = (pg.port, maria.port)
    for port in ports:
        with socket.socket() as sock:
            print(
                f"port {port} after exit:", "still answering" if sock.connect_ex(("127.0.0.1", port)) == 0 else "closed"
            )


if __name__ == "__main__":  # pragma: no cover
    _smoke()
