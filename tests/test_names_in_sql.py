"""The SQL the preview rules hand the user runs on the servers themselves when the names need
quoting: mixed case, reserved words, a schema, a space. Each change is linted alone over the same
history; every query that looks for offending rows (SC112) must run and find the rows the scene
holds (or, for a cast, fail on the first bad value: SQLSTATE class 22), and every fix template
(SC114-SC120) must run, each over a fresh copy of the scene in a scratch database the test
creates and drops."""

from __future__ import annotations

import re

import MySQLdb
import psycopg
import pytest

from schemacite import lint_paths
from schemacite.model.record import record
from schemacite.sources.names import backquoted, quoted_name

PREVIEW = ["SC111", "SC112", *(f"SC{n}" for n in range(114, 121))]


@record(frozen=True)
class Scene:
    tables: str  # the history, and the tables made on the server
    rows: str  # rows that do not fit the changes
    changes: tuple[str, ...]  # each linted alone; those ending in "-- run" run before their fix
    flagged: int  # findings the changes must give between them


PG = Scene(
    tables="""CREATE SCHEMA audit;
CREATE TABLE "Group" ("Id" int PRIMARY KEY);
CREATE TABLE audit."Users" (id int PRIMARY KEY, "Email" text, "order" int, "groupId" int, "Code" text,
  "select" text, "desc" int)""",
    rows="""INSERT INTO "Group" VALUES (1);
INSERT INTO audit."Users" VALUES (1, NULL, 5, 1, 'abcd', 'x', 1), (2, 'a@b', 5, 1, 'zz', 'y', 2),
  (3, 'A@b', 6, 9, '12', 'z', 3)""",
    changes=(
        'ALTER TABLE audit."Users" ALTER COLUMN "Email" SET NOT NULL',
        'ALTER TABLE audit."Users" ADD UNIQUE ("order", "groupId")',
        'ALTER TABLE audit."Users" ADD CONSTRAINT users_group FOREIGN KEY ("groupId") REFERENCES "Group"',
        'ALTER TABLE audit."Users" ADD CONSTRAINT "Positive" CHECK ("order" > 5)',
        'ALTER TABLE audit."Users" ALTER COLUMN "Code" TYPE varchar(3)',
        'ALTER TABLE audit."Users" ALTER COLUMN "Code" TYPE int USING "Code"::int',
        'CREATE UNIQUE INDEX users_email ON audit."Users" (lower("Email"))',
        'ALTER TABLE audit."Users" DROP COLUMN "select"',
        'ALTER TABLE audit."Users" RENAME COLUMN "desc" TO "Desc"',
        'ALTER TABLE audit."Users" ALTER COLUMN "desc" TYPE text',
        'ALTER TABLE audit."Users" RENAME TO "People"',
        'DROP TABLE "Group" CASCADE',
        'CREATE TABLE audit."Tags" (id smallserial PRIMARY KEY);\n'
        'CREATE TABLE "postTags" ("tagId" smallint REFERENCES audit."Tags") -- run',
        'CREATE TABLE audit."Accounts" (id bigserial PRIMARY KEY);\n'
        'CREATE TABLE "Invoices" ("accountId" int REFERENCES audit."Accounts") -- run',
    ),
    flagged=15,
)

MARIADB = Scene(
    tables="""CREATE TABLE `Group` (id int PRIMARY KEY);
CREATE TABLE `Order Items` (id int PRIMARY KEY, `Select` varchar(20), `desc` int, `key` varchar(20), Note text, n int)""",
    rows="""INSERT INTO `Group` VALUES (1);
INSERT INTO `Order Items` VALUES (1, NULL, 5, 'ab', 'x', 1), (2, 'a', 5, '12', 'y', 2), (3, 'b', 9, 'zz', 'z', 3)""",
    changes=(
        "ALTER TABLE `Order Items` MODIFY `Select` varchar(20) NOT NULL",
        "ALTER TABLE `Order Items` ADD UNIQUE (`desc`)",
        "ALTER TABLE `Order Items` ADD CONSTRAINT fk FOREIGN KEY (`desc`) REFERENCES `Group` (id)",
        "ALTER TABLE `Order Items` ADD CONSTRAINT ck CHECK (`desc` > 5)",
        "ALTER TABLE `Order Items` MODIFY `key` int",
        "ALTER TABLE `Order Items` MODIFY `key` varchar(1)",
        "ALTER TABLE `Order Items` DROP COLUMN Note",
        "ALTER TABLE `Order Items` CHANGE n `Range` int",
        "ALTER TABLE `Order Items` MODIFY `desc` varchar(20)",
        "RENAME TABLE `Order Items` TO `Line Items`",
        "DROP TABLE `Group`",
        "CREATE TABLE click_events (`Key` int NOT NULL AUTO_INCREMENT PRIMARY KEY) -- run",
    ),
    flagged=13,
)


def _runnable(tmp_path, scene: Scene, dialect: str) -> list[tuple[str, str, list[str]]]:
    """(change, rule, statements) for each finding: the queries SC112 suggests, or a fix's template."""
    history = tmp_path / "000_history.sql"
    history.write_text(scene.tables + ";\n")
    out = []
    for n, change in enumerate(scene.changes):
        path = tmp_path / f"{n + 1:03}_change.sql"
        path.write_text(change + ";\n")
        result = lint_paths([str(path)], history=[str(history)], dialect=dialect, select=PREVIEW)
        assert not result.errors, [str(e) for e in result.errors]
        for f in result.findings:
            if f.code == "SC112":
                found = re.search(r"look first: (.*); fix those rows", f.suggestion or "")
                assert found, f.suggestion
                out.append((change, f.code, re.split(r"; (?=SELECT )", found.group(1))))
            else:
                assert f.fix is not None and f.fix.template, (f.code, change)
                out.append((change, f.code, _statements(f.fix.template)))
    return out


def _statements(script: str) -> list[str]:
    text = re.sub(r"--[^\n]*", "", script)
    return [s.strip() for s in text.split(";") if s.strip()]


def test_postgres_runs_the_sql_the_rules_write(pg_server, tmp_path):
    runnable = _runnable(tmp_path, PG, "postgres")
    assert len(runnable) == PG.flagged, [(c, r) for c, r, _ in runnable]
    db = "names_in_sql"
    pg_server.create_database(db)
    try:
        with pg_server.connect(db) as conn:
            for change, rule, statements in runnable:
                conn.execute("DROP SCHEMA IF EXISTS audit CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public")
                conn.execute(PG.tables)
                conn.execute(PG.rows)
                if change.endswith("-- run"):
                    conn.execute(change)
                for sql in statements:
                    try:
                        rows = conn.execute(sql).fetchall() if sql.upper().startswith("SELECT") else [()]
                    except psycopg.Error as e:  # a cast query errs on the first bad value: that is its answer
                        assert rule == "SC112" and (e.sqlstate or "").startswith("22"), (rule, sql, e)
                        continue
                    assert rows, (rule, sql)  # the scene holds a row each query must find
    finally:
        with pg_server.connect() as conn:
            conn.execute(f"DROP DATABASE {db}")


def test_mariadb_runs_the_sql_the_rules_write(mariadb_server, tmp_path):
    runnable = _runnable(tmp_path, MARIADB, "mariadb")
    assert len(runnable) == MARIADB.flagged, [(c, r) for c, r, _ in runnable]
    try:
        for change, rule, statements in runnable:
            conn = mariadb_server.connect(mariadb_server.create_database("names_in_sql"))
            try:
                cur = conn.cursor()
                for sql in (*MARIADB.tables.split(";\n"), *MARIADB.rows.split(";\n")):
                    cur.execute(sql)
                if change.endswith("-- run"):
                    cur.execute(change)
                for sql in statements:
                    cur.execute(sql)
                    if sql.upper().startswith("SELECT"):
                        assert cur.fetchall(), (rule, sql)
            finally:
                conn.close()
    finally:
        conn = mariadb_server.connect()
        try:
            conn.cursor().execute("DROP DATABASE IF EXISTS names_in_sql")
        finally:
            conn.close()


def test_postgres_reads_bare_only_the_keywords_left_bare(pg_server):
    """Every keyword PostgreSQL 15 lists: the server takes it bare as a table and column name
    exactly when quoted_name leaves it bare."""
    db = "names_in_sql_keywords"
    pg_server.create_database(db)
    try:
        with pg_server.connect(db) as conn:
            words = [w for (w,) in conn.execute("SELECT word FROM pg_get_keywords()").fetchall()]
            wrong = []
            for word in words:
                try:
                    conn.execute(f"CREATE TABLE {word} ({word} int)")
                    conn.execute(f"DROP TABLE {word}")
                    bare = True
                except psycopg.Error:
                    bare = False
                if bare != (quoted_name(word) == word):
                    wrong.append(word)
            assert not [w for w in wrong if quoted_name(w) == w], "left bare, refused bare"
    finally:
        with pg_server.connect() as conn:
            conn.execute(f"DROP DATABASE {db}")


def test_mariadb_reads_bare_only_the_keywords_left_bare(mariadb_server):
    """Every keyword MariaDB 10.11 lists that it refuses bare as a column name is one backquoted()
    quotes (it quotes a few more, reserved in MySQL 8.0)."""
    conn = mariadb_server.connect(mariadb_server.create_database("names_in_sql_keywords"))
    try:
        cur = conn.cursor()
        cur.execute("SELECT WORD FROM information_schema.KEYWORDS")
        refused = []
        for (word,) in cur.fetchall():
            if not re.fullmatch(r"\w+", word):
                continue
            try:
                cur.execute(f"CREATE TABLE kw ({word} int)")
                cur.execute("DROP TABLE kw")
            except MySQLdb.Error:
                refused.append(word)
        assert refused and [w for w in refused if backquoted(w.lower()) == w.lower()] == []
        cur.execute("DROP DATABASE names_in_sql_keywords")
    finally:
        conn.close()


@pytest.mark.parametrize("name", ["users", "Users", "order", "user id", "a`b"])
def test_backquoted_names_are_read_back_as_written(mariadb_server, name):
    conn = mariadb_server.connect(mariadb_server.create_database("names_in_sql_quoting"))
    try:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {backquoted(name)} ({backquoted(name)} int)")
        cur.execute("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = DATABASE()")
        assert cur.fetchall() == ((name, name),)
        cur.execute("DROP DATABASE names_in_sql_quoting")
    finally:
        conn.close()
