"""`schemacite locks --verify DSN`: measure each statement on a scratch copy and compare.

Every measurement happens in a scratch schema (PostgreSQL) or scratch database
(MySQL/MariaDB) that the measuring module creates for it and drops afterwards,
even when the statement fails: the earlier statements of the run are replayed into
it first, then the statement is measured. Nothing outside the scratch area is
touched, so the target must be a server where the user may create schemas or
databases; a production primary is the wrong place for it.
"""
from __future__ import annotations

from schemacite.config import Config


def verify_rows(dsn: str, config: Config, rows: list) -> None:
    """Fill `measured`, `disagreements` or `verify_error` on each Row. ConnectionError if unreachable."""
    from schemacite.audit import AuditError, connect, parse_dsn, server_dialect

    try:
        target = parse_dsn(dsn)
        conn = connect(target)
    except AuditError as e:
        raise ConnectionError(str(e)) from None
    try:
        dialect, _, version = server_dialect(conn, target.kind)
        family = "postgres" if dialect == "postgres" else "mysql"
        if family != ("postgres" if config.dialect == "postgres" else "mysql"):
            raise ConnectionError(f"{target.masked} runs {version}; the statements are {config.dialect}")
        for row in rows:
            try:
                if family == "postgres":
                    _verify_postgres(conn, row)
                else:
                    _verify_mysql(conn, row)
            except Exception as e:  # one statement the server rejects must not end the run
                row.verify_error = target.scrub(str(e).strip().splitlines()[0] if str(e).strip() else repr(e))
    finally:
        conn.close()


def _verify_postgres(conn, row) -> None:
    from schemacite.locks.verify_postgres import compare, measure

    row.measured = measure(conn, row.setup, row.statement.sql)
    row.disagreements = compare(row.impacts, row.measured)


def _verify_mysql(conn, row) -> None:
    from schemacite.locks import worst_algorithm, worst_lock_level
    from schemacite.locks.verify_mysql import measure

    measured = measure(conn, row.setup, row.statement.sql)
    row.measured = measured
    if measured.error:
        row.verify_error = measured.error
        return
    if not measured.clauses:
        return  # takes no ALGORITHM/LOCK clause: nothing to compare
    predicted_alg = worst_algorithm(row.impacts)
    predicted_lock = worst_lock_level(row.impacts)
    if predicted_alg != measured.algorithm:
        row.disagreements.append(f"algorithm: predicted {predicted_alg}, measured {measured.algorithm}")
    if predicted_lock != measured.lock:
        row.disagreements.append(f"lock: predicted {predicted_lock}, measured {measured.lock}")
