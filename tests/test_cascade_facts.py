"""What PostgreSQL's CASCADE removes, checked on the server: the facts cascade-drop (SC124)
lists, and its claim that the same statements without CASCADE are refused."""

from __future__ import annotations

import psycopg
import pytest

SCHEMA = (
    "CREATE TABLE customers (id bigint PRIMARY KEY, name text);"
    "CREATE TABLE invoices (id bigint PRIMARY KEY, customer_id bigint REFERENCES customers);"
    "CREATE TABLE invoice_lines (id bigint PRIMARY KEY, invoice_id bigint REFERENCES invoices);"
    "CREATE VIEW customer_names AS SELECT id, name FROM customers;"
    "CREATE VIEW customer_names_upper AS SELECT id, upper(name) AS name FROM customer_names;"
    "INSERT INTO customers VALUES (1, 'a'); INSERT INTO invoices VALUES (1, 1); INSERT INTO invoice_lines VALUES (1, 1);"
)


def test_drop_table_cascade_drops_views_reading_it_and_foreign_keys(pg_server):
    pg_server.create_database("cascade_drop")
    with pg_server.connect("cascade_drop") as conn:
        conn.execute(SCHEMA)
        with pytest.raises(psycopg.errors.DependentObjectsStillExist):
            conn.execute("DROP TABLE customers")
        conn.execute("DROP TABLE customers CASCADE")
        views = conn.execute("SELECT viewname FROM pg_views WHERE schemaname = 'public'").fetchall()
        keys = conn.execute("SELECT conrelid::regclass::text FROM pg_constraint WHERE contype = 'f'").fetchall()
        rows = conn.execute("SELECT count(*) FROM invoices").fetchone()
    assert views == []  # customer_names and the view reading it
    assert keys == [("invoice_lines",)]  # invoices lost its foreign key, kept its rows
    assert rows == (1,)


def test_truncate_cascade_empties_every_table_referencing_it(pg_server):
    pg_server.create_database("cascade_truncate")
    with pg_server.connect("cascade_truncate") as conn:
        conn.execute(SCHEMA)
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            conn.execute("TRUNCATE customers")
        conn.execute("TRUNCATE customers CASCADE")
        counts = conn.execute("SELECT (SELECT count(*) FROM invoices), (SELECT count(*) FROM invoice_lines)").fetchone()
    assert counts == (0, 0)


def test_drop_type_cascade_drops_the_columns_of_that_type(pg_server):
    pg_server.create_database("cascade_type")
    with pg_server.connect("cascade_type") as conn:
        conn.execute(
            "CREATE TYPE mood AS ENUM ('happy', 'sad');"
            "CREATE TABLE people (id bigint PRIMARY KEY, current mood, past mood[]);"
            "INSERT INTO people VALUES (1, 'happy', '{sad}')"
        )
        with pytest.raises(psycopg.errors.DependentObjectsStillExist):
            conn.execute("DROP TYPE mood")
        conn.execute("DROP TYPE mood CASCADE")
        columns = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'people'"
        ).fetchall()
    assert columns == [("id",)]


def test_columns_of_a_dropped_type_are_named_with_their_schema(tmp_path):
    """A table read from a snapshot keeps its schema apart from its name: the columns a DROP TYPE
    ... CASCADE takes are named schema-qualified, and only those of the type in that schema."""
    import json

    from schemacite import lint_paths

    def table(key: str, schema: str | None, name: str, type_: str) -> dict:
        columns = [{"name": "m", "type": type_, "nullable": True, "base_type": type_}]
        return {"key": key, "name": name, "schema": schema, "columns": columns}

    snapshot = tmp_path / "snapshot.json"
    doc = {
        "version": 2,
        "dialect": "postgres",
        "tables": [table("audit.people", "audit", "people", "audit.mood"), table("folks", None, "folks", "mood")],
    }
    snapshot.write_text(json.dumps(doc))
    change = tmp_path / "001_drop.sql"
    change.write_text("DROP TYPE audit.mood CASCADE;\n")
    result = lint_paths([str(change)], snapshot=str(snapshot), dialect="postgres", select=["SC124"])
    assert not result.errors, [str(e) for e in result.errors]
    (finding,) = result.findings
    assert "drops the column audit.people.m of that type" in finding.message, finding.message


def test_drop_schema_without_cascade_is_refused_while_it_holds_a_table(pg_server):
    """Why drop-database-or-schema (SC125) leaves PostgreSQL's DROP SCHEMA without CASCADE alone:
    the server refuses it while the schema holds a table (2BP01), so it removes none."""
    pg_server.create_database("cascade_schema")
    with pg_server.connect("cascade_schema") as conn:
        conn.execute(
            "CREATE SCHEMA billing; CREATE TABLE billing.invoices (id int); INSERT INTO billing.invoices VALUES (1)"
        )
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("DROP SCHEMA billing")
        assert refused.value.sqlstate == "2BP01"
        assert conn.execute("SELECT count(*) FROM billing.invoices").fetchone() == (1,)
    with pg_server.connect() as conn:
        conn.execute("DROP DATABASE cascade_schema")
