"""The fails-on-rows rules against the servers themselves: each statement a rule flags is run over
rows that do not fit, and the server must refuse it with the error the finding names (or, for a
filled column, store the value the finding names); the same statement over no rows is not flagged
where a snapshot says the table is empty."""

from __future__ import annotations

import json
import re

import pytest

from schemacite import lint_paths
from schemacite.model.record import record


@record(frozen=True)
class Case:
    rule: str  # the code that must flag `statement`
    scene: str  # the tables, as history (statements split on ";\n")
    rows: str  # rows that do not fit (run on the server only)
    statement: str
    error: str | int  # PostgreSQL SQLSTATE, or MariaDB error number
    after: str = ""  # history that runs after the rows (a NOT VALID constraint refuses them after it)


PG = {
    "add_not_null_column": Case("SC111", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
                                "ALTER TABLE t ADD COLUMN c int NOT NULL", "23502"),
    "add_primary_key_column": Case("SC111", "CREATE TABLE t (id int)", "INSERT INTO t VALUES (1)",
                                   "ALTER TABLE t ADD COLUMN c int PRIMARY KEY", "23502"),
    "set_not_null": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, n int)", "INSERT INTO t VALUES (1, NULL)",
                         "ALTER TABLE t ALTER COLUMN n SET NOT NULL", "23502"),
    "add_unique": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, s text)", "INSERT INTO t VALUES (1, 'a'), (2, 'a')",
                       "ALTER TABLE t ADD UNIQUE (s)", "23505"),
    # an UPDATE of every row that sets NULL is no backfill
    "set_not_null_after_setting_null": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, n int)",
                                            "INSERT INTO t VALUES (1, 5)", "ALTER TABLE t ALTER COLUMN n SET NOT NULL",
                                            "23502", "UPDATE t SET n = NULL"),
    "create_unique_index": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, s text)",
                                "INSERT INTO t VALUES (1, 'a'), (2, 'a')", "CREATE UNIQUE INDEX t_s ON t (s)", "23505"),
    "add_primary_key_over_null": Case("SC112", "CREATE TABLE t (id int)", "INSERT INTO t VALUES (NULL)",
                                      "ALTER TABLE t ADD PRIMARY KEY (id)", "23502"),
    "add_check": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
                      "ALTER TABLE t ADD CHECK (id > 1)", "23514"),
    "add_foreign_key": Case("SC112", "CREATE TABLE p (id int PRIMARY KEY);\nCREATE TABLE t (id int, pid int)",
                            "INSERT INTO t VALUES (1, 7)", "ALTER TABLE t ADD FOREIGN KEY (pid) REFERENCES p (id)", "23503"),
    # a dropped key proves nothing for another column, whatever the renames
    "foreign_key_dropped_then_added_over_another_column": Case(
        "SC112", "CREATE TABLE p (id varchar(50) PRIMARY KEY);\n"
        "CREATE TABLE t (id int, pid varchar(50) REFERENCES p, other varchar(50))",
        "INSERT INTO p VALUES ('a');\nINSERT INTO t VALUES (1, 'a', 'zzz')",
        "ALTER TABLE p RENAME COLUMN id TO uid;\nALTER TABLE t DROP CONSTRAINT t_pid_fkey;\n"
        "ALTER TABLE t RENAME COLUMN pid TO old_pid;\nALTER TABLE t RENAME COLUMN other TO pid;\n"
        "ALTER TABLE t ADD CONSTRAINT t_pid_fkey FOREIGN KEY (pid) REFERENCES p (uid)", "23503"),
    # the NOT NULL dropped, then a row written: it may hold NULL
    "not_null_dropped_then_a_row_written": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)",
                                                "INSERT INTO t VALUES (1, 5)",
                                                "ALTER TABLE t ALTER COLUMN n DROP NOT NULL;\n"
                                                "INSERT INTO t VALUES (2, NULL);\n"
                                                "ALTER TABLE t ALTER COLUMN n SET NOT NULL", "23502"),
    # a dropped check naming the renamed column proves nothing under the old name
    "check_dropped_then_its_column_renamed_and_another_given_the_name": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, kind text CHECK (kind IN ('a', 'b')), other text)",
        "INSERT INTO t VALUES (1, 'a', 'z')",
        "ALTER TABLE t DROP CONSTRAINT t_kind_check;\nALTER TABLE t RENAME COLUMN kind TO old_kind;\n"
        "ALTER TABLE t RENAME COLUMN other TO kind;\n"
        "ALTER TABLE t ADD CONSTRAINT t_kind_check CHECK (kind IN ('a', 'b', 'c'))", "23514"),
    # a constant default proves nothing once rows are written, or for a check it does not pass
    "check_after_a_row_was_added": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
        "ALTER TABLE t ADD COLUMN status text DEFAULT 'DISABLED';\nINSERT INTO t VALUES (2, 'X');\n"
        "ALTER TABLE t ADD CHECK (status = 'DISABLED')", "23514"),
    "check_after_the_column_was_updated": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)",
        "ALTER TABLE t ADD COLUMN status text DEFAULT 'DISABLED';\nUPDATE t SET status = 'X' WHERE id = 1;\n"
        "ALTER TABLE t ADD CHECK (status = 'DISABLED')", "23514"),
    "check_after_a_do_block_writing_rows": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
        "ALTER TABLE t ADD COLUMN status text DEFAULT 'DISABLED';\n"
        "DO $$\nBEGIN\n  UPDATE t SET status = 'X';\nEND;\n$$;\nALTER TABLE t ADD CHECK (status = 'DISABLED')", "23514"),
    # the key's own column given new values between the drop and the add
    "foreign_key_added_back_after_its_column_changed": Case(
        "SC112", "CREATE TABLE p (id int PRIMARY KEY);\nCREATE TABLE t (id int, pid int REFERENCES p, note text)",
        "INSERT INTO p VALUES (1);\nINSERT INTO t VALUES (1, 1, 'abc')",
        "ALTER TABLE t DROP CONSTRAINT t_pid_fkey;\nALTER TABLE t ALTER COLUMN pid TYPE int USING pid + 1;\n"
        "ALTER TABLE t ADD FOREIGN KEY (pid) REFERENCES p", "23503"),
    # UPDATEs of every row that still leave NULL somewhere: no backfill
    "set_not_null_after_a_case_without_else": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, k text, n int)", "INSERT INTO t VALUES (1, 'a', NULL), (2, 'b', NULL)",
        "UPDATE t SET n = CASE WHEN k = 'a' THEN 1 END;\nALTER TABLE t ALTER COLUMN n SET NOT NULL", "23502"),
    "set_not_null_after_copying_a_nullable_column": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, m int, n int)", "INSERT INTO t VALUES (1, 5, NULL), (2, NULL, NULL)",
        "UPDATE t SET n = m + 1;\nALTER TABLE t ALTER COLUMN n SET NOT NULL", "23502"),
    # kratos' identity_recovery_tokens: a subquery finding each row's parent by a nullable column
    "set_not_null_after_a_subquery_by_a_nullable_column": Case(
        "SC112", "CREATE TABLE o (id int PRIMARY KEY, y int NOT NULL);\nCREATE TABLE t (id int PRIMARY KEY, o_id int, x int)",
        "INSERT INTO o VALUES (1, 5);\nINSERT INTO t VALUES (1, 1, NULL), (2, NULL, NULL)",
        "UPDATE t SET x = (SELECT y FROM o WHERE id = o_id);\nALTER TABLE t ALTER COLUMN x SET NOT NULL", "23502"),
    "set_not_null_after_nullif": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, m int NOT NULL, n int)", "INSERT INTO t VALUES (1, 0, NULL)",
        "UPDATE t SET n = NULLIF(m, 0);\nALTER TABLE t ALTER COLUMN n SET NOT NULL", "23502"),
    "set_not_null_after_filling_only_some_nulls": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, c int)", "INSERT INTO t VALUES (1, NULL), (200, NULL)",
        "UPDATE t SET c = 0 WHERE c IS NULL AND id < 100;\nALTER TABLE t ALTER COLUMN c SET NOT NULL", "23502"),
    "unique_over_a_column_given_uuids_only_where_null": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, token text)", "INSERT INTO t VALUES (1, 'a'), (2, 'a'), (3, NULL)",
        "UPDATE t SET token = gen_random_uuid() WHERE token IS NULL;\nCREATE UNIQUE INDEX t_token ON t (token)", "23505"),
    "check_the_default_does_not_pass": Case(
        "SC112", "CREATE TABLE t (id int PRIMARY KEY, type text)", "INSERT INTO t VALUES (1, 'ANALYTICS')",
        "ALTER TABLE t ADD COLUMN status text DEFAULT 'DISABLED';\n"
        "ALTER TABLE t ADD CHECK (type = 'STANDARD' OR status = 'ENABLED')", "23514"),
    "validate_foreign_key": Case("SC112", "CREATE TABLE p (id int PRIMARY KEY);\nCREATE TABLE t (id int, pid int)",
                                 "INSERT INTO t VALUES (1, 7)", "ALTER TABLE t VALIDATE CONSTRAINT fk", "23503",
                                 "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p (id) NOT VALID"),
    "text_to_integer": Case("SC112", "CREATE TABLE t (s text)", "INSERT INTO t VALUES ('abc')",
                            "ALTER TABLE t ALTER COLUMN s TYPE int USING s::int", "22P02"),
    "shorter_varchar": Case("SC112", "CREATE TABLE t (s varchar(20))", "INSERT INTO t VALUES ('abc')",
                            "ALTER TABLE t ALTER COLUMN s TYPE varchar(2)", "22001"),
    "text_to_date_without_using": Case("SC112", "CREATE TABLE t (s text)", "INSERT INTO t VALUES ('2024-01-01')",
                                       "ALTER TABLE t ALTER COLUMN s TYPE date", "42804"),
    "bigint_to_int": Case("SC112", "CREATE TABLE t (b bigint)", "INSERT INTO t VALUES (5000000000)",
                          "ALTER TABLE t ALTER COLUMN b TYPE int", "22003"),
    "enum_labels_removed": Case("SC112", "CREATE TYPE kind AS ENUM ('a', 'b', 'c');\nCREATE TABLE t (k kind)",
                                "INSERT INTO t VALUES ('a'), ('c')",
                                "CREATE TYPE kind_new AS ENUM ('a', 'b');\n"
                                "ALTER TABLE t ALTER COLUMN k TYPE kind_new USING (k::text::kind_new)", "22P02"),
    "text_to_enum": Case("SC112", "CREATE TYPE kind AS ENUM ('a', 'b');\nCREATE TABLE t (s text)",
                         "INSERT INTO t VALUES ('a'), ('z')", "ALTER TABLE t ALTER COLUMN s TYPE kind USING s::kind", "22P02"),
    "narrower_numeric": Case("SC112", "CREATE TABLE t (b bigint)", "INSERT INTO t VALUES (5000000000)",
                             "ALTER TABLE t ALTER COLUMN b TYPE numeric(5, 0)", "22003"),
    "unique_nulls_not_distinct_over_nulls": Case("SC112", "CREATE TABLE t (id int);\nALTER TABLE t ADD COLUMN k int",
                                                 "INSERT INTO t (id) VALUES (1), (2)",
                                                 "CREATE UNIQUE INDEX t_k ON t (k) NULLS NOT DISTINCT", "23505"),
    "add_exclusion_constraint": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, during int4range)",
                                     "INSERT INTO t VALUES (1, '[1,5)'), (2, '[3,9)')",
                                     "ALTER TABLE t ADD CONSTRAINT t_during EXCLUDE USING gist (during WITH &&)", "23P01"),
}  # fmt: skip

MARIADB = {
    "modify_not_null_after_copying_a_nullable_column": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, m int, n int)",
                                                            "INSERT INTO t VALUES (1, NULL, NULL)",
                                                            "ALTER TABLE t MODIFY n int NOT NULL", 1265, "UPDATE t SET n = m"),
    "unique_column_filled_with_zero": Case("SC111", "CREATE TABLE t (id int PRIMARY KEY)",
                                           "INSERT INTO t VALUES (1), (2)",
                                           "ALTER TABLE t ADD COLUMN c int NOT NULL UNIQUE", 1062),
    "modify_not_null": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, n int)", "INSERT INTO t VALUES (1, NULL)",
                            "ALTER TABLE t MODIFY n int NOT NULL", 1265),
    "add_unique": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, s varchar(9))",
                       "INSERT INTO t VALUES (1, 'a'), (2, 'a')", "ALTER TABLE t ADD UNIQUE (s)", 1062),
    "create_unique_index": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY, s varchar(9))",
                                "INSERT INTO t VALUES (1, 'a'), (2, 'a')", "CREATE UNIQUE INDEX t_s ON t (s)", 1062),
    "add_check": Case("SC112", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
                      "ALTER TABLE t ADD CONSTRAINT ck CHECK (id > 1)", 4025),
    "add_foreign_key": Case("SC112", "CREATE TABLE p (id int PRIMARY KEY);\nCREATE TABLE t (id int, pid int)",
                            "INSERT INTO t VALUES (1, 7)",
                            "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p (id)", 1452),
    "text_to_integer": Case("SC112", "CREATE TABLE t (s varchar(9))", "INSERT INTO t VALUES ('abc')",
                            "ALTER TABLE t MODIFY s int", 1292),
    "shorter_varchar": Case("SC112", "CREATE TABLE t (s varchar(20))", "INSERT INTO t VALUES ('abc')",
                            "ALTER TABLE t MODIFY s varchar(2)", 1265),
    "bigint_to_int": Case("SC112", "CREATE TABLE t (b bigint)", "INSERT INTO t VALUES (5000000000)",
                          "ALTER TABLE t MODIFY b int", 1264),
    "enum_member_dropped": Case("SC112", "CREATE TABLE t (e enum('a', 'b'))", "INSERT INTO t VALUES ('b')",
                                "ALTER TABLE t MODIFY e enum('a')", 1265),
}  # fmt: skip


def _findings(tmp_path, case: Case, dialect: str, target: str, snapshot: str | None = None) -> list[str]:
    history = tmp_path / "000_history.sql"
    history.write_text(case.scene + ";\n" + (case.after + ";\n" if case.after else ""))
    change = tmp_path / "001_change.sql"
    change.write_text(case.statement + ";\n")
    extra = {"snapshot": snapshot} if snapshot else {}
    result = lint_paths(
        [str(change)],
        history=[] if snapshot else [str(history)],
        dialect=dialect,
        target=target,
        select=["fails-on-rows"],  # a preview family: it runs when selected
        **extra,
    )
    assert not result.errors, [str(e) for e in result.errors]
    return [f.code for f in result.findings]


def _pg_error(pg_server, db: str, case: Case) -> str | None:
    import psycopg

    with psycopg.connect(pg_server.dsn(db), autocommit=True) as conn:
        for sql in (*case.scene.split(";\n"), case.rows, *([case.after] if case.after else [])):
            conn.execute(sql)
        try:
            conn.execute(case.statement)
        except psycopg.Error as e:
            return e.sqlstate
    return None


def _maria_error(server, db: str, case: Case) -> int | None:
    import MySQLdb

    conn = server.connect(db)
    try:
        cur = conn.cursor()
        for sql in (*case.scene.split(";\n"), case.rows):
            cur.execute(sql)
        try:
            cur.execute(case.statement)
        except MySQLdb.Error as e:
            return int(e.args[0])
        return None
    finally:
        conn.close()


@pytest.mark.parametrize("name", list(PG))
def test_postgres_refuses_what_the_rule_flags(name, pg_server, tmp_path):
    case = PG[name]
    assert case.rule in _findings(tmp_path, case, "postgres", "postgres-15")
    db = pg_server.create_database(f"rows_{name}")
    assert _pg_error(pg_server, db, case) == case.error


@pytest.mark.parametrize("name", list(MARIADB))
def test_mariadb_refuses_what_the_rule_flags(name, mariadb_server, tmp_path):
    case = MARIADB[name]
    assert case.rule in _findings(tmp_path, case, "mariadb", "mariadb-10.11")
    db = mariadb_server.create_database(f"rows_{name}")
    assert _maria_error(mariadb_server, db, case) == case.error


# statements the rule leaves alone because no row can fail them, and the server agrees
PG_PASSES = {
    # (the column added in the same deploy as the statement, as a migration adds and uses it)
    "foreign_key_over_a_column_of_nulls": Case("", "CREATE TABLE p (id int PRIMARY KEY);\nCREATE TABLE t (id int)",
                                               "INSERT INTO t (id) VALUES (1), (2)",
                                               "ALTER TABLE t ADD COLUMN pid int;\n"
                                               "ALTER TABLE t ADD FOREIGN KEY (pid) REFERENCES p (id)", ""),
    "unique_over_a_column_of_nulls": Case("", "CREATE TABLE t (id int)", "INSERT INTO t (id) VALUES (1), (2)",
                                          "ALTER TABLE t ADD COLUMN k int;\nCREATE UNIQUE INDEX t_k ON t (k)", ""),
    "set_not_null_after_a_backfill": Case("", "CREATE TABLE t (id int, k text)", "INSERT INTO t VALUES (1, NULL)",
                                          "ALTER TABLE t ALTER COLUMN k SET NOT NULL", "",
                                          "UPDATE t SET k = 'x' WHERE k IS NULL"),
    "unique_over_the_primary_key_and_more": Case("", "CREATE TABLE t (id int PRIMARY KEY, s text)",
                                                 "INSERT INTO t VALUES (1, 'a'), (2, 'a'), (3, NULL), (4, NULL)",
                                                 "CREATE UNIQUE INDEX t_s_id ON t (s, id) NULLS NOT DISTINCT", ""),
    "unique_over_a_unique_key_and_more": Case("", "CREATE TABLE t (id int, s text, k int);\nCREATE UNIQUE INDEX t_k ON t (k)",
                                              "INSERT INTO t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'a', NULL), (4, 'a', NULL)",
                                              "ALTER TABLE t ADD UNIQUE (s, k)", ""),
    "foreign_key_dropped_and_added_back": Case("", "CREATE TABLE p (id int PRIMARY KEY);\n"
                                               "CREATE TABLE t (id int, pid int REFERENCES p)",
                                               "INSERT INTO p VALUES (1);\nINSERT INTO t VALUES (1, 1), (2, NULL)",
                                               "ALTER TABLE t DROP CONSTRAINT t_pid_fkey;\n"
                                               "ALTER TABLE p ALTER COLUMN id TYPE bigint;\n"
                                               "ALTER TABLE t ALTER COLUMN pid TYPE bigint;\n"
                                               "ALTER TABLE t ADD CONSTRAINT t_pid_fkey FOREIGN KEY (pid) REFERENCES p (id) "
                                               "ON DELETE CASCADE", ""),
    # quickwit's add-split-incarnation-id: the key dropped, both columns renamed and widened, added back
    "foreign_key_added_back_over_renamed_columns": Case("", "CREATE TABLE p (id varchar(50) PRIMARY KEY);\n"
                                                        "CREATE TABLE t (id int, pid varchar(50) REFERENCES p (id))",
                                                        "INSERT INTO p VALUES ('a');\nINSERT INTO t VALUES (1, 'a'), (2, NULL)",
                                                        "ALTER TABLE p RENAME COLUMN id TO uid;\n"
                                                        "ALTER TABLE p ADD COLUMN id varchar(50) NOT NULL DEFAULT '';\n"
                                                        "ALTER TABLE p ALTER COLUMN uid TYPE varchar(64);\n"
                                                        "ALTER TABLE t DROP CONSTRAINT t_pid_fkey;\n"
                                                        "ALTER TABLE t RENAME COLUMN pid TO puid;\n"
                                                        "ALTER TABLE t ALTER COLUMN puid TYPE text;\n"
                                                        "ALTER TABLE t ADD CONSTRAINT t_puid_fkey FOREIGN KEY (puid) REFERENCES p (uid)", ""),
    "not_null_dropped_and_set_again": Case("", "CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)",
                                           "INSERT INTO t VALUES (1, 5)",
                                           "ALTER TABLE t ALTER COLUMN n DROP NOT NULL;\n"
                                           "ALTER TABLE t RENAME COLUMN n TO m;\n"
                                           "ALTER TABLE t ALTER COLUMN m SET NOT NULL", ""),
    "foreign_key_added_back_after_other_columns_changed": Case("", "CREATE TABLE p (id int PRIMARY KEY);\n"
                                                              "CREATE TABLE t (id int, pid int REFERENCES p, note text)",
                                                              "INSERT INTO p VALUES (1);\nINSERT INTO t VALUES (1, 1, 'abc')",
                                                              "ALTER TABLE t DROP CONSTRAINT t_pid_fkey;\n"
                                                              "ALTER TABLE t ALTER COLUMN note TYPE text COLLATE \"C\", "
                                                              "ADD COLUMN k int DEFAULT 7;\n"
                                                              "ALTER TABLE t ADD FOREIGN KEY (pid) REFERENCES p", ""),
    "primary_key_replaced_by_a_wider_one": Case("", "CREATE TABLE t (a int, b int, c int NOT NULL, PRIMARY KEY (a, b))",
                                                "INSERT INTO t VALUES (1, 1, 1), (1, 2, 1), (2, 1, 1)",
                                                "ALTER TABLE t DROP CONSTRAINT t_pkey;\n"
                                                "ALTER TABLE t ADD PRIMARY KEY (a, c, b)", ""),
    "foreign_key_on_a_column_the_statement_adds": Case("", "CREATE TABLE p (id int PRIMARY KEY);\nCREATE TABLE t (id int)",
                                                       "INSERT INTO t VALUES (1), (2)",
                                                       "ALTER TABLE t ADD COLUMN pid int, ADD FOREIGN KEY (pid) REFERENCES p (id), "
                                                       "ADD COLUMN k text, ADD UNIQUE (k)", ""),
    "column_filled_through_a_foreign_key": Case("", "CREATE TABLE a (id int PRIMARY KEY);\n"
                                                "CREATE TABLE p (id int PRIMARY KEY, aid int NOT NULL REFERENCES a);\n"
                                                "CREATE TABLE t (id int, pid int NOT NULL REFERENCES p)",
                                                "INSERT INTO a VALUES (1), (2);\nINSERT INTO p VALUES (1, 1), (2, 2);\n"
                                                "INSERT INTO t VALUES (1, 1), (2, 2), (3, 2)",
                                                "ALTER TABLE t ADD COLUMN aid int;\n"
                                                "UPDATE t SET aid = p.aid FROM p WHERE p.id = t.pid;\n"
                                                "ALTER TABLE t ADD FOREIGN KEY (aid) REFERENCES a (id);\n"
                                                "ALTER TABLE t ALTER COLUMN aid SET NOT NULL", ""),
    "check_over_paired_columns_of_nulls": Case("", "CREATE TABLE t (id int PRIMARY KEY, n int)",
                                               "INSERT INTO t (id, n) VALUES (1, -5), (2, NULL)",
                                               "ALTER TABLE t ADD COLUMN a text, ADD COLUMN b text;\n"
                                               "ALTER TABLE t ADD CHECK ((a IS NULL AND b IS NULL) OR "
                                               "(a IS NOT NULL AND b IS NOT NULL));\n"
                                               "ALTER TABLE t ADD CHECK (NOT (a IS NOT NULL AND n > 0) AND b BETWEEN 'a' AND 'z')", ""),
    "check_allowing_one_more_value": Case("", "CREATE TABLE t (id int PRIMARY KEY, kind text CHECK (kind IN ('a', 'b')))",
                                          "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)",
                                          "ALTER TABLE t DROP CONSTRAINT t_kind_check;\n"
                                          "ALTER TABLE t ADD CONSTRAINT t_kind_check CHECK "
                                          "(((kind)::text = ANY ((ARRAY['a'::varchar, 'b'::varchar, 'c'::varchar])::text[])))", ""),
    "check_allowing_one_more_value_after_another_column_renamed": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY, note text, kind text CHECK (kind IN ('a', 'b')))",
        "INSERT INTO t VALUES (1, 'x', 'a'), (2, NULL, 'b')",
        "ALTER TABLE t DROP CONSTRAINT t_kind_check;\nALTER TABLE t RENAME COLUMN note TO remark;\n"
        "ALTER TABLE t ADD CONSTRAINT t_kind_check CHECK (kind IN ('a', 'b', 'c'))", ""),
    # supabase/storage's object-versioning-core: the column added with a constant default, then
    # checks that constant passes (one through an OR with another column)
    "checks_over_a_column_added_with_a_constant_default": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY, type text)", "INSERT INTO t VALUES (1, 'STANDARD'), (2, 'ANALYTICS')",
        "ALTER TABLE t ADD COLUMN status text NOT NULL DEFAULT 'DISABLED'::text;\n"
        "ALTER TABLE t ADD CONSTRAINT t_status CHECK (status IN ('DISABLED', 'ENABLED'));\n"
        "ALTER TABLE t ADD CONSTRAINT t_standard CHECK (type = 'STANDARD' OR status = 'DISABLED');\n"
        "ALTER TABLE t RENAME COLUMN status TO state;\n"
        "ALTER TABLE t ADD CONSTRAINT t_dark CHECK (state = 'DISABLED') NOT VALID;\n"
        "ALTER TABLE t VALIDATE CONSTRAINT t_dark", ""),
    # the same with the check inside a DO block that reads the catalog first, as supabase/storage does
    "check_in_a_do_block_over_a_column_added_with_a_constant_default": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)",
        "ALTER TABLE t ADD COLUMN status text NOT NULL DEFAULT 'DISABLED';\n"
        "DO $$\nBEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conname = 't_status') THEN\n"
        "    ALTER TABLE t ADD CONSTRAINT t_status CHECK (status IN ('DISABLED', 'ENABLED'));\n  END IF;\nEND;\n$$", ""),
    "set_not_null_after_a_subquery_by_a_foreign_key": Case(
        "", "CREATE TABLE o (id int PRIMARY KEY, y int NOT NULL, ref int);\n"
        "CREATE TABLE t (id int PRIMARY KEY, o_id int NOT NULL REFERENCES o, ref int, x int)",
        "INSERT INTO o VALUES (1, 5, NULL);\nINSERT INTO t VALUES (1, 1, NULL, NULL)",
        "UPDATE t SET x = (SELECT y FROM o WHERE o.id = t.o_id AND ref IS NULL);\nALTER TABLE t ALTER COLUMN x SET NOT NULL", ""),
    "set_not_null_after_values_every_row_gets": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY, k text NOT NULL, m int, n int, s text)",
        "INSERT INTO t VALUES (1, 'a', NULL, NULL, NULL), (2, 'b', 3, NULL, NULL)",
        "UPDATE t SET n = CASE WHEN k = 'a' THEN 1 ELSE length(k) END, s = COALESCE(m::text, 'none') || '-' || k;\n"
        "ALTER TABLE t ALTER COLUMN n SET NOT NULL, ALTER COLUMN s SET NOT NULL", ""),
    # rallly's make_subscription_user_required: the rows the fill missed deleted, then NOT NULL
    "set_not_null_after_deleting_the_rows_holding_null": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY, c text, d text)", "INSERT INTO t VALUES (1, NULL, NULL), (2, 'x', NULL), (3, '', NULL)",
        "DELETE FROM t WHERE c IS NULL;\nUPDATE t SET d = 'y' WHERE d IS NULL OR d = '';\n"
        "ALTER TABLE t ALTER COLUMN c SET NOT NULL, ALTER COLUMN d SET NOT NULL", ""),
    # linkwarden's add_uuid_to_user_model: the column added, each row given a random UUID, then unique
    "unique_over_a_column_given_random_uuids": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)",
        "ALTER TABLE t ADD COLUMN uuid uuid;\nUPDATE t SET uuid = gen_random_uuid() WHERE uuid IS NULL;\n"
        "ALTER TABLE t ALTER COLUMN uuid SET NOT NULL;\nCREATE UNIQUE INDEX t_uuid ON t (uuid)", ""),
    # dittofeed's spicy_inertia: unique keys dropped, a column added and filled, keys over both made
    "unique_keys_widened_after_another_column_was_filled": Case(
        "", "CREATE TABLE p (id int PRIMARY KEY, child int);\n"
        "CREATE TABLE w (id int PRIMARY KEY, name text);\nCREATE UNIQUE INDEX w_name_key ON w (name)",
        "INSERT INTO p VALUES (1, 2);\nINSERT INTO w VALUES (1, 'a'), (2, 'b')",
        "DROP INDEX w_name_key;\nALTER TABLE w ADD COLUMN parent int;\n"
        "UPDATE w SET parent = p.id FROM p WHERE w.id = p.child;\n"
        "CREATE UNIQUE INDEX w_parent_name_key ON w (parent, name)", ""),
    "set_not_null_over_a_column_every_row_holds_a_constant_in": Case(
        "", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)",
        "ALTER TABLE t ADD COLUMN n int DEFAULT 0, ADD COLUMN k text;\nUPDATE t SET k = 'x';\n"
        "ALTER TABLE t ALTER COLUMN n SET NOT NULL, ALTER COLUMN k SET NOT NULL", ""),
    "unique_over_a_column_added_serial": Case("", "CREATE TABLE t (id int, env text NOT NULL)",
                                              "INSERT INTO t VALUES (1, 'a'), (2, 'a'), (3, 'a')",
                                              "ALTER TABLE t ADD COLUMN user_id SERIAL NOT NULL, "
                                              "ADD COLUMN token uuid NOT NULL DEFAULT gen_random_uuid();\n"
                                              "CREATE UNIQUE INDEX t_env_user ON t (env, user_id);\n"
                                              "CREATE UNIQUE INDEX t_token ON t (token)", ""),
    "enum_label_cleared_then_removed": Case("", "CREATE TYPE st AS ENUM ('draft', 'paused', 'scheduled');\n"
                                            "CREATE TABLE t (id int, status st)",
                                            "INSERT INTO t VALUES (1, 'scheduled'), (2, 'draft')",
                                            "UPDATE t SET status = 'paused' WHERE status = 'scheduled';\n"
                                            "CREATE TYPE st_new AS ENUM ('draft', 'paused');\n"
                                            "ALTER TABLE t ALTER COLUMN status TYPE st_new USING (status::text::st_new)", ""),
    "enum_label_cleared_then_table_renamed": Case("", "CREATE TYPE st AS ENUM ('draft', 'paused', 'scheduled');\n"
                                                  "CREATE TABLE t (id int, status st)",
                                                  "INSERT INTO t VALUES (1, 'scheduled'), (2, 'draft')",
                                                  "UPDATE t SET status = 'paused' WHERE status = 'scheduled';\n"
                                                  "ALTER TABLE t RENAME TO u;\n"
                                                  "CREATE TYPE st_new AS ENUM ('draft', 'paused');\n"
                                                  "ALTER TABLE u ALTER COLUMN status TYPE st_new USING (status::text::st_new)", ""),
    "unique_over_a_copy_of_the_primary_key": Case("", "CREATE TABLE t (id int PRIMARY KEY, version text, created int)",
                                                  "INSERT INTO t VALUES (1, 'v', 1), (2, 'v', 2), (3, 'v', 3)",
                                                  "ALTER TABLE t ADD COLUMN slug text;\n"
                                                  "UPDATE t SET slug = id::text WHERE slug IS NULL;\n"
                                                  "DELETE FROM t WHERE created < 2;\n"
                                                  "ALTER TABLE t ALTER COLUMN slug SET NOT NULL;\n"
                                                  "CREATE UNIQUE INDEX t_slug_version ON t (slug, version)", ""),
    "values_too_long_deleted_first": Case("", "CREATE TABLE t (id int, a text, b text)",
                                          "INSERT INTO t VALUES (1, 'short', 'short'), (2, repeat('x', 41), 'short'), (3, 'short', repeat('y', 51))",
                                          "DELETE FROM t WHERE length(a) > 40;\n"
                                          "ALTER TABLE t ALTER COLUMN a TYPE varchar(40);\n"
                                          "DELETE FROM t WHERE char_length(b) >= 51;\n"
                                          "ALTER TABLE t ALTER COLUMN b TYPE varchar(50)", ""),
    "orphans_deleted_and_set_to_null_first": Case("", "CREATE TABLE c (id text PRIMARY KEY);\n"
                                                  "CREATE TABLE s (id text PRIMARY KEY);\n"
                                                  "CREATE TABLE t (id int, cid text NOT NULL, sid text)",
                                                  "INSERT INTO c VALUES ('a');\nINSERT INTO s VALUES ('x');\n"
                                                  "INSERT INTO t VALUES (1, 'a', 'x'), (2, 'a', 'gone'), (3, 'gone', NULL)",
                                                  "DELETE FROM t WHERE NOT EXISTS (SELECT 1 FROM c WHERE t.cid = c.id);\n"
                                                  "UPDATE t SET sid = NULL WHERE NOT EXISTS (SELECT 1 FROM s x WHERE x.id = t.sid);\n"
                                                  "ALTER TABLE t ADD FOREIGN KEY (cid) REFERENCES c (id);\n"
                                                  "ALTER TABLE t ADD FOREIGN KEY (sid) REFERENCES s (id)", ""),
    "partial_unique_index_with_the_same_where": Case("", "CREATE TABLE t (id int, owner int, app text, type text);\n"
                                                     "CREATE UNIQUE INDEX t_one ON t (owner) WHERE (type = 'u')",
                                                     "INSERT INTO t VALUES (1, 1, 'x', 'u'), (2, 1, 'x', 'f'), (3, 1, 'x', 'f')",
                                                     "CREATE UNIQUE INDEX t_two ON t (owner, app) WHERE type = 'u'", ""),
}  # fmt: skip


@pytest.mark.parametrize("name", list(PG_PASSES))
def test_postgres_accepts_what_the_rule_leaves_alone(name, pg_server, tmp_path):
    """A key with a NULL in it is neither a duplicate nor checked against its parent, and a column
    an UPDATE filled holds no NULL: on rows that make the rule's other cases fail, these pass."""
    case = PG_PASSES[name]
    assert "SC112" not in _findings(tmp_path, case, "postgres", "postgres-15")
    db = pg_server.create_database(f"rows_{name}")
    assert _pg_error(pg_server, db, case) is None


MARIADB_PASSES = {
    # PrestaShop 1.7.1.0: the rows moved off the members the ENUM then loses, one UPDATE each
    "members_moved_off_first": Case(
        "SC112",
        "CREATE TABLE t (id int PRIMARY KEY, r enum('301', '302', '301-product', '302-product'))",
        "INSERT INTO t VALUES (1, '301'), (2, '302')",
        "UPDATE t SET r = '301-product' WHERE r = '301';\nUPDATE t SET r = '302-product' WHERE r = '302';\n"
        "ALTER TABLE t MODIFY r enum('301-product', '302-product')",
        0,
    ),
    # Kill Bill's invoice_group_id: the new column given every row's id, then made NOT NULL
    "every_row_given_a_value_first": Case(
        "SC112",
        "CREATE TABLE t (id varchar(36) NOT NULL PRIMARY KEY)",
        "INSERT INTO t VALUES ('a'), ('b')",
        "ALTER TABLE t ADD COLUMN grp_id varchar(36);\nupdate t set grp_id=id;\n"
        "ALTER TABLE t MODIFY grp_id varchar(36) NOT NULL",
        0,
    ),
    # DolphinScheduler 3.3.0: CHANGE renames the column and leaves NOT NULL out, MODIFY puts it back
    "not_null_changed_away_and_back": Case(
        "SC112",
        "CREATE TABLE t (id int PRIMARY KEY, code bigint(20) NOT NULL, prio int(11))",
        "INSERT INTO t VALUES (1, 7, NULL), (2, 8, 1)",
        "ALTER TABLE t CHANGE code workflow_code bigint(20);\nALTER TABLE t CHANGE prio priority int(11);\n"
        "RENAME TABLE t TO w;\n"
        "ALTER TABLE w MODIFY COLUMN workflow_code bigint NOT NULL",
        0,
    ),
    # Roundcube 1.5's utf8mb4 upgrade: the integer foreign keys dropped, the tables stored and
    # encoded anew, a string column changed, the keys added back
    "foreign_key_dropped_around_a_charset_conversion": Case(
        "SC112",
        "CREATE TABLE users (user_id int PRIMARY KEY, username varchar(64) NOT NULL) CHARACTER SET utf8mb3;\n"
        "CREATE TABLE cache (id int PRIMARY KEY, user_id int NOT NULL, cache_key varchar(64) NOT NULL, "
        "CONSTRAINT user_id_fk_cache FOREIGN KEY (user_id) REFERENCES users (user_id)) CHARACTER SET utf8mb3",
        "INSERT INTO users VALUES (1, 'a');\nINSERT INTO cache VALUES (1, 1, 'k')",
        "ALTER TABLE `cache` DROP FOREIGN KEY `user_id_fk_cache`;\nALTER TABLE `cache` ROW_FORMAT=DYNAMIC;\n"
        "ALTER TABLE `users` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;\n"
        "ALTER TABLE `cache` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;\n"
        "ALTER TABLE `cache` CHANGE `cache_key` `cache_key` varchar(128) BINARY NOT NULL;\n"
        "ALTER TABLE `cache` ADD CONSTRAINT `user_id_fk_cache` FOREIGN KEY (`user_id`) REFERENCES `users` (`user_id`) "
        "ON DELETE CASCADE",
        0,
    ),
    "members_deleted_first": Case(
        "SC112",
        "CREATE TABLE t (id int PRIMARY KEY, k enum('a', 'b', 'c'))",
        "INSERT INTO t VALUES (1, 'a'), (2, 'c')",
        "DELETE FROM t WHERE k IN ('c');\nALTER TABLE t MODIFY k enum('a', 'b')",
        0,
    ),
}


@pytest.mark.parametrize("name", list(MARIADB_PASSES))
def test_mariadb_accepts_what_the_rule_leaves_alone(name, mariadb_server, tmp_path):
    """Rows moved off (or deleted from) the members an ENUM loses: strict MariaDB changes the type."""
    case = MARIADB_PASSES[name]
    assert "SC112" not in _findings(tmp_path, case, "mariadb", "mariadb-10.11")
    conn = mariadb_server.connect(mariadb_server.create_database(f"passes_{name}"))
    try:
        cur = conn.cursor()
        for sql in (*case.scene.split(";\n"), case.rows, *case.statement.split(";\n")):
            cur.execute(sql)  # raises if the server refuses any of it
        cur.execute("SELECT @@sql_mode")
        assert "STRICT_TRANS_TABLES" in cur.fetchone()[0]
    finally:
        conn.close()


# without strict mode the server keeps each row, changed: (the statement, what the row then holds)
LENIENT = {
    "modify_not_null": "0",
    "text_to_integer": "0",
    "shorter_varchar": "ab",
    "bigint_to_int": "2147483647",
    "enum_member_dropped": "",
}


@pytest.mark.parametrize("name", [*LENIENT, "add_unique", "add_foreign_key"])
def test_mariadb_without_strict_mode_changes_the_rows_the_finding_names(name, mariadb_server, tmp_path):
    """After `SET SESSION sql_mode = ''` (PrestaShop's upgrade files) the statements that cast a
    value pass and the row holds what the finding says; a duplicate or a missing key is refused
    all the same, and the finding still says so."""
    import MySQLdb

    case = MARIADB[name]
    lenient = Case(case.rule, case.scene, case.rows, "SET SESSION sql_mode = '';\n" + case.statement, case.error)
    said = _messages(tmp_path, lenient)
    conn = mariadb_server.connect(mariadb_server.create_database(f"lenient_{name}"))
    try:
        cur = conn.cursor()
        for sql in (*case.scene.split(";\n"), case.rows, "SET SESSION sql_mode = ''"):
            cur.execute(sql)
        if name not in LENIENT:
            assert any("refuses the statement" in m for m in said), said
            with pytest.raises(MySQLdb.Error) as refused:
                cur.execute(case.statement)
            assert refused.value.args[0] == case.error
            return
        assert any("is not strict, so MariaDB stores" in m for m in said), said
        cur.execute(case.statement)  # passes, with a warning of the strict error's number
        cur.execute("SHOW WARNINGS")
        assert [w[1] for w in cur.fetchall()] == [case.error]
        column = case.statement.split()[4]  # ALTER TABLE t MODIFY <column> ...
        cur.execute(f"SELECT CAST({column} AS CHAR) FROM t")
        assert cur.fetchone()[0] == LENIENT[name]
    finally:
        conn.close()


def _messages(tmp_path, case: Case) -> list[str]:
    change = _write(tmp_path, case.scene, case.statement)
    result = lint_paths(
        [str(change)],
        history=[str(tmp_path / "000_history.sql")],
        dialect="mariadb",
        target="mariadb-10.11",
        select=["fails-on-rows"],
    )
    return [f.message for f in result.findings if f.code == "SC112"]


def test_mariadb_fills_a_not_null_column_with_the_implicit_default(mariadb_server, tmp_path):
    """Strict mode does not refuse the column: every old row gets the type's implicit default,
    the value the finding names; a zero date is refused only where sql_mode holds NO_ZERO_DATE."""
    case = Case("SC111", "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)", "", 0)
    added = {"n": "int", "s": "varchar(5)", "k": "enum('basic','pro')", "d": "date"}
    statement = "ALTER TABLE t " + ", ".join(f"ADD COLUMN {c} {t} NOT NULL" for c, t in added.items())
    flagged = lint_paths(
        [str(_write(tmp_path, case.scene, statement))],
        history=[str(tmp_path / "000_history.sql")],
        dialect="mariadb",
        target="mariadb-10.11",
        select=["fails-on-rows"],
    ).findings
    said = " ".join(f.message for f in flagged if f.code == "SC111")
    for value in ("with 0", "with ''", "with 'basic'", "with '0000-00-00'"):
        assert value in said
    conn = mariadb_server.connect(mariadb_server.create_database("rows_filled"))
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@sql_mode")
        assert "STRICT_TRANS_TABLES" in cur.fetchone()[0]
        for sql in (case.scene, case.rows, statement):
            cur.execute(sql)
        cur.execute("SELECT n, s, k, CAST(d AS CHAR) FROM t")
        assert cur.fetchall() == ((0, "", "basic", "0000-00-00"),)
        cur.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_ZERO_DATE')")
        import MySQLdb

        with pytest.raises(MySQLdb.Error) as refused:
            cur.execute("ALTER TABLE t ADD COLUMN d2 date NOT NULL")
        assert refused.value.args[0] == 1292
    finally:
        conn.close()


def _write(tmp_path, scene: str, statement: str):
    (tmp_path / "000_history.sql").write_text(scene + ";\n")
    change = tmp_path / "001_change.sql"
    change.write_text(statement + ";\n")
    return change


@pytest.mark.parametrize("name", ["add_not_null_column", "set_not_null"])
@pytest.mark.parametrize("rows, flagged", [(0, False), (5, True), (None, True)])
def test_a_table_a_snapshot_shows_empty_is_not_flagged(tmp_path, name, rows, flagged):
    """The server checks no row of an empty table: a snapshot that counts 0 rows silences the
    rules; one that counts rows, or does not know, does not."""
    case = PG[name]
    columns = [{"name": "id", "type": "int4", "nullable": False, "base_type": "int4"}]
    columns += [{"name": "n", "type": "int4", "nullable": True, "base_type": "int4"}]
    doc = {
        "version": 2,
        "dialect": "postgres",
        "tables": [
            {
                "key": "t",
                "name": "t",
                "rows": rows,
                "columns": columns,
                "primary_key": {"name": "t_pkey", "columns": ["id"], "unique": True, "primary": True},
            }
        ],
    }
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(doc))
    assert (case.rule in _findings(tmp_path, case, "postgres", "postgres-15", str(snapshot))) is flagged


def _query(tmp_path, case: Case) -> str:
    """The query SC112's finding says finds an offending row first."""
    history = tmp_path / "000_history.sql"
    history.write_text(case.scene + ";\n")
    change = tmp_path / "001_change.sql"
    change.write_text(case.statement + ";\n")
    result = lint_paths([str(change)], history=[str(history)], dialect="postgres", select=["SC112"])
    (finding,) = result.findings
    found = re.search(r"look first: (.*); fix those rows", finding.suggestion or "")
    assert found, finding.suggestion
    return found.group(1)


@pytest.mark.parametrize(
    "rows, refused",
    [
        ("(1, 'a', now()), (2, 'a', NULL), (3, '', NULL), (4, '', NULL)", False),  # the index holds no two alike
        ("(1, 'a', NULL), (2, 'a', NULL)", True),
    ],
)
def test_a_partial_unique_index_query_reads_the_rows_the_index_holds(pg_server, tmp_path, rows, refused):
    """The query for a partial unique index looks only at the rows its WHERE admits: it finds a
    row exactly when the server refuses the index."""
    case = Case(
        "SC112",
        "CREATE TABLE t (id int PRIMARY KEY, email text, deleted_at timestamptz)",
        f"INSERT INTO t VALUES {rows}",
        "CREATE UNIQUE INDEX t_email ON t (email) WHERE deleted_at IS NULL AND email <> ''",
        "23505" if refused else "",
    )
    query = _query(tmp_path, case)
    db = pg_server.create_database("rows_partial_unique")
    with pg_server.connect(db) as conn:
        conn.execute(case.scene)
        conn.execute(case.rows)
        assert bool(conn.execute(query).fetchall()) is refused
    assert _pg_error(pg_server, pg_server.create_database("rows_partial_unique"), case) == (case.error or None)


def test_a_change_ships_as_one_deploy(tmp_path):
    """Migrations linted against a history reach production together: a table one of them
    creates holds no rows for the next, while a table of the history does."""
    (tmp_path / "001.sql").write_text("CREATE TABLE accounts (id int PRIMARY KEY);\n")
    (tmp_path / "002.sql").write_text("CREATE TABLE tokens (id int PRIMARY KEY);\n")
    (tmp_path / "003.sql").write_text(
        "ALTER TABLE tokens ADD COLUMN secret text NOT NULL;\nALTER TABLE accounts ADD COLUMN region text NOT NULL;\n"
    )
    files = [str(tmp_path / n) for n in ("001.sql", "002.sql", "003.sql")]
    change = lint_paths(files[1:], history=files[:1], dialect="postgres", select=["SC111"])
    assert [(f.table, f.location.line) for f in change.findings] == [("accounts", 2)]
    audit = lint_paths(files, dialect="postgres", select=["SC111"])  # a history read migration by migration
    assert sorted(f.table for f in audit.findings) == ["accounts", "tokens"]


@pytest.mark.parametrize(
    "rows, refused",
    [
        ("(1, '[1,5)', true), (2, '[3,9)', false), (3, NULL, true), (4, '[5,9)', true)", False),  # none conflict
        ("(1, '[1,5)', true), (2, '[3,9)', true)", True),
    ],
)
def test_an_exclusion_constraint_query_finds_the_conflicting_pair(pg_server, tmp_path, rows, refused):
    """The query for ADD CONSTRAINT ... EXCLUDE joins the rows its WHERE admits on its operators:
    it finds a pair exactly when the server refuses the constraint (a NULL conflicts with nothing)."""
    case = Case(
        "SC112",
        "CREATE TABLE t (id int PRIMARY KEY, during int4range, active bool)",
        f"INSERT INTO t VALUES {rows}",
        "ALTER TABLE t ADD CONSTRAINT t_no_overlap EXCLUDE USING gist (during WITH OPERATOR(pg_catalog.&&)) WHERE (active)",
        "23P01" if refused else "",
    )
    query = _query(tmp_path, case)
    db = pg_server.create_database("rows_exclusion")
    with pg_server.connect(db) as conn:
        conn.execute(case.scene)
        conn.execute(case.rows)
        assert bool(conn.execute(query).fetchall()) is refused
    assert _pg_error(pg_server, pg_server.create_database("rows_exclusion"), case) == (case.error or None)


def test_a_narrowed_column_loses_what_its_dropped_foreign_key_proved(pg_server, tmp_path):
    """Widening a column keeps the values its dropped foreign key held (quickwit's varchar(50) to
    varchar(64)); narrowing it does not: PostgreSQL trims trailing spaces to fit, so the key added
    back is flagged and refused."""
    case = Case(
        "SC112",
        "CREATE TABLE p (id varchar(50) PRIMARY KEY);\nCREATE TABLE t (id int, pid varchar(50) REFERENCES p)",
        "INSERT INTO p VALUES ('ab  ');\nINSERT INTO t VALUES (1, 'ab  ')",
        "ALTER TABLE t DROP CONSTRAINT t_pid_fkey;\nALTER TABLE t ALTER COLUMN pid TYPE varchar(2);\n"
        "ALTER TABLE t ADD CONSTRAINT t_pid_fkey FOREIGN KEY (pid) REFERENCES p (id)",
        "23503",
    )
    _findings(tmp_path, case, "postgres", "postgres-15")
    result = lint_paths(
        [str(tmp_path / "001_change.sql")],
        history=[str(tmp_path / "000_history.sql")],
        dialect="postgres",
        select=["fails-on-rows"],
    )
    assert [(f.code, f.location.line) for f in result.findings if "FOREIGN KEY" in f.message] == [("SC112", 3)]
    assert _pg_error(pg_server, pg_server.create_database("rows_narrowed_key"), case) == "23503"


@pytest.mark.parametrize(
    "default, held",
    [
        ("'DISABLED'::text", "DISABLED"),
        ("('it''s'::character varying)", "it's"),
        ("0", "0"),
        ("TRUE", "true"),
        ("'{}'::text[]", "{}"),
        ("now()", None),  # a function: each row's own value
        ("'a'::text || 'b'::text", None),
        ("'a\\nb'", None),  # MySQL reads the backslash as an escape
    ],
)
def test_only_a_default_written_as_a_constant_gives_every_old_row_one_value(default, held):
    from schemacite.model.casts import constant_default

    assert constant_default(default) == held
