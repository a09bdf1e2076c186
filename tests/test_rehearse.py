"""`schemacite rehearse` on real servers: the suite's own (--dsn) and throwaway ones it starts.

What is asserted is what the servers did: the locks pg_locks and METADATA_LOCK_INFO showed, a new
relfilenode or table id, the probe's statements that waited, and that no scratch database is
left behind, after success, a refused statement and SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

import pg_builds
from cli import run
from schemacite.live.rehearse.fit import MARGIN, NOISE, fit
from schemacite.live.rehearse.probe import INTERVAL

SCHEMA = json.loads((Path(__file__).parents[1] / "docs" / "rehearsal-v1.schema.json").read_text())

PG_HISTORY = """\
CREATE TABLE accounts (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE);
CREATE TABLE orders (
    id bigserial PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts (id),
    total_cents integer NOT NULL,
    note text,
    status text
);
"""
PG_CHANGE = """\
CREATE INDEX orders_total ON orders (total_cents);
CREATE INDEX CONCURRENTLY orders_note ON orders (note);
ALTER TABLE orders ADD COLUMN token uuid DEFAULT gen_random_uuid();
ALTER TABLE orders ALTER COLUMN status SET NOT NULL;
ALTER TABLE orders ALTER COLUMN total_cents TYPE bigint;
"""


def _project(tmp_path: Path, history: str, change: str) -> tuple[Path, Path]:
    (tmp_path / "001_history.sql").write_text(history)
    (tmp_path / "002_change.sql").write_text(change)
    return tmp_path / "001_history.sql", tmp_path / "002_change.sql"


def _pg_scratch(server) -> list[str]:
    with server.connect() as conn:
        return [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'schemacite_scratch_%'")]


@pytest.fixture()
def pg_dsn(pg_server):
    """A database of its own on the suite's PostgreSQL server: empty, as a scratch server's is."""
    return pg_server.dsn(pg_server.create_database("rehearse_target"))


def _json(capsys, *args) -> tuple[int, dict, str]:
    code, out, err = run(capsys, "rehearse", *args, "--format", "json", "-q")
    doc = json.loads(out) if out.strip() else {}
    if doc:
        jsonschema.validate(doc, SCHEMA)
    return code, doc, err


def _by_line(doc: dict) -> dict[int, dict]:
    return {s["line"]: s for s in doc["statements"]}


def test_postgres_locks_rewrites_scans_and_waits(capsys, tmp_path, pg_server, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, PG_CHANGE)
    code, doc, err = _json(
        capsys, change, "--history", history, "--dsn", pg_dsn, "--max-rows", "200000", "--rows", "orders=4000000"
    )
    assert code == 0, err
    assert doc["sizes_rows"] == [50000, 100000, 200000]
    s = _by_line(doc)
    modes = {line: {lk["mode"] for lk in st["locks"]} for line, st in s.items()}
    assert modes == {
        1: {"ShareLock"},
        2: {"ShareUpdateExclusiveLock"},
        3: {"AccessExclusiveLock"},
        4: {"AccessExclusiveLock"},
        5: {"AccessExclusiveLock"},
    }
    assert [s[n]["rewrites"] for n in range(1, 6)] == [False, False, True, False, True]
    assert s[4]["scans"] is True  # SET NOT NULL reads every row to check it
    largest = {n: s[n]["sizes"][-1] for n in s}
    # CREATE INDEX: the probe's writes wait for the build, its reads do not; CONCURRENTLY: neither
    # waits; the rewrite: both do (the server showed the probes waiting for a lock, or not)
    assert [(largest[n]["reads_blocked"], largest[n]["writes_blocked"]) for n in (1, 2, 3)] == [
        (False, True),
        (False, False),
        (True, True),
    ]
    assert largest[1]["writes_waited_max_seconds"] > 0.5 * largest[1]["held_seconds"]
    assert largest[3]["reads_waited_max_seconds"] > 0.5 * largest[3]["held_seconds"]
    for n in (1, 3, 5):  # the work grows with the table
        held = [size["held_seconds"] for size in s[n]["sizes"]]
        assert held[-1] > held[0]
        assert s[n]["fit"]["seconds_per_mb"] > 0
        p = s[n]["production"]
        assert p["rows"] == 4000000 and p["held_seconds_low"] < p["held_seconds"] < p["held_seconds_high"]
        assert p["held_seconds"] > held[-1]  # 20 times the rows
    assert doc["deploys"][0]["files"] == [str(change)]
    assert (doc["deploys"][0]["blocks_reads"], doc["deploys"][0]["blocks_writes"]) == (True, True)
    assert _pg_scratch(pg_server) == []


BLOCKING = """\
CREATE INDEX orders_total ON orders (total_cents);
CREATE INDEX CONCURRENTLY orders_note ON orders (note);
ALTER TABLE orders ALTER COLUMN total_cents TYPE bigint;
"""


@pytest.mark.parametrize("major", pg_builds.MAJORS, ids=[f"pg{m}" for m in pg_builds.MAJORS])
def test_blocking_is_observed_on_every_major(capsys, tmp_path, pg_majors, major):
    """Writes wait for CREATE INDEX and not for CONCURRENTLY; reads wait for a rewrite: PostgreSQL 12 to 18."""
    server = pg_majors(major)
    dsn = server.dsn(server.create_database("rehearse_blocking"))
    history, change = _project(tmp_path, PG_HISTORY, BLOCKING)
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", dsn, "--max-rows", "120000")
    assert code == 0, err
    assert doc["server"].startswith(f"PostgreSQL {major}.")
    index, concurrent, rewrite = (st["sizes"][-1] for st in doc["statements"])
    # the server's word: probes waiting for a lock (not granted in pg_locks) while each ran
    assert (index["writes_blocked"], index["reads_blocked"]) == (True, False)
    assert (concurrent["writes_blocked"], concurrent["reads_blocked"]) == (False, False)
    assert (rewrite["writes_blocked"], rewrite["reads_blocked"]) == (True, True)
    # a probe sleeps INTERVAL between statements and pays its own round trip: it may start up to
    # two intervals after the lock is taken, so a hold of a few tens of ms (a fast machine) is waited
    # out for less than half of it
    for waited, held in (
        (index["writes_waited_max_seconds"], index["held_seconds"]),
        (rewrite["reads_waited_max_seconds"], rewrite["held_seconds"]),
    ):
        assert waited > min(0.5 * held, held - 2 * INTERVAL)
    assert [st["rewrites"] for st in doc["statements"]] == [False, False, True]
    assert _pg_scratch(server) == []


def test_a_deploy_of_concurrent_builds_says_nobody_waited(capsys, tmp_path, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, "CREATE INDEX CONCURRENTLY orders_note ON orders (note);\n")
    code, out, err = run(
        capsys, "rehearse", change, "--history", history, "--dsn", pg_dsn, "--max-rows", "100000",
        "--rows", "orders=1000000", "-q",
    )  # fmt: skip
    assert code == 0, err
    assert "no read or write seen waiting for them" in " ".join(out.split())


def test_production_sizes_come_from_a_snapshot(capsys, tmp_path, pg_server, pg_dsn):
    """The snapshot (`schemacite snapshot`, the catalog only) gives the production size; a table
    production holds fewer rows of than a size keeps production's count."""
    prod = pg_server.create_database("rehearse_production")
    with pg_server.connect(prod) as conn:
        conn.execute(PG_HISTORY)
        conn.execute("INSERT INTO accounts (email) SELECT 'a' || g FROM generate_series(1, 300) g")
        conn.execute(
            "INSERT INTO orders (account_id, total_cents, note) SELECT 1 + g % 300, g, repeat('n', 40)"
            " FROM generate_series(1, 30000) g"
        )
        conn.execute("VACUUM ANALYZE")
        size = conn.execute("SELECT pg_relation_size('orders')").fetchone()[0]
    snapshot = tmp_path / "prod.json"
    code, _, err = run(capsys, "snapshot", pg_server.dsn(prod), "-o", snapshot, "-q")
    assert code == 0, err
    history, change = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ALTER COLUMN total_cents TYPE bigint;\n")
    code, doc, err = _json(
        capsys, change, "--history", history, "--dsn", pg_dsn, "--snapshot", snapshot, "--max-rows", "80000"
    )
    assert code == 0, err
    (st,) = doc["statements"]
    assert st["production"]["rows"] == 30000 and st["production"]["bytes"] == size
    assert [s["rows"] for s in st["sizes"]] == [20000, 30000, 30000]  # never more than production holds
    assert st["production"]["held_seconds_low"] <= st["production"]["held_seconds_high"]


def test_rows_a_check_refuses_name_the_table_where_it_was_created(capsys, tmp_path, pg_dsn):
    history, change = _project(
        tmp_path,
        "CREATE TABLE codes (id bigserial PRIMARY KEY, code text NOT NULL CHECK (code LIKE 'A%'));\n",
        "ALTER TABLE codes ADD COLUMN note text;\n",
    )
    code, out, err = run(capsys, "rehearse", change, "--history", history, "--dsn", pg_dsn, "-q")
    assert code == 2 and out == ""
    assert f"{history}:1: cannot fill codes with 62,500 synthetic rows: " in err and "codes_code_check" in err


def test_a_brief_exclusive_lock_queues_reads_behind_an_open_transaction(capsys, tmp_path, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ADD COLUMN flag boolean;\n")
    code, doc, err = _json(
        capsys, change, "--history", history, "--dsn", pg_dsn, "--max-rows", "4000", "--hold-transaction", "1"
    )
    assert code == 0, err
    (st,) = doc["statements"]
    assert doc["hold_transaction_seconds"] == 1.0
    for size in st["sizes"]:  # adding a nullable column takes no time, but waits for the hold, and reads wait behind it
        assert size["held_seconds"] > 0.7
        assert size["reads_waited_max_seconds"] > 0.7
        assert size["reads_blocked"] is True
    assert st["rewrites"] is False


def test_the_same_without_the_hold_blocks_nobody(capsys, tmp_path, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ADD COLUMN flag boolean;\n")
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", pg_dsn, "--max-rows", "4000")
    assert code == 0, err
    for size in doc["statements"][0]["sizes"]:  # a probe read may meet the brief lock for a few milliseconds
        assert size["reads_waited_max_seconds"] < 0.2


def test_a_server_holding_other_tables_is_refused(capsys, tmp_path, pg_server, pg_dsn):
    with pg_server.connect("rehearse_target") as conn:
        conn.execute("CREATE TABLE customers (id int)")
    history, change = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ADD COLUMN flag boolean;\n")
    code, out, err = run(capsys, "rehearse", change, "--history", history, "--dsn", pg_dsn, "-q")
    assert code == 2 and out == ""
    assert "holds tables the rehearsal did not create (public.customers)" in err and "--scratch-ok" in err
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", pg_dsn, "--scratch-ok", "--max-rows", "400")
    assert code == 0, err
    with pg_server.connect("rehearse_target") as conn:  # untouched
        assert conn.execute("SELECT count(*) FROM customers").fetchone()[0] == 0


def test_a_history_statement_the_server_refuses_is_located(capsys, tmp_path, pg_server, pg_dsn):
    history, change = _project(
        tmp_path,
        PG_HISTORY + "ALTER TABLE orders ADD COLUMN x int REFERENCES nowhere (id);\n",
        "ALTER TABLE orders ADD COLUMN flag boolean;\n",
    )
    code, out, err = run(capsys, "rehearse", change, "--history", history, "--dsn", pg_dsn, "-q")
    assert code == 2
    assert f"{history}:9: the scratch server refused this history statement" in err
    assert _pg_scratch(pg_server) == []


def test_a_change_the_server_refuses_is_reported_and_fails_the_run(capsys, tmp_path, pg_server, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ALTER COLUMN note TYPE int USING note::int;\n")
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", pg_dsn, "--max-rows", "400")
    assert code == 1
    assert all("invalid input syntax" in size["error"] for size in doc["statements"][0]["sizes"])
    assert _pg_scratch(pg_server) == []


def test_text_report_fits_80_columns_and_html_plots_each_statement(capsys, tmp_path, pg_dsn, monkeypatch):
    _project(tmp_path, PG_HISTORY, PG_CHANGE)
    monkeypatch.chdir(tmp_path)  # the files named as a user names them: a temporary folder's path is longer than a line
    history, change = Path("001_history.sql"), Path("002_change.sql")
    code, out, err = run(capsys, "rehearse", change, "--history", history, "--dsn", pg_dsn, "--max-rows", "2000", "-q")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    assert f"{change}:3 ALTER TABLE orders ADD COLUMN token uuid DEFAULT gen_random_uuid()" in " ".join(out.split())
    assert "rewrites the table" in out
    page = tmp_path / "r.html"
    code, _, err = run(
        capsys, "rehearse", change, "--history", history, "--dsn", pg_dsn, "--max-rows", "2000", "-q",
        "--format", "html", "-o", page,
    )  # fmt: skip
    assert code == 0, err
    assert page.read_text().count("<svg") == 5


def test_a_throwaway_postgres_cluster_is_started_and_removed(capsys, tmp_path):
    history, change = _project(tmp_path, PG_HISTORY, "CREATE INDEX orders_total ON orders (total_cents);\n")
    before = set(Path("/tmp").glob("schemacite-rehearse-*"))
    code, doc, err = _json(capsys, change, "--history", history, "--max-rows", "2000")
    assert code == 0, err
    assert doc["server"].startswith("PostgreSQL ")
    assert doc["statements"][0]["locks"] == [{"relation": "orders", "mode": "ShareLock", "taken_at_line": 1}]
    assert set(Path("/tmp").glob("schemacite-rehearse-*")) == before


def test_sigterm_drops_the_scratch_database(tmp_path, pg_server, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, PG_CHANGE)
    proc = subprocess.Popen(
        [sys.executable, "-m", "schemacite.cli", "rehearse", str(change), "--history", str(history),
         "--dsn", pg_dsn, "--max-rows", "3000000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not _pg_scratch(pg_server):  # the first size's database exists: it is being filled
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert _pg_scratch(pg_server) == []


MARIA_HISTORY = """\
CREATE TABLE accounts (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, email varchar(190) NOT NULL UNIQUE) ENGINE=InnoDB;
CREATE TABLE orders (
    id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
    account_id bigint NOT NULL,
    total_cents int NOT NULL,
    note varchar(100),
    CONSTRAINT orders_account FOREIGN KEY (account_id) REFERENCES accounts (id)
) ENGINE=InnoDB;
"""
MARIA_CHANGE = """\
ALTER TABLE orders ADD INDEX orders_total (total_cents), ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE orders MODIFY total_cents bigint NOT NULL, ALGORITHM=COPY;
"""


def test_mariadb_copy_blocks_writes_and_inplace_does_not(capsys, tmp_path, mariadb_server):
    dsn = mariadb_server.dsn(mariadb_server.create_database("rehearse_target"))
    history, change = _project(tmp_path, MARIA_HISTORY, MARIA_CHANGE)
    code, doc, err = _json(
        capsys, change, "--history", history, "--dsn", dsn, "--max-rows", "200000", "--dialect", "mariadb"
    )
    assert code == 0, err
    s = _by_line(doc)
    assert s[1]["locks"] == [{"relation": "orders", "mode": "SHARED_UPGRADABLE", "taken_at_line": 1}]
    assert s[2]["locks"] == [{"relation": "orders", "mode": "SHARED_NO_WRITE", "taken_at_line": 2}]
    assert (s[1]["rewrites"], s[2]["rewrites"]) == (False, True)
    assert s[1]["scans"] is None  # MariaDB counts none a rehearsal can read
    inplace, copy = s[1]["sizes"][-1], s[2]["sizes"][-1]
    # the copy blocks writes throughout; both ALTERs take an exclusive metadata lock for a moment at
    # their start and end (a probe may meet it), so reads, and the in-place build's writes, wait
    # for a small part of the time at most
    assert copy["writes_blocked"] is True
    assert copy["writes_waited_max_seconds"] > 0.5 * copy["held_seconds"]
    assert copy["reads_waited_max_seconds"] < 0.25 * copy["held_seconds"]
    assert inplace["writes_waited_max_seconds"] < 0.25 * inplace["held_seconds"]
    assert mariadb_server.scratch_databases() == []


def test_a_change_that_only_creates_is_not_an_error(capsys, tmp_path, pg_dsn):
    history, change = _project(tmp_path, PG_HISTORY, "CREATE TABLE events (id bigint PRIMARY KEY);\n")
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", pg_dsn)
    assert code == 0, err
    assert doc["statements"] == [] and "touches no table the history created" in doc["notes"][0]


def test_statements_writing_outside_the_scratch_database_are_not_run(capsys, tmp_path, pg_server, pg_dsn):
    history, change = _project(
        tmp_path,
        "CREATE ROLE rehearsal_reader;\n" + PG_HISTORY,
        "CREATE ROLE rehearsal_writer;\nALTER TABLE orders ADD COLUMN flag boolean;\n",
    )
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", pg_dsn, "--max-rows", "400")
    assert code == 0, err
    role, alter = doc["statements"]
    assert "roles, databases" in role["not_run"] and role["sizes"] == []
    assert alter["not_run"] is None and len(alter["sizes"]) == 3
    assert any(n.startswith(f"{history}:1: not run on the scratch server") for n in doc["notes"])
    with pg_server.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'rehearsal_%'").fetchone()[0] == 0


def test_a_transaction_holds_its_first_lock_through_the_later_statements(capsys, tmp_path, pg_dsn):
    """One transaction (the file's BEGIN ... COMMIT): the index finds ACCESS EXCLUSIVE already held,
    taken at line 2, and every lock lasts until COMMIT."""
    history, change = _project(
        tmp_path,
        PG_HISTORY,
        "BEGIN;\nALTER TABLE orders ADD COLUMN flag boolean;\nCREATE INDEX orders_total ON orders (total_cents);\nCOMMIT;\n",
    )
    code, doc, err = _json(capsys, change, "--history", history, "--dsn", pg_dsn, "--max-rows", "300000")
    assert code == 0, err
    alter, index = doc["statements"]
    assert alter["locks"] == [{"relation": "orders", "mode": "AccessExclusiveLock", "taken_at_line": 2}]
    assert index["locks"] == [{"relation": "orders", "mode": "AccessExclusiveLock", "taken_at_line": 2}]
    for a, i in zip(alter["sizes"], index["sizes"]):
        assert a["held_seconds"] >= i["held_seconds"] >= i["seconds"]
    assert index["sizes"][-1]["reads_blocked"] is True  # ACCESS EXCLUSIVE until COMMIT: reads wait for the build too


def test_an_account_that_may_not_create_databases_is_told_so(capsys, tmp_path, pg_server):
    with pg_server.connect() as conn:
        conn.execute("DROP ROLE IF EXISTS rehearsal_nocreate")
        conn.execute("CREATE ROLE rehearsal_nocreate LOGIN")
    pg_server.create_database("rehearse_nocreate")
    dsn = f"postgresql://rehearsal_nocreate@{pg_server.host}:{pg_server.port}/rehearse_nocreate"
    history, change = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ADD COLUMN flag boolean;\n")
    code, out, err = run(capsys, "rehearse", change, "--history", history, "--dsn", dsn, "-q")
    assert code == 2 and out == ""
    assert "cannot create a scratch database" in err and "CREATEDB" in err and "internal error" not in err


def test_migrations_after_the_change_are_not_run(capsys, pg_dsn):
    """The demo: 000003 rehearsed with the whole folder as history; 000004, which deploys after it
    (and which the server refuses: its key lacks the partition column), is not run."""
    demo = Path(__file__).parents[1] / "fixtures" / "demo" / "postgres" / "migrations"
    code, doc, err = _json(
        capsys, demo / "000003_orders_status.up.sql", "--history", demo, "--dsn", pg_dsn, "--max-rows", "4000"
    )
    assert code == 0, err
    assert [st["line"] for st in doc["statements"]] == [1, 2, 3, 4, 6, 7]
    assert any("deploy after the change" in n for n in doc["notes"])


def test_a_history_migration_between_two_of_the_change_runs_in_its_place(capsys, tmp_path, pg_dsn):
    history, first = _project(tmp_path, PG_HISTORY, "ALTER TABLE orders ADD COLUMN flag boolean;\n")
    (tmp_path / "003_between.sql").write_text("ALTER TABLE orders ADD COLUMN region text;\n")
    second = tmp_path / "004_second.sql"
    second.write_text("CREATE INDEX orders_region ON orders (region);\n")
    code, doc, err = _json(capsys, first, second, "--history", tmp_path, "--dsn", pg_dsn, "--max-rows", "4000")
    assert code == 0, err
    assert [(Path(st["file"]).name, st["line"]) for st in doc["statements"]] == [
        ("002_change.sql", 1),
        ("004_second.sql", 1),
    ]
    assert all("error" not in size for st in doc["statements"] for size in st["sizes"])


def test_mysql_is_refused_plainly(capsys, tmp_path):
    _, change = _project(tmp_path, "", "ALTER TABLE t ADD COLUMN c int;\n")
    code, out, err = run(capsys, "rehearse", change, "--dialect", "mysql")
    assert code == 2 and "rehearsals run on MariaDB and PostgreSQL" in err


def test_the_range_widens_with_a_poor_fit():
    good = fit([(1e6, 1.0), (2e6, 2.0), (4e6, 4.0)])
    assert good is not None and good.margin == MARGIN
    low, expected, high = good.at(16e6)
    assert expected == pytest.approx(16.0, rel=1e-6)
    assert low == pytest.approx(16 / (1 + MARGIN) - NOISE) and high == pytest.approx(16 * (1 + MARGIN) + NOISE)
    poor = fit([(1e6, 1.0), (2e6, 3.0), (4e6, 4.0)])
    assert poor is not None and poor.margin > MARGIN
    assert fit([(1e6, 1.0), (1e6, 2.0)]) is None


def test_a_time_growing_faster_than_the_table_raises_the_top_of_the_range():
    """A backfill whose time grew as size^1.5 (a real migration's did): a line is a floor there."""
    curve = fit([(1e8, 5.0), (2e8, 5.0 * 2**1.5), (4e8, 5.0 * 4**1.5)])
    assert curve is not None and curve.superlinear and curve.exponent == pytest.approx(1.5)
    low, expected, high = curve.at(4e9)
    assert high == pytest.approx(40.0 * 10**1.5 * (1 + curve.margin) + NOISE)
    assert low < expected < high
    assert not fit([(1e6, 1.0), (2e6, 2.0), (4e6, 4.0)]).superlinear


def test_the_help_names_every_option():
    out = subprocess.run(
        [sys.executable, "-m", "schemacite.cli", "rehearse", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for option in ("--dsn", "--scratch-ok", "--snapshot", "--rows", "--max-rows", "--hold-transaction", "--format"):
        assert option in out
