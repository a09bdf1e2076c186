"""`schemacite evidence`: the catalogue, the experiments on real servers (inside scratch areas
they always drop), saved records that findings cite, and lock estimates from table sizes."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from cli import run
from schemacite.evidence import load_catalogue, use_files
from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.model import Schema, Table
from schemacite.sources.read import parse_text
from schemacite.sources.replay import apply


@pytest.fixture(autouse=True)
def _no_extra_files():
    """Records one test loads (`use_files`) are not seen by the next."""
    from schemacite import evidence

    saved = list(evidence._extra)
    yield
    evidence._extra[:] = saved
    evidence._loaded.cache_clear()
    evidence._measurements.cache_clear()


def _pg_areas(server) -> list[str]:
    with server.connect() as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, 'schemacite_scratch_')"
            " UNION ALL SELECT datname FROM pg_database WHERE starts_with(datname, 'schemacite_scratch_')"
            " UNION ALL SELECT slot_name FROM pg_replication_slots"
            " UNION ALL SELECT subname FROM pg_subscription UNION ALL SELECT pubname FROM pg_publication"
        ).fetchall()
    return [r[0] for r in rows]


# ------------------------------------------------------------------ the catalogue


def test_list_and_show(capsys):
    code, out, _ = run(capsys, "evidence", "list")
    assert code == 0 and "percona-2013-hidden-rowid  (measurement; Percona 2013; mariadb, mysql)" in out
    code, out, _ = run(capsys, "evidence", "show", "percona-2012-iibench-secondary-indexes", "--format", "json")
    assert code == 0 and json.loads(out)["setup"]["tool"]
    code, out, _ = run(capsys, "evidence", "show", "percona-2013-hidden-rowid")
    assert code == 0 and "source: “" in out and "never goes above 87%" in out  # the source's own words
    code, _, err = run(capsys, "evidence", "show", "percona-2012")
    assert code == 2 and "did you mean percona-2012-iibench-secondary-indexes" in err


def test_every_finding_cites_a_measurement_or_says_why():
    """Every built-in rule, on every dialect it runs on, cites a measurement that holds for that
    dialect, or carries a note of its own saying why none exists."""
    from schemacite.lint.plugins import plugin_manager, rule_classes

    catalogue = load_catalogue()
    for cls in rule_classes(plugin_manager(load_entrypoints=False)):
        for dialect in sorted(cls.dialects):
            measured = [
                i
                for i in cls.cited()
                if i in catalogue and catalogue[i].kind == "measurement" and catalogue[i].applies(dialect)
            ]
            note = cls.why_unmeasured(dialect)
            assert measured or not note.startswith("No measurement in the catalogue"), (cls.name, dialect)


def test_own_measurements_cover_every_server_and_rate():
    """The built-in measurements: PostgreSQL 12 to 18 and MariaDB 10.11, each with the rates lock
    estimates read, and the command that repeats them."""
    catalogue = load_catalogue()
    own = [e for e in catalogue.values() if e.source == "schemacite"]
    pg = {e.setup["server"].split()[1].split(".")[0] for e in own if e.applies("postgres")}
    assert pg == {"12", "13", "14", "15", "16", "17", "18"}
    assert any(e.applies("mariadb") for e in own)
    for e in own:
        assert e.setup["command"].startswith("python bench/evidence/run.py") and "2 vCPU" in e.setup["hardware"]
        if e.setup["tool"].endswith("lock-durations"):
            wanted = {"rewrite_bytes_per_second", "index_bytes_per_second", "backfill_rows_per_second"}
            assert wanted <= {f.get("quantity") for f in e.figures}, e.id


# ------------------------------------------------------------------ lock estimates


def _schema_with(rows: int, size: int) -> Schema:
    schema = Schema("postgres")
    for stmt in parse_text("CREATE TABLE orders (id bigint PRIMARY KEY, total int);", "h.sql", "postgres").statements:
        apply(schema, stmt, new=False)
    table: Table = schema.tables["orders"]
    table.rows, table.bytes = rows, size
    return schema


def _lint(tmp_path, sql: str, schema: Schema, **settings):
    f = tmp_path / "m.sql"
    f.write_text(sql)
    config = load_config(None, {"dialect": "postgres", "target": "postgres-16", **settings})
    return Linter(config).lint([str(f)], base=schema)


def test_a_rewrite_of_a_large_table_is_an_error_with_its_estimate(tmp_path):
    result = _lint(
        tmp_path, "ALTER TABLE orders ALTER COLUMN total TYPE bigint;\n", _schema_with(400_000_000, 48 * 10**9)
    )
    (f,) = [f for f in result.findings if f.rule == "access-exclusive-lock"]
    assert f.severity.name == "ERROR"
    assert f.estimate is not None
    assert f.estimate.table_bytes == 48 * 10**9 and f.estimate.table_rows == 400_000_000
    assert f.estimate.seconds > 60
    assert "it rewrites orders (48 GB, 400,000,000 rows) under the lock, about" in f.message
    assert f.estimate.rate_evidence in f.evidence and "pg16" in f.estimate.rate_evidence


def test_a_rewrite_of_a_tiny_table_stays_a_warning(tmp_path):
    result = _lint(tmp_path, "ALTER TABLE orders ALTER COLUMN total TYPE bigint;\n", _schema_with(100, 8192))
    (f,) = [f for f in result.findings if f.rule == "access-exclusive-lock"]
    assert f.severity.name == "WARNING" and f.estimate is not None and f.estimate.seconds < 1
    # the threshold is a setting
    result = _lint(
        tmp_path, "CREATE INDEX orders_total ON orders (total);\n", _schema_with(10**7, 10**9), max_lock_seconds=3600
    )
    (f,) = [f for f in result.findings if f.rule == "write-blocking-lock"]
    assert f.severity.name == "WARNING" and "builds an index over orders (1.0 GB" in f.message


def test_without_a_size_nothing_is_estimated(tmp_path):
    result = _lint(tmp_path, "ALTER TABLE orders ALTER COLUMN total TYPE bigint;\n", _schema_with(None, None))
    (f,) = [f for f in result.findings if f.rule == "access-exclusive-lock"]
    assert f.severity.name == "ERROR" and f.estimate is None and "rewrites the table" in f.message


def test_a_brief_lock_on_a_large_table_is_a_finding_of_its_own(tmp_path):
    """A catalog-only lock is one wait per deploy (SC110), except on a table a snapshot shows to be
    large: reading it whole would outlast max_lock_seconds."""
    sql = "ALTER TABLE orders ADD COLUMN note text;\n"
    result = _lint(tmp_path, sql, _schema_with(400_000_000, 48 * 10**9))
    (f,) = result.findings
    assert f.rule == "access-exclusive-lock" and f.severity.name == "WARNING"
    assert "(a large table: orders: 48 GB)" in f.message
    result = _lint(tmp_path, sql, _schema_with(100, 8192))
    assert [f.rule for f in result.findings] == ["lock-timeout-missing"]
    result = _lint(tmp_path, "SET lock_timeout = '2s';\n" + sql, _schema_with(400_000_000, 48 * 10**9))
    assert [(f.rule, f.severity.name) for f in result.findings] == [("access-exclusive-lock", "INFO")]


def test_estimates_reach_json_and_sarif(capsys, tmp_path, pg_server):
    """A snapshot of a real server carries the table's size; the report carries the estimate."""
    with pg_server.connect() as conn:
        conn.execute("DROP DATABASE IF EXISTS sized")
        conn.execute("CREATE DATABASE sized")
    with pg_server.connect("sized") as conn:
        conn.execute("CREATE TABLE orders (id bigint PRIMARY KEY, total int)")
        conn.execute("INSERT INTO orders SELECT g, g FROM generate_series(1, 200000) g")
        conn.execute("VACUUM ANALYZE orders")
    snap = tmp_path / "snap.json"
    code, _, err = run(capsys, "snapshot", pg_server.dsn("sized"), "-o", snap, "-q")
    assert code == 0, err
    m = tmp_path / "m.sql"
    m.write_text("ALTER TABLE orders ALTER COLUMN total TYPE bigint;\n")
    code, out, _ = run(capsys, "lint", "--snapshot", snap, "--format", "json", m)
    (f,) = [f for f in json.loads(out)["findings"] if f["rule"] == "access-exclusive-lock"]
    assert f["table_rows"] == 200000 and f["table_bytes"] > 5_000_000 and f["estimated_lock_seconds"] is not None
    code, out, _ = run(capsys, "lint", "--snapshot", snap, "--format", "sarif", m)
    props = json.loads(out)["runs"][0]["results"][0]["properties"]
    assert props["tableRows"] == 200000 and "estimatedLockSeconds" in props


# ------------------------------------------------------------------ reproduce on real servers


def test_reproduce_on_postgres_saves_a_record_findings_cite(capsys, tmp_path, pg_server, monkeypatch):
    saved = tmp_path / "evidence.toml"
    code, out, err = run(
        capsys,
        "evidence",
        "reproduce",
        "SC104",
        "--dsn",
        pg_server.dsn(),
        "--rows",
        "20000",
        "--repeat",
        "2",
        "--save",
        saved,
    )
    assert code == 0, err
    assert err.startswith("schemacite: lock-durations on") and "will write" in err and "20,000 rows" in err
    assert "here: " in out and "published: " in out and "rewritten" in out
    # the local median and spread beside the record's
    assert "here: " in out and "median of 2 runs" in out
    assert re.search(r"published: .*\(median of 5 runs, ", out)
    assert _pg_areas(pg_server) == []
    # the saved record: loaded through the config, cited by findings and used for estimates
    (tmp_path / ".schemacite.toml").write_text(f'dialect = "postgres"\nevidence = ["{saved.name}"]\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "evidence", "list")
    local = [line.split()[0] for line in out.splitlines() if line.startswith("local:lock-durations-")]
    assert len(local) == 1
    use_files([saved])
    result = _lint(tmp_path, "ALTER TABLE orders ALTER COLUMN total TYPE bigint;\n", _schema_with(10**6, 10**8))
    (f,) = [f for f in result.findings if f.rule == "access-exclusive-lock"]
    assert f.estimate is not None and f.estimate.rate_evidence == local[0] and local[0] in f.evidence


def test_reproduce_on_mariadb(capsys, mariadb_server):
    code, out, err = run(
        capsys,
        "evidence",
        "reproduce",
        "no-primary-key",
        "--dsn",
        mariadb_server.dsn(""),
        "--rows",
        "4000",
        "--threads",
        "2",
        "--repeat",
        "2",
    )
    assert code == 0, err
    assert "rows inserted per second, no key, 2 writers" in out and "median of 2 runs" in out
    assert mariadb_server.scratch_databases() == []


def test_reproduce_logical_replication(capsys, tmp_path):
    """Publisher and subscriber: a scratch database on the same server, which needs wal_level = logical;
    publication, slot and subscription are dropped with the areas."""
    import servers

    saved = tmp_path / "mine.toml"
    with servers.postgres_server({"wal_level": "logical"}) as pg:
        code, out, err = run(
            capsys,
            "evidence",
            "reproduce",
            "SC101",
            "--dsn",
            pg.dsn(),
            "--rows",
            "3000",
            "--repeat",
            "2",
            "--save",
            saved,
        )
        assert code == 0, err
        assert "refused: SQLSTATE 55000" in out and "applied by the subscriber from a backlog" in out
        assert _pg_areas(pg) == []
    use_files([saved])
    (record,) = [e for e in load_catalogue().values() if e.id.startswith("local:replica-identity-")]
    scans = {f["quantity"]: float(f["number"]) for f in record.figures if "_scans_" in f.get("quantity", "")}
    # the machine's PostgreSQL (15) looks a REPLICA IDENTITY FULL row up by a sequential scan (16 may
    # use an index); the keyed table's rows are found through its primary key
    assert scans["idx_scans_pk"] >= 2000 and scans["seq_scans_full"] >= 2000 and "idx_scans_full" not in scans
    assert "by a sequential scan" in record.shows
    assert {"published_updates_per_second_pk", "published_updates_per_second_full"} <= {
        f.get("quantity") for f in record.figures
    }


def test_reproduce_refuses_what_it_cannot_do(capsys, pg_server):
    code, _, err = run(capsys, "evidence", "reproduce", "SC101", "--dsn", pg_server.dsn(), "--rows", "100")
    assert code == 2 and "wal_level = logical" in err
    assert _pg_areas(pg_server) == []
    code, _, err = run(capsys, "evidence", "reproduce", "SC106", "--dsn", pg_server.dsn())
    assert code == 2 and "has no experiment on postgres" in err
    code, _, err = run(capsys, "evidence", "reproduce", "SC999", "--dsn", pg_server.dsn())
    assert code == 2 and "unknown rule" in err
    code, _, err = run(capsys, "evidence", "reproduce", "SC104", "--dsn", pg_server.dsn(), "--repeat", "0")
    assert code == 2 and "--repeat must be at least 1" in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_reproduce_drops_its_scratch_area_when_stopped(pg_server, signum):
    cmd = [
        sys.executable,
        "-m",
        "schemacite.cli",
        "evidence",
        "reproduce",
        "SC104",
        "--dsn",
        pg_server.dsn(),
        "--rows",
        "20000000",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not _pg_areas(pg_server):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert _pg_areas(pg_server) == [] and "Traceback" not in err


def test_a_bad_evidence_file_is_a_located_error(capsys, tmp_path):
    bad = tmp_path / "mine.toml"
    bad.write_text('[[evidence]]\nid = "no-namespace"\n')
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\nevidence = ["mine.toml"]\n')
    f = tmp_path / "m.sql"
    f.write_text("SELECT 1;\n")
    code, _, err = run(capsys, "lint", f)
    assert code == 2 and f"evidence: {bad}: [[evidence]] id=no-namespace:" in err


def test_saving_twice_to_one_file_keeps_ids_unique(capsys, tmp_path, mariadb_server):
    saved = tmp_path / "mine.toml"
    for _ in range(2):
        code, _, err = run(
            capsys,
            "evidence",
            "reproduce",
            "SC101",
            "--dsn",
            mariadb_server.dsn(""),
            "--rows",
            "400",
            "--threads",
            "1",
            "--repeat",
            "1",
            "--save",
            saved,
        )
        assert code == 0, err
        time.sleep(1.1)
    use_files([saved])
    ids = [i for i in load_catalogue() if i.startswith("local:clustered-keys-")]
    assert len(ids) == 2 and "server_url" in load_catalogue()[ids[0]].setup
