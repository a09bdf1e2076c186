"""Session-wide fixtures: throwaway database servers (see servers.py).

A test that asks for one of them errors, never skips, when the server cannot start.
"""

from __future__ import annotations

import contextlib

import pytest

import pg_builds
import servers


@pytest.fixture(scope="session", autouse=True)
def _private_parse_cache(tmp_path_factory):
    """Runs of the CLI in tests keep their parse cache out of the user's home."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path_factory.mktemp("parse-cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def pg_majors():
    """pg_majors(major) -> a private server of that PostgreSQL major (12..18), started on first use
    and kept for the session; builds other than the machine's own are fetched once (pg_builds)."""
    with contextlib.ExitStack() as stack:
        started: dict[int, servers.PostgresServer] = {}

        def server(major: int) -> servers.PostgresServer:
            if major not in started:
                bin_dir = pg_builds.bin_dir(major)
                started[major] = stack.enter_context(servers.postgres_server(bin_dir=bin_dir))
            return started[major]

        yield server


@pytest.fixture(scope="session")
def pg_server(pg_majors):
    """A private PostgreSQL 15 server: .dsn(db), .connect(db="postgres"), .create_database(name), .version."""
    return pg_majors(15)


@pytest.fixture(scope="session")
def mariadb_server():
    """A private MariaDB server: .dsn(db), .connect(db=None), .create_database(name), .version."""
    with servers.mariadb_server() as server:
        yield server


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups into the test ids
def pytest_collection_modifyitems(items):
    """Groups for pytest-xdist's `--dist loadgroup`: the tests of one PostgreSQL major run in one
    worker, so each major's server starts once, and a module that tallies its cases in a final test
    (the MariaDB lock matrix) runs whole in one worker. Without xdist the marks do nothing."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        major = callspec.params.get("major") if callspec is not None else None
        if isinstance(major, int):
            item.add_marker(pytest.mark.xdist_group(f"pg{major}"))
        elif item.module is not None and item.module.__name__ == "test_locks_mysql":
            item.add_marker(pytest.mark.xdist_group("mariadb-lock-matrix"))
