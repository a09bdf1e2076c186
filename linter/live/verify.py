"""`schemacite locks --verify DSN`: measure each statement on a scratch copy and compare.

One scratch database per run (see `live.scratch`), created first and dropped at the end, on
failure, Ctrl-C, SIGTERM and SIGHUP too; scratch databases earlier runs left behind (killed
with SIGKILL, or cut off) are dropped first. Nothing outside the scratch area is written: a
PostgreSQL migration that names `public.` or creates schemas stays inside the scratch
database, and a MySQL/MariaDB statement that names another existing database is not run.

Every statement of the run (history, then the files linted, in replay order) is applied to
the scratch database once. A statement under verification is measured just before it is
applied, against the schema as the earlier statements left it:

- PostgreSQL: in a transaction that rolls back, reading `pg_locks` and `relfilenode` before
  the rollback. A statement PostgreSQL refuses inside a transaction (CONCURRENTLY, VACUUM,
  ...) is observed while it waits, on fresh databases holding only the statements that touch
  its tables (see `verify_postgres.measure_observed`).
- MySQL/MariaDB: the cheapest ALGORITHM and LOCK the server accepts, tried on a copy database
  holding copies of only the tables it touches (and those their foreign keys link), rebuilt
  for every attempt (see `verify_mysql.measure`); a statement that takes no such clause runs
  once as written, and a table it rebuilt (a new table id) is compared with the prediction.

Every statement the files linted report is measured, those predicted to take no lock too, so a
wrong "takes no lock" shows. A statement that cannot run is reported as not run, with the
reason, never as a disagreement: one that writes outside the scratch area (roles, users,
databases, tablespaces, server settings, files on the server: `scratch.OUTSIDE`; these are not
applied either, history included), one naming another database, one the server refuses with
an error the prediction does not expect (a table the history never created, say).

A statement the server refuses with the error the prediction expects (a partitioned table
whose key lacks the partition column: MySQL 1503, PostgreSQL 0A000) agrees.
"""

from __future__ import annotations

import contextlib
from typing import Any

from schemacite.live import scratch
from schemacite.live.servers import AuditError, connect, parse_dsn, query, server_dialect
from schemacite.locks import worst_algorithm, worst_lock_level
from schemacite.model.dialects import Dialect, Target
from schemacite.model.record import record
from schemacite.sources.names import qualifiers


class VerifyError(Exception):
    """The run cannot verify at all (unreachable server, no right to create the scratch area)."""


@record
class Refusal:
    """The server refused the statement, as predicted."""

    code: str
    message: str


def _connect(dsn: str) -> tuple[Any, Any]:
    """(target, connection) of the server `dsn` names; VerifyError when it cannot be reached."""
    try:
        target = parse_dsn(dsn)
        return target, connect(target)
    except AuditError as e:
        raise VerifyError(str(e)) from None


def server_target(dsn: str) -> Target:
    """The target (`postgres-13`, `mariadb-10.11`) of the server `dsn` names."""
    target, conn = _connect(dsn)
    try:
        return server_dialect(conn, target.kind)[1]
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def verify_rows(dsn: str, dialect: Dialect, script: list) -> list[str]:
    """Measure the rows of `script` (every applied statement, with its Row or None) and fill each
    row's `measured` and `disagreements`, or `not_run` with the reason it could not be run. Returns
    notes for the user."""
    script = [(stmt, _predicted(row)) for stmt, row in script]
    target, conn = _connect(dsn)
    try:
        server, _, version = server_dialect(conn, target.kind)
        if server.family is not dialect.family:
            raise VerifyError(f"{target.masked} runs {version}; the statements are {dialect}")
        with scratch.signals_stop():
            if server is Dialect.POSTGRES:
                return _postgres(conn, target, script)
            return _mysql(conn, target, script, lambda: connect(target))
    except scratch.ScratchDenied as e:
        raise VerifyError(
            f"{target.masked}: {e}; verify writes only inside a scratch area it creates and drops"
        ) from None
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def _predicted(row):
    """The row, or None (applied, not measured) when schemacite cannot say what the statement locks:
    a measurement would have nothing to agree with."""
    if row is not None and row.blocks == "unknown":
        row.not_run = "it runs SQL schemacite cannot read: there is no prediction to compare"
        return None
    return row


def _refused(row, code: str | None, message: str) -> None:
    if code and any(i.refused == code for i in row.impacts):
        row.measured = Refusal(code, message)
    else:
        row.not_run = f"the server refused it: {message}"


def _outside(stmt, row, family: str, notes: list[str]) -> bool:
    """Whether `stmt` writes outside the scratch area (then it is neither measured nor applied)."""
    why = scratch.outside(stmt.sql, family)
    if why is None:
        return False
    if row is not None:
        row.not_run = why
    else:
        notes.append(f"{stmt.location}: not applied to the scratch database: {why}")
    return True


def _touching(done: list, stmt, row) -> list[str]:
    """The SQL of the earlier statements that build what `stmt` touches: those naming any of its
    relations (followed through what they name in turn), and those naming none (types,
    functions, extensions, schemas a table may need)."""
    wanted = set(stmt.op.relations()) | {lk.relation for i in row.impacts for lk in i.locks}
    if not wanted:  # a DO block names nothing the reader follows: everything before it
        return [s.sql for s in done]
    keys = [s.op.relations() for s in done]
    grew = True
    while grew:
        grew = False
        for ks in keys:
            if ks and wanted.intersection(ks) and not wanted.issuperset(ks):
                wanted.update(ks)
                grew = True
    return [s.sql for s, ks in zip(done, keys) if not ks or wanted.intersection(ks)]


# ---------------------------------------------------------------- PostgreSQL


def _postgres(admin: Any, target, script: list) -> list[str]:
    # optional driver (the postgres or mysql extra), loaded only when a server is reached
    import psycopg

    # start-up: server code loads only when a server is reached
    from schemacite.live.verify_postgres import NeedsOwnTransaction, compare, measure_here, measure_observed

    notes = [f"dropped scratch database {n}, left by an earlier run" for n in scratch.pg_drop_stale_databases(admin)]
    name = scratch.pg_create_database(admin)

    def connect(dbname: str = name) -> Any:
        return psycopg.connect(target.url, dbname=dbname, autocommit=True)

    work = None
    try:
        work = connect()
        version = int(work.execute("SHOW server_version_num").fetchone()[0])
        done: list = []
        for stmt, row in script:
            scratch.check()
            if _outside(stmt, row, "postgres", notes):
                continue
            if row is not None:
                try:
                    try:
                        measured = measure_here(work, stmt.sql, version)
                    except NeedsOwnTransaction:
                        setup = _touching(done, stmt, row)
                        measured = measure_observed(
                            lambda setup=setup: _ScratchDatabase(admin, connect, setup), stmt.sql, version
                        )
                    row.measured = measured
                    row.disagreements = compare(row.impacts, measured, stmt.if_exists)
                except psycopg.Error as e:
                    _refused(row, getattr(e, "sqlstate", None), target.scrub(_first_line(e)))
                except Exception as e:
                    row.not_run = target.scrub(_first_line(e))
            try:
                work.execute(stmt.sql)
            except psycopg.Error as e:
                if row is None:
                    notes.append(
                        f"{stmt.location}: not applied to the scratch database: {target.scrub(_first_line(e))}"
                    )
            done.append(stmt)
    finally:
        if work is not None:
            with contextlib.suppress(Exception):
                work.close()
        scratch.pg_drop_database(admin, name)
    return notes


class _ScratchDatabase:
    """A fresh scratch database holding `setup`, for one observed run; dropped on exit."""

    def __init__(self, admin: Any, connect, setup: list[str]):
        self.admin, self.connect, self.setup = admin, connect, setup
        self.name = scratch.new_name()
        self.conn: Any = None

    def __enter__(self) -> _ScratchDatabase:
        scratch.pg_create_database(self.admin, self.name)
        try:
            self.conn = self.connect(self.name)
            for sql in self.setup:
                self.conn.execute(sql)
        except BaseException:
            self.__exit__()
            raise
        return self

    def relations(self) -> dict:
        # start-up: server code loads only when a server is reached
        from schemacite.live.verify_postgres import user_relations

        return user_relations(self.conn)

    def helper(self) -> Any:
        return self.connect(self.name)

    def __exit__(self, *exc: object) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        scratch.pg_drop_database(self.admin, self.name)


# ---------------------------------------------------------------- MySQL / MariaDB


def _mysql(conn: Any, target, script: list, reconnect) -> list[str]:
    # start-up: loaded only when a MySQL or MariaDB server is verified
    from schemacite.live.verify_mysql import _run, measure

    notes = [f"dropped scratch database {n}, left by an earlier run" for n in scratch.mysql_drop_stale(conn)]
    main = scratch.mysql_create(conn)
    try:
        # information_schema cannot be written (a migration reads it to test what exists, `TABLE_SCHEMA =
        # DATABASE()`: the scratch database then answers)
        databases = {str(_text(n)).lower() for (n,) in query(conn, "SHOW DATABASES")} - {
            main.lower(),
            "information_schema",
        }
        for stmt, row in script:
            scratch.check()
            if _outside(stmt, row, "mysql", notes):
                continue
            outside = sorted(qualifiers(stmt.sql) & databases)
            if outside:
                why = f"it names database {', '.join(outside)}, outside the scratch database"
                if row is not None:
                    row.not_run = why
                else:
                    notes.append(f"{stmt.location}: not run: {why}")
                continue
            if row is not None:
                tables = _linked_tables(conn, main, list(stmt.op.relations()))
                try:
                    measured = measure(conn, _copier(conn, main, tables), stmt.sql)
                except Exception as e:
                    row.not_run = target.scrub(_first_line(e))
                else:
                    _compare_mysql(row, measured, stmt.kind)
            query(conn, f"USE `{main}`")
            try:
                _run(conn, stmt.sql)
            except Exception as e:
                scratch.check()
                if row is None:
                    notes.append(
                        f"{stmt.location}: not applied to the scratch database: {target.scrub(_first_line(e))}"
                    )
    finally:
        try:
            scratch.mysql_drop(conn, main)
        except Exception:
            other = reconnect()
            try:
                scratch.mysql_drop(other, main)
            finally:
                other.close()
    return notes


def _compare_mysql(row, measured, kind: str) -> None:
    row.measured = measured
    if measured.error:
        row.measured = None
        _refused(row, measured.error.split(":", 1)[0].strip(), measured.error)
        return
    if not measured.clauses:
        # no ALGORITHM/LOCK clause to ask about: a table the statement rebuilt still shows (a new table
        # id), so a statement predicted to leave every table alone is checked too; DROP TABLE's table
        # is gone, not rebuilt
        predicted = any(i.rewrite for i in row.impacts)
        if measured.rebuild is not None and kind != "drop_table" and predicted != measured.rebuild:
            row.disagreements.append(f"rebuild: predicted {predicted}, measured {measured.rebuild}")
        return
    predicted_alg = worst_algorithm(row.impacts)
    predicted_lock = worst_lock_level(row.impacts)
    if predicted_alg != measured.algorithm:
        row.disagreements.append(f"algorithm: predicted {predicted_alg}, measured {measured.algorithm}")
    if predicted_lock != measured.lock:
        row.disagreements.append(f"lock: predicted {predicted_lock}, measured {measured.lock}")


def _linked_tables(conn: Any, db: str, keys: list[str]) -> list[str]:
    """The tables of `db` among `keys`, with every table a foreign key links to them, both ways."""
    present = {
        str(_text(n)).lower(): str(_text(n))
        for (n,) in query(
            conn,
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_TYPE = 'BASE TABLE'",
            (db,),
        )
    }
    links = [
        (str(_text(a)).lower(), str(_text(b)).lower())
        for a, b in query(
            conn,
            "SELECT TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.KEY_COLUMN_USAGE"
            " WHERE TABLE_SCHEMA = %s AND REFERENCED_TABLE_SCHEMA = %s",
            (db, db),
        )
    ]
    wanted = {k.lower() for k in keys if k.lower() in present}
    grew = True
    while grew:
        grew = False
        for a, b in links:
            if (a in wanted) != (b in wanted):
                wanted.update((a, b))
                grew = True
    return [present[t] for t in sorted(wanted) if t in present]


def _copier(conn: Any, main: str, tables: list[str]):
    """Fill a copy database with copies of `tables` of `main`: their definitions and rows."""
    definitions = [query(conn, f"SHOW CREATE TABLE `{main}`.`{t}`")[0][1] for t in tables]
    columns = {
        t: [
            str(_text(c))
            for (c,) in query(
                conn,
                "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s"
                " AND EXTRA NOT LIKE %s ORDER BY ORDINAL_POSITION",
                (main, t, "%GENERATED%"),
            )
        ]
        for t in tables
    }

    def fill(c: Any) -> None:
        ((checks,),) = query(c, "SELECT @@SESSION.foreign_key_checks")
        query(c, "SET SESSION foreign_key_checks = 0")  # tables come in any order
        try:
            for ddl in definitions:
                query(c, str(_text(ddl)))
            for t in tables:
                cols = ", ".join(f"`{x}`" for x in columns[t])
                if cols:
                    query(c, f"INSERT INTO `{t}` ({cols}) SELECT {cols} FROM `{main}`.`{t}`")
        finally:
            query(c, f"SET SESSION foreign_key_checks = {int(checks)}")

    return fill


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else repr(e)
