"""Files named for one database engine, and the dialect each is read as.

Projects that support several databases keep each engine's variant of a migration apart, by
name (Synapse's `x.sql.postgres` beside `x.sql.sqlite`, writefreely's `sqlite.sql` beside
`schema.sql`, `x.mysql.sql`) or by folder (Flyway's `db/migration/{vendor}`: `postgresql/`,
`mysql/`, `h2/`). Such a file runs only on its engine. A run reads the ones for its own dialect
and leaves the others out, saying which: a SQLite file read with MySQL's grammar gives errors or,
worse, findings on SQL no MySQL server ever runs.
"""

from __future__ import annotations

import os
import re

from schemacite.model.dialects import MYSQL_FAMILY, Dialect

# what file and folder names call each engine: (its name in messages, the dialect it is read
# as, or None for an engine schemacite does not read)
ENGINES: dict[str, tuple[str, Dialect | None]] = {
    "postgres": ("PostgreSQL", Dialect.POSTGRES),
    "postgresql": ("PostgreSQL", Dialect.POSTGRES),
    "pgsql": ("PostgreSQL", Dialect.POSTGRES),
    "pg": ("PostgreSQL", Dialect.POSTGRES),
    "mysql": ("MySQL", Dialect.MYSQL),
    "mariadb": ("MariaDB", Dialect.MARIADB),
    "sqlite": ("SQLite", None),
    "sqlite3": ("SQLite", None),
    "h2": ("H2", None),
    "hsqldb": ("HSQLDB", None),
    "derby": ("Derby", None),
    "oracle": ("Oracle", None),
    "mssql": ("SQL Server", None),
    "sqlserver": ("SQL Server", None),
    "sql_server": ("SQL Server", None),
    "db2": ("Db2", None),
    "cockroach": ("CockroachDB", None),
    "cockroachdb": ("CockroachDB", None),
    "informix": ("Informix", None),
    "sybase": ("Sybase", None),
    "firebird": ("Firebird", None),
    "snowflake": ("Snowflake", None),
    "clickhouse": ("ClickHouse", None),
    "duckdb": ("DuckDB", None),
}
# `x.sql.postgres`, `x.postgres.sql`, `postgres.sql`: a name's engine (the folder's is looked up apart)
_NAMED = re.compile(r"(?:^|\.)(?P<before>\w+)\.sql$|\.sql\.(?P<after>\w+)$", re.I)
FOLDERS = 4  # folders above a file looked at for an engine's name
# pop's `x.postgres.up.sql` (ory's popx: `x.postgres.autocommit.up.sql`): pop itself picks the
# run's files among these (frameworks/go.py); the name tells the dialect of a run that names none
_RUNNER_NAMED = re.compile(r"\.(?P<engine>\w+)(?:\.autocommit)?\.(?:up|down)\.sql$", re.I)


def variant(name: str) -> bool:
    """Whether a file name is SQL for one engine written after the `.sql` (`x.sql.postgres`): a
    file a folder holds for a run to read, though its name does not end in .sql."""
    m = _NAMED.search(name)
    return bool(m and m.group("after") and m.group("after").lower() in ENGINES)


def engine_of(path: str, folders: dict[str, tuple[str, str] | None] | None = None) -> tuple[str, str] | None:
    """(the engine's name as written, where it is named: the file's name or its folder) for a file
    named for one engine; None for a file any engine runs. `folders` keeps each folder's answer
    for a caller asking of many files."""
    m = _NAMED.search(os.path.basename(path))
    word = m and (m.group("after") or m.group("before"))
    if word and word.lower() in ENGINES:
        return word.lower(), os.path.basename(path)
    parent = os.path.dirname(path)
    if folders is not None and parent in folders:
        return folders[parent]
    found = next(
        ((os.path.basename(f).lower(), f + "/") for f in _folders(path) if os.path.basename(f).lower() in ENGINES),
        None,
    )
    if folders is not None:
        folders[parent] = found
    return found


def _folders(path: str) -> list[str]:
    """The folders above `path`, nearest first: those below the working directory when the file
    is in it (as relative paths), else the nearest few (a checkout's own path is not the project's)."""
    full = os.path.abspath(path)
    here = os.getcwd()
    if full.startswith(here.rstrip(os.sep) + os.sep):
        parts = os.path.relpath(full, here).split(os.sep)[:-1]
        return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]
    parts = full.split(os.sep)[:-1]
    return [os.sep.join(parts[:n]) for n in range(len(parts), max(len(parts) - FOLDERS, 1), -1)]


def dialect_of(engine: str) -> Dialect | None:
    return ENGINES[engine][1]


def left_out(files: list[str], dialect: Dialect) -> dict[str, str]:
    """The files named for an engine other than the run's, each with why. MySQL's and MariaDB's
    files are read in a run of the other, unless the project names files for the run's own."""
    folders: dict[str, tuple[str, str] | None] = {}
    named = {f: e for f in files if (e := engine_of(f, folders))}
    ours = {dialect_of(engine) for engine, _ in named.values()}
    why = {}
    for f, (engine, where) in named.items():
        title, read_as = ENGINES[engine]
        if read_as is dialect:
            continue
        if read_as in MYSQL_FAMILY and dialect in MYSQL_FAMILY and dialect not in ours:
            continue
        where = f"in {where}, a folder for {title}" if where.endswith("/") else f"named for {title}"
        if read_as is None:
            why[f] = f"{where}, which schemacite does not read"
        else:
            why[f] = f"{where}; the run reads {_title(dialect)}"
    return why


def named_dialect(files: list[str]) -> tuple[str | None, str] | None:
    """The dialect the files' names point to, for a run that names none: (dialect, what showed
    it) when the files named for an engine schemacite reads are all for one; (None, why not) when
    they are for several; None when no file is named for one."""
    seen: dict[Dialect, str] = {}
    folders: dict[str, tuple[str, str] | None] = {}
    for f in files:
        found = _named_for(f, folders)
        if found and (read_as := dialect_of(found[0])) is not None:
            seen.setdefault(read_as, found[1])
    if not seen:
        return None
    shown = ", ".join(f"{_title(d)} ({where})" for d, where in seen.items())
    if len(seen) == 1:
        (dialect,) = seen
        return dialect.value, f"files named for {shown}"
    return None, f"files named for {shown}"


def neutral(files: list[str]) -> list[str]:
    """The files named for no engine: any engine runs them."""
    folders: dict[str, tuple[str, str] | None] = {}
    return [f for f in files if _named_for(f, folders) is None]


def _named_for(path: str, folders: dict[str, tuple[str, str] | None]) -> tuple[str, str] | None:
    """`engine_of`, and a migration runner's name for one engine's file (pop's)."""
    m = _RUNNER_NAMED.search(os.path.basename(path))
    if m and m.group("engine").lower() in ENGINES:
        return m.group("engine").lower(), os.path.basename(path)
    return engine_of(path, folders)


def _title(dialect: Dialect) -> str:
    return {Dialect.POSTGRES: "PostgreSQL", Dialect.MYSQL: "MySQL", Dialect.MARIADB: "MariaDB"}[dialect]
