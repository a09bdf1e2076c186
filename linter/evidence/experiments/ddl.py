"""How long DDL holds its lock: the rates at which a server rewrites a table, builds an index,
scans to validate a constraint and backfills a column, measured on one table of `rows` rows.

Lock estimates divide a table's size by these rates (`quantity` figures, per byte of the table's
own data as the catalog reports it: PostgreSQL relpages, InnoDB data_length).
"""

from __future__ import annotations

from schemacite.evidence.experiments import Area, Experiment, Figure, execute, megabytes, rate, timed


def _fill(area: Area, conn, table: str, rows: int) -> None:
    if area.postgres:
        execute(
            conn,
            f"CREATE TABLE {table} (id bigint PRIMARY KEY, a int NOT NULL, b int NOT NULL, pad text NOT NULL)",
        )
        execute(
            conn,
            f"INSERT INTO {table} SELECT g, (g::bigint * 7919) % 1000003, g % 1000, repeat('x', 60)"
            f" FROM generate_series(1, {rows}) g",
        )
        execute(conn, f"VACUUM ANALYZE {table}")
        return
    execute(
        conn,
        f"CREATE TABLE {table} (id bigint NOT NULL PRIMARY KEY, a int NOT NULL, b int NOT NULL,"
        " pad varchar(64) NOT NULL) ENGINE=InnoDB",
    )
    execute(conn, f"INSERT INTO {table} VALUES (1, 7919, 1, REPEAT('x', 60))")
    have = 1
    while have < rows:  # doubling: no generator table on MySQL
        step = min(have, rows - have)
        execute(
            conn,
            f"INSERT INTO {table} SELECT id + {have}, ((id + {have}) * 7919) % 1000003, (id + {have}) % 1000, pad"
            f" FROM {table} ORDER BY id LIMIT {step}",
        )
        have += step
    execute(conn, f"ANALYZE TABLE {table}")


def _size(area: Area, conn, table: str, bare: str) -> int:
    """Bytes of the table's own data, as the catalog reads it for a snapshot."""
    if area.postgres:
        return int(execute(conn, f"SELECT pg_relation_size('{table}')")[0][0])
    found = execute(
        conn,
        "SELECT data_length FROM information_schema.TABLES WHERE table_schema = %s AND table_name = %s",
        (area.name, bare),
    )
    return int(found[0][0])


def lock_durations(area: Area, rows: int, threads: tuple[int, ...] = (1,)) -> list[Figure]:
    conn = area.connect()
    table = area.q("big")
    _fill(area, conn, table, rows)
    size = _size(area, conn, table, "big")
    figures = [Figure("table", f"{rows:,} rows, {megabytes(size)} of table data", None, None)]

    def step(metric: str, sql: str, quantity: str | None, per: str = "bytes") -> float:
        seconds = timed(conn, sql)
        amount = size if per == "bytes" else rows
        figures.append(
            Figure(
                metric,
                f"{seconds:.2f} s ({rate(amount, seconds, per)})",
                quantity=quantity,
                number=amount / seconds if quantity else None,
            )
        )
        return seconds

    if area.postgres:
        plain = step(
            "CREATE INDEX (ShareLock: writes blocked)", f"CREATE INDEX big_a ON {table} (a)", "index_bytes_per_second"
        )
        execute(conn, f"DROP INDEX {area.q('big_a')}")
        concurrent = timed(conn, f"CREATE INDEX CONCURRENTLY big_a ON {table} (a)")
        figures.append(
            Figure(
                "CREATE INDEX CONCURRENTLY (no lock blocking reads or writes)",
                f"{concurrent:.2f} s ({concurrent / plain:.1f}x the plain build)",
            )
        )
        step(
            "ADD CHECK constraint, validated by a full scan (AccessExclusiveLock)",
            f"ALTER TABLE {table} ADD CONSTRAINT big_b_check CHECK (b >= 0)",
            "scan_bytes_per_second",
        )
        step(
            "ALTER COLUMN TYPE int to bigint: table and its 2 indexes rewritten (AccessExclusiveLock)",
            f"ALTER TABLE {table} ALTER COLUMN a TYPE bigint",
            "rewrite_bytes_per_second",
        )
    else:
        step(
            "ADD INDEX, ALGORITHM=INPLACE, LOCK=NONE (writes allowed)",
            f"ALTER TABLE {table} ADD INDEX big_a (a), ALGORITHM=INPLACE, LOCK=NONE",
            "index_bytes_per_second",
        )
        step(
            "table rebuilt in place, ALTER TABLE ... FORCE, ALGORITHM=INPLACE (LOCK=NONE)",
            f"ALTER TABLE {table} FORCE, ALGORITHM=INPLACE, LOCK=NONE",
            "rebuild_bytes_per_second",
        )
        step(
            "MODIFY COLUMN int to bigint, ALGORITHM=COPY: table copied, writes blocked (LOCK=SHARED)",
            f"ALTER TABLE {table} MODIFY a bigint NOT NULL, ALGORITHM=COPY",
            "rewrite_bytes_per_second",
        )
    step(
        "UPDATE of every row, one statement (backfill)",
        f"UPDATE {table} SET b = b + 1",
        "backfill_rows_per_second",
        per="rows",
    )
    execute(conn, f"DROP TABLE {table}")
    conn.close()
    return figures


def _plan(dialect: str, rows: int, threads: tuple[int, ...]) -> str:
    return (
        f"one table of {rows:,} rows (about {rows * 110 / 1e6:,.0f} MB, at most about twice that while it is "
        "rewritten or updated), then indexed, altered and updated; dropped at the end"
    )


LOCK_DURATIONS = Experiment(
    name="lock-durations",
    title="How fast DDL rewrites, indexes, validates and backfills a table",
    rules=("access-exclusive-lock", "write-blocking-lock", "lock-held-during-long-work"),
    dialects=frozenset({"postgres", "mysql", "mariadb"}),
    default_rows=1_000_000,
    default_threads=(1,),
    shows="A lock held by a rewrite, an index build, a validating scan or a backfill lasts as long as the work, "
    "which grows with the table: these rates turn a table's size into the seconds its lock is held.",
    limits="One table that fits in memory, with nothing else running: on a busy server, a table larger than "
    "memory or slower storage, every rate is lower and the lock lasts longer.",
    plan=_plan,
    run=lock_durations,
)

EXPERIMENTS = [LOCK_DURATIONS]
