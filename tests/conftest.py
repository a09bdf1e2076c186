"""Session-wide fixtures: throwaway database servers (see servers.py).

A test that asks for one of them errors, never skips, when the server cannot start.
"""

from __future__ import annotations

import pytest

import servers


@pytest.fixture(scope="session", autouse=True)
def _private_parse_cache(tmp_path_factory):
    """Runs of the CLI in tests keep their parse cache out of the user's home."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path_factory.mktemp("parse-cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def pg_server():
    """A private PostgreSQL server: .dsn(db), .connect(db="postgres"), .create_database(name), .version."""
    with servers.postgres_server() as server:
        yield server


@pytest.fixture(scope="session")
def mariadb_server():
    """A private MariaDB server: .dsn(db), .connect(db=None), .create_database(name), .version."""
    with servers.mariadb_server() as server:
        yield server
