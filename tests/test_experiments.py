"""The experiments' protocol: repeated runs kept as median and spread, sentences that state an
effect only beyond the spread, rates fitted over table sizes, and the mechanisms observed on
real servers (a second session's wait, the subscriber's scans). No test reads the clock's
figures as pass or fail: the outcomes asserted are the ones the servers report."""

from __future__ import annotations

import re

import pytest

from schemacite.evidence import figures as summary
from schemacite.evidence.figures import Figure
from schemacite.live.experiments import ddl, inserts, registry, replication, run_experiment

# ------------------------------------------------------------------ summary of runs


def _rate(metric: str, quantity: str, n: float) -> Figure:
    return Figure(metric, quantity=quantity, number=n, unit="rows/s")


def test_runs_are_kept_as_median_and_spread():
    runs = [
        [_rate("a", "qa", 10), Figure("size", "1 MB"), Figure("f", quantity="qf", number=5, unit="s", fit=0.99)],
        [_rate("a", "qa", 30), Figure("size", "1 MB"), Figure("f", quantity="qf", number=7, unit="s", fit=0.91)],
        [_rate("a", "qa", 20), Figure("size", "2 MB"), Figure("f", quantity="qf", number=6, unit="s", fit=0.95)],
    ]
    a, size, f = summary.summarise(runs)
    assert (a.number, a.low, a.high, a.runs) == (20, 10, 30, 3)
    assert a.as_dict() == {
        "metric": "a",
        "value": "20 rows/s (median of 3 runs, 10 rows/s to 30 rows/s)",
        "quantity": "qa",
        "number": "20",
        "runs": "3",
        "low": "10",
        "high": "30",
    }
    assert size.value == "1 MB | 2 MB"  # runs that read differently all say so
    assert f.fit == 0.91 and f.as_dict()["fit"] == "0.9100"  # the worst run's line


def test_a_run_that_read_no_number_leaves_the_others_their_unit():
    # the first run's time did not grow with the table (text only), the next two fitted a rate
    runs = [
        [Figure("a", "did not grow with the table at these sizes (R² 0.02)", fit=0.02)],
        [_rate("a", "qa", 10)],
        [_rate("a", "qa", 30)],
    ]
    (a,) = summary.summarise(runs)
    assert (a.number, a.runs, a.quantity, a.unit) == (20, 2, "qa", "rows/s")
    assert a.text().startswith("20 rows/s") and "1 of 3 runs read no number" in a.note


def test_an_effect_is_stated_only_beyond_the_spread():
    low = Figure("x", number=10, low=8, high=12, runs=5)
    overlapping = Figure("y", number=13, low=11, high=15, runs=5)
    clear = Figure("z", number=20, low=18, high=22, runs=5)
    single = Figure("w", number=40, low=40, high=40, runs=1)
    assert not summary.apart(low, overlapping) and summary.apart(low, clear) and summary.apart(clear, low)
    assert not summary.apart(low, single)  # one run has no spread to judge by


def test_a_rate_is_the_slope_of_the_fitted_line():
    rate, r2 = summary.fit_rate([1e6, 2e6, 4e6], [0.3, 0.5, 0.9])  # 0.1 s + 1 s per 5 MB
    assert rate == pytest.approx(5e6) and r2 == pytest.approx(1.0)
    rate, r2 = summary.fit_rate([1e6, 2e6, 4e6], [0.5, 0.2, 0.1])
    assert rate is None and r2 < 1  # time that falls as the table grows gives no rate


def _indexes(base: tuple[float, float, float], five: tuple[float, float, float]) -> list[Figure]:
    """Figures of 0 and 5 indexes at 1 writer: (median, lowest, highest) of five runs each."""
    return [
        Figure(f"r{n}", quantity=f"insert_rows_per_second_{n}_indexes_1_writers", number=m, low=lo, high=hi, runs=5)
        for n, (m, lo, hi) in ((0, base), (5, five))
    ]


def test_the_shows_sentence_follows_the_numbers():
    conclude = inserts.SECONDARY_INDEXES.conclude
    clear = conclude(_indexes((100, 95, 105), (50, 45, 55)), "S")
    noisy = conclude(_indexes((100, 60, 140), (80, 50, 110)), "S")
    assert "50% with 1 writer" in clear and summary.NOISE not in clear
    assert f"80%, {summary.NOISE} with 1 writer" in noisy
    once = [Figure(f.metric, quantity=f.quantity, number=f.number) for f in _indexes((100, 0, 0), (50, 0, 0))]
    assert f"50%, {summary.ONE_RUN} with 1 writer" in conclude(once, "S")  # a single run is not called noise


def test_replica_identity_sentence_says_what_the_scan_counters_saw():
    def figures(seq: float, idx: float) -> list[Figure]:
        return [
            Figure("pk", quantity="replicated_updates_per_second_pk", number=1000, low=900, high=1100, runs=5),
            Figure("full", quantity="replicated_updates_per_second_full", number=100, low=90, high=110, runs=5),
            Figure("seq", quantity="seq_scans_full", number=seq, unit="scans", runs=5),
            Figure("idx", quantity="idx_scans_full", number=idx, unit="scans", runs=5),
        ]

    seq = replication.REPLICA_IDENTITY.conclude(figures(2 * replication.UPDATES, 0), "S")
    idx = replication.REPLICA_IDENTITY.conclude(figures(0, replication.UPDATES), "S")
    assert "at 10% of the rate" in seq and "by a sequential scan" in seq and summary.NOISE not in seq
    assert "through the index on id" in idx


def test_the_hidden_row_id_is_called_costly_only_beyond_the_noise():
    def figures(none: tuple[float, float, float]) -> list[Figure]:
        pk = Figure("pk", quantity="insert_rows_per_second_pk_8_writers", number=100, low=95, high=105, runs=5)
        unique = Figure("u", quantity="insert_rows_per_second_unique_8_writers", number=100, low=90, high=110, runs=5)
        n, lo, hi = none
        return [
            pk,
            unique,
            Figure("n", quantity="insert_rows_per_second_none_8_writers", number=n, low=lo, high=hi, runs=5),
        ]

    slower = inserts.CLUSTERED_KEYS.conclude(figures((60, 55, 65)), "S")
    noisy = inserts.CLUSTERED_KEYS.conclude(figures((90, 70, 100)), "S")
    assert "60% (no key)" in slower and "slower beyond the noise with 8 writers, as in Percona's 2013" in slower
    assert f"90%, {summary.NOISE} (no key)" in noisy and "cost nothing beyond the noise" in noisy
    assert "unlike Percona's 2013" in noisy


def test_growth_is_claimed_only_where_every_run_fits_a_line():
    index, check = ddl.POSTGRES_STEPS[0], ddl.POSTGRES_STEPS[2]
    figures = [
        Figure(index.metric, quantity=index.quantity, number=4e8, unit="bytes/s", fit=0.99, runs=5),
        Figure(check.metric, quantity=check.quantity, number=2e9, unit="bytes/s", fit=0.5, runs=5),
    ]
    shows = ddl.LOCK_DURATIONS.conclude(figures, "PostgreSQL 16.4")
    assert f"the time of {index.sql} grew in line with the table" in shows
    assert f"the time of {check.sql} did not follow a line" in shows


# ------------------------------------------------------------------ fair comparisons


def test_the_clustered_key_tables_differ_only_in_the_key():
    tables = {label: inserts.keyed_table("t", key) for label, key in inserts.KEYS.items()}
    assert len(set(tables.values())) == 3
    bare = {t.replace(key, "") for t, key in zip(tables.values(), inserts.KEYS.values())}
    assert bare == {inserts.keyed_table("t", "")}


def test_lock_labels_name_only_the_lock_clauses_the_sql_sets():
    for step in (*ddl.POSTGRES_STEPS, *ddl.MARIADB_STEPS):
        assert step.metric.startswith(step.sql)
        for clause in re.findall(r"(?:LOCK|ALGORITHM)=\w+", step.lock):
            assert clause in step.sql, step


# ------------------------------------------------------------------ on real servers


def _by_quantity(figures: list[Figure]) -> dict[str, Figure]:
    return {f.quantity: f for f in figures if f.quantity}


def _assert_spread_and_fit(outcome, steps) -> None:
    for f in outcome.figures:
        if f.number is not None:
            assert 1 <= f.runs <= 2 and f.low <= f.number <= f.high, f
    by_metric = {f.metric: f for f in outcome.figures}
    for step in steps:  # every statement was timed at every size: a rate with its fit, or said why not
        f = by_metric[step.metric]
        assert (f.fit is not None and 0 <= f.fit <= 1) or "did not grow with the table" in f.value, f


def test_lock_durations_on_postgres_fit_rates_and_see_who_waits(pg_server):
    outcome = run_experiment(pg_server.dsn(), registry()["lock-durations"], rows=4000, repeat=2)
    assert outcome.runs == 2
    _assert_spread_and_fit(outcome, ddl.POSTGRES_STEPS)
    waits = {q: f.note for q, f in _by_quantity(outcome.figures).items() if "_wait_seconds_" in q}
    assert waits == {  # ShareLock lets reads through; AccessExclusiveLock stops both; CONCURRENTLY neither
        "select_wait_seconds_index": ddl.FREE,
        "insert_wait_seconds_index": ddl.WAITED,
        "select_wait_seconds_concurrent_index": ddl.FREE,
        "insert_wait_seconds_concurrent_index": ddl.FREE,
        "select_wait_seconds_scan": ddl.WAITED,
        "insert_wait_seconds_scan": ddl.WAITED,
        "select_wait_seconds_rewrite": ddl.WAITED,
        "insert_wait_seconds_rewrite": ddl.WAITED,
    }
    shows = outcome.record("x")["shows"]
    assert "ALTER TABLE big ALTER COLUMN a TYPE bigint: the SELECT waited" in shows


def test_lock_durations_on_mariadb_see_the_copy_block_writes_only(mariadb_server):
    outcome = run_experiment(mariadb_server.dsn(""), registry()["lock-durations"], rows=4000, repeat=2)
    _assert_spread_and_fit(outcome, ddl.MARIADB_STEPS)
    by = _by_quantity(outcome.figures)
    assert by["insert_wait_seconds_rewrite"].note == ddl.WAITED
    assert by["select_wait_seconds_rewrite"].note == ddl.FREE
    assert mariadb_server.scratch_databases() == []
