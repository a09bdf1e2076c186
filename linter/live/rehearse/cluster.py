"""A throwaway server for a rehearsal that names none: PostgreSQL or MariaDB started from the server
binaries on PATH, in a temporary folder, on a free port of 127.0.0.1, then stopped and removed.

It keeps the server's defaults (durability included: a rehearsal times real writes), sets only
where it listens. PostgreSQL refuses to run as root: run as root, the folder is given to the
`postgres` OS user and the programs run as that user (`runuser`), as the Debian packages do."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

from schemacite.model.dialects import Dialect

START_TIMEOUT = 60.0  # seconds


class ClusterError(Exception):
    """No throwaway server could be started; the message says what is missing or what it logged."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _find(program: str, also: list[str]) -> str | None:
    """`program` on PATH, else in the first of the `also` folders holding it."""
    found = shutil.which(program)
    if found:
        return found
    for folder in also:
        if os.access(os.path.join(folder, program), os.X_OK):
            return os.path.join(folder, program)
    return None


def _postgres_folders() -> list[str]:
    """Debian's and Ubuntu's versioned folders, newest first (their programs are not on PATH)."""
    return sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True)


def _tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, errors="replace") as f:
            return "\n".join(f.read().splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextlib.contextmanager
def throwaway(dialect: Dialect) -> Iterator[str]:
    """A URL of a new empty server of `dialect`'s family, removed when the block ends."""
    base = tempfile.mkdtemp(prefix="schemacite-rehearse-")
    try:
        if dialect is Dialect.POSTGRES:
            with _postgres(base) as url:
                yield url
        else:
            with _mariadb(base) as url:
                yield url
    finally:
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def _postgres(base: str) -> Iterator[str]:
    initdb = _find("initdb", _postgres_folders())
    if initdb is None:
        raise ClusterError(
            "no PostgreSQL server programs (initdb, pg_ctl) on PATH: install them, or name a scratch server with --dsn"
        )
    pg_ctl = os.path.join(os.path.dirname(initdb), "pg_ctl")
    prefix: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            raise ClusterError(
                "PostgreSQL does not run as root, and there is no 'postgres' OS user to run it as"
            ) from None
        os.chown(base, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data, log = os.path.join(base, "data"), os.path.join(base, "server.log")
    _run([*prefix, initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], "initdb")
    port = _free_port()
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
    _run(
        [*prefix, pg_ctl, "-D", data, "-l", log, "-w", "-t", str(int(START_TIMEOUT)), "-o", options, "start"],
        "pg_ctl start",
        log,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"], capture_output=True)


@contextlib.contextmanager
def _mariadb(base: str) -> Iterator[str]:
    sbin = ["/usr/sbin", "/usr/local/sbin", "/usr/bin"]
    install = _find("mariadb-install-db", sbin) or _find("mysql_install_db", sbin)
    server = _find("mariadbd", sbin) or _find("mysqld", sbin)
    if install is None or server is None:
        raise ClusterError(
            "no MariaDB server programs (mariadb-install-db, mariadbd) on PATH: install them, or name a scratch "
            "server with --dsn"
        )
    data, log = os.path.join(base, "data"), os.path.join(base, "server.log")
    user = ["--user=root"] if os.geteuid() == 0 else []
    _run(
        [
            install,
            "--no-defaults",
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *user,
        ],
        "mariadb-install-db",
    )
    port = _free_port()
    proc = subprocess.Popen(
        [
            server,
            "--no-defaults",
            f"--datadir={data}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            f"--socket={os.path.join(base, 'mariadb.sock')}",
            f"--log-error={log}",
            f"--pid-file={os.path.join(base, 'mariadb.pid')}",
            "--plugin-load-add=metadata_lock_info",  # the metadata locks, as they are held
            *user,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise ClusterError(f"MariaDB did not start on port {port}:\n{_tail(log)}")
            time.sleep(0.1)
        yield f"mariadb://root@127.0.0.1:{port}/"
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _run(command: list[str], what: str, log: str | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip()
        raise ClusterError(f"{what} failed (exit {done.returncode}): {said}" + (f"\n{_tail(log)}" if log else ""))
