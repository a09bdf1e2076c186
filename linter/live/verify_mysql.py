"""Measure what a MySQL/MariaDB server really does with one DDL statement.

`measure(conn, setup_sql, statement_sql)` builds the table described by `setup_sql`
in a scratch database it creates itself, then asks the server for the cheapest
`ALGORITHM` (INSTANT, then NOCOPY on MariaDB, INPLACE, COPY) and, for that
algorithm, the least restrictive `LOCK` (NONE, SHARED, EXCLUSIVE) it accepts.
The server refuses an algorithm or lock level it cannot honour with one of the
ER_ALTER_OPERATION_NOT_SUPPORTED* errors, so each attempt is a real execution on
a freshly rebuilt scratch table. The last, successful attempt is also watched for
a table rebuild: InnoDB gives a rebuilt (or copied) table a new table id in
INFORMATION_SCHEMA.INNODB_SYS_TABLES (MariaDB, MySQL 5.7) / INNODB_TABLES (MySQL 8).

It serves the lock-table tests and `schemacite locks --verify DSN`. It only ever
creates and drops its own `schemacite_scratch_*` database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any

from schemacite.live import scratch
from schemacite.live.catalogs.mysql import server_version
from schemacite.model.dialects import Dialect
from schemacite.model.record import record
from schemacite.sources.mysql.clauses import drop_index_as_alter, with_clauses, without_clauses
from schemacite.sources.read import parse_text

ALGORITHMS_MYSQL = ("INSTANT", "INPLACE", "COPY")
ALGORITHMS_MARIADB = ("INSTANT", "NOCOPY", "INPLACE", "COPY")
LOCKS = ("NONE", "SHARED", "EXCLUSIVE")

# Errors meaning "this ALGORITHM/LOCK cannot be used for this statement".
# 1845 ER_ALTER_OPERATION_NOT_SUPPORTED, 1846 ..._REASON, 1847 ..._REASON_COPY
# (MySQL: COPY needs a lock), 4092 MySQL 8.0 INSTANT row-size / row-version limits,
# 1848 "Partition specific operations do not yet support LOCK/ALGORITHM" (MySQL 5.6/5.7).
REFUSALS = frozenset({1845, 1846, 1847, 4092})
CLAUSES_UNSUPPORTED = frozenset({1848})
CLAUSES_SYNTAX = -1064  # our marker: no placement of the clauses parses

SCRATCH_PREFIX = scratch.PREFIX

_SESSION_VARS = ("foreign_key_checks", "sql_mode", "unique_checks", "lock_wait_timeout")


@record
class Attempt:
    algorithm: str | None
    lock: str | None
    ok: bool
    error: str | None = None  # "1846: ALGORITHM=INSTANT is not supported. Reason: ..."


@record
class Measured:
    """What the server accepted for one statement."""

    statement: str
    algorithm: str | None  # cheapest accepted ALGORITHM; None if the statement takes no clause
    lock: str | None  # least restrictive LOCK accepted with that algorithm
    rebuild: bool | None  # table id changed (None: could not tell)
    rows_affected: int | None = None  # None when the statement returned rows (OPTIMIZE, ANALYZE ...)
    server: str = ""  # "mariadb" | "mysql"
    version: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    error: str | None = None  # set when the statement failed outright (not a refusal)
    note: str | None = None
    clauses: bool = True  # False: the statement took no ALGORITHM/LOCK clause and ran as written

    @property
    def blocks(self) -> str | None:
        return {"NONE": "nothing", "SHARED": "writes", "EXCLUSIVE": "reads+writes"}.get(self.lock or "")


class MeasureError(RuntimeError):
    """The setup or the statement failed for a reason other than an algorithm/lock refusal."""


def server_of(conn) -> tuple[Dialect, tuple[int, ...], str]:
    """(MARIADB | MYSQL, numeric version, full version string)."""
    cur = conn.cursor()
    cur.execute("SELECT VERSION()")
    full = cur.fetchone()[0]
    cur.close()
    kind = Dialect.MARIADB if "mariadb" in full.lower() else Dialect.MYSQL
    return kind, server_version(full), full


def _kind(sql: str, server: str) -> str:
    """The statement's kind as the MySQL reader reads it ("other" when it cannot)."""
    parsed = parse_text(sql.strip().rstrip(";") + ";\n", "statement.sql", server)
    return parsed.statements[0].kind if len(parsed.statements) == 1 and not parsed.errors else "other"


class _Scratch:
    """One scratch database (see live.scratch), dropped and recreated before every attempt."""

    def __init__(self, conn, name: str | None = None):
        self.conn = conn
        self.name = name or scratch.new_name()
        self.claimed = False
        if not self.name.startswith(SCRATCH_PREFIX):
            raise ValueError(f"scratch database names must start with {SCRATCH_PREFIX!r}")

    def reset(self) -> None:
        if self.claimed:
            scratch.mysql_drop(self.conn, self.name)
        scratch.mysql_create(self.conn, self.name)
        self.claimed = True
        cur = self.conn.cursor()
        cur.execute("SET SESSION foreign_key_checks = 0")
        cur.execute(f"USE `{self.name}`")
        cur.close()

    def drop(self) -> None:
        scratch.mysql_drop(self.conn, self.name)
        self.claimed = False


def _error_text(exc: Exception) -> tuple[int | None, str]:
    args = getattr(exc, "args", ())
    if len(args) >= 2 and isinstance(args[0], int):
        return args[0], f"{args[0]}: {args[1]}"
    return None, str(exc)


def _table_ids(conn, db: str, server: str, version: tuple[int, ...]) -> dict[str, int] | None:
    table = "INNODB_TABLES" if server == Dialect.MYSQL and version >= (8, 0) else "INNODB_SYS_TABLES"
    pattern = db.replace("\\", "\\\\").replace("_", "\\_").replace("%", "\\%") + "/%"
    cur = conn.cursor()
    try:
        cur.execute(f"SELECT NAME, TABLE_ID FROM INFORMATION_SCHEMA.{table} WHERE NAME LIKE %s", (pattern,))
        return {name.lower(): int(tid) for name, tid in cur.fetchall()}
    except Exception:
        return None
    finally:
        cur.close()


class _Session:
    """Snapshot a few session variables and put them back (setup SQL may change them)."""

    def __init__(self, conn):
        self.conn = conn
        cur = conn.cursor()
        self.saved: dict[str, Any] = {}
        for var in _SESSION_VARS:
            try:
                cur.execute(f"SELECT @@SESSION.{var}")
                self.saved[var] = cur.fetchone()[0]
            except Exception:
                pass
        cur.close()

    def restore(self) -> None:
        cur = self.conn.cursor()
        for var, value in self.saved.items():
            cur.execute(f"SET SESSION {var} = %s", (value,))
        cur.close()


def _run(conn, sql: str, optimize: bool = False) -> tuple[int, bool]:
    """Execute and drain; with `optimize`, raise for OPTIMIZE TABLE's in-band errors.
    (rows affected, returned rows?)"""
    cur = conn.cursor()
    try:
        affected = cur.execute(sql)
        rows = cur.fetchall() if cur.description else ()
        if rows and optimize:
            for row in rows:
                if len(row) >= 4 and str(row[2]).lower() == "error":
                    text = str(row[3])
                    code = 1845 if "not supported" in text.lower() else None
                    raise _InBandError(code, text)
        result_set = cur.description is not None
        while cur.nextset():
            pass
        return int(affected or 0), result_set
    finally:
        cur.close()


class _InBandError(Exception):
    def __init__(self, code: int | None, text: str):
        super().__init__(code, text)


def measure(
    conn,
    setup_sql: list[str] | Callable[[Any], None],
    statement_sql: str,
    *,
    database: str | None = None,
    lock_wait_timeout: int = 10,
) -> Measured:
    """Find the cheapest ALGORITHM and LOCK the server accepts for `statement_sql`.

    `conn` is a MySQLdb (mysqlclient) connection with rights to create databases.
    `setup_sql` runs in the scratch database before every attempt (CREATE TABLE,
    INSERT, SET SESSION foreign_key_checks = 0, ...); a callable is called instead, with the
    connection, to fill the scratch database its own way. Attempts are real: the
    scratch database is dropped and rebuilt before each one, and dropped at the end.
    Insert a few rows in the setup: a copy then shows in the rows-affected count.

    Statements without an ALGORITHM/LOCK clause:
    - MariaDB OPTIMIZE TABLE and RENAME TABLE read the `alter_algorithm` session
      variable instead, so the algorithm is measured that way (the lock is not);
    - MariaDB DROP INDEX ... ON t is measured as ALTER TABLE t DROP INDEX (the same
      operation; MariaDB 10.11 refuses the clauses on DROP INDEX);
    - anything else (TRUNCATE, DROP TABLE, partition maintenance on MariaDB, ...) is
      run once as written: `algorithm` and `lock` stay None, `clauses` False.
    """
    server, version, full = server_of(conn)
    algorithms = ALGORITHMS_MARIADB if server is Dialect.MARIADB else ALGORITHMS_MYSQL
    scratch = _Scratch(conn, database)
    session = _Session(conn)
    attempts: list[Attempt] = []
    sql_in = statement_sql
    notes: list[str] = []
    kind = _kind(statement_sql, server)
    if server is Dialect.MARIADB and kind == "drop_index" and drop_index_as_alter(statement_sql):
        sql_in = drop_index_as_alter(statement_sql)
        kind = "alter_table"
        notes.append(f"measured as {sql_in}")
    by_session = server is Dialect.MARIADB and kind in ("optimize_table", "rename_table")
    state = {"placement": 0}

    def prepare() -> None:
        scratch.reset()
        session.restore()
        cur = conn.cursor()
        cur.execute("SET SESSION lock_wait_timeout = %s", (lock_wait_timeout,))
        cur.close()
        if callable(setup_sql):
            setup_sql(conn)
            return
        for sql in setup_sql:
            try:
                _run(conn, sql)
            except Exception as exc:
                raise MeasureError(f"setup failed: {sql!r}: {_error_text(exc)[1]}") from exc

    def execute(sql: str, watch: bool):
        before = _table_ids(conn, scratch.name, server, version) if watch else None
        affected, result_set = _run(conn, sql, optimize=kind == "optimize_table")
        rebuild = None
        if watch:
            after = _table_ids(conn, scratch.name, server, version)
            if before is not None and after is not None:
                common = set(before) & set(after)
                rebuild = any(before[n] != after[n] for n in common) if common else False
        return affected, result_set, rebuild

    def attempt(algorithm: str | None, lock: str | None, watch: bool = False):
        """One real execution: (ok, error code, error text, rows affected, result set?, rebuild)."""
        clauses = bool(algorithm or lock) and not by_session
        placements = ((state["placement"],) if state["placement"] else (0, 1, 2)) if clauses else (0,)
        code = text = None
        for placement in placements:
            prepare()
            if by_session and algorithm:
                _run(conn, f"SET SESSION alter_algorithm = '{algorithm}'")
            sql = with_clauses(sql_in, algorithm, lock, placement) if clauses else without_clauses(sql_in)
            try:
                affected, result_set, rebuild = execute(sql, watch)
            except Exception as exc:
                code, text = _error_text(exc)
                if isinstance(exc, _InBandError):
                    code = exc.args[0]
                if code == 1064 and clauses:
                    continue  # clauses not accepted in this position: try the next one
                attempts.append(Attempt(algorithm, lock, False, text))
                return False, code, text, None, False, None
            finally:
                if by_session and algorithm:
                    _run(conn, "SET SESSION alter_algorithm = DEFAULT")
            state["placement"] = placement
            attempts.append(Attempt(algorithm, lock, True))
            return True, None, None, affected, result_set, rebuild
        attempts.append(Attempt(algorithm, lock, False, text))
        return False, CLAUSES_SYNTAX, text, None, False, None

    def result(algorithm, lock, rebuild, affected, result_set, error=None, clauses=True) -> Measured:
        return Measured(
            statement_sql,
            algorithm,
            lock,
            rebuild,
            None if result_set else affected,
            server,
            full,
            attempts,
            error,
            "; ".join(notes) or None,
            clauses,
        )

    def plain() -> Measured:
        ok, _code, text, affected, result_set, rebuild = attempt(None, None, watch=True)
        return result(None, None, rebuild, affected, result_set, None if ok else text, clauses=False)

    try:
        if kind not in ("alter_table", "create_index", "drop_index") and not by_session:
            return plain()

        best = None
        for algorithm in algorithms:
            ok, code, text, *_rest = attempt(algorithm, None)
            if ok:
                best = algorithm
                break
            if (
                code in CLAUSES_UNSUPPORTED
                or code == CLAUSES_SYNTAX
                or (text and "do not yet support LOCK/ALGORITHM" in text)
            ):
                return plain()  # the server takes no ALGORITHM here (partition maintenance)
            if code not in REFUSALS:
                return result(None, None, None, None, False, text)
        if best is None:
            return plain()

        if by_session:
            # no LOCK clause exists for these statements: report the algorithm only
            ok, code, text, affected, result_set, rebuild = attempt(best, None, watch=True)
            return _copy_check(result(best, None, rebuild, affected, result_set))

        for lock in LOCKS:
            ok, code, text, affected, result_set, rebuild = attempt(best, lock, watch=True)
            if ok:
                return _copy_check(result(best, lock, rebuild, affected, result_set))
            if code not in REFUSALS:
                return result(best, None, None, None, False, text)
        # MySQL: ALGORITHM=INSTANT takes only LOCK=DEFAULT, which never blocks DML
        ok, code, text, affected, result_set, rebuild = attempt(best, None, watch=True)
        return _copy_check(
            result(
                best, "NONE" if ok and best == "INSTANT" else None, rebuild, affected, result_set, None if ok else text
            )
        )
    finally:
        try:
            scratch.drop()
        finally:
            session.restore()


def _copy_check(m: Measured) -> Measured:
    """A server that accepted a cheaper ALGORITHM but reports copied rows did copy the table.

    (MariaDB 10.11 accepts ALGORITHM=INSTANT for ENGINE=<another engine> and then copies
    every row.) The setup must insert rows for this check to see anything.
    """
    if m.algorithm in ("INSTANT", "NOCOPY", "INPLACE") and (m.rows_affected or 0) > 0:
        copied = f"server accepted ALGORITHM={m.algorithm} but reported {m.rows_affected} rows copied"
        m.note = "; ".join(filter(None, [m.note, copied]))
        m.algorithm = "COPY"
        m.rebuild = True
    return m


def run_as_written(conn, setup_sql: list[str], statement_sql: str, *, database: str | None = None):
    """Run `statement_sql` exactly as written on a fresh scratch table.

    Returns (ok, error text or None, rows affected): whether the server accepts the
    statement with the clauses it carries. The scratch database is dropped after.
    """
    scratch = _Scratch(conn, database)
    session = _Session(conn)
    try:
        scratch.reset()
        session.restore()
        for sql in setup_sql:
            _run(conn, sql)
        try:
            optimize = _kind(statement_sql, server_of(conn)[0]) == "optimize_table"
            affected, _result_set = _run(conn, statement_sql, optimize=optimize)
        except Exception as exc:
            return False, _error_text(exc)[1], None
        return True, None, affected
    finally:
        try:
            scratch.drop()
        finally:
            session.restore()
