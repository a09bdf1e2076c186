"""`schemacite audit` and `schemacite snapshot` against real, throwaway servers (see servers.py).

Each server gets a database with the problems the rules look for, and real client traffic:
rows inserted through the driver until a table is insert-heavy, point lookups and scans
that make another one read-heavy. The audit is then run the way users run it (the CLI
entry point), and its findings, locations, messages, errors and exit codes are checked;
so are the password sources, a read-only account, unreachable targets, a server that
goes away mid-audit, `--sample`, and snapshots (round trip, and linting a migration
against one).
"""

from __future__ import annotations

import io
import json
import re
import socket
import sys
import threading
import time
from datetime import date
from pathlib import Path

import pytest

import servers
from cli import run
from schemacite.cli import main
from schemacite.evidence import load_catalogue
from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.live import servers as audit
from schemacite.live.catalogs import mysql as mysql_catalog
from schemacite.live.catalogs import postgres as pg_catalog
from schemacite.locks.duration import human_bytes
from schemacite.model.dialects import Dialect, Target
from schemacite.report.json import finding_dict
from schemacite.rule import Severity
from schemacite.sources.snapshot import (
    SnapshotError,
    read_snapshot,
    save_snapshot,
    schema_from_dict,
)

MARIA_PASSWORD = "S3cret-maria-pw"
PG_PASSWORD = "S3cret-pg-pw"


@pytest.fixture(autouse=True)
def no_ambient_credentials(tmp_path, monkeypatch):
    """Each test starts with an empty home and no password variables, like a fresh shell."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("MYSQL_PWD", "PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "PGUSER", "PGHOST", "PGPORT", "PGDATABASE"):
        monkeypatch.delenv(name, raising=False)
    return home


def audit_json(capsys, *args) -> tuple[int, dict, str]:
    code, out, err = run(capsys, "audit", "-q", "--format", "json", *args)
    return code, json.loads(out), err


def by_rule(doc: dict, code: str) -> list[dict]:
    return [f for f in doc["findings"] if f["code"] == code]


def listening_socket_that_never_answers() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    return sock


# ================================================================ no server needed


def test_dsn_forms_and_masking():
    t = audit.parse_dsn("mysql://app:p%40ss:w0rd@db1.example:3307/shop")
    assert (t.kind, t.user, t.password, t.host, t.port, t.database) == (
        "mysql",
        "app",
        "p@ss:w0rd",
        "db1.example",
        3307,
        "shop",
    )
    assert t.masked == "mysql://app:***@db1.example:3307/shop"
    assert t.server == "mysql://app@db1.example:3307"
    assert "p%40ss" not in repr(t) and "w0rd" not in repr(t)

    m = audit.parse_dsn("mariadb://root@127.0.0.1/")
    assert (m.kind, m.port, m.database, m.server) == ("mysql", None, None, "mariadb://root@127.0.0.1:3306")
    for scheme in ("postgresql", "postgres"):
        p = audit.parse_dsn(f"{scheme}://ro@pg1:6432/app")
        assert p.kind == "postgres" and p.server == f"{scheme}://ro@pg1:6432/app"
    assert audit.parse_dsn("postgresql://ro:x@[::1]/app").server == "postgresql://ro@[::1]:5432/app"

    assert audit.mask("mysql://u:secret@h:notaport/db") == "mysql://u:***@h:notaport/db"
    assert audit.mask("postgresql://h/db?user=u&password=secret") == "postgresql://h/db?user=u&password=***"
    assert audit.mask("mysql://u:pa@ss@h/db") == "mysql://u:***@h/db"
    # a driver's message keeps its own words; a URL or a libpq password= in it is masked
    wrong = audit.parse_dsn("mysql://auditor:wrong@h/shop")
    assert wrong.scrub("wrong user or password (1045)") == "wrong user or password (1045)"
    assert wrong.scrub("at mysql://auditor:wrong@h/shop: refused") == "at mysql://auditor:***@h/shop: refused"
    assert wrong.scrub("invalid dsn: host=h password='w r\\'x' user=u") == "invalid dsn: host=h password=*** user=u"
    with pytest.raises(audit.DsnError) as info:
        audit.parse_dsn("mysql://u:secret@h:notaport/db")
    assert "secret" not in str(info.value) and "u:***@h" in str(info.value)
    with pytest.raises(audit.DsnError, match="not a server URL"):
        audit.parse_dsn("oracle://u@h/db")
    with pytest.raises(audit.DsnError, match="unknown parameter"):
        audit.parse_dsn("mysql://u@h/db?sslmode=require")


def test_a_note_every_database_of_a_server_gives_is_said_once():
    from schemacite.cli.audit import audit_readings
    from schemacite.lint.config import load_config
    from schemacite.model import Schema

    note = "no statistics reset recorded: the counters count since the server started"
    readings = [
        audit.Reading(
            audit.parse_dsn(f"mysql://u:secret@db1:3306/{db}"),
            Schema("mariadb"),
            Dialect.MARIADB,
            Target.parse("mariadb-10.11"),
        )
        for db in ("a", "b", "c")
    ]
    other = audit.Reading(
        audit.parse_dsn("mysql://u@db2/d"), Schema("mariadb"), Dialect.MARIADB, Target.parse("mariadb-10.11")
    )
    for r in [*readings, other]:
        r.notes = [note]
    readings[0].notes.append("a.t differs from another table only in letter case; it was left out")
    result = audit_readings([*readings, other], load_config(None, {"dialect": "mariadb"}))
    assert result.notes == [
        f"mysql://db1:3306 (3 targets): {note}",
        "mysql://u:***@db1:3306/a: a.t differs from another table only in letter case; it was left out",
        f"mysql://u@db2/d: {note}",
    ]


def test_bad_dsn_on_the_command_line_is_exit_2_masked(capsys):
    code, doc, err = audit_json(capsys, "mysql://u:secret@h:notaport/db")
    assert code == 2 and doc["findings"] == []
    assert [e["file"] for e in doc["errors"]] == ["mysql://u:***@h:notaport/db"]
    assert "secret" not in json.dumps(doc) + err


@pytest.mark.parametrize(
    ("dialect", "version", "target"),
    [
        ("mysql", (5, 7, 44), "mysql-5.7"),
        ("mysql", (8, 0, 36), "mysql-8.0"),
        ("mysql", (8, 3, 0), "mysql-8.0"),
        ("mysql", (8, 4, 2), "mysql-8.4"),
        ("mysql", (9, 1, 0), "mysql-8.4"),
        ("mysql", (5, 6, 51), "mysql-5.7"),
        ("mariadb", (10, 5, 9), "mariadb-10.6"),
        ("mariadb", (10, 11, 19), "mariadb-10.11"),
        ("mariadb", (11, 2, 1), "mariadb-10.11"),
        ("mariadb", (11, 8, 2), "mariadb-11.4"),
        ("postgres", (11, 22), "postgres-12"),
        ("postgres", (15, 8), "postgres-15"),
        ("postgres", (18, 0), "postgres-18"),
    ],
)
def test_server_version_maps_to_the_nearest_target_not_newer(dialect, version, target):
    assert str(audit.nearest_target(dialect, version)) == target


@pytest.mark.parametrize(
    ("module", "url", "hint"),
    [
        (
            "MySQLdb",
            "mysql://u@127.0.0.1:1/x",
            "mysqlclient is not installed; install it with: pip install mysqlclient (it builds from source",
        ),
        (
            "psycopg",
            "postgresql://u@127.0.0.1:1/x",
            "psycopg is not installed; install it with: pip install 'psycopg[binary]'",
        ),
    ],
)
def test_missing_driver_gives_a_one_line_install_hint(capsys, monkeypatch, module, url, hint):
    monkeypatch.setitem(sys.modules, module, None)  # `import MySQLdb` now raises ImportError
    code, out, err = run(capsys, "audit", "-q", url)
    assert code == 2
    assert f"error: {url}:0: {hint}" in err and "error:" not in out


def _snapshot_doc(dialect: str) -> dict:
    def index(name, scans, unique=False):
        return {"name": name, "columns": [name], "unique": unique, "kind": "btree", "partial": False, "scans": scans}

    def table(name, workload, indexes, partition_of=None):
        return {
            "key": name,
            "name": name,
            "schema": "app",
            "partition_of": partition_of,
            "location": "mysql://ro@db1:3306/app",
            "columns": [{"name": "id", "type": "bigint", "nullable": False, "default": None}],
            "primary_key": {"name": "primary", "columns": ["id"], "scans": 0},
            "indexes": indexes,
            "workload": workload,
        }

    def workload(inserts, reads):
        return {
            "inserts": inserts,
            "reads": reads,
            "since": "2025-01-01T00:00:00.123456Z",  # PostgreSQL's stats_reset, to the microsecond
            "sampled_at": "2025-02-01T00:00:00Z",
            "source": "performance_schema",
        }

    return {
        "version": 1,
        "dialect": dialect,
        "origin": "mysql://ro@db1:3306",
        "sampled_at": "2025-02-01T00:00:00Z",
        "tables": [
            table("heavy", workload(12_400_000, 300_000), [index("a", 0), index("b", 5), index("u", 0, unique=True)]),
            table("light", workload(100, 5_000), [index("c", 0)]),
            table("unknown", None, [index("d", None)]),
            table("heavy_p1", workload(50_000, 0), [index("e", 0)], partition_of="heavy"),
        ],
    }


@pytest.mark.parametrize("dialect", ["mariadb", "postgres"])
def test_unused_index_rule(dialect, tmp_path):
    path = tmp_path / "prod.json"
    path.write_text(json.dumps(_snapshot_doc(dialect)))
    schema, _ = read_snapshot(path)
    result = Linter(load_config(None, {"dialect": dialect, "select": ["unused-index"]})).check_schema(schema)
    found = [(f.table, f.severity, f.message) for f in result.findings]
    assert found == [
        (
            "app.heavy",
            Severity.WARNING,
            (
                "Index a on app.heavy was never used since 2025-01-01T00:00:00Z (insert-heavy: 12.4M inserts vs 300.0k reads;"
                " every insert also writes this index)"
            ),
        ),
        (
            "app.light",
            Severity.INFO,
            "Index c on app.light was never used since 2025-01-01T00:00:00Z (100 inserts vs 5.0k reads)",
        ),
    ]
    heavy = result.findings[0]
    assert heavy.location.file == "mysql://ro@db1:3306/app" and heavy.location.line == 0
    # only records that hold for the dialect, a measurement among them, the nearest own run last

    catalogue = load_catalogue()
    assert heavy.evidence and all(catalogue[i].applies(dialect) for i in heavy.evidence)
    assert heavy.evidence_note is None
    if dialect == "postgres":
        assert "klotzandrew-2019-pg-insert-indexes" in heavy.evidence and heavy.evidence[-1].endswith(
            "-secondary-indexes"
        )
    else:
        assert heavy.evidence[0] == "percona-2012-iibench-secondary-indexes"


def test_unused_index_rule_spares_foreign_key_indexes_and_idle_tables(tmp_path):
    """An index a foreign key needs is reported as backing it (MySQL family), never as one to drop,
    by SC107 or SC102's hint; a table with no recorded activity is not judged at all."""
    doc = _snapshot_doc("mariadb")
    heavy = doc["tables"][0]
    child = json.loads(json.dumps(heavy)) | {"key": "orders", "name": "orders"}
    child["columns"].append({"name": "heavy_id", "type": "bigint", "nullable": False, "default": None})
    child["indexes"] = [
        {"name": "k_heavy", "columns": ["heavy_id"], "unique": False, "kind": "btree", "partial": False, "scans": 0},
        *[
            {"name": n, "columns": [n], "unique": False, "kind": "btree", "partial": False, "scans": 0}
            for n in ("x", "y")
        ],
    ]
    child["foreign_keys"] = [{"name": "orders_heavy", "columns": ["heavy_id"], "references": "heavy"}]
    idle = json.loads(json.dumps(doc["tables"][1])) | {"key": "idle", "name": "idle"}
    idle["workload"] |= {"inserts": 0, "reads": 0}
    doc["tables"] += [child, idle]
    path = tmp_path / "prod.json"
    path.write_text(json.dumps(doc))
    schema, _ = read_snapshot(path)
    config = load_config(None, {"dialect": "mariadb", "select": ["unused-index", "insert-heavy-indexes"]})
    found = {(f.code, f.table, f.index): f for f in Linter(config).check_schema(schema).findings}
    assert {k for k in found if k[1] == "app.orders"} == {
        ("SC107", "app.orders", "k_heavy"),
        ("SC107", "app.orders", "x"),
        ("SC107", "app.orders", "y"),
        ("SC102", "app.orders", "y"),
    }
    backing = found[("SC107", "app.orders", "k_heavy")]
    assert backing.severity == Severity.INFO and "backs foreign key orders_heavy" in backing.message
    assert backing.suggestion is None
    assert found[("SC107", "app.orders", "x")].severity == Severity.WARNING
    assert found[("SC102", "app.orders", "y")].message.endswith("; never used since counters started: x, y")
    assert not [k for k in found if k[1] == "app.idle"]


def test_snapshot_file_errors(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    with pytest.raises(SnapshotError, match=f"^{re.escape(str(missing))}: no such snapshot file$"):
        read_snapshot(missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SnapshotError, match=r"bad\.json: not valid JSON \(line 1, column 2"):
        read_snapshot(bad)
    future = tmp_path / "future.json"
    future.write_text(json.dumps({**_snapshot_doc("mysql"), "version": 3}))
    with pytest.raises(SnapshotError, match="future.json: snapshot version 3 is not supported .*reads versions 1, 2"):
        read_snapshot(future)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"findings": []}))
    with pytest.raises(SnapshotError, match="other.json: not a schemacite snapshot"):
        read_snapshot(other)
    broken = _snapshot_doc("mysql")
    del broken["tables"][1]["indexes"][0]["columns"]
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(broken))
    with pytest.raises(SnapshotError, match=r"wrong.json: tables\[1\].indexes\[0\]: missing 'columns'"):
        read_snapshot(wrong)
    broken = _snapshot_doc("mysql")
    broken["tables"][0]["workload"]["inserts"] = "many"
    wrong.write_text(json.dumps(broken))
    with pytest.raises(SnapshotError, match=r'tables\[0\]\.workload\.inserts: expected a whole number, got "many"$'):
        read_snapshot(wrong)

    sql = tmp_path / "new.sql"
    sql.write_text("CREATE INDEX k ON heavy (b);\n")
    code, _out, err = run(capsys, "lint", "--dialect", "mysql", "--schema", missing, sql)
    assert code == 2 and f"{missing}: no such snapshot file" in err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["tables"][1]["columns"][0].__setitem__("nullable", "yes"),
            r'tables\[1\]\.columns\[0\]\.nullable: expected a boolean, got "yes"',
        ),
        (lambda d: d["tables"][0].__setitem__("colour", "red"), r"tables\[0\]: unknown key\(s\) 'colour'"),
        (
            lambda d: d["tables"][1]["indexes"][0].__setitem__("columns", ["a", 3]),
            r"tables\[1\]\.indexes\[0\]\.columns\[1\]: expected a string, got 3",
        ),
        (lambda d: d["tables"][0].__setitem__("key", 7), r"tables\[0\]\.key: expected a string, got 7"),
        (
            lambda d: d.__setitem__("dialect", "oracle"),
            r'dialect: expected one of "mysql", "mariadb", "postgres", got "oracle"',
        ),
        (lambda d: d.__setitem__("sequences", ["s", ""]), r"sequences\[1\]: expected a name, got an empty string"),
        (lambda d: d["tables"].append(d["tables"][0]), r"tables\[4\]: duplicate key 'heavy'"),
    ],
)
def test_snapshot_errors_name_the_path_to_the_value(tmp_path, change, message):
    doc = _snapshot_doc("mysql")
    change(doc)
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SnapshotError, match=f"^{re.escape(str(path))}: {message}"):
        read_snapshot(path)


def test_snapshot_save_load_is_lossless(tmp_path):
    schema = schema_from_dict(_snapshot_doc("mariadb"))
    path = tmp_path / "again.json"
    save_snapshot(schema, path, "mariadb-10.11")
    again, recorded = read_snapshot(path)
    assert again == schema and recorded == "mariadb-10.11"
    doc = json.loads(path.read_text())
    assert doc["version"] == 2 and doc["target"] == "mariadb-10.11" and doc["sampled_at"] == "2025-02-01T00:00:00Z"


# ================================================================ MariaDB

MARIA_SCHEMA = [
    # insert-heavy, three secondary indexes nobody reads through
    (
        "CREATE TABLE events (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, account_id int, kind int, created date,"
        " KEY k_account (account_id), KEY k_kind (kind), KEY k_created (created))"
    ),
    # insert-heavy, two secondary indexes: at the limit (a migration adding a third is flagged)
    "CREATE TABLE clicks (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, page int, at date, KEY k_page (page), KEY k_at (at))",
    # read-heavy: its unused index is only worth an info
    (
        "CREATE TABLE accounts (id int NOT NULL PRIMARY KEY, email varchar(100) NOT NULL, name varchar(50),"
        " UNIQUE KEY uk_email (email), KEY k_name (name))"
    ),
    "CREATE TABLE no_pk (a int, b int)",
    (
        "CREATE TABLE logs (id bigint NOT NULL, day date NOT NULL, PRIMARY KEY (id, day)) PARTITION BY RANGE (year(day))"
        " (PARTITION p2024 VALUES LESS THAN (2025), PARTITION pmax VALUES LESS THAN MAXVALUE)"
    ),
    # the only index behind a foreign key: the counters never see the checks that read it
    (
        "CREATE TABLE orders (id int NOT NULL AUTO_INCREMENT PRIMARY KEY, account_id int NOT NULL,"
        " CONSTRAINT orders_account FOREIGN KEY (account_id) REFERENCES accounts (id))"
    ),
    # no activity since the counters started: nothing to judge its index by
    "CREATE TABLE idle (id int NOT NULL PRIMARY KEY, v int, KEY k_v (v))",
    # InnoDB clusters on zz, the first declared NOT NULL unique key; never on a prefix key
    "CREATE TABLE two_keys (z int NOT NULL, a int NOT NULL, UNIQUE KEY zz (z), UNIQUE KEY aa (a))",
    "CREATE TABLE tokens (token varchar(64) NOT NULL, UNIQUE KEY u_token (token(16)))",
    "CREATE VIEW recent AS SELECT id, kind FROM events",
]


def _maria_exec(server, db, *statements, many=None):
    conn = server.connect(db)
    try:
        cur = conn.cursor()
        for statement in statements:
            cur.execute(statement)
            cur.fetchall()
        if many:
            sql, rows = many
            for start in range(0, len(rows), 1000):  # 1000-row multi-value INSERTs, as an application batches them
                cur.executemany(sql, rows[start : start + 1000])
    finally:
        conn.close()


def _rows(count: int, width: int) -> list[tuple]:
    return [(i % 97, date(2024, 1 + i % 12, 1), i % 7)[:width] for i in range(count)]


def _maria_traffic(server, db, table, columns, count):
    """`count` rows inserted by the client, in 1000-row multi-value INSERTs."""
    marks = ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
    _maria_exec(server, db, many=(sql, _rows(count, len(columns))))


def _maria_account(server, user, password, *grants):
    conn = server.connect()
    try:
        cur = conn.cursor()
        for host in ("localhost", "127.0.0.1"):
            cur.execute(f"DROP USER IF EXISTS '{user}'@'{host}'")
            cur.execute(f"CREATE USER '{user}'@'{host}' IDENTIFIED BY '{password}'")
            for grant in grants:
                cur.execute(f"GRANT {grant} TO '{user}'@'{host}'")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def maria_shop(mariadb_server):
    db = mariadb_server.create_database("audit_shop")
    _maria_exec(mariadb_server, db, *MARIA_SCHEMA)
    _maria_traffic(mariadb_server, db, "events", ("account_id", "created", "kind"), 20_000)
    _maria_traffic(mariadb_server, db, "clicks", ("page", "at"), 15_000)
    accounts = [(i, f"u{i}@example.com", f"name {i}") for i in range(200)]
    _maria_exec(mariadb_server, db, many=("INSERT INTO accounts (id, email, name) VALUES (%s, %s, %s)", accounts))
    _maria_exec(mariadb_server, db, many=("INSERT INTO orders (account_id) VALUES (%s)", [(i,) for i in range(50)]))
    _maria_exec(
        mariadb_server,
        db,
        "INSERT INTO no_pk VALUES (1, 1), (2, 2)",
        *[f"SELECT * FROM accounts WHERE id = {i}" for i in range(0, 200, 2)],  # point reads through the PK
        *[f"SELECT id FROM accounts WHERE email = 'u{i}@example.com'" for i in range(20)],  # through uk_email
        *["SELECT count(*), max(name) FROM accounts IGNORE INDEX (k_name)"] * 3,  # whole-table reads
    )
    # the documented read privileges: SELECT on the schema, SELECT on performance_schema
    _maria_account(mariadb_server, "auditor", MARIA_PASSWORD, f"SELECT ON {db}.*", "SELECT ON performance_schema.*")
    return db


def maria_url(server, db, user="root", password=None):
    secret = f":{password}" if password else ""
    return f"mysql://{user}{secret}@127.0.0.1:{server.port}/{db}"


def test_mariadb_audit_findings(capsys, mariadb_server, maria_shop):
    code, doc, err = audit_json(capsys, mariadb_server.dsn(maria_shop))
    where = f"mariadb://root@127.0.0.1:{mariadb_server.port}/{maria_shop}"
    assert (
        code == 1
        and doc["errors"] == []
        and err
        == (
            f"note: {where}: 1 table(s) with non-unique indexes show no activity since the counters started: "
            "not enough activity to judge whether their indexes are used\n"
        )
    )
    assert {(f["file"], f["line"]) for f in doc["findings"]} == {(where, 0)}

    (heavy,) = by_rule(doc, "SC102")
    assert heavy["table"] == "audit_shop.events" and heavy["severity"] == "warning"
    assert re.search(
        r"has 3 secondary indexes \(limit 2\) \(20\.0k inserts vs 0 reads since \d{4}-\d\d-\d\dT", heavy["message"]
    )
    ids = heavy["evidence"]
    # InnoDB measurements, and our own run on the MariaDB version the audit found
    assert ids[0] == "percona-2012-iibench-secondary-indexes" and ids[-1].startswith("schemacite-")
    assert all("mariadb" in doc["evidence"][i]["applies_to"] for i in ids)

    unused = {(f["table"], f["message"].split()[1], f["severity"]) for f in by_rule(doc, "SC107")}
    assert unused == {
        ("audit_shop.events", "k_account", "warning"),
        ("audit_shop.events", "k_kind", "warning"),
        ("audit_shop.events", "k_created", "warning"),
        ("audit_shop.clicks", "k_page", "warning"),
        ("audit_shop.clicks", "k_at", "warning"),
        ("audit_shop.accounts", "k_name", "info"),  # read-heavy table; uk_email is unique and was read
        ("audit_shop.orders", "orders_account", "info"),  # backs the foreign key: never advised to drop
    }  # idle.k_v: no activity at all on its table, nothing to judge by
    assert all(f["index"] == f["message"].split()[1] for f in by_rule(doc, "SC107"))
    assert heavy["index"] in ("k_account", "k_kind", "k_created")
    (backing,) = [f for f in by_rule(doc, "SC107") if f["table"] == "audit_shop.orders"]
    assert "backs foreign key orders_account" in backing["message"] and "error 1553" in backing["message"]
    assert not backing["suggestion"]
    clicks = next(f for f in by_rule(doc, "SC107") if f["table"] == "audit_shop.clicks")
    # when the counters started, said once, to the second
    assert re.search(
        r"never used since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(insert-heavy: 15\.0k inserts vs 0 reads;",
        clicks["message"],
    )
    # within a location, the most severe first: unused indexes on insert-heavy tables before the rest
    ranks = [{"error": 3, "warning": 2, "info": 1}[f["severity"]] for f in doc["findings"]]
    assert ranks == sorted(ranks, reverse=True)

    no_pk = {f["table"]: (f["severity"], f["message"]) for f in by_rule(doc, "SC101")}
    assert set(no_pk) == {"audit_shop.no_pk", "audit_shop.tokens", "audit_shop.two_keys"}
    assert no_pk["audit_shop.two_keys"][0] == "info" and "NOT NULL unique key zz" in no_pk["audit_shop.two_keys"][1]
    assert (
        no_pk["audit_shop.tokens"][0] == "warning"
        and "u_token indexes a column prefix" in no_pk["audit_shop.tokens"][1]
    )
    assert not by_rule(doc, "SC103")  # the server refuses such partitioning


def test_mariadb_audit_text_shows_the_figures(capsys, mariadb_server, maria_shop):
    code, out, err = run(capsys, "audit", mariadb_server.dsn(maria_shop))
    # no progress display when not on a terminal: only the idle table's note
    assert code == 1 and err.startswith("note: ") and "not enough activity to judge" in err and err.count("\n") == 1
    assert out.startswith(f"mariadb://root@127.0.0.1:{mariadb_server.port}/{maria_shop}\n")
    assert "  - warning SC102 Insert-heavy table audit_shop.events has 3 secondary indexes" in out
    assert "(20.0k inserts vs 0 reads since " in " ".join(out.split())
    # after the findings, once: our own run on the audited server's family first, then the published ones
    evidence = out.split("\nEvidence per rule (each record in full: schemacite evidence show ID)\n")[1]
    sc102 = evidence.split("SC102 insert-heavy-indexes\n")[1].split("\nSC")[0]
    sc102 = " ".join(sc102.split())  # each record's label wrapped under its id
    assert sc102.startswith("schemacite-2026-mariadb1011-secondary-indexes: schemacite 2026 · 10.11")
    assert "percona-2012-iibench-secondary-indexes: Percona 2012 · Percona Server 5.5.22-55" in sc102
    assert "\x1b[" not in out


def test_mariadb_read_only_account_with_password_from_url(capsys, mariadb_server, maria_shop):
    """Only SELECT on the schema and on performance_schema: the same findings as root, no note but the
    idle table's, no error."""
    _code, as_root, _ = audit_json(capsys, mariadb_server.dsn(maria_shop))
    code, doc, err = audit_json(capsys, maria_url(mariadb_server, maria_shop, "auditor", MARIA_PASSWORD))
    assert (
        code == 1
        and doc["errors"] == []
        and doc["notes"]
        == [
            f"mysql://auditor:***@127.0.0.1:{mariadb_server.port}/{maria_shop}: 1 table(s) with non-unique indexes show no "
            "activity since the counters started: not enough activity to judge whether their indexes are used"
        ]
    )
    assert {f["file"] for f in doc["findings"]} == {f"mysql://auditor@127.0.0.1:{mariadb_server.port}/{maria_shop}"}

    def strip(d):
        return sorted((f["code"], f["table"], f["severity"], f["message"]) for f in d["findings"])

    assert _normalise_since(strip(doc)) == _normalise_since(strip(as_root))
    assert MARIA_PASSWORD not in json.dumps(doc) + err


def test_mariadb_password_from_mysql_pwd(capsys, monkeypatch, mariadb_server, maria_shop):
    """libmariadb reads MYSQL_PWD itself when no password is passed (mysqlclient passes none)."""
    url = maria_url(mariadb_server, maria_shop, "auditor")
    code, doc, _ = audit_json(capsys, url)
    assert code == 2 and "wrong user or password" in doc["errors"][0]["message"]
    monkeypatch.setenv("MYSQL_PWD", MARIA_PASSWORD)
    code, doc, err = audit_json(capsys, url)
    assert code == 1 and doc["errors"] == [] and by_rule(doc, "SC102")
    assert MARIA_PASSWORD not in json.dumps(doc) + err


def test_mariadb_password_from_my_cnf(capsys, no_ambient_credentials, mariadb_server, maria_shop):
    cnf = no_ambient_credentials / ".my.cnf"
    cnf.write_text(f"[client]\npassword={MARIA_PASSWORD}\n")
    cnf.chmod(0o600)
    code, doc, err = audit_json(capsys, maria_url(mariadb_server, maria_shop, "auditor"))
    assert code == 1 and doc["errors"] == [] and by_rule(doc, "SC102")
    assert MARIA_PASSWORD not in json.dumps(doc) + err


def test_mariadb_unreachable_targets_are_exit_2_and_the_others_still_audited(capsys, mariadb_server, maria_shop):
    wrong = maria_url(mariadb_server, maria_shop, "auditor", "not-the-password")
    refused = f"mysql://root:pw-refused@127.0.0.1:{servers.free_port()}/{maria_shop}"
    code, doc, err = audit_json(capsys, wrong, refused, mariadb_server.dsn(maria_shop))
    assert code == 2
    errors = {e["file"]: e for e in doc["errors"]}
    masked_wrong = f"mysql://auditor:***@127.0.0.1:{mariadb_server.port}/{maria_shop}"
    assert set(errors) == {masked_wrong, audit.mask(refused)} and ":***@" in audit.mask(refused)
    assert errors[masked_wrong]["line"] == 0
    assert errors[masked_wrong]["message"].startswith("wrong user or password (1045: Access denied for user 'auditor'")
    assert errors[audit.mask(refused)]["message"].startswith("cannot connect (2002:")
    assert by_rule(doc, "SC102")  # the good target was audited
    text = json.dumps(doc) + err
    assert "not-the-password" not in text and "pw-refused" not in text

    code, out, err = run(capsys, "audit", "-q", wrong)  # the error names the target too
    assert code == 2 and f"error: {masked_wrong}:0: wrong user or password" in err
    assert "not-the-password" not in out + err


# ================================================================ PostgreSQL

PG_SCHEMA = """
CREATE SCHEMA app;
CREATE TABLE app.events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account_id int, kind int, created date);
CREATE INDEX events_account ON app.events (account_id);
CREATE INDEX events_kind ON app.events (kind);
CREATE INDEX events_created ON app.events (created);
CREATE TABLE app.clicks (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, page int, at date);
CREATE INDEX clicks_page ON app.clicks (page);
CREATE INDEX clicks_at ON app.clicks (at);
CREATE TABLE app.accounts (id int PRIMARY KEY, email text NOT NULL UNIQUE, name text);
CREATE INDEX accounts_name ON app.accounts (name);
CREATE TABLE app.no_pk (a int, b int);
CREATE TABLE app.measurements (id bigint NOT NULL, taken_on date NOT NULL, v int, PRIMARY KEY (id, taken_on))
    PARTITION BY RANGE (taken_on);
CREATE TABLE app.measurements_2024 PARTITION OF app.measurements FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE app.measurements_2025 PARTITION OF app.measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE VIEW app.recent AS SELECT id, kind FROM app.events;
"""


def _pg_copy(conn, table, columns, rows):
    with conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _pg_traffic(conn, table, columns, count):
    """`count` rows inserted by the client (COPY), then the counters flushed for other sessions to see."""
    _pg_copy(conn, table, list(columns), _rows(count, len(columns)))
    conn.execute("SELECT pg_stat_force_next_flush()")


@pytest.fixture(scope="module")
def pg_shop(pg_server):
    db = pg_server.create_database("audit_pg")
    with pg_server.connect(db) as conn:
        conn.execute(PG_SCHEMA)
        _pg_traffic(conn, "app.events", ("account_id", "created", "kind"), 20_000)
        _pg_traffic(conn, "app.clicks", ("page", "at"), 15_000)
        _pg_copy(
            conn, "app.accounts", ["id", "email", "name"], ((i, f"u{i}@example.com", f"name {i}") for i in range(200))
        )
        conn.execute("INSERT INTO app.no_pk VALUES (1, 1), (2, 2)")
        conn.execute("INSERT INTO app.measurements VALUES (1, '2024-05-01', 1), (2, '2025-05-01', 2)")
        for i in range(0, 200, 2):
            conn.execute("SELECT * FROM app.accounts WHERE id = %s", (i,)).fetchall()
        for _ in range(3):
            conn.execute("SELECT count(*), max(name) FROM app.accounts").fetchall()
        conn.execute("SELECT pg_stat_force_next_flush()")
        # a login role and nothing else: the documented read privilege is CONNECT, which PUBLIC has
        conn.execute("DROP ROLE IF EXISTS auditor")
        conn.execute(f"CREATE ROLE auditor LOGIN NOSUPERUSER PASSWORD '{PG_PASSWORD}'")
    return db


@pytest.fixture(scope="module")
def pg_password_auth(pg_server, pg_shop):
    """Make the server ask `auditor` for its password over TCP (the test server trusts everyone else)."""
    with pg_server.connect() as conn:
        hba = Path(conn.execute("SHOW hba_file").fetchone()[0])
        original = hba.read_text()
        hba.write_text(f"host all auditor 127.0.0.1/32 scram-sha-256\n{original}")
        conn.execute("SELECT pg_reload_conf()")
    try:
        import psycopg

        deadline = time.monotonic() + 10
        while True:  # the reload is asynchronous: wait until a password-less login is refused
            try:
                psycopg.connect(f"postgresql://auditor@127.0.0.1:{pg_server.port}/{pg_shop}").close()
            except psycopg.OperationalError:
                break
            assert time.monotonic() < deadline, "pg_hba.conf reload not seen"
            time.sleep(0.1)
        yield
    finally:
        hba.write_text(original)
        with pg_server.connect() as conn:
            conn.execute("SELECT pg_reload_conf()")


def pg_url(server, db, user="postgres", password=None, scheme="postgresql"):
    secret = f":{password}" if password else ""
    return f"{scheme}://{user}{secret}@127.0.0.1:{server.port}/{db}"


def test_postgres_audit_findings(capsys, pg_server, pg_shop):
    code, doc, err = audit_json(capsys, pg_server.dsn(pg_shop))
    assert code == 1 and doc["errors"] == [] and "error:" not in err
    assert [line.startswith("note: ") for line in err.splitlines()] == [True] * len(err.splitlines())
    base = f"postgresql://postgres@127.0.0.1:{pg_server.port}/{pg_shop}"
    assert {f["file"] for f in doc["findings"]} == {f"{base}/app"}

    (heavy,) = by_rule(doc, "SC102")
    assert heavy["table"] == "app.events"
    assert re.search(r"\(20\.0k inserts vs 0 reads since \d{4}-", heavy["message"])
    # PostgreSQL measurements only (never an InnoDB one), ours on the server's own version last
    assert heavy["evidence"] and all(doc["evidence"][i]["applies_to"] == ["postgres"] for i in heavy["evidence"])
    assert heavy["evidence"][-1] == "schemacite-2026-pg15-secondary-indexes" and heavy["evidence_note"] is None

    unused = {(f["table"], f["message"].split()[1], f["severity"]) for f in by_rule(doc, "SC107")}
    assert unused == {
        ("app.events", "events_account", "warning"),
        ("app.events", "events_kind", "warning"),
        ("app.events", "events_created", "warning"),
        ("app.clicks", "clicks_page", "warning"),
        ("app.clicks", "clicks_at", "warning"),
        ("app.accounts", "accounts_name", "info"),
    }
    assert [f["table"] for f in by_rule(doc, "SC101")] == ["app.no_pk"]  # located by schema and table, like every rule
    assert not by_rule(doc, "SC103")


def test_postgres_read_only_role_sees_the_same(capsys, pg_server, pg_shop, pg_password_auth):
    """A login role with no grant at all (not pg_monitor, not pg_read_all_stats) audits the same."""
    _code, as_admin, _ = audit_json(capsys, pg_server.dsn(pg_shop))
    code, doc, err = audit_json(capsys, pg_url(pg_server, pg_shop, "auditor", PG_PASSWORD, scheme="postgres"))
    assert code == 1 and doc["errors"] == []

    def strip(d):
        return sorted((f["code"], f["table"], f["severity"], f["message"]) for f in d["findings"])

    assert strip(doc) == strip(as_admin)
    assert {f["file"] for f in doc["findings"]} == {f"postgres://auditor@127.0.0.1:{pg_server.port}/{pg_shop}/app"}
    assert PG_PASSWORD not in json.dumps(doc) + err


def test_postgres_password_from_pgpassword_and_pgpass(
    capsys, monkeypatch, no_ambient_credentials, pg_server, pg_shop, pg_password_auth
):
    url = pg_url(pg_server, pg_shop, "auditor")
    code, doc, _ = audit_json(capsys, url)
    assert code == 2 and doc["errors"][0]["message"].startswith("wrong user or password (")

    monkeypatch.setenv("PGPASSWORD", PG_PASSWORD)
    code, doc, _ = audit_json(capsys, url)
    assert code == 1 and doc["errors"] == []
    monkeypatch.delenv("PGPASSWORD")

    pgpass = no_ambient_credentials / ".pgpass"
    pgpass.write_text(f"127.0.0.1:{pg_server.port}:*:auditor:{PG_PASSWORD}\n")
    pgpass.chmod(0o600)
    code, doc, err = audit_json(capsys, url)
    assert code == 1 and doc["errors"] == [] and by_rule(doc, "SC102")
    assert PG_PASSWORD not in json.dumps(doc) + err


def test_postgres_wrong_password_and_refused_port(capsys, pg_server, pg_shop, pg_password_auth):
    wrong = pg_url(pg_server, pg_shop, "auditor", "not-the-password")
    refused = f"postgresql://auditor:pw-refused@127.0.0.1:{servers.free_port()}/{pg_shop}"
    code, doc, err = audit_json(capsys, wrong, refused, pg_server.dsn(pg_shop))
    assert code == 2
    errors = {e["file"]: e["message"] for e in doc["errors"]}
    masked_wrong = f"postgresql://auditor:***@127.0.0.1:{pg_server.port}/{pg_shop}"
    assert set(errors) == {masked_wrong, audit.mask(refused)}
    assert errors[masked_wrong].startswith("wrong user or password (") and 'for user "auditor"' in errors[masked_wrong]
    assert (
        errors[audit.mask(refused)].startswith("cannot connect (")
        and "Connection refused" in errors[audit.mask(refused)]
    )
    assert by_rule(doc, "SC102")
    text = json.dumps(doc) + err
    assert "not-the-password" not in text and "pw-refused" not in text


# ================================================================ both servers


def test_several_targets_at_once_with_a_timeout(capsys, mariadb_server, maria_shop, pg_server, pg_shop):
    """Four targets, two of them stalled (TCP accepted, no answer): bounded by --timeout, run concurrently."""
    stalled = listening_socket_that_never_answers()
    try:
        port = stalled.getsockname()[1]
        started = time.monotonic()
        code, doc, err = audit_json(
            capsys,
            "--jobs",
            "4",
            "--timeout",
            "2",
            mariadb_server.dsn(maria_shop),
            f"mysql://root:stalled-pw@127.0.0.1:{port}/x",
            f"postgresql://root:stalled-pw@127.0.0.1:{port}/x",
            pg_server.dsn(pg_shop),
        )
        elapsed = time.monotonic() - started
    finally:
        stalled.close()
    assert code == 2
    assert elapsed < 8  # the two stalled ones waited their 2 s side by side
    errors = {e["file"]: e["message"] for e in doc["errors"]}
    assert set(errors) == {f"mysql://root:***@127.0.0.1:{port}/x", f"postgresql://root:***@127.0.0.1:{port}/x"}
    assert all(m.startswith("no answer from the server (timeout)") for m in errors.values())
    files = {f["file"] for f in doc["findings"]}
    assert files == {
        f"mariadb://root@127.0.0.1:{mariadb_server.port}/{maria_shop}",
        f"postgresql://postgres@127.0.0.1:{pg_server.port}/{pg_shop}/app",
    }
    assert "stalled-pw" not in json.dumps(doc) + err


@pytest.mark.parametrize("victim", ["mariadb", "postgres"])
def test_server_gone_mid_audit(capsys, monkeypatch, victim, mariadb_server, maria_shop, pg_server, pg_shop):
    """The audit session is killed by the server between two catalog reads: that target fails, the other is audited."""
    if victim == "mariadb":
        real = mysql_catalog.read_schema

        def read_after_kill(conn, schemas, dialect="mysql", **options):
            admin = mariadb_server.connect()
            try:
                admin.cursor().execute(f"KILL CONNECTION {conn.thread_id()}")
            finally:
                admin.close()
            return real(conn, schemas, dialect, **options)

        monkeypatch.setattr(mysql_catalog, "read_schema", read_after_kill)
        gone, other = mariadb_server.dsn(maria_shop), f"postgresql://postgres@127.0.0.1:{pg_server.port}/{pg_shop}/app"
    else:
        real = pg_catalog.read_schema

        def read_after_kill(conn, schemas, dialect="postgres"):
            with pg_server.connect() as admin:
                assert admin.execute("SELECT pg_terminate_backend(%s, 5000)", (conn.info.backend_pid,)).fetchone()[0]
            return real(conn, schemas, dialect)

        monkeypatch.setattr(pg_catalog, "read_schema", read_after_kill)
        gone, other = pg_server.dsn(pg_shop), f"mariadb://root@127.0.0.1:{mariadb_server.port}/{maria_shop}"
    code, doc, _ = audit_json(capsys, mariadb_server.dsn(maria_shop), pg_server.dsn(pg_shop))
    assert code == 2
    (error,) = doc["errors"]
    assert error["file"] == gone
    assert error["message"].startswith("the server went away during the audit (")
    assert {f["file"] for f in doc["findings"]} == {other}


def test_progress_display_only_on_a_terminal(capsys, monkeypatch, mariadb_server, maria_shop):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    args = type("Args", (), {"quiet": False})()
    from schemacite.cli import audit as audit_command

    assert audit_command._show_progress(args)
    args.quiet = True
    assert not audit_command._show_progress(args)
    code = main(["audit", "--format", "json", mariadb_server.dsn(maria_shop)])
    out, _ = capsys.readouterr()
    assert code == 1 and json.loads(out)["findings"]  # the report itself is untouched by the display
    assert "audit_shop" in terminal.getvalue()  # the display named the target while it ran


# ---------------------------------------------------------------- --sample


@pytest.fixture(scope="module")
def sample_dbs(mariadb_server, pg_server):
    """`events` with 20k old inserts, `burst` empty: --sample must see only what happens during the sample."""
    maria = mariadb_server.create_database("audit_sample")
    for table in ("events", "burst"):
        _maria_exec(
            mariadb_server,
            maria,
            f"CREATE TABLE {table} (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, page int, at date,"
            " x int, KEY k_page (page), KEY k_at (at), KEY k_x (x))",
        )
    _maria_traffic(mariadb_server, maria, "events", ("page", "at", "x"), 20_000)
    pg = pg_server.create_database("audit_sample")
    with pg_server.connect(pg) as conn:
        for table in ("events", "burst"):
            conn.execute(
                f"CREATE TABLE {table} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, page int, at date, x int)"
            )
            for column in ("page", "at", "x"):
                conn.execute(f"CREATE INDEX {table}_{column} ON {table} ({column})")
        _pg_traffic(conn, "events", ("page", "at", "x"), 20_000)
    return maria, pg


@pytest.mark.parametrize("server_kind", ["mariadb", "postgres"])
def test_sample_uses_the_difference_of_two_readings(
    capsys, monkeypatch, server_kind, sample_dbs, mariadb_server, pg_server
):
    maria, pg = sample_dbs
    waited = []

    def traffic_during_the_sample(seconds):
        waited.append(seconds)
        if server_kind == "mariadb":
            _maria_traffic(mariadb_server, maria, "burst", ("page", "at", "x"), 12_000)
        else:
            with pg_server.connect(pg) as conn:
                _pg_traffic(conn, "burst", ("page", "at", "x"), 12_000)

    dsn = mariadb_server.dsn(maria) if server_kind == "mariadb" else pg_server.dsn(pg)
    _code, whole, _ = audit_json(capsys, dsn)  # before: only events is insert-heavy
    assert [f["table"].rsplit(".", 1)[-1] for f in by_rule(whole, "SC102")] == ["events"]

    monkeypatch.setattr(audit, "_sleep", traffic_during_the_sample)
    _code, doc, _ = audit_json(capsys, "--sample", "3", dsn)
    assert waited == [3.0]
    (heavy,) = by_rule(doc, "SC102")
    assert heavy["table"].rsplit(".", 1)[-1] == "burst"  # events saw no insert during the sample
    assert re.search(r"\(12\.0k inserts vs 0 reads since \d{4}-\d\d-\d\dT", heavy["message"])
    assert any("over a 3 s sample" in note for note in doc["notes"])


# ---------------------------------------------------------------- snapshots


def _normalise_since(items):
    """MariaDB's counter start is computed from whole seconds of uptime; two readings can differ by one."""
    return [tuple(re.sub(r"since \S+?Z", "since T", str(v)) for v in item) for item in items]


@pytest.mark.parametrize("server_kind", ["mariadb", "postgres"])
def test_snapshot_round_trip(capsys, tmp_path, server_kind, mariadb_server, maria_shop, pg_server, pg_shop):
    """audit DSN == the same rules over `snapshot DSN`: findings, locations, messages, evidence."""
    dsn = mariadb_server.dsn(maria_shop) if server_kind == "mariadb" else pg_server.dsn(pg_shop)
    path = tmp_path / "prod.json"
    code, out, err = run(capsys, "snapshot", dsn, "-o", path)
    assert code == 0 and out == ""
    assert re.search(r"wrote \d+ table\(s\), 1 view\(s\) \(\d+ with workload figures\) from ", err)
    _code, audited, _ = audit_json(capsys, dsn)

    doc = json.loads(path.read_text())
    schema, _ = read_snapshot(path)
    config = load_config(None, {"dialect": schema.dialect, "target": doc["target"]})
    result = Linter(config).check_schema(schema)
    from_snapshot = [finding_dict(f) for f in result.findings]

    def key(f):
        return json.dumps(f, sort_keys=True)

    a, b = sorted(map(key, audited["findings"])), sorted(map(key, from_snapshot))
    if server_kind == "mariadb":
        a, b = _normalise_since([a])[0], _normalise_since([b])[0]
    assert a == b and len(a) >= 8


def test_snapshot_contents_and_no_password(capsys, tmp_path, mariadb_server, maria_shop):
    path = tmp_path / "prod.json"
    code, _out, err = run(
        capsys, "snapshot", maria_url(mariadb_server, maria_shop, "auditor", MARIA_PASSWORD), "-o", path
    )
    assert code == 0 and f"from mysql://auditor:***@127.0.0.1:{mariadb_server.port}/{maria_shop} (" in err
    text = path.read_text()
    assert MARIA_PASSWORD not in text
    doc = json.loads(text)
    assert doc["version"] == 2 and doc["dialect"] == "mariadb" and doc["target"].startswith("mariadb-")
    assert doc["origin"] == f"mysql://auditor@127.0.0.1:{mariadb_server.port}"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc["sampled_at"])
    tables = {t["key"]: t for t in doc["tables"]}
    assert set(tables) == {"events", "clicks", "accounts", "no_pk", "logs", "orders", "idle", "two_keys", "tokens"}
    events = tables["events"]
    assert events["location"] == f"mysql://auditor@127.0.0.1:{mariadb_server.port}/{maria_shop}"
    assert events["primary_key"]["columns"] == ["id"]
    assert {i["name"]: i["scans"] for i in events["indexes"]} == {"k_account": 0, "k_kind": 0, "k_created": 0}
    w = events["workload"]
    assert (w["inserts"], w["reads"], w["source"]) == (20_000, 0, "performance_schema")
    assert w["since"] and w["sampled_at"] == doc["sampled_at"]
    assert tables["accounts"]["workload"]["reads"] >= 600
    assert {i["name"]: i["unique"] for i in tables["accounts"]["indexes"]} == {"uk_email": True, "k_name": False}
    assert tables["logs"]["partitioning"] == {
        "method": "range",
        "columns": ["day"],
        "expression": "RANGE(year(`day`))",
        "uses_primary_key": False,
        "by_expression": False,  # only PostgreSQL refuses a key on a table partitioned by an expression
    }
    assert [v["key"] for v in doc["views"]] == ["recent"]


def test_lint_against_a_snapshot_flags_a_third_index_on_an_insert_heavy_table(
    capsys, tmp_path, mariadb_server, maria_shop
):
    snap = tmp_path / "prod.json"
    assert run(capsys, "snapshot", mariadb_server.dsn(maria_shop), "-o", snap)[0] == 0
    code, out, _ = run(capsys, "snapshot", mariadb_server.dsn(maria_shop), "-o", "-")  # - is standard output
    names = lambda doc: sorted(str(t.get("key", t.get("name"))) for t in doc["tables"])  # noqa: E731
    assert code == 0 and names(json.loads(out)) == names(json.loads(snap.read_text())) != []
    migration = tmp_path / "migrations" / "000042_more_indexes.up.sql"
    migration.parent.mkdir()
    migration.write_text(
        "ALTER TABLE accounts ADD INDEX k_name_email (name, email);\n"  # accounts is read-heavy: fine
        "CREATE INDEX k_page_at ON clicks (page, at);\n"  # clicks is insert-heavy in production: third index
    )
    code, out, _ = run(capsys, "lint", "--dialect", "mariadb", "--schema", snap, "--format", "json", migration)
    doc = json.loads(out)
    assert code == 1 and doc["errors"] == []
    (f,) = by_rule(doc, "SC102")
    assert (f["file"], f["line"], f["table"]) == (str(migration), 2, "audit_shop.clicks")
    assert re.search(r"has 3 secondary indexes \(limit 2\) \(15\.0k inserts vs 0 reads since \d{4}-", f["message"])
    assert not by_rule(doc, "SC107")  # production's unused indexes are the audit's business, not the migration's

    # without the snapshot nothing says clicks is insert-heavy
    code, out, _ = run(capsys, "lint", "--dialect", "mariadb", "--format", "json", migration)
    assert not by_rule(json.loads(out), "SC102")


def test_lint_against_a_postgres_snapshot(capsys, tmp_path, pg_server, pg_shop):
    snap = tmp_path / "prod.json"
    assert run(capsys, "snapshot", pg_server.dsn(pg_shop), "-o", snap)[0] == 0
    migration = tmp_path / "new.sql"
    migration.write_text("CREATE INDEX CONCURRENTLY clicks_page_at ON app.clicks (page, at);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--schema", snap, "--format", "json", migration)
    doc = json.loads(out)
    (f,) = by_rule(doc, "SC102")
    assert code == 1 and (f["line"], f["table"]) == (1, "app.clicks")
    assert "(15.0k inserts vs 0 reads since " in f["message"]


# ================================================================ checking nothing, locked tables


def test_postgres_audit_reads_every_table_while_one_is_locked(capsys, pg_server, pg_shop):
    code, free, _ = audit_json(capsys, pg_url(pg_server, pg_shop))
    with pg_server.connect(pg_shop) as holder:
        holder.execute("BEGIN")
        holder.execute("LOCK TABLE app.measurements IN ACCESS EXCLUSIVE MODE")
        locked_code, locked, err = audit_json(capsys, pg_url(pg_server, pg_shop))
        holder.execute("ROLLBACK")
    assert locked_code == code and locked["errors"] == []
    assert [f["table"] for f in locked["findings"]] == [f["table"] for f in free["findings"]]
    assert "held ACCESS EXCLUSIVE by another session while read: app.measurements" in err
    assert "timeout" not in err


def test_postgres_audit_reads_a_table_another_session_waits_to_lock(capsys, pg_server, pg_shop):
    """A request for ACCESS EXCLUSIVE that waits queues every later lock behind it: the audit asks
    for none on that table (a file's size needs one), so it neither waits nor times out."""
    table = "app.measurements_2024"
    with pg_server.connect(pg_shop) as reader, pg_server.connect(pg_shop) as alterer:
        reader.execute("BEGIN")
        reader.execute(f"SELECT count(*) FROM {table}").fetchall()  # holds ACCESS SHARE until it ends
        alterer.execute("BEGIN")
        waiting = threading.Thread(target=alterer.execute, args=(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE",))
        waiting.start()
        deadline = time.monotonic() + 10
        while not reader.execute(
            "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass AND NOT granted", (table,)
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "the LOCK TABLE never queued"
            time.sleep(0.05)
        try:
            code, doc, err = audit_json(capsys, pg_url(pg_server, pg_shop))
        finally:
            reader.execute("ROLLBACK")
            waiting.join(10)
            alterer.execute("ROLLBACK")
    assert doc["errors"] == [] and "timeout" not in err and code == 1
    assert f"held ACCESS EXCLUSIVE by another session while read: {table} (awaited)" in err


def test_postgres_sizes_of_a_table_never_analysed_reach_snapshot_and_lock_estimate(capsys, tmp_path, pg_server):
    """The file's size, not the statistics' 0 pages, is what a snapshot carries and a lock estimate
    divides; rows the statistics never counted stay unknown, not 0."""
    db = pg_server.create_database("audit_pg_fresh")
    with pg_server.connect(db) as conn:
        assert conn.execute("SHOW autovacuum").fetchone()[0] == "off"
        conn.execute("CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, total int, note text)")
        conn.execute("INSERT INTO orders (total, note) SELECT i, repeat('n', 80) FROM generate_series(1, 40000) AS i")
        size = conn.execute("SELECT pg_relation_size('orders')").fetchone()[0]
    snap = tmp_path / "prod.json"
    assert run(capsys, "snapshot", pg_server.dsn(db), "-o", snap)[0] == 0
    (orders,) = json.loads(snap.read_text())["tables"]
    assert (orders["bytes"], orders["rows"], orders["analysed"]) == (size, None, False) and size > 4_000_000
    migration = tmp_path / "widen.sql"
    migration.write_text("ALTER TABLE orders ALTER COLUMN total TYPE bigint;\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--snapshot", snap, "--format", "json", migration)
    (sized,) = [f for f in json.loads(out)["findings"] if f["table_bytes"] is not None]
    assert code == 1 and (sized["table_bytes"], sized["table_rows"]) == (size, None)
    assert f"rewrites orders ({human_bytes(size)}) under the lock" in sized["message"]
    page = tmp_path / "audit.html"
    run(capsys, "audit", "-q", "--format", "html", "-o", page, pg_server.dsn(db))
    assert re.search(
        r'<td>public.orders</td><td class="n" data-v=""><span class="muted">not analysed</span></td>'
        rf'<td class="n" data-v="{size}">{re.escape(human_bytes(size))}</td>',
        page.read_text(),
    )


def test_a_lock_timeout_is_named_as_one():
    target = audit.parse_dsn("postgresql://u@h/db")
    lock = audit.describe_error(target, RuntimeError("canceling statement due to lock timeout"))
    statement = audit.describe_error(target, RuntimeError("canceling statement due to statement timeout"))
    assert lock.startswith("a catalog query waited too long for a lock (lock timeout)")
    assert statement.startswith("a catalog query exceeded the statement timeout")
    maria = audit.describe_error(audit.parse_dsn("mysql://u@h/db"), Exception(1205, "Lock wait timeout exceeded"))
    assert maria.startswith("a catalog query waited too long for a lock")


def test_postgres_schemas_that_do_not_exist(capsys, pg_server, pg_shop):
    code, out, err = run(capsys, "audit", "-q", pg_url(pg_server, pg_shop), "--schema", "nope")
    assert code == 2 and f"{pg_url(pg_server, pg_shop)}:0: no schema nope in this database" in err
    code, doc, err = audit_json(capsys, pg_url(pg_server, pg_shop), "--schema", "nope", "--schema", "app")
    assert code == 1 and doc["errors"] == [] and by_rule(doc, "SC101")
    assert "no schema nope in this database; read app" in err


def test_mariadb_databases_that_do_not_exist_or_cannot_be_seen(capsys, mariadb_server, maria_shop):
    code, _, err = run(capsys, "audit", "-q", maria_url(mariadb_server, "no_such_db"))
    assert code == 2 and "no schema no_such_db on this server, or none this account can see" in err
    auditor = maria_url(mariadb_server, "", "auditor", MARIA_PASSWORD)
    code, _, err = run(capsys, "audit", "-q", auditor, "--schema", "mysql")  # exists, but not for this account
    assert code == 2 and "no schema mysql on this server, or none this account can see" in err
    code, doc, err = audit_json(capsys, auditor, "--schema", maria_shop, "--schema", "mysql")
    assert code == 1 and doc["errors"] == [] and by_rule(doc, "SC102")
    assert f"no schema mysql on this server, or this account cannot see it; read {maria_shop}" in err
    empty = mariadb_server.create_database("audit_empty")
    code, _, err = run(capsys, "audit", "-q", maria_url(mariadb_server, empty))
    assert code == 2 and "nothing to audit: no table or view here that this account can see" in err
