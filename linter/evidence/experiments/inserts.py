"""What every insert pays: for each secondary index, and for the key InnoDB clusters on."""

from __future__ import annotations

import random

from schemacite.evidence.experiments import Area, Experiment, Figure, execute, in_parallel, number, rate

BATCH = 100  # rows per INSERT statement, each its own transaction (autocommit)
INDEX_COUNTS = (0, 1, 3, 5)


def _columns(area: Area) -> str:
    ident = (
        "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        if area.postgres
        else "id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY"
    )
    return f"{ident}, c1 int NOT NULL, c2 int NOT NULL, c3 int NOT NULL, c4 int NOT NULL, c5 int NOT NULL, pad char(60) NOT NULL"


def _insert_rows(area: Area, table: str, rows: int, writers: int, values) -> float:
    """Seconds for `writers` sessions to insert `rows` rows together, BATCH rows per statement."""
    per_writer = rows // writers

    def work(conn, n: int) -> None:
        rng = random.Random(n)
        done = 0
        while done < per_writer:
            size = min(BATCH, per_writer - done)
            execute(conn, f"INSERT INTO {table} {values(rng, size, n, done)}")
            done += size

    return in_parallel(area, writers, work)


def _timed_table(area: Area, table: str, ddl: list[str], rows: int, writers: int, values) -> float:
    """Seconds to fill a table made by `ddl` with `rows` rows from `writers` writers; the table is
    dropped afterwards."""
    conn = area.connect()
    for sql in ddl:
        execute(conn, sql)
    seconds = _insert_rows(area, table, rows, writers, values)
    execute(conn, f"DROP TABLE {table}")
    conn.close()
    return seconds


def _writers(n: int) -> str:
    return f"{n} writer{'s' if n != 1 else ''}"


def _random_values(rng: random.Random, size: int, writer: int, start: int) -> str:
    rows = (
        f"({rng.randrange(1 << 30)},{rng.randrange(1 << 30)},{rng.randrange(1 << 30)},"
        f"{rng.randrange(1 << 30)},{rng.randrange(1 << 30)},'{'x' * 60}')"
        for _ in range(size)
    )
    return "(c1, c2, c3, c4, c5, pad) VALUES " + ",".join(rows)


def secondary_indexes(area: Area, rows: int, threads: tuple[int, ...]) -> list[Figure]:
    figures: list[Figure] = []
    for writers in threads:
        base = None
        for count in INDEX_COUNTS:
            table = area.q(f"ins_{count}_{writers}")
            ddl = [f"CREATE TABLE {table} ({_columns(area)})"]
            ddl += [f"CREATE INDEX ins_{count}_{writers}_c{i} ON {table} (c{i})" for i in range(1, count + 1)]
            seconds = _timed_table(area, table, ddl, rows, writers, _random_values)
            per_second = rows / seconds
            base = base or per_second
            share = f" ({per_second / base:.0%} of the rate without secondary indexes)" if count else ""
            figures.append(
                Figure(
                    f"rows inserted per second, {count} secondary index{'es' if count != 1 else ''}, "
                    f"{_writers(writers)}",
                    rate(rows, seconds) + share,
                    quantity=f"insert_rows_per_second_{count}_indexes_{writers}_writers",
                    number=per_second,
                )
            )
    return figures


def _plan_indexes(dialect: str, rows: int, threads: tuple[int, ...]) -> str:
    tables = len(INDEX_COUNTS) * len(threads)
    return (
        f"{tables} tables of {rows:,} rows each (about {rows * 100 / 1e6:,.0f} MB each with their indexes), "
        f"inserted {BATCH} rows per statement by {' then '.join(map(str, threads))} writer(s); each table is dropped "
        "after its run"
    )


def _conclude_indexes(figures: list[Figure], server: str) -> str:
    parts = []
    for writers in sorted({int(f.quantity.rsplit("_", 2)[1]) for f in figures if f.quantity}):
        base = number(figures, f"insert_rows_per_second_0_indexes_{writers}_writers")
        five = number(figures, f"insert_rows_per_second_5_indexes_{writers}_writers")
        if base and five:
            parts.append(f"{five / base:.0%} with {writers} writer{'s' if writers != 1 else ''}")
    return (
        f"On {server}, every secondary index was written by every insert: with five of them, rows went in at "
        f"{' and '.join(parts)} of the rate without any."
    )


SECONDARY_INDEXES = Experiment(
    name="secondary-indexes",
    title="Insert throughput with 0, 1, 3 and 5 secondary indexes",
    rules=("insert-heavy-indexes", "unused-index"),
    dialects=frozenset({"postgres", "mysql", "mariadb"}),
    default_rows=200_000,
    default_threads=(1, 4),
    shows="Every secondary index is written by every insert: throughput falls as indexes are added.",
    limits="Random integer keys on a table that fits in memory, on the machine named in setup; a table larger "
    "than memory (iiBench's case) pays more per index, as index pages must be read before they are written.",
    plan=_plan_indexes,
    run=secondary_indexes,
    conclude=_conclude_indexes,
)


# ---------------------------------------------------------------- InnoDB: which key the rows cluster on

KEYS = {
    "primary key": "id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, k bigint NOT NULL",
    "NOT NULL unique key only": "k bigint NOT NULL, UNIQUE KEY k (k)",
    "no key": "k bigint NOT NULL",
}


def _keyed_values(rng: random.Random, size: int, writer: int, start: int) -> str:
    # k unique across writers (the unique-key table clusters on it), ascending within a writer
    rows = (f"({writer * 10**12 + start + i},{rng.randrange(1 << 30)},'{'x' * 60}')" for i in range(size))
    return "(k, a, pad) VALUES " + ",".join(rows)


def clustered_keys(area: Area, rows: int, threads: tuple[int, ...]) -> list[Figure]:
    figures: list[Figure] = []
    for writers in threads:
        for n, (label, key) in enumerate(KEYS.items()):
            table = area.q(f"keys_{n}_{writers}")
            ddl = [f"CREATE TABLE {table} ({key}, a int NOT NULL, pad char(60) NOT NULL) ENGINE=InnoDB"]
            seconds = _timed_table(area, table, ddl, rows, writers, _keyed_values)
            figures.append(
                Figure(
                    f"rows inserted per second, {label}, {_writers(writers)}",
                    rate(rows, seconds),
                    quantity=f"insert_rows_per_second_{['pk', 'unique', 'none'][n]}_{writers}_writers",
                    number=rows / seconds,
                )
            )
    return figures


def _plan_keys(dialect: str, rows: int, threads: tuple[int, ...]) -> str:
    return (
        f"{len(KEYS) * len(threads)} InnoDB tables of {rows:,} rows each (about {rows * 90 / 1e6:,.0f} MB each), "
        f"inserted {BATCH} rows per statement by {' then '.join(map(str, threads))} writer(s); each table is dropped "
        "after its run"
    )


def _conclude_keys(figures: list[Figure], server: str) -> str:
    parts = []
    for writers in sorted({int(f.quantity.rsplit("_", 2)[1]) for f in figures if f.quantity}):
        pk = number(figures, f"insert_rows_per_second_pk_{writers}_writers")
        none = number(figures, f"insert_rows_per_second_none_{writers}_writers")
        unique = number(figures, f"insert_rows_per_second_unique_{writers}_writers")
        if pk and none and unique:
            parts.append(f"{none / pk:.0%} (no key) and {unique / pk:.0%} (unique key only) at {writers}")
    return (
        f"On {server}, insert throughput relative to the table with a primary key was {'; '.join(parts)} "
        "writer(s): on this small machine the hidden row id's shared counter cost little, unlike Percona's 2013 "
        "measurement on 16 vCPUs; the other costs of a missing key (replication, lookups) are not measured here."
    )


CLUSTERED_KEYS = Experiment(
    name="clustered-keys",
    title="InnoDB insert throughput with a primary key, with only a NOT NULL unique key, and with neither",
    rules=("no-primary-key",),
    dialects=frozenset({"mysql", "mariadb"}),
    default_rows=200_000,
    default_threads=(1, 4, 8),
    shows="InnoDB clusters rows on the primary key, else on the first NOT NULL unique key, else on a hidden "
    "row id: the figures compare insert throughput in the three cases as writers are added.",
    limits="Rows arrive in key order per writer, in tables that fit in memory; the hidden row id's cost is a "
    "shared counter, so it shows, if at all, with many writers on many cores, which a small machine does not have.",
    plan=_plan_keys,
    run=clustered_keys,
    conclude=_conclude_keys,
)

EXPERIMENTS = [SECONDARY_INDEXES, CLUSTERED_KEYS]
