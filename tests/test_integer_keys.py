"""integer-key-runs-out (SC119): the date counters project, and the limits and the fix checked on the
servers the suite starts (PostgreSQL 15, MariaDB 10.11; MySQL's limits rest on its manual)."""

from __future__ import annotations

import pytest

from schemacite import lint_paths
from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.model import Column
from schemacite.model.dialects import Dialect
from schemacite.model.integers import integer_type
from schemacite.model.results import Severity
from schemacite.sources.snapshot import schema_from_dict

SAMPLED = "2026-01-31T00:00:00Z"
WINDOW_START = "2026-01-21T00:00:00Z"  # counters over ten days


def _table(name: str, rows: int, inserts: int, column: dict | None = None) -> dict:
    return {
        "key": name,
        "name": name,
        "rows": rows,
        "columns": [
            column or {"name": "id", "type": "integer", "base_type": "int4", "nullable": False, "serial": True}
        ],
        "primary_key": {"name": f"{name}_pkey", "columns": ["id"]},
        "workload": {"inserts": inserts, "reads": 1, "since": WINDOW_START, "sampled_at": SAMPLED},
    }


def _audit(dialect: str, *tables: dict, **options) -> dict:
    schema = schema_from_dict({"version": 2, "dialect": dialect, "origin": "db1", "tables": list(tables)})
    settings = {"dialect": dialect, "select": ["integer-key-runs-out"]}
    if options:
        settings["rules"] = {"integer-key-runs-out": options}
    return {f.table: f for f in Linter(load_config(None, settings)).check_schema(schema).findings}


def test_counters_give_the_day_the_key_runs_out_and_the_figures_behind_it():
    """10M inserts in ten days is 1M a day; from 2,000,000,000 rows the 147,483,647 values left last
    147 days past the sample: an error, dated. 1,000,000,000 rows leave 1,147 days: past the
    three-year horizon, a warning. No inserts, or a projection past a century, is no finding."""
    found = _audit(
        "postgres",
        _table("events", 2_000_000_000, 10_000_000),
        _table("visits", 1_000_000_000, 10_000_000),
        _table("kinds", 12, 0),
        _table("users", 40_000, 1_000),
    )
    assert set(found) == {"events", "visits"}
    events = found["events"]
    assert events.severity is Severity.ERROR
    assert "10.0M inserts in 10 days (1.0M/day) from 2.0G rows" in events.message
    assert "reach it by 2026-06-27 at the latest" in events.message
    assert found["visits"].severity is Severity.WARNING and "2029-03-23" in found["visits"].message
    # the horizon is an option: four years makes the second one an error too
    assert (
        _audit("postgres", _table("visits", 1_000_000_000, 10_000_000), horizon_years=4)["visits"].severity
        is Severity.ERROR
    )


def test_counters_judge_any_counted_key_whatever_its_name():
    """With counters, the name policy steps aside: a growing `order_statuses` is dated, a quiet
    `events` is not reported."""
    found = _audit("postgres", _table("order_statuses", 30_000, 5_000_000), _table("events", 500, 0))
    assert set(found) == {"order_statuses"} and "2,147,483,647" in found["order_statuses"].message


def test_counters_younger_than_a_day_give_no_date():
    """An hour of counters (a server just restarted) projects nothing: the tables are judged as
    without counters, so a growing name still warns, undated, and an ordinary table is left alone."""
    tables = [_table("events", 2_000_000_000, 500_000), _table("orders", 2_000_000_000, 500_000)]
    for table in tables:  # read more than written: not insert-heavy by its counters either
        table["workload"].update(since="2026-01-30T23:00:00Z", reads=10_000_000)
    found = _audit("postgres", *tables)
    assert set(found) == {"events"} and found["events"].severity is Severity.WARNING
    assert "(its name says it only grows)" in found["events"].message and "reach it by" not in found["events"].message


def test_unsigned_mysql_key_is_projected_to_its_own_limit():
    column = {
        "name": "id",
        "type": "int unsigned",
        "base_type": "int",
        "unsigned": True,
        "nullable": False,
        "auto_increment": True,
    }
    found = _audit("mysql", _table("hits", 4_000_000_000, 10_000_000, column))
    # 294,967,295 values left at 1M a day: 295 days past the sample
    assert "INT UNSIGNED (AUTO_INCREMENT): inserts fail once it passes 4,294,967,295" in found["hits"].message
    assert "by 2026-11-21" in found["hits"].message and found["hits"].severity is Severity.ERROR


def test_a_snapshot_table_is_not_reported_by_a_change_that_leaves_its_key_alone(tmp_path):
    """The finding lands where the key got its type: a migration adding a column to a snapshot table
    does not repeat it; one that makes the key a counted INT does, with the counters' date."""
    import json

    snap = tmp_path / "s.json"
    column = {"name": "id", "type": "bigint", "base_type": "bigint", "nullable": False, "auto_increment": True}
    snap.write_text(
        json.dumps({"version": 2, "dialect": "mysql", "tables": [_table("hits", 2_100_000_000, 10_000_000, column)]})
    )
    config = load_config(None, {"dialect": "mysql", "select": ["integer-key-runs-out"]})
    quiet = tmp_path / "001_note.sql"
    quiet.write_text("ALTER TABLE hits ADD COLUMN note text;\n")
    narrowing = tmp_path / "002_narrow.sql"
    narrowing.write_text("ALTER TABLE hits MODIFY id INT NOT NULL AUTO_INCREMENT;\n")
    base = schema_from_dict(json.loads(snap.read_text()))
    assert Linter(config).lint([str(quiet)], base=base).findings == []
    base = schema_from_dict(json.loads(snap.read_text()))
    (finding,) = Linter(config).lint([str(narrowing)], base=base).findings
    assert finding.location.line == 1 and finding.severity is Severity.ERROR and "by 2026-03-19" in finding.message


def test_a_narrower_foreign_key_is_dated_by_the_referenced_tables_counters():
    """SC120 with counters: a bigint key taking 1M rows a day from 2,100,000,000 passes an integer
    referencing column's limit 47 days after the sample; the same key with no inserts is no finding."""
    parent = _table("accounts", 2_100_000_000, 10_000_000, {"name": "id", "type": "bigint", "base_type": "int8"})
    child = {
        "key": "invoices",
        "name": "invoices",
        "columns": [{"name": "account_id", "type": "integer", "base_type": "int4"}],
        "foreign_keys": [{"name": "fk", "columns": ["account_id"], "references": "accounts", "ref_columns": ["id"]}],
    }
    schema = schema_from_dict({"version": 2, "dialect": "postgres", "tables": [parent, child]})
    config = load_config(None, {"dialect": "postgres", "select": ["foreign-key-narrower-than-key"]})
    (finding,) = Linter(config).check_schema(schema).findings
    assert finding.severity is Severity.ERROR and "reach it by 2026-03-19" in finding.message
    quiet = _table("accounts", 2_100_000_000, 0, {"name": "id", "type": "bigint", "base_type": "int8"})
    schema = schema_from_dict({"version": 2, "dialect": "postgres", "tables": [quiet, child]})
    assert Linter(config).check_schema(schema).findings == []


# ---------------------------------------------------------------- the servers


def _fix_template(sql: str, tmp_path, dialect: str) -> str:
    path = tmp_path / "001_create.sql"
    path.write_text(sql)
    result = lint_paths([str(path)], config=load_config(None, {"dialect": dialect, "select": ["SC119"]}))
    (finding,) = result.findings
    assert finding.fix is not None and finding.fix.applicability == "display-only"
    return finding.fix.template


def test_postgres_limits_and_the_widening_fix(pg_server, tmp_path):
    """PostgreSQL 15 refuses the value past each limit the rule states; a serial column widened
    alone keeps its integer sequence, so the fix also widens the sequence, after which ids past 2^31
    are handed out to the table and to the foreign key column that references it."""
    create = "CREATE TABLE events (id serial PRIMARY KEY, v int);\nCREATE TABLE event_tags (event_id int REFERENCES events);\n"
    template = _fix_template(create, tmp_path, "postgres")
    assert (
        "ALTER SEQUENCE events_id_seq AS bigint" in template
        and "event_tags ALTER COLUMN event_id TYPE bigint" in template
    )
    int4 = integer_type(Dialect.POSTGRES, Column("id", base_type="int4"))
    int2 = integer_type(Dialect.POSTGRES, Column("id", base_type="int2"))
    assert int4 is not None and int2 is not None
    db = pg_server.create_database("runs_out")
    with pg_server.connect(db) as conn:
        conn.execute(create + "CREATE TABLE tags (id smallserial PRIMARY KEY, v int)")
        conn.execute("SELECT setval('tags_id_seq', %s)", (int2.max,))
        with pytest.raises(Exception, match=rf"reached maximum value of sequence \"tags_id_seq\" \({int2.max}\)"):
            conn.execute("INSERT INTO tags (v) VALUES (1)")
        conn.execute("SELECT setval('events_id_seq', %s)", (int4.max - 1,))
        conn.execute("INSERT INTO events (v) VALUES (1)")
        with pytest.raises(Exception, match=rf"reached maximum value of sequence \"events_id_seq\" \({int4.max}\)"):
            conn.execute("INSERT INTO events (v) VALUES (2)")
        conn.execute("ALTER TABLE events ALTER COLUMN id TYPE bigint")
        with pytest.raises(Exception, match="reached maximum value"):  # the sequence is still integer
            conn.execute("INSERT INTO events (v) VALUES (2)")
        conn.execute(template.replace("ALTER TABLE events ALTER COLUMN id TYPE bigint;", ""))
        (new_id,) = conn.execute("INSERT INTO events (v) VALUES (2) RETURNING id").fetchone()
        assert new_id == int4.max + 1
        conn.execute("INSERT INTO event_tags VALUES (%s)", (new_id,))
        # an identity column's sequence follows the column's type, which is why only serial is flagged
        conn.execute("CREATE TABLE marks (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY)")
        conn.execute("ALTER TABLE marks ALTER COLUMN id TYPE bigint")
        kinds = "SELECT data_type::text FROM pg_sequences WHERE sequencename = %s"
        assert conn.execute(kinds, ("marks_id_seq",)).fetchone() == ("bigint",)
        assert conn.execute(kinds, ("events_id_seq",)).fetchone() == ("bigint",)


def test_mariadb_limits_and_the_widening_fix(mariadb_server, tmp_path):
    """MariaDB 10.11 refuses the next AUTO_INCREMENT value past INT's and MEDIUMINT UNSIGNED's
    limits as the rule states them; after the fix's MODIFY to BIGINT the next insert gets an id."""
    create = (
        "CREATE TABLE click_events (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v int) AUTO_INCREMENT=2147483647;\n"
    )
    template = _fix_template(create, tmp_path, "mariadb")
    assert template == "ALTER TABLE click_events MODIFY id BIGINT NOT NULL AUTO_INCREMENT;"
    int4 = integer_type(Dialect.MARIADB, Column("id", base_type="int"))
    medium = integer_type(Dialect.MARIADB, Column("id", base_type="mediumint", unsigned=True))
    assert int4 is not None and medium is not None
    db = mariadb_server.create_database("runs_out")
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        cur.execute(create)
        cur.execute(
            f"CREATE TABLE tags (id MEDIUMINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, v int) AUTO_INCREMENT={medium.max}"
        )
        for table, limit in (("click_events", int4.max), ("tags", medium.max)):
            cur.execute(f"INSERT INTO {table} (v) VALUES (1)")
            cur.execute(f"SELECT max(id) FROM {table}")
            assert cur.fetchone() == (limit,)
            with pytest.raises(Exception, match="Out of range value for column 'id'"):
                cur.execute(f"INSERT INTO {table} (v) VALUES (2)")
        cur.execute(template)
        cur.execute("INSERT INTO click_events (v) VALUES (2)")
        cur.execute("SELECT max(id) FROM click_events")
        assert cur.fetchone() == (int4.max + 1,)
    finally:
        conn.close()


def test_postgres_takes_a_narrower_foreign_key_and_refuses_its_rows_past_the_limit(pg_server, tmp_path):
    """SC120's facts on PostgreSQL 15: the server accepts an integer column referencing a bigint key,
    then refuses a child row once the parent's id passes integer's limit; the fix's type change
    makes room for it."""
    create = (
        "CREATE TABLE accounts (id bigserial PRIMARY KEY);\n"
        "CREATE TABLE invoices (account_id integer NOT NULL REFERENCES accounts);\n"
    )
    path = tmp_path / "001_create.sql"
    path.write_text(create)
    config = load_config(None, {"dialect": "postgres", "select": ["SC120"]})
    (finding,) = lint_paths([str(path)], config=config).findings
    assert finding.fix is not None
    db = pg_server.create_database("narrow_fk")
    with pg_server.connect(db) as conn:
        conn.execute(create)
        conn.execute("SELECT setval('accounts_id_seq', 2147483647)")
        (parent,) = conn.execute("INSERT INTO accounts DEFAULT VALUES RETURNING id").fetchone()
        with pytest.raises(Exception, match="integer out of range"):
            conn.execute("INSERT INTO invoices VALUES (%s)", (parent,))
        conn.execute(finding.fix.template)
        conn.execute("INSERT INTO invoices VALUES (%s)", (parent,))


def test_mariadb_refuses_a_foreign_key_whose_integer_types_differ(mariadb_server):
    """Why SC120 is PostgreSQL's: MariaDB 10.11 refuses an INT column referencing a BIGINT key."""
    conn = mariadb_server.connect(mariadb_server.create_database("narrow_fk"))
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE accounts (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY)")
        with pytest.raises(Exception, match="errno: 150"):
            cur.execute(
                "CREATE TABLE invoices (account_id INT NOT NULL, FOREIGN KEY (account_id) REFERENCES accounts (id))"
            )
    finally:
        conn.close()
