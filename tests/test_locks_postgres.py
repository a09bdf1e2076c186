"""The PostgreSQL lock table against real servers, one of each major from 12 to 18.

Each case is a setup and one statement. The setup is replayed into a Schema
through the SQL front-end (parse + replay), the statement is parsed into a
Statement, and `postgres.impacts(..., major)` predicts its locks, rewrite and
scan; `verify_postgres.measure` runs it on a throwaway server of that major and
reads what it really locked (pg_locks), rewrote (relfilenode) and scanned
(pg_stat_xact_user_tables.seq_scan). Both must agree, relation by relation, on
every major the case's statement exists on. The servers are those of
conftest's `pg_majors`: the machine's PostgreSQL 15 and the npm builds of the
others (tests/pg_builds.py).

Every fact the prediction uses (foreign keys both ways, which partition is the
DEFAULT one, what a materialized view reads, validated CHECK constraints) comes
from replaying the setup SQL: nothing is supplied by hand.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

from schemacite.live.verify_postgres import compare, measure
from schemacite.locks import SEARCHES_NULLS, postgres, postgres_table
from schemacite.locks.modes import MODES, SPELLINGS
from schemacite.model import Schema
from schemacite.sources import replay
from schemacite.sources.read import parse_text

TABLESPACE = "schemacite_verify_ts"
ACCESS_METHOD = "schemacite_heap2"
OWNER = "schemacite_verify_owner"

BASE = (
    "CREATE TABLE p (id int PRIMARY KEY, v int)",
    "CREATE TABLE t (id int PRIMARY KEY, p_id int, a varchar(10), n numeric(8,2), c int, ts timestamp, b text)",
    "CREATE INDEX t_c ON t (c)",
    "INSERT INTO p VALUES (1, 1)",
    "INSERT INTO t VALUES (1, 1, 'x', 1.5, 1, '2024-01-01 10:00', 'b')",
)
PART = (
    "CREATE TABLE pt (k int, v int, w int) PARTITION BY RANGE (k)",
    "CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (10)",
    "CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (10) TO (20) PARTITION BY RANGE (k)",
    "CREATE TABLE pt2a PARTITION OF pt2 FOR VALUES FROM (10) TO (15)",
    "INSERT INTO pt VALUES (1, 1, 1), (11, 1, 1)",
)
DEFAULT_PART = ("CREATE TABLE ptd PARTITION OF pt DEFAULT",)
FK = ("ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id)",)
TRIGGER_FN = ("CREATE FUNCTION trf() RETURNS trigger LANGUAGE plpgsql AS 'begin return new; end'",)
IDENT = (
    "ALTER TABLE t ALTER COLUMN p_id SET NOT NULL",
    "ALTER TABLE t ALTER COLUMN p_id ADD GENERATED ALWAYS AS IDENTITY",
)
MATVIEW = ("CREATE MATERIALIZED VIEW mv AS SELECT id, c FROM t", "CREATE UNIQUE INDEX mv_id ON mv (id)")
VIEW = ("CREATE VIEW vw AS SELECT id, c FROM t",)
STORED = ("ALTER TABLE t ADD COLUMN g int GENERATED ALWAYS AS (c * 2) STORED",)
INDEXED = ("SET enable_seqscan = off",)  # a WHERE on the key reads through the index, whatever the table size


# ---------------------------------------------------------------- cases


@dataclass
class Case:
    id: str
    sql: str
    key: str  # the operation key the prediction must use
    setup: tuple[str, ...] = ()
    min_version: int = 12
    part: bool = False  # also set up the partitioned table pt
    max_version: int = 18

    def full_setup(self) -> list[str]:
        return list(BASE) + (list(PART) if self.part else []) + list(self.setup)


def C(id, sql, key, *setup, min_version=12, part=False, max_version=18) -> Case:
    return Case(id, sql, key, tuple(setup), min_version, part, max_version)


A = "alter_table."
CASES = [
    # ADD COLUMN
    C("add_column", "ALTER TABLE t ADD COLUMN x int", A + "add_column"),
    C("add_column_const_default", "ALTER TABLE t ADD COLUMN x int NOT NULL DEFAULT 0", A + "add_column"),
    C("add_column_now_default", "ALTER TABLE t ADD COLUMN x timestamptz DEFAULT now()", A + "add_column"),
    C("add_column_volatile", "ALTER TABLE t ADD COLUMN x timestamptz DEFAULT clock_timestamp()", A + "add_column"),
    C("add_column_stable_built_in", "ALTER TABLE t ADD COLUMN x timestamptz DEFAULT to_timestamp(0)", A + "add_column"),
    # a function created without a volatility is VOLATILE: its default fills every row (PL/pgSQL,
    # since the planner may inline a LANGUAGE sql function's constant body, and store that)
    C(
        "add_column_user_function_volatile",
        "ALTER TABLE t ADD COLUMN x jsonb DEFAULT myjsonb()",
        A + "add_column",
        "CREATE FUNCTION myjsonb() RETURNS jsonb LANGUAGE plpgsql AS $$ BEGIN RETURN '{}'::jsonb; END $$",
    ),
    C(
        "add_column_user_function_immutable",
        "ALTER TABLE t ADD COLUMN x jsonb DEFAULT myjsonb()",
        A + "add_column",
        "CREATE FUNCTION myjsonb() RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT '{}'::jsonb $$",
    ),
    C("add_column_uuid", "ALTER TABLE t ADD COLUMN x uuid DEFAULT gen_random_uuid()", A + "add_column", min_version=13),
    C("add_column_identity", "ALTER TABLE t ADD COLUMN x int GENERATED ALWAYS AS IDENTITY", A + "add_column"),
    C("add_column_unique", "ALTER TABLE t ADD COLUMN x int UNIQUE", A + "add_column"),  # builds an index
    C(
        "add_column_primary_key",
        "ALTER TABLE u ADD COLUMN x int PRIMARY KEY",
        A + "add_column",
        "CREATE TABLE u (v int)",
    ),
    C("add_column_serial", "ALTER TABLE t ADD COLUMN x bigserial", A + "add_column"),
    C("add_column_stored", "ALTER TABLE t ADD COLUMN x int GENERATED ALWAYS AS (c * 2) STORED", A + "add_column"),
    C("add_column_references", "ALTER TABLE t ADD COLUMN x int REFERENCES p (id)", A + "add_column"),
    C("add_column_partitioned", "ALTER TABLE pt ADD COLUMN x int DEFAULT random()", A + "add_column", part=True),
    C("set_default_only_partitioned", "ALTER TABLE ONLY pt ALTER COLUMN w SET DEFAULT 1", A + "set_default", part=True),
    # other column forms
    C("drop_column", "ALTER TABLE t DROP COLUMN b", A + "drop_column"),
    C("drop_column_partitioned", "ALTER TABLE pt DROP COLUMN w", A + "drop_column", part=True),
    C("type_varchar_longer", "ALTER TABLE t ALTER COLUMN a TYPE varchar(20)", A + "alter_column_type"),
    C("type_varchar_text", "ALTER TABLE t ALTER COLUMN a TYPE text", A + "alter_column_type"),
    C("type_varchar_shorter", "ALTER TABLE t ALTER COLUMN a TYPE varchar(5)", A + "alter_column_type"),
    C("type_varchar_char", "ALTER TABLE t ALTER COLUMN a TYPE char(10)", A + "alter_column_type"),
    C("type_text_varchar", "ALTER TABLE t ALTER COLUMN b TYPE varchar", A + "alter_column_type"),
    C("type_text_varchar_n", "ALTER TABLE t ALTER COLUMN b TYPE varchar(50)", A + "alter_column_type"),
    C("type_numeric_precision", "ALTER TABLE t ALTER COLUMN n TYPE numeric(10,2)", A + "alter_column_type"),
    C("type_numeric_scale", "ALTER TABLE t ALTER COLUMN n TYPE numeric(10,3)", A + "alter_column_type"),
    C("type_numeric_unbounded", "ALTER TABLE t ALTER COLUMN n TYPE numeric", A + "alter_column_type"),
    C("type_int_bigint", "ALTER TABLE t ALTER COLUMN c TYPE bigint", A + "alter_column_type"),
    C("type_same", "ALTER TABLE t ALTER COLUMN c TYPE integer", A + "alter_column_type"),
    # a CHECK that reads the column is checked again over every row, though nothing is rewritten
    C(
        "type_varchar_longer_checked",
        "ALTER TABLE t ALTER COLUMN a TYPE varchar(20)",
        A + "alter_column_type",
        "ALTER TABLE t ADD CONSTRAINT t_a_filled CHECK (length(a) > 0)",
    ),
    C(
        "type_varchar_longer_check_elsewhere",
        "ALTER TABLE t ALTER COLUMN a TYPE varchar(20)",
        A + "alter_column_type",
        "ALTER TABLE t ADD CONSTRAINT t_c_positive CHECK (c > 0 AND b <> 'a')",
    ),
    C(
        "type_varchar_longer_check_not_valid",
        "ALTER TABLE t ALTER COLUMN a TYPE varchar(20)",
        A + "alter_column_type",
        "ALTER TABLE t ADD CONSTRAINT t_a_filled CHECK (length(a) > 0) NOT VALID",
    ),
    C(
        "type_varchar_longer_check_dropped_and_added_not_valid",
        "ALTER TABLE t DROP CONSTRAINT t_a_filled, ALTER COLUMN a TYPE varchar(20), "
        "ADD CONSTRAINT t_a_filled CHECK (length(a) > 0) NOT VALID",
        A + "alter_column_type",
        "ALTER TABLE t ADD CONSTRAINT t_a_filled CHECK (length(a) > 0)",
    ),
    C(
        "type_varchar_longer_not_null",
        "ALTER TABLE t ALTER COLUMN a TYPE varchar(20)",
        A + "alter_column_type",
        "ALTER TABLE t ALTER COLUMN a SET NOT NULL",
    ),
    C(
        "type_timestamp_tz",
        "ALTER TABLE t ALTER COLUMN ts TYPE timestamptz",
        A + "alter_column_type",
        "SET TimeZone = 'America/New_York'",
    ),
    C(
        "type_timestamp_tz_utc",
        "ALTER TABLE t ALTER COLUMN ts TYPE timestamptz",
        A + "alter_column_type",
        "SET TimeZone = 'UTC'",
    ),
    C("type_timestamp_precision", "ALTER TABLE t ALTER COLUMN ts TYPE timestamp(3)", A + "alter_column_type"),
    C(
        "type_collation_indexed",
        'ALTER TABLE t ALTER COLUMN b TYPE text COLLATE "C"',
        A + "alter_column_type",
        "CREATE INDEX t_b ON t (b)",
    ),
    C(
        "type_enum_recreated_under_its_old_name",
        "ALTER TABLE t ALTER COLUMN e TYPE st USING e::text::st",
        A + "alter_column_type",
        "CREATE TYPE st AS ENUM ('a', 'b')",
        "ALTER TABLE t ADD COLUMN e st",
        "ALTER TYPE st RENAME TO st_old",
        "CREATE TYPE st AS ENUM ('a', 'b', 'c')",
    ),
    C("type_collation_unindexed", 'ALTER TABLE t ALTER COLUMN b TYPE text COLLATE "C"', A + "alter_column_type"),
    C(
        "type_collation_reset",
        "ALTER TABLE t ALTER COLUMN b TYPE varchar",
        A + "alter_column_type",
        'ALTER TABLE t ALTER COLUMN b TYPE text COLLATE "C"',
        "CREATE INDEX t_b ON t (b)",
    ),
    C(
        "type_cidr_inet",
        "ALTER TABLE t ALTER COLUMN ci TYPE inet",
        A + "alter_column_type",
        "ALTER TABLE t ADD COLUMN ci cidr",
    ),
    C(
        "type_varbit",
        "ALTER TABLE t ALTER COLUMN vb TYPE varbit(8)",
        A + "alter_column_type",
        "ALTER TABLE t ADD COLUMN vb varbit(4)",
    ),
    C(
        "type_json_jsonb",
        "ALTER TABLE t ALTER COLUMN j TYPE jsonb",
        A + "alter_column_type",
        "ALTER TABLE t ADD COLUMN j json",
    ),
    C("type_using", "ALTER TABLE t ALTER COLUMN b TYPE int USING length(b)", A + "alter_column_type"),
    C("type_partitioned", "ALTER TABLE pt ALTER COLUMN w TYPE bigint", A + "alter_column_type", part=True),
    C("type_referenced", "ALTER TABLE p ALTER COLUMN id TYPE bigint", A + "alter_column_type", *FK),
    C("type_fk_column", "ALTER TABLE t ALTER COLUMN p_id TYPE bigint", A + "alter_column_type", *FK),
    C("type_no_fk", "ALTER TABLE t ALTER COLUMN c TYPE bigint", A + "alter_column_type", *FK),
    C("set_default", "ALTER TABLE t ALTER COLUMN c SET DEFAULT 3", A + "set_default"),
    C("set_default_partitioned", "ALTER TABLE pt ALTER COLUMN w SET DEFAULT 3", A + "set_default", part=True),
    C("drop_default", "ALTER TABLE t ALTER COLUMN c DROP DEFAULT", A + "drop_default"),
    C("set_not_null", "ALTER TABLE t ALTER COLUMN c SET NOT NULL", A + "set_not_null"),
    C("set_not_null_partitioned", "ALTER TABLE pt ALTER COLUMN w SET NOT NULL", A + "set_not_null", part=True),
    C(
        "drop_not_null",
        "ALTER TABLE t ALTER COLUMN id DROP NOT NULL",
        A + "drop_not_null",
        "ALTER TABLE t DROP CONSTRAINT t_pkey",
    ),
    C("set_statistics", "ALTER TABLE t ALTER COLUMN c SET STATISTICS 500", A + "set_statistics"),
    C(
        "set_statistics_partitioned",
        "ALTER TABLE pt ALTER COLUMN w SET STATISTICS 500",
        A + "set_statistics",
        part=True,
    ),
    C("set_attribute_options", "ALTER TABLE t ALTER COLUMN c SET (n_distinct = 10)", A + "set_statistics"),
    C("set_storage", "ALTER TABLE t ALTER COLUMN b SET STORAGE EXTERNAL", A + "set_storage"),
    C("set_storage_partitioned", "ALTER TABLE pt ALTER COLUMN w SET STORAGE PLAIN", A + "set_storage", part=True),
    C("set_compression", "ALTER TABLE t ALTER COLUMN b SET COMPRESSION pglz", A + "set_compression", min_version=14),
    C(
        "add_identity",
        "ALTER TABLE t ALTER COLUMN p_id ADD GENERATED ALWAYS AS IDENTITY",
        A + "add_identity",
        "ALTER TABLE t ALTER COLUMN p_id SET NOT NULL",
    ),
    C("set_identity", "ALTER TABLE t ALTER COLUMN p_id SET GENERATED BY DEFAULT", A + "set_identity", *IDENT),
    C("drop_identity", "ALTER TABLE t ALTER COLUMN p_id DROP IDENTITY", A + "drop_identity", *IDENT),
    C(
        "drop_expression",
        "ALTER TABLE t ALTER COLUMN g DROP EXPRESSION",
        A + "drop_expression",
        "ALTER TABLE t ADD COLUMN g int GENERATED ALWAYS AS (c * 2) STORED",
        min_version=13,
    ),
    # constraints
    C("add_primary_key", "ALTER TABLE q ADD PRIMARY KEY (id)", A + "add_primary_key", "CREATE TABLE q (id int)"),
    C("add_primary_key_partitioned", "ALTER TABLE pt ADD PRIMARY KEY (k)", A + "add_primary_key", part=True),
    C(
        "add_primary_key_using_index",
        "ALTER TABLE q ADD CONSTRAINT q_pk PRIMARY KEY USING INDEX q_id",
        A + "add_primary_key",
        "CREATE TABLE q (id int NOT NULL)",
        "CREATE UNIQUE INDEX q_id ON q (id)",
    ),
    C("add_unique", "ALTER TABLE t ADD UNIQUE (c)", A + "add_unique"),
    C(
        "add_unique_using_index",
        "ALTER TABLE t ADD CONSTRAINT t_c_u UNIQUE USING INDEX t_c_u",
        A + "add_unique",
        "CREATE UNIQUE INDEX t_c_u ON t (c)",
    ),
    C("add_exclude", "ALTER TABLE t ADD CONSTRAINT ex EXCLUDE USING btree (c WITH =)", A + "add_exclude"),
    C("add_foreign_key", "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id)", A + "add_foreign_key"),
    C(
        "add_foreign_key_not_valid",
        "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id) NOT VALID",
        A + "add_foreign_key",
    ),
    C(
        "add_foreign_key_partitioned",
        "ALTER TABLE pt ADD CONSTRAINT fk FOREIGN KEY (w) REFERENCES p (id)",
        A + "add_foreign_key",
        part=True,
    ),
    C("add_check", "ALTER TABLE t ADD CONSTRAINT ck CHECK (c > 0)", A + "add_check"),
    C("add_check_not_valid", "ALTER TABLE t ADD CONSTRAINT ck CHECK (c > 0) NOT VALID", A + "add_check"),
    C("add_check_partitioned", "ALTER TABLE pt ADD CONSTRAINT ck CHECK (w > 0)", A + "add_check", part=True),
    C(
        "validate_check",
        "ALTER TABLE t VALIDATE CONSTRAINT ck",
        A + "validate_constraint",
        "ALTER TABLE t ADD CONSTRAINT ck CHECK (c > 0) NOT VALID",
    ),
    C(
        "validate_foreign_key",
        "ALTER TABLE t VALIDATE CONSTRAINT fk",
        A + "validate_constraint",
        "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id) NOT VALID",
    ),
    C(
        "validate_check_partitioned",
        "ALTER TABLE pt VALIDATE CONSTRAINT ck",
        A + "validate_constraint",
        "ALTER TABLE pt ADD CONSTRAINT ck CHECK (w > 0) NOT VALID",
        part=True,
    ),
    C(
        "drop_check",
        "ALTER TABLE t DROP CONSTRAINT ck",
        A + "drop_constraint",
        "ALTER TABLE t ADD CONSTRAINT ck CHECK (c > 0)",
    ),
    C("drop_foreign_key", "ALTER TABLE t DROP CONSTRAINT fk", A + "drop_constraint", *FK),
    # an unnamed key goes by the name the server gave it: its referenced table is locked too
    C(
        "drop_unnamed_foreign_key",
        "ALTER TABLE t DROP CONSTRAINT t_p_id_fkey",
        A + "drop_constraint",
        "ALTER TABLE t ADD FOREIGN KEY (p_id) REFERENCES p (id)",
    ),
    C(
        "drop_check_partitioned",
        "ALTER TABLE pt DROP CONSTRAINT ck",
        A + "drop_constraint",
        "ALTER TABLE pt ADD CONSTRAINT ck CHECK (w > 0)",
        part=True,
    ),
    C("alter_constraint", "ALTER TABLE t ALTER CONSTRAINT fk DEFERRABLE", A + "alter_constraint", *FK),
    C(
        "rename_constraint",
        "ALTER TABLE t RENAME CONSTRAINT ck TO ck2",
        A + "rename_constraint",
        "ALTER TABLE t ADD CONSTRAINT ck CHECK (c > 0)",
    ),
    # table-level forms
    C("rename_table", "ALTER TABLE t RENAME TO t2", A + "rename_table"),
    C("rename_table_partitioned", "ALTER TABLE pt RENAME TO ptx", A + "rename_table", part=True),
    C("rename_column", "ALTER TABLE t RENAME COLUMN c TO c2", A + "rename_column"),
    C("rename_column_partitioned", "ALTER TABLE pt RENAME COLUMN w TO w2", A + "rename_column", part=True),
    C("set_schema", "ALTER TABLE t SET SCHEMA s2", A + "set_schema", "CREATE SCHEMA s2"),
    C("set_tablespace", f"ALTER TABLE t SET TABLESPACE {TABLESPACE}", A + "set_tablespace"),
    C("set_tablespace_partitioned", f"ALTER TABLE pt SET TABLESPACE {TABLESPACE}", A + "set_tablespace", part=True),
    C("set_unlogged", "ALTER TABLE t SET UNLOGGED", A + "set_unlogged"),
    C("set_logged", "ALTER TABLE u SET LOGGED", A + "set_logged", "CREATE UNLOGGED TABLE u (id int)"),
    C("set_access_method", f"ALTER TABLE t SET ACCESS METHOD {ACCESS_METHOD}", A + "set_access_method", min_version=15),
    C("set_fillfactor", "ALTER TABLE t SET (fillfactor = 70)", A + "set_storage_params"),
    C(
        "set_autovacuum",
        "ALTER TABLE t SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)",
        A + "set_storage_params",
    ),
    C("set_parallel_workers", "ALTER TABLE t SET (parallel_workers = 2)", A + "set_storage_params"),
    C("set_user_catalog_table", "ALTER TABLE t SET (user_catalog_table = true)", A + "set_storage_params"),
    C("set_mixed_params", "ALTER TABLE t SET (fillfactor = 70, user_catalog_table = true)", A + "set_storage_params"),
    C("reset_fillfactor", "ALTER TABLE t RESET (fillfactor)", A + "reset_storage_params"),
    C("cluster_on", "ALTER TABLE t CLUSTER ON t_c", A + "cluster_on"),
    C(
        "set_without_cluster",
        "ALTER TABLE t SET WITHOUT CLUSTER",
        A + "set_without_cluster",
        "ALTER TABLE t CLUSTER ON t_c",
    ),
    C(
        "enable_trigger",
        "ALTER TABLE t ENABLE TRIGGER tr",
        A + "enable_trigger",
        *TRIGGER_FN,
        "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION trf()",
    ),
    C("disable_trigger", "ALTER TABLE t DISABLE TRIGGER ALL", A + "disable_trigger"),
    C(
        "disable_trigger_partitioned",
        "ALTER TABLE pt DISABLE TRIGGER tr",
        A + "disable_trigger",
        *TRIGGER_FN,
        "CREATE TRIGGER tr AFTER INSERT ON pt FOR EACH ROW EXECUTE FUNCTION trf()",
        part=True,
    ),
    C(
        "enable_rule",
        "ALTER TABLE t ENABLE RULE r",
        A + "enable_rule",
        "CREATE RULE r AS ON INSERT TO t DO ALSO NOTHING",
    ),
    C(
        "disable_rule",
        "ALTER TABLE t DISABLE RULE r",
        A + "disable_rule",
        "CREATE RULE r AS ON INSERT TO t DO ALSO NOTHING",
    ),
    C("enable_rls", "ALTER TABLE t ENABLE ROW LEVEL SECURITY", A + "enable_rls"),
    C("disable_rls", "ALTER TABLE t DISABLE ROW LEVEL SECURITY", A + "disable_rls"),
    C("force_rls", "ALTER TABLE t FORCE ROW LEVEL SECURITY", A + "force_rls"),
    C("no_force_rls", "ALTER TABLE t NO FORCE ROW LEVEL SECURITY", A + "no_force_rls"),
    C("enable_rls_partitioned", "ALTER TABLE pt ENABLE ROW LEVEL SECURITY", A + "enable_rls", part=True),
    C("replica_identity_full", "ALTER TABLE t REPLICA IDENTITY FULL", A + "replica_identity"),
    C("replica_identity_index", "ALTER TABLE t REPLICA IDENTITY USING INDEX t_pkey", A + "replica_identity"),
    C("owner_to", f"ALTER TABLE t OWNER TO {OWNER}", A + "owner_to"),
    C("inherit", "ALTER TABLE q INHERIT p", A + "inherit", "CREATE TABLE q (id int NOT NULL, v int)"),
    C("no_inherit", "ALTER TABLE q NO INHERIT p", A + "no_inherit", "CREATE TABLE q (x int) INHERITS (p)"),
    C(
        "of_type",
        "ALTER TABLE q OF ty",
        A + "of_type",
        "CREATE TYPE ty AS (id int, v int)",
        "CREATE TABLE q (id int, v int)",
    ),
    C("not_of", "ALTER TABLE q NOT OF", A + "not_of", "CREATE TYPE ty AS (id int, v int)", "CREATE TABLE q OF ty"),
    # partitions
    C(
        "attach_partition",
        "ALTER TABLE pt ATTACH PARTITION x FOR VALUES FROM (30) TO (40)",
        A + "attach_partition",
        "CREATE TABLE x (k int, v int, w int)",
        part=True,
    ),
    C(
        "attach_partition_default",
        "ALTER TABLE pt ATTACH PARTITION x FOR VALUES FROM (30) TO (40)",
        A + "attach_partition",
        *DEFAULT_PART,
        "CREATE TABLE x (k int, v int, w int)",
        part=True,
    ),
    C(
        "attach_partitioned",
        "ALTER TABLE pt ATTACH PARTITION x FOR VALUES FROM (30) TO (40)",
        A + "attach_partition",
        "CREATE TABLE x (k int, v int, w int) PARTITION BY RANGE (k)",
        "CREATE TABLE xa PARTITION OF x FOR VALUES FROM (30) TO (35)",
        part=True,
    ),
    C("detach_partition", "ALTER TABLE pt DETACH PARTITION pt1", A + "detach_partition", part=True),
    C(
        "detach_partition_default",
        "ALTER TABLE pt DETACH PARTITION pt1",
        A + "detach_partition",
        *DEFAULT_PART,
        part=True,
    ),
    C("detach_partitioned", "ALTER TABLE pt DETACH PARTITION pt2", A + "detach_partition", part=True),
    C(
        "detach_concurrently",
        "ALTER TABLE pt DETACH PARTITION pt2 CONCURRENTLY",
        A + "detach_partition_concurrently",
        part=True,
        min_version=14,
    ),
    # CREATE TABLE forms
    C("create_table", "CREATE TABLE q (id int)", "create_table"),
    C("create_table_references", "CREATE TABLE q (id int, p_id int REFERENCES p (id))", "create_table"),
    C("create_table_like", "CREATE TABLE q (LIKE t INCLUDING ALL)", "create_table_like"),
    C("create_table_as", "CREATE TABLE q AS SELECT t.id FROM t JOIN p ON p.id = t.p_id", "create_table_as"),
    C(
        "create_partition",
        "CREATE TABLE pt3 PARTITION OF pt FOR VALUES FROM (20) TO (30)",
        "create_partition",
        part=True,
    ),
    C(
        "create_partition_default",
        "CREATE TABLE pt3 PARTITION OF pt FOR VALUES FROM (20) TO (30)",
        "create_partition",
        *DEFAULT_PART,
        part=True,
    ),
    C("create_view", "CREATE VIEW vw AS SELECT t.id, p.v FROM t JOIN p ON p.id = t.p_id", "create_view"),
    C("create_matview", "CREATE MATERIALIZED VIEW mv2 AS SELECT id FROM t", "create_matview"),
    C("drop_view", "DROP VIEW vw", "drop_view", "CREATE VIEW vw AS SELECT id FROM t"),
    # indexes
    C("create_index", "CREATE INDEX t_a ON t (a)", "create_index"),
    C("create_unique_index", "CREATE UNIQUE INDEX t_a ON t (a)", "create_index"),
    C("create_index_partitioned", "CREATE INDEX pt_v ON pt (v)", "create_index", part=True),
    C("create_index_only", "CREATE INDEX pt_v ON ONLY pt (v)", "create_index", part=True),
    C("create_index_concurrently", "CREATE INDEX CONCURRENTLY t_a ON t (a)", "create_index.concurrently"),
    C("drop_index", "DROP INDEX t_c", "drop_index"),
    C("drop_index_partitioned", "DROP INDEX pt_v", "drop_index", "CREATE INDEX pt_v ON pt (v)", part=True),
    C("drop_index_concurrently", "DROP INDEX CONCURRENTLY t_c", "drop_index.concurrently"),
    C("alter_index_rename", "ALTER INDEX t_c RENAME TO t_c2", "alter_index.rename"),
    C("alter_index_tablespace", f"ALTER INDEX t_c SET TABLESPACE {TABLESPACE}", "alter_index.set_tablespace"),
    C("alter_index_set", "ALTER INDEX t_c SET (fillfactor = 50)", "alter_index.set_storage_params"),
    C(
        "alter_index_statistics",
        "ALTER INDEX te ALTER COLUMN 1 SET STATISTICS 100",
        "alter_index.set_statistics",
        "CREATE INDEX te ON t ((c + 1))",
    ),
    C(
        "alter_index_attach",
        "ALTER INDEX pti ATTACH PARTITION pt1i",
        "alter_index.attach_partition",
        "CREATE INDEX pti ON ONLY pt (v)",
        "CREATE INDEX pt1i ON pt1 (v)",
        part=True,
    ),
    C("reindex_index", "REINDEX INDEX t_c", "reindex"),
    C("reindex_table", "REINDEX TABLE t", "reindex"),
    C("reindex_partitioned", "REINDEX TABLE pt", "reindex", part=True, min_version=14),
    C("reindex_index_concurrently", "REINDEX INDEX CONCURRENTLY t_c", "reindex.concurrently"),
    C("reindex_table_concurrently", "REINDEX TABLE CONCURRENTLY t", "reindex.concurrently"),
    C(
        "reindex_partitioned_concurrently",
        "REINDEX TABLE CONCURRENTLY pt",
        "reindex.concurrently",
        part=True,
        min_version=14,
    ),
    # whole-table statements
    C("drop_table", "DROP TABLE t", "drop_table"),
    C("drop_table_with_fk", "DROP TABLE t", "drop_table", *FK),
    C("drop_table_partitioned", "DROP TABLE pt", "drop_table", part=True),
    C("drop_partition", "DROP TABLE pt1", "drop_table", part=True),
    C("drop_table_cascade", "DROP TABLE p CASCADE", "drop_table", *FK),
    C("truncate", "TRUNCATE t", "truncate"),
    C("truncate_partitioned", "TRUNCATE pt", "truncate", part=True),
    C("truncate_cascade", "TRUNCATE p CASCADE", "truncate", *FK),
    C("vacuum", "VACUUM t", "vacuum"),
    C("vacuum_analyze", "VACUUM (ANALYZE) t", "vacuum"),
    C("vacuum_partitioned", "VACUUM pt", "vacuum", part=True),
    C("vacuum_full", "VACUUM FULL t", "vacuum.full"),
    C("vacuum_full_partitioned", "VACUUM FULL pt", "vacuum.full", part=True),
    C("truncate_partition", "TRUNCATE pt1", "truncate", part=True),
    C("create_index_partition", "CREATE INDEX pt1_v ON pt1 (v)", "create_index", part=True),
    C("analyze", "ANALYZE t", "analyze"),
    C("analyze_partitioned", "ANALYZE pt", "analyze", part=True),
    C("cluster", "CLUSTER t USING t_c", "cluster"),
    C("cluster_marked", "CLUSTER t", "cluster", "ALTER TABLE t CLUSTER ON t_c"),
    C("refresh_matview", "REFRESH MATERIALIZED VIEW mv", "refresh_matview", *MATVIEW),
    C(
        "refresh_matview_concurrently",
        "REFRESH MATERIALIZED VIEW CONCURRENTLY mv",
        "refresh_matview.concurrently",
        *MATVIEW,
    ),
    C("lock_default", "LOCK TABLE t", "lock_table.access_exclusive"),
    C("lock_partitioned", "LOCK TABLE pt IN SHARE MODE", "lock_table.share", part=True),
    C("lock_only_partitioned", "LOCK TABLE ONLY pt IN SHARE MODE", "lock_table.share", part=True),
    *[
        C(
            f"lock_{m.lower().replace(' ', '_')}",
            f"LOCK TABLE t, p IN {m} MODE",
            "lock_table." + m.lower().replace(" ", "_"),
        )
        for m in SPELLINGS
    ],
    # triggers, rules, policies, statistics, comments
    C(
        "create_trigger",
        "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION trf()",
        "create_trigger",
        *TRIGGER_FN,
    ),
    C(
        "create_trigger_partitioned",
        "CREATE TRIGGER tr AFTER INSERT ON pt FOR EACH ROW EXECUTE FUNCTION trf()",
        "create_trigger",
        *TRIGGER_FN,
        part=True,
    ),
    C(
        "drop_trigger",
        "DROP TRIGGER tr ON t",
        "drop_trigger",
        *TRIGGER_FN,
        "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION trf()",
    ),
    C(
        "drop_trigger_partitioned",
        "DROP TRIGGER tr ON pt",
        "drop_trigger",
        *TRIGGER_FN,
        "CREATE TRIGGER tr AFTER INSERT ON pt FOR EACH ROW EXECUTE FUNCTION trf()",
        part=True,
    ),
    C("create_rule", "CREATE RULE r AS ON INSERT TO t DO ALSO NOTHING", "create_rule"),
    C("drop_rule", "DROP RULE r ON t", "drop_rule", "CREATE RULE r AS ON INSERT TO t DO ALSO NOTHING"),
    C("create_policy", "CREATE POLICY pol ON t USING (true)", "create_policy"),
    C("create_statistics", "CREATE STATISTICS st ON c, p_id FROM t", "create_statistics"),
    C("comment_table", "COMMENT ON TABLE t IS 'x'", "comment"),
    C("comment_column", "COMMENT ON COLUMN t.c IS 'x'", "comment"),
    C("comment_view", "COMMENT ON VIEW vw IS 'x'", "comment", *VIEW),
    # forms added or changed by later majors
    C(
        "set_expression",
        "ALTER TABLE t ALTER COLUMN g SET EXPRESSION AS (c * 3)",
        A + "set_expression",
        *STORED,
        min_version=17,
    ),
    C(
        "add_column_virtual",
        "ALTER TABLE t ADD COLUMN x int GENERATED ALWAYS AS (c * 2) VIRTUAL",
        A + "add_column.virtual",
        min_version=18,
    ),
    C(
        "add_column_virtual_not_null",
        "ALTER TABLE t ADD COLUMN x int GENERATED ALWAYS AS (c * 2) VIRTUAL NOT NULL",
        A + "add_column.virtual",
        min_version=18,
    ),
    C(
        "set_expression_virtual",
        "ALTER TABLE t ALTER COLUMN v2 SET EXPRESSION AS (c * 3)",
        A + "set_expression.virtual",
        "ALTER TABLE t ADD COLUMN v2 int GENERATED ALWAYS AS (c * 2) VIRTUAL",
        min_version=18,
    ),
    C(
        "add_identity_partitioned",
        "ALTER TABLE pt ALTER COLUMN v ADD GENERATED BY DEFAULT AS IDENTITY",
        A + "add_identity.partitioned",
        "ALTER TABLE pt ALTER COLUMN v SET NOT NULL",
        part=True,
    ),
    C("add_unique_partitioned", "ALTER TABLE pt ADD UNIQUE (k)", A + "add_unique.partitioned", part=True),
    C(
        "add_exclude_partitioned",
        "ALTER TABLE pt ADD CONSTRAINT ex EXCLUDE USING btree (k WITH =)",
        A + "add_exclude.partitioned",
        part=True,
        min_version=17,
    ),
    C(
        "add_foreign_key_not_valid_partitioned",
        "ALTER TABLE pt ADD CONSTRAINT fk FOREIGN KEY (w) REFERENCES p (id) NOT VALID",
        A + "add_foreign_key.not_valid_partitioned",
        part=True,
        min_version=18,
    ),
    C(
        "add_foreign_key_not_enforced",
        "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id) NOT ENFORCED",
        A + "add_foreign_key.not_enforced",
        min_version=18,
    ),
    C(
        "add_check_not_enforced",
        "ALTER TABLE t ADD CONSTRAINT ck CHECK (c > 0) NOT ENFORCED",
        A + "add_check.not_enforced",
        min_version=18,
    ),
    C("add_not_null", "ALTER TABLE t ADD CONSTRAINT c_nn NOT NULL c", A + "add_not_null", min_version=18),
    C(
        "add_not_null_not_valid",
        "ALTER TABLE t ADD CONSTRAINT c_nn NOT NULL c NOT VALID",
        A + "add_not_null",
        min_version=18,
    ),
    C(
        "validate_not_null",
        "ALTER TABLE t VALIDATE CONSTRAINT c_nn",
        A + "validate_constraint",
        "ALTER TABLE t ADD CONSTRAINT c_nn NOT NULL c NOT VALID",
        min_version=18,
    ),
    C(
        "alter_constraint_enforced",
        "ALTER TABLE t ALTER CONSTRAINT fk ENFORCED",
        A + "alter_constraint.enforced",
        "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id) NOT ENFORCED",
        min_version=18,
    ),
    C(
        "alter_constraint_not_enforced",
        "ALTER TABLE t ALTER CONSTRAINT fk NOT ENFORCED",
        A + "alter_constraint.not_enforced",
        *FK,
        min_version=18,
    ),
    C(
        "set_access_method_partitioned",
        "ALTER TABLE pt SET ACCESS METHOD heap",
        A + "set_access_method.partitioned",
        part=True,
        min_version=17,
    ),
    C(
        "set_unlogged_partitioned",
        "ALTER TABLE pt SET UNLOGGED",
        A + "set_unlogged.partitioned",
        part=True,
        max_version=17,
    ),
    C("drop_partition_default", "DROP TABLE pt1", "drop_table", *DEFAULT_PART, part=True),
    # views, sequences, policies, publications
    C("create_or_replace_view", "CREATE OR REPLACE VIEW vw AS SELECT id, c, b FROM t", "create_view", *VIEW),
    C("alter_view_rename", "ALTER VIEW vw RENAME TO vw2", "alter_view", *VIEW),
    C("alter_matview_set", "ALTER MATERIALIZED VIEW mv SET (fillfactor = 50)", "alter_view", *MATVIEW),
    C("drop_matview", "DROP MATERIALIZED VIEW mv", "drop_view", *MATVIEW),
    C("grant_table", "GRANT SELECT ON t TO PUBLIC", "grant"),
    C("revoke_view", "REVOKE SELECT ON vw, t FROM PUBLIC", "grant", *VIEW),
    # IF NOT EXISTS of an object that exists: skipped, but what is locked before the check stays locked
    C("create_index_exists", "CREATE INDEX IF NOT EXISTS t_c ON t (a)", "create_index.exists"),
    C("create_index_exists_as_table", "CREATE INDEX IF NOT EXISTS p ON t (a)", "create_index.exists"),
    C("add_column_exists", "ALTER TABLE t ADD COLUMN IF NOT EXISTS c int DEFAULT random()", A + "add_column.exists"),
    C(
        "add_column_exists_partitioned",
        "ALTER TABLE pt ADD COLUMN IF NOT EXISTS v int DEFAULT random()",
        A + "add_column.exists",
        part=True,
    ),
    C("create_table_exists", "CREATE TABLE IF NOT EXISTS t (id int REFERENCES p (id))", "create_table.exists"),
    C("create_table_as_exists", "CREATE TABLE IF NOT EXISTS t AS SELECT * FROM p", "create_table_as.exists"),
    C(
        "create_matview_exists",
        "CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT id FROM p",
        "create_matview.exists",
        *MATVIEW,
    ),
    C("alter_policy", "ALTER POLICY pol ON t USING (false)", "alter_policy", "CREATE POLICY pol ON t USING (true)"),
    C("drop_policy", "DROP POLICY pol ON t", "drop_policy", "CREATE POLICY pol ON t USING (true)"),
    C("create_sequence_owned", "CREATE SEQUENCE s2 OWNED BY t.c", "create_sequence"),
    C("alter_sequence", "ALTER SEQUENCE s RESTART", "alter_sequence", "CREATE SEQUENCE s"),
    C("drop_sequence", "DROP SEQUENCE s", "drop_sequence", "CREATE SEQUENCE s"),
    C("alter_sequence_owned", "ALTER SEQUENCE s OWNED BY t.c", "alter_sequence", "CREATE SEQUENCE s"),
    C("create_publication", "CREATE PUBLICATION schemacite_pub FOR TABLE t", "publication"),
    # data statements a migration runs
    C("insert", "INSERT INTO t (id, p_id, c) VALUES (2, 1, 2)", "insert", *FK),
    C("insert_select", "INSERT INTO q SELECT id FROM t", "insert", "CREATE TABLE q (id int)"),
    C("update_backfill", "UPDATE t SET c = 2", "update"),
    C("update_where", "UPDATE t SET c = 2 WHERE id = 1", "update", *INDEXED),
    C("update_fk", "UPDATE t SET p_id = 2 WHERE id = 1", "update", *FK, "INSERT INTO p VALUES (2, 2)", *INDEXED),
    C(
        "update_referenced_key",
        "UPDATE p SET id = 3 WHERE id = 2",
        "update",
        *FK,
        "INSERT INTO p VALUES (2, 2)",
        *INDEXED,
    ),
    C("update_from", "UPDATE t SET c = p.v FROM p WHERE p.id = t.p_id AND t.id = 1", "update", *INDEXED),
    C("delete_referenced", "DELETE FROM p WHERE id = 2", "delete", *FK, "INSERT INTO p VALUES (2, 2)", *INDEXED),
    C("delete_all", "DELETE FROM t", "delete"),
    C("merge", "MERGE INTO t USING p ON t.id = p.id WHEN MATCHED THEN UPDATE SET c = p.v", "merge", min_version=15),
    C("select", "SELECT count(*) FROM t", "select"),
    C("select_for_update", "SELECT * FROM t WHERE id = 1 FOR UPDATE", "select.for_update", *INDEXED),
    C("select_for_share_of", "SELECT * FROM t JOIN p ON p.id = t.p_id FOR SHARE OF t", "select.for_update"),
]

RESULTS: dict[int, dict[str, list[str]]] = {}  # major -> case -> disagreements
PARSER_ISSUES: set[str] = set()


# ---------------------------------------------------------------- fixtures


MAJORS = sorted(postgres_table.MEASURED_ON)


@pytest.fixture(scope="module")
def lock_db(pg_majors):
    """lock_db(major) -> a database on the throwaway server of that major (conftest's
    `pg_majors`), set up on first use with what some cases need: an access method, a role, a
    tablespace (a directory owned by the server's OS user). Everything is dropped at the end."""
    with contextlib.ExitStack() as stack:
        ready: dict[int, types.SimpleNamespace] = {}

        def db(major: int) -> types.SimpleNamespace:
            if major not in ready:
                ready[major] = stack.enter_context(_lock_database(pg_majors(major), major))
            return ready[major]

        yield db


@contextlib.contextmanager
def _lock_database(srv, major: int):
    srv.create_database("schemacite_locks")
    conn = srv.connect("schemacite_locks")
    version = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
    assert version == major
    conn.execute(f"CREATE ACCESS METHOD {ACCESS_METHOD} TYPE TABLE HANDLER heap_tableam_handler")
    conn.execute(f"DROP ROLE IF EXISTS {OWNER}")
    conn.execute(f"CREATE ROLE {OWNER}")
    postgres_user = pwd.getpwnam("postgres")
    tsdir = tempfile.mkdtemp(prefix="schemacite-ts-")
    try:
        os.chown(tsdir, postgres_user.pw_uid, postgres_user.pw_gid)
        conn.execute(f"CREATE TABLESPACE {TABLESPACE} LOCATION '{tsdir}'")
        yield types.SimpleNamespace(conn=conn, version=version)
    finally:
        conn.execute("DROP SCHEMA IF EXISTS s2 CASCADE")
        conn.execute(f"DROP ACCESS METHOD IF EXISTS {ACCESS_METHOD} CASCADE")
        conn.execute(f"DROP TABLESPACE IF EXISTS {TABLESPACE}")
        conn.execute(f"DROP OWNED BY {OWNER}")
        conn.execute(f"DROP ROLE IF EXISTS {OWNER}")
        conn.close()
        shutil.rmtree(tsdir, ignore_errors=True)


# ---------------------------------------------------------------- helpers


def schema_from(setup: list[str]) -> Schema:
    """The schema the setup leaves, through parse + replay; statements the parser cannot read are
    skipped (and listed with the agreement figure)."""
    schema = Schema(dialect="postgres")
    parsed = parse_text(";\n".join(setup) + ";\n", "setup.sql", "postgres")
    for err in parsed.errors:
        PARSER_ISSUES.add(f"setup: {setup[err.line - 1] if 0 < err.line <= len(setup) else ''}: {err.message}")
    for stmt in parsed.statements:
        replay.apply(schema, stmt, new=False)
    return schema


def statement_from(sql: str, setup: list[str] = ()):
    """The statement as the reader reads it, with what the setup's SET statements left in the session."""
    parsed = parse_text(sql + ";\n", "case.sql", "postgres")
    assert not parsed.errors, [str(e) for e in parsed.errors]
    assert len(parsed.statements) == 1
    session = replay.Session()
    for stmt in parse_text(";\n".join(setup) + ";\n", "setup.sql", "postgres").statements if setup else ():
        session.see(stmt)
    session.see(parsed.statements[0])
    return parsed.statements[0]


# ---------------------------------------------------------------- tests


def test_every_row_is_exercised():
    """Every row has a case on each major of MEASURED_ON it holds for, or says why it cannot."""
    missing = []
    for key, rows in postgres_table.ROWS.items():
        for row in rows:
            majors = [m for m in MAJORS if row.holds_on((m,))]
            for major in majors:
                if row.unmeasured:
                    continue
                if not any(c.key == key and c.min_version <= major <= c.max_version for c in CASES):
                    missing.append(f"{key} on {major}")
    assert not missing, f"lock-table rows without a server case: {missing}"


def test_roles_have_one_resolver_each():
    assert set(postgres.ROLES) == set(postgres_table.ROLES)


def test_rows_are_well_formed():
    for key, rows in postgres_table.ROWS.items():
        assert rows, key
        for row in rows:
            assert row.source, f"{key}: no source"
            assert row.mode is None or row.mode in MODES, key
            for other in row.others:
                assert other.role in postgres_table.ROLES and other.mode in MODES, key
            assert (12,) <= row.since and (row.until is None or row.until >= row.since), key


@pytest.mark.parametrize(
    "old,new,rewrites",
    [
        ("varchar(10)", "varchar(20)", False),
        ("character varying(10)", "text", False),
        ("varchar(10)", "varchar(5)", True),
        ("text", "varchar", False),
        ("text", "varchar(50)", True),
        ("numeric(8,2)", "numeric(10,2)", False),
        ("numeric(8,2)", "numeric(10,3)", True),
        ("numeric(8,2)", "numeric", False),
        ("numeric", "numeric(8,2)", True),
        ("int", "bigint", True),
        ("integer", "int4", False),
        ("timestamp", "timestamptz", True),
        ("timestamp(3)", "timestamp(6)", False),
        ("timestamp", "timestamp(3)", True),
        ("char(3)", "char(5)", True),
        ("cidr", "inet", False),
        ("varbit(4)", "varbit(8)", False),
        ("json", "jsonb", True),
    ],
)
def test_binary_coercible_rules(old, new, rewrites):
    """As the catalog prints the old type and as SQL writes the new one."""
    from schemacite.sources.postgres.types import parse_type

    new_type = statement_from(f"ALTER TABLE t ALTER COLUMN c TYPE {new}").actions[0]
    assert postgres.type_change_rewrites(parse_type(old), (new_type.base_type, new_type.type_args))[0] is rewrites


def _alter(clause: str, table: str = "t"):
    return statement_from(f"ALTER TABLE {table} {clause}")


def test_version_ranges():
    schema = Schema(dialect="postgres")
    for version, clause, available in [
        (13, "DETACH PARTITION p1 CONCURRENTLY", False),
        (14, "DETACH PARTITION p1 CONCURRENTLY", True),
        (14, "SET ACCESS METHOD heap", False),
        (15, "SET ACCESS METHOD heap", True),
        (12, "ALTER COLUMN g DROP EXPRESSION", False),
        (13, "ALTER COLUMN g DROP EXPRESSION", True),
        (16, "ALTER COLUMN g SET EXPRESSION AS (1)", False),
        (17, "ALTER COLUMN g SET EXPRESSION AS (1)", True),
        (13, "ALTER COLUMN c SET COMPRESSION pglz", False),
        (14, "ALTER COLUMN c SET COMPRESSION pglz", True),
    ]:
        (impact,) = postgres.impacts(_alter(clause), schema, version)
        assert bool(impact.locks) is available, (version, clause, impact)
        if not available:
            assert "not available" in impact.note
    (impact,) = postgres.impacts(_alter("ALTER COLUMN g SET EXPRESSION AS (1)"), schema, 170002)
    assert impact.rewrite and impact.blocks == "reads+writes"


def test_blocks_follow_the_mode():
    schema = Schema(dialect="postgres")
    cases = {
        "ADD FOREIGN KEY (c) REFERENCES p (id)": "writes",
        "VALIDATE CONSTRAINT ck": "nothing",
        "ALTER COLUMN c SET STATISTICS 100": "nothing",
        "ENABLE TRIGGER tr": "writes",
        "DROP COLUMN c": "reads+writes",
        "ATTACH PARTITION x FOR VALUES IN (1)": "reads+writes",
    }
    for clause, blocks in cases.items():
        (impact,) = postgres.impacts(_alter(clause), schema, 15)
        assert impact.blocks == blocks, (clause, impact)


# every case on every major its statement exists on
PAIRS = [(c, m) for m in MAJORS for c in CASES if c.min_version <= m <= c.max_version]


@pytest.mark.parametrize(("case", "major"), PAIRS, ids=[f"pg{m}-{c.id}" for c, m in PAIRS])
def test_prediction_matches_server(case: Case, major: int, lock_db):
    server = lock_db(major)
    server.conn.execute("SET TimeZone = 'UTC'")
    setup = case.full_setup()
    schema = schema_from(setup)
    stmt = statement_from(case.sql, setup)
    predicted = postgres.impacts(stmt, schema, server.version)
    keys = [i.operation for i in predicted]
    try:
        measured = measure(server.conn, setup, case.sql)
    finally:
        server.conn.execute("SET TimeZone = 'UTC'")
        server.conn.execute("RESET enable_seqscan")
    problems = [] if case.key in keys else [f"operation {keys}, expected {case.key}"]
    problems += compare(predicted, measured)
    RESULTS.setdefault(server.version, {})[case.id] = problems
    assert not problems, (
        f"{case.sql}\n  predicted: {[(i.operation, [(lk.relation, lk.mode) for lk in i.locks], i.rewrite) for i in predicted]}"
        f"\n  measured ({measured.method}): {measured.locks} rewritten={sorted(measured.rewritten)}"
        f"\n  " + "\n  ".join(problems)
    )


@pytest.mark.parametrize("major", MAJORS, ids=[f"pg{m}" for m in MAJORS])
def test_agreement_figure(major: int):
    """Prints statements checked / agreed on this major (run after the cases); with
    SCHEMACITE_LOCKS_SUMMARY=FILE, adds them to that JSON file too."""
    results = RESULTS.get(major, {})
    checked = len(results)
    agreed = sum(1 for p in results.values() if not p)
    print(
        f"\nPostgreSQL {major} lock table: {checked} statements checked, {agreed} agreed "
        "(locks on every relation, rewrite, and scan where the transaction method sees it)"
    )
    for cid, problems in results.items():
        if problems:
            print(f"  {cid}: {'; '.join(problems)}")
    for issue in sorted(PARSER_ISSUES):
        print(f"  parser: {issue}")
    out = os.environ.get("SCHEMACITE_LOCKS_SUMMARY")
    if out:
        path = Path(out)
        summary = json.loads(path.read_text()) if path.exists() else {}
        summary[str(major)] = {
            "checked": checked,
            "agreed": agreed,
            "disagreements": {k: v for k, v in results.items() if v},
        }
        path.write_text(json.dumps(summary, indent=1))
    assert checked == sum(1 for _c, m in PAIRS if m == major) and agreed == checked


@pytest.mark.parametrize("major", MAJORS, ids=[f"pg{m}" for m in MAJORS])
def test_volatile_functions_are_read_from_every_major(major, pg_majors):
    """The list that decides whether a DEFAULT rewrites (locks/postgres_functions.json) holds every
    volatile function of each major, as its pg_proc says (regenerate: python -m
    schemacite.live.functions DSN...)."""
    from schemacite.live.functions import read_server
    from schemacite.locks import functions

    version, volatile, every = read_server(pg_majors(major).dsn())
    data = functions._data()
    assert any(v.split()[0].startswith(f"{major}.") for v in data["read_from"]), version
    assert volatile <= set(data["volatile"]), sorted(volatile - set(data["volatile"]))
    # a name in neither list is the user's own, whose volatility only the history can tell
    assert every - volatile <= set(data["volatile"]) | set(data["not_volatile"])
    assert functions.built_in("to_timestamp") and not functions.built_in("myjsonb")
    assert {"now", "statement_timestamp", "transaction_timestamp"} <= every - volatile  # stable: no rewrite
    assert functions.volatile("gen_random_uuid") and not functions.volatile("statement_timestamp")


# an access method and a column type it indexes with its default operator class
ACCESS_METHODS = {"btree": "int", "hash": "int", "gin": "jsonb", "brin": "int", "gist": "int4range", "spgist": "text"}
# (index, whether PostgreSQL can find `v IS NULL` rows with it)
NULL_LOOKUPS = [
    *[(f"USING {am} (v)", am in SEARCHES_NULLS) for am in ACCESS_METHODS],
    ("(v) WHERE id > 0", False),  # a partial index whose predicate may leave the rows out
    ("(v) WHERE v IS NULL", True),
    ("((v + 1))", False),  # an expression index on the column
]


@pytest.mark.parametrize("major", [12, 18], ids=["pg12", "pg18"])
def test_an_index_finds_is_null_rows_only_where_the_server_uses_it(major, pg_majors, tmp_path):
    """A backfill `WHERE v IS NULL` reads every row unless an index can find NULLs: EXPLAIN with
    sequential scans off still shows a Seq Scan for those that cannot, and only those make the
    UPDATE long work (the lock taken before it is held through it)."""
    from schemacite import lint_paths

    server = pg_majors(major)
    for n, (index, found) in enumerate(NULL_LOOKUPS):
        am = index.split()[1] if index.startswith("USING") else "btree"
        setup = f"CREATE TABLE nulls_{n} (id int PRIMARY KEY, v {ACCESS_METHODS[am]}, w int);\n"
        setup += f"CREATE INDEX nulls_{n}_v ON nulls_{n} {index};\n"
        backfill = f"UPDATE nulls_{n} SET w = 1 WHERE v IS NULL"
        with server.connect() as conn:
            conn.execute(f"DROP TABLE IF EXISTS nulls_{n}")
            conn.execute(setup.encode())
            conn.execute("SET enable_seqscan = off")
            plan = "\n".join(row[0] for row in conn.execute(f"EXPLAIN {backfill}".encode()))
        assert ("Seq Scan" not in plan) == found, (index, plan)
        (tmp_path / "001_init.sql").write_text(setup)
        (tmp_path / "002_backfill.sql").write_text(
            f"BEGIN;\nALTER TABLE nulls_{n} ADD COLUMN x int;\n{backfill};\nCOMMIT;\n"
        )
        result = lint_paths([str(tmp_path / "002_backfill.sql")], history=[str(tmp_path / "001_init.sql")])
        held = [f for f in result.findings if f.code == "SC109"]
        assert bool(held) != found, (index, result.findings)
