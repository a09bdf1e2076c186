"""What every insert pays: for each secondary index, and for the key InnoDB clusters on."""

from __future__ import annotations

import random

from schemacite.evidence.figures import ONE_RUN, Figure, apart, caveat
from schemacite.live.experiments import Area, Experiment, execute, in_parallel

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
        for count in INDEX_COUNTS:
            table = area.q(f"ins_{count}_{writers}")
            ddl = [f"CREATE TABLE {table} ({_columns(area)})"]
            ddl += [f"CREATE INDEX ins_{count}_{writers}_c{i} ON {table} (c{i})" for i in range(1, count + 1)]
            seconds = _timed_table(area, table, ddl, rows, writers, _random_values)
            figures.append(
                Figure(
                    f"rows inserted per second, {count} secondary index{'es' if count != 1 else ''}, "
                    f"{_writers(writers)}",
                    quantity=f"insert_rows_per_second_{count}_indexes_{writers}_writers",
                    number=rows / seconds,
                    unit="rows/s",
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


def _writer_counts(figures: list[Figure]) -> list[int]:
    return sorted({int(f.quantity.rsplit("_", 2)[1]) for f in figures if f.quantity})


def _share(figures: list[Figure], quantity: str, base: str) -> str:
    """`quantity`'s median as a share of `base`'s, or that the two are within noise."""
    by = {f.quantity: f for f in figures if f.quantity}
    a, b = by.get(quantity), by.get(base)
    if a is None or b is None or not a.number or not b.number:
        return "not measured"
    spread = caveat(a, b)
    return f"{a.number / b.number:.0%}" + (f", {spread}" if spread else "")


def _conclude_indexes(figures: list[Figure], server: str) -> str:
    parts = [
        f"{_share(figures, f'insert_rows_per_second_5_indexes_{w}_writers', f'insert_rows_per_second_0_indexes_{w}_writers')}"
        f" with {_writers(w)}"
        for w in _writer_counts(figures)
    ]
    return (
        f"On {server}, with five secondary indexes, each written by every insert, rows went in at "
        f"{' and '.join(parts)} of the median rate without any (an effect is stated only where the runs' ranges "
        "do not overlap)."
    )


SECONDARY_INDEXES = Experiment(
    name="secondary-indexes",
    title="Insert throughput with 0, 1, 3 and 5 secondary indexes",
    rules=("insert-heavy-indexes", "unused-index"),
    dialects=frozenset({"postgres", "mysql", "mariadb"}),
    default_rows=200_000,
    default_threads=(1, 4),
    shows="Every secondary index is written by every insert: the figures compare insert throughput with 0, 1, 3 "
    "and 5 of them.",
    limits="Random integer keys on a table that fits in memory, on the machine named in setup; a table larger "
    "than memory (iiBench's case) pays more per index, as index pages must be read before they are written.",
    plan=_plan_indexes,
    run=secondary_indexes,
    conclude=_conclude_indexes,
)


# ---------------------------------------------------------------- InnoDB: which key the rows cluster on

KEYS = {  # the tables differ in the key on k only
    "PRIMARY KEY (k)": ", PRIMARY KEY (k)",
    "UNIQUE KEY (k) on the NOT NULL column, no primary key": ", UNIQUE KEY k (k)",
    "no key": "",
}


def keyed_table(table: str, key: str) -> str:
    return f"CREATE TABLE {table} (k bigint NOT NULL, a int NOT NULL, pad char(60) NOT NULL{key}) ENGINE=InnoDB"


def _keyed_values(rng: random.Random, size: int, writer: int, start: int) -> str:
    # k unique across writers (the unique-key table clusters on it), ascending within a writer
    rows = (f"({writer * 10**12 + start + i},{rng.randrange(1 << 30)},'{'x' * 60}')" for i in range(size))
    return "(k, a, pad) VALUES " + ",".join(rows)


def clustered_keys(area: Area, rows: int, threads: tuple[int, ...]) -> list[Figure]:
    figures: list[Figure] = []
    for writers in threads:
        for n, (label, key) in enumerate(KEYS.items()):
            table = area.q(f"keys_{n}_{writers}")
            seconds = _timed_table(area, table, [keyed_table(table, key)], rows, writers, _keyed_values)
            figures.append(
                Figure(
                    f"rows inserted per second, {label}, {_writers(writers)}",
                    quantity=f"insert_rows_per_second_{['pk', 'unique', 'none'][n]}_{writers}_writers",
                    number=rows / seconds,
                    unit="rows/s",
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
    by = {f.quantity: f for f in figures if f.quantity}
    parts, slower, single = [], [], False
    for w in _writer_counts(figures):
        pk, none = f"insert_rows_per_second_pk_{w}_writers", f"insert_rows_per_second_none_{w}_writers"
        unique = f"insert_rows_per_second_unique_{w}_writers"
        parts.append(
            f"{_share(figures, none, pk)} (no key) and {_share(figures, unique, pk)} (unique key only) "
            f"with {_writers(w)}"
        )
        if none in by and pk in by:
            single |= caveat(by[none], by[pk]) == ONE_RUN
            if apart(by[none], by[pk]) and by[none].number < by[pk].number:  # type: ignore[operator]
                slower.append(_writers(w))
    if slower:
        cost = f"the table on the hidden row id was slower beyond the noise with {' and '.join(slower)}"
    elif single:
        cost = "single runs cannot tell the hidden row id's cost from noise"
    else:
        cost = "the hidden row id's shared counter cost nothing beyond the noise at these writer counts"
    return (
        f"On {server}, with tables that differ only in the key on k, insert throughput relative to the "
        f"PRIMARY KEY (k) table was {'; '.join(parts)}: on this small machine {cost}, "
        f"{'as in' if slower else 'unlike'} Percona's 2013 measurement on 16 vCPUs; the other costs of a missing "
        "key (replication, lookups) are not measured here."
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
