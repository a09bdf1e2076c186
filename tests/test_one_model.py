"""A live schema and a replayed one are one model.

The same DDL runs on a real server and goes through the SQL reader and replay; the catalog
reader's tables and views must carry the same facts: columns (type, nullability, identity,
generated), keys, CHECK and NOT NULL constraints with their validated state, foreign keys both
ways, partitions and their bounds, persistence, character sets, what views read. A snapshot of
the live schema reads back the same.
"""

from __future__ import annotations

import pytest

from schemacite.live.catalogs import mysql as mysql_catalog
from schemacite.live.catalogs import postgres as pg_catalog
from schemacite.model import Schema
from schemacite.sources.read import parse_text
from schemacite.sources.replay import apply
from schemacite.sources.snapshot import schema_from_dict, snapshot_dict

PG_DDL = """
CREATE TABLE parent (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code varchar(20) NOT NULL,
    amount numeric(12,2) DEFAULT 0,
    CONSTRAINT parent_code UNIQUE (code)
);
CREATE UNLOGGED TABLE scratch (id serial PRIMARY KEY, v int, CONSTRAINT v_positive CHECK (v > 0));
CREATE TABLE child (
    id bigint PRIMARY KEY,
    parent_id bigint CONSTRAINT child_parent REFERENCES parent (id),
    qty int NOT NULL,
    doubled int GENERATED ALWAYS AS (qty * 2) STORED,
    at timestamptz
);
ALTER TABLE child ADD CONSTRAINT parent_set CHECK (parent_id IS NOT NULL) NOT VALID;
ALTER TABLE child ADD CONSTRAINT at_set CHECK (at IS NOT NULL);
CREATE INDEX child_qty ON child (qty) WHERE qty > 10;
CREATE TABLE events (id bigint NOT NULL, day date NOT NULL, PRIMARY KEY (id, day)) PARTITION BY RANGE (day);
CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE events_rest PARTITION OF events DEFAULT;
CREATE VIEW child_totals AS SELECT p.code, sum(c.qty) AS total FROM parent p JOIN child c ON c.parent_id = p.id GROUP BY p.code;
CREATE MATERIALIZED VIEW parent_codes AS SELECT code FROM parent;
CREATE SEQUENCE invoice_numbers;
CREATE SCHEMA "Audit";
CREATE TABLE "Audit"."InvitedUsers" (
    "inviteeEmail" text NOT NULL,
    "invitedOn" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    Note text CONSTRAINT "Note_Short" CHECK (length(Note) < 100),
    parent_id bigint CONSTRAINT "Invited_Parent" REFERENCES parent (id)
);
CREATE UNIQUE INDEX "InvitedUsers_inviteeEmail_key" ON "Audit"."InvitedUsers" ("inviteeEmail");
CREATE INDEX "Invited_On" ON "Audit"."InvitedUsers" ("invitedOn");
CREATE SEQUENCE scratch_numbers;
DROP SEQUENCE scratch_numbers;
"""

MARIADB_DDL = """
CREATE TABLE parent (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, code varchar(20) NOT NULL,
    note varchar(50) CHARACTER SET latin1, UNIQUE KEY parent_code (code))
    ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ROW_FORMAT=DYNAMIC;
CREATE TABLE child (id bigint NOT NULL PRIMARY KEY, parent_id bigint, qty int NOT NULL,
    doubled int AS (qty * 2) STORED, hidden int INVISIBLE,
    CONSTRAINT child_parent FOREIGN KEY (parent_id) REFERENCES parent (id),
    CONSTRAINT qty_positive CHECK (qty > 0)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE VIEW child_totals AS SELECT p.code, sum(c.qty) AS total FROM parent p JOIN child c ON c.parent_id = p.id
    GROUP BY p.code;
CREATE TABLE two_keys (token varchar(64) NOT NULL, z int NOT NULL, a int NOT NULL, n int,
    KEY k_n (n), UNIQUE KEY u_token (token(16)), UNIQUE KEY zz (z), UNIQUE KEY aa (a)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
"""


def replayed(ddl: str, dialect: str) -> Schema:
    parsed = parse_text(ddl, "schema.sql", dialect)
    assert not parsed.errors, [str(e) for e in parsed.errors]
    schema = Schema(dialect)
    for stmt in parsed.statements:
        apply(schema, stmt, new=False)
    return schema


def facts(schema: Schema) -> dict:
    """What both readers must agree on, per table and view; names of keys the DDL leaves to the
    server are not compared (each server names them its own way)."""
    out: dict = {}
    for key, t in schema.tables.items():
        out[key.rsplit(".", 1)[-1]] = {
            "columns": {
                c.name: (
                    c.base_type,
                    c.type_args,
                    c.nullable,
                    c.identity,
                    c.generated,
                    c.serial or c.auto_increment,
                    c.charset,
                    c.invisible,
                )
                for c in t.columns.values()
            },
            "primary_key": t.primary_key.columns if t.primary_key else None,
            "indexes": sorted(
                (i.columns, i.unique, i.partial, i.prefix, i.constraint) for i in t.indexes if i.kind != "fulltext"
            ),
            # InnoDB's choice: the first declared NOT NULL unique key of whole columns
            "clustering_key": t.clustering_key.columns if t.clustering_key else None,
            "named_indexes": sorted(i.name for i in t.indexes if i.name and not i.name.endswith(("_key", "_idx"))),
            "checks": sorted((c.name, c.validated, c.proves_not_null) for c in t.checks if not c.not_null),
            "foreign_keys": sorted(
                (fk.name, fk.columns, fk.references.rsplit(".", 1)[-1], fk.ref_columns, fk.validated)
                for fk in t.foreign_keys
            ),
            "referenced_by": sorted(schema.referencing(key)),
            "partition_of": t.partition_of,
            "default_partition": t.default_partition,
            "partition_bound": bool(t.partition_bound),
            "partitioning": (t.partitioning.method, t.partitioning.columns) if t.partitioning else None,
            "persistence": t.persistence,
            "charset": t.charset,
            "collation": t.collation,
            "row_format": t.row_format,
        }
    for key, v in schema.views.items():
        out[f"view {key}"] = (v.materialized, sorted(r.rsplit(".", 1)[-1] for r in v.reads or ()))
    out["sequences"] = sorted(schema.sequences)
    # the sequences serial and identity columns own, found through their tables
    out["owned sequences"] = sorted(n for n in ("parent_id_seq", "scratch_id_seq") if schema.sequence_owner(n))
    return out


def test_postgres_catalog_and_replay_agree(pg_server):
    db = pg_server.create_database("one_model_pg")
    with pg_server.connect(db) as conn:
        conn.execute(PG_DDL)
    with pg_server.connect(db) as conn:
        live, notes = pg_catalog.read_schema(conn, None)
    assert facts(live) == facts(replayed(PG_DDL, "postgres"))
    child = facts(live)["child"]
    assert child["checks"] == [("at_set", True, "at"), ("parent_set", False, "parent_id")]
    assert child["foreign_keys"] == [("child_parent", ("parent_id",), "parent", ("id",), True)]
    assert facts(live)["events_rest"]["default_partition"]
    assert facts(live)["view child_totals"] == (False, ["child", "parent"])
    assert facts(live)["sequences"] == ["invoice_numbers"]
    assert facts(live)["owned sequences"] == ["parent_id_seq", "scratch_id_seq"]
    # quoted names keep their case, bare ones fold: both readers know them as the server does
    assert "Audit.InvitedUsers" in live.tables
    invited = facts(live)["InvitedUsers"]
    assert list(invited["columns"]) == ["inviteeEmail", "invitedOn", "note", "parent_id"]
    assert invited["named_indexes"] == ["Invited_On"]
    # a bare CREATE UNIQUE INDEX is no constraint's, parent_code's index is
    assert (("inviteeEmail",), True, False, False, False) in invited["indexes"]
    assert (("code",), True, False, False, True) in facts(live)["parent"]["indexes"]
    assert ("Note_Short", True, None) in invited["checks"]
    assert schema_from_dict(snapshot_dict(live)) == live


def test_mariadb_catalog_and_replay_agree(mariadb_server):
    db = mariadb_server.create_database("one_model_maria")
    conn = mariadb_server.connect(db)
    try:
        cur = conn.cursor()
        for statement in filter(str.strip, MARIADB_DDL.split(";")):
            cur.execute(statement)
    finally:
        conn.close()
    conn = mariadb_server.connect()
    try:
        live, notes = mysql_catalog.read_schema(conn, [db], "mariadb")
    finally:
        conn.close()
    want = facts(replayed(MARIADB_DDL, "mariadb"))
    got = facts(live)
    assert got == want
    assert got["parent"]["columns"]["note"][6] == "latin1" and got["parent"]["row_format"] == "DYNAMIC"
    assert got["child"]["columns"]["hidden"][7] is True
    assert got["two_keys"]["clustering_key"] == ("z",)
    assert schema_from_dict(snapshot_dict(live)) == live


@pytest.mark.parametrize("dialect", ["postgres", "mariadb"])
def test_replayed_schemas_survive_a_snapshot(dialect):
    schema = replayed(PG_DDL if dialect == "postgres" else MARIADB_DDL, dialect)
    again = schema_from_dict(snapshot_dict(schema))
    assert facts(again) == facts(schema)


def test_owned_sequence_names_are_the_servers(pg_server):
    """The names the model gives serial and identity sequences are PostgreSQL's, long names
    shortened the way it shortens them."""
    from schemacite.model.schema import owned_sequence

    pairs = [("orders", "id"), ("t" * 50, "c" * 30), ("x" * 10, "some_rather_long_column_name_" * 2)]
    db = pg_server.create_database("owned_sequences")
    with pg_server.connect(db) as conn:
        for n, (table, column) in enumerate(pairs):
            conn.execute(f'CREATE TABLE "{table}" ("{column}" serial, other{n} int GENERATED ALWAYS AS IDENTITY)')
            got = conn.execute("SELECT pg_get_serial_sequence(%s, %s)", (f'"{table}"', column)).fetchone()[0]
            assert got == f"public.{owned_sequence(table, column)}"
            got = conn.execute("SELECT pg_get_serial_sequence(%s, %s)", (f'"{table}"', f"other{n}")).fetchone()[0]
            assert got == f"public.{owned_sequence(table, f'other{n}')}"
