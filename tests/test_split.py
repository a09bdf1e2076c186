"""Splitting real-world files into statements with exact positions."""

from __future__ import annotations

from schemacite.sources.split import split_sql


def texts(sql: str, dialect: str) -> list[tuple[int, int, str]]:
    return [(c.line, c.column, c.text) for c in split_sql(sql, dialect).chunks]


def test_semicolons_in_strings_comments_and_quoted_names():
    sql = "SELECT 'a;b', \"c;d\" FROM t; -- x; y\n/* ; */ SELECT `e;f`;\n"
    assert [t for _, _, t in texts(sql, "mysql")] == ["SELECT 'a;b', \"c;d\" FROM t", "SELECT `e;f`"]


def test_mysql_backslash_escape_and_doubled_quote():
    sql = "INSERT INTO t VALUES ('it\\'s;', 'a'';b');\nSELECT 1;"
    assert len(texts(sql, "mysql")) == 2


def test_executable_comment_content_is_kept_and_positions_hold():
    sql = "CREATE TABLE t (id int)\n/*!50100 PARTITION BY HASH (id)\nPARTITIONS 4 */;\n/*!40101 SET NAMES utf8 */;\n"
    chunks = split_sql(sql, "mysql").chunks
    assert "PARTITION BY HASH (id)" in chunks[0].text and "/*!" not in chunks[0].text
    assert (chunks[0].line, chunks[0].end_line) == (1, 3)
    assert chunks[1].text == "SET NAMES utf8" and chunks[1].line == 4 and chunks[1].column == 10


def test_delimiter_blocks():
    sql = "DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END //\nDELIMITER ;\nSELECT 3;\n"
    got = texts(sql, "mysql")
    assert got == [(2, 1, "CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END"), (4, 1, "SELECT 3")]


def test_routine_body_without_delimiter_stays_whole():
    sql = (
        "CREATE PROCEDURE q() BEGIN IF 1 THEN SELECT 1; END IF; CASE WHEN 1 THEN SELECT 2; END CASE; END;\nCALL q();\n"
    )
    got = [t for _, _, t in texts(sql, "mysql")]
    assert len(got) == 2 and got[0].endswith("END CASE; END")


def test_dollar_quoted_body():
    sql = "CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END $body$ LANGUAGE plpgsql;\nSELECT 1;"
    assert len(texts(sql, "postgres")) == 2


def test_copy_from_stdin_data_is_skipped():
    sql = "COPY t (a) FROM stdin;\n1;2\n\\N\n\\.\nALTER TABLE t ADD COLUMN b int;\n"
    got = texts(sql, "postgres")
    assert got == [(1, 1, "COPY t (a) FROM stdin"), (5, 1, "ALTER TABLE t ADD COLUMN b int")]


def test_psql_meta_commands_and_nested_comments():
    sql = "\\connect app\n/* outer /* inner; */ still; */ SELECT 1;\n"
    assert texts(sql, "postgres") == [(2, 33, "SELECT 1")]


def test_hash_is_a_comment_only_on_mysql():
    assert texts("# note;\nSELECT 1;", "mysql") == [(2, 1, "SELECT 1")]
    assert len(texts("SELECT '{1}'::jsonb #> '{a}';", "postgres")) == 1


def test_mysql_double_dash_without_a_space_is_a_comment_only_before_a_statement():
    # DolphinScheduler's upgrade scripts: `--DROP ...` on its own line, which their runner skips
    # and MySQL itself would refuse; inside a statement it is two minus signs
    sql = "--DROP PROCEDURE IF EXISTS p;\nDROP PROCEDURE IF EXISTS p;\nSELECT 1\n--1;\n"
    assert texts(sql, "mysql") == [(2, 1, "DROP PROCEDURE IF EXISTS p"), (3, 1, "SELECT 1\n--1")]


def test_unterminated_string_is_reported():
    split = split_sql("SELECT 1;\nSELECT 'oops;\n", "postgres")
    assert split.errors == [(2, "unterminated string starting here")]
    assert split.chunks[0].text == "SELECT 1"
