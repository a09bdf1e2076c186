"""`lint --fix`, `--unsafe-fixes` and `--diff` on files, and fixes in the machine formats.

What the fixes do on the servers is proven in test_fixes_proven.py; here: what they do to files
(everything not edited kept byte for byte, CRLF and encodings included), when they apply, and how
they are reported.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from cli import run
from schemacite.model.fixes import Edit
from schemacite.sources.edits import apply, byte_range

HISTORY = "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint, total int);\n"
CHANGE = "-- orders by customer\nCREATE INDEX orders_customer ON orders (customer_id); -- keep\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "001_init.sql").write_text(HISTORY)
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\nhistory = ["001_init.sql"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fix_keeps_crlf_comments_and_the_rest_byte_for_byte(project, capsys):
    path = project / "002_index.sql"
    path.write_bytes(CHANGE.replace("\n", "\r\n").encode())
    code, out, err = run(capsys, "lint", "--fix", "002_index.sql")
    assert path.read_bytes() == (
        b"-- orders by customer\r\nCREATE INDEX CONCURRENTLY orders_customer ON orders (customer_id); -- keep\r\n"
    )
    assert code == 0 and "fixed 1 finding(s) in 1 file(s)" in err and "SC105" not in out
    # a second --fix changes nothing
    assert run(capsys, "lint", "--fix", "002_index.sql")[0] == 0
    assert b"CONCURRENTLY CONCURRENTLY" not in path.read_bytes()


@pytest.mark.parametrize(
    ("encode", "name"),
    [(lambda t: b"\xef\xbb\xbf" + t.encode(), "utf-8 with BOM"), (lambda t: t.encode("utf-16"), "utf-16")],
)
def test_fix_keeps_the_encoding(project, capsys, encode, name):
    path = project / "002_index.sql"
    path.write_bytes(encode(CHANGE))
    run(capsys, "lint", "--fix", "002_index.sql")
    assert path.read_bytes() == encode(CHANGE.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY")), name


def test_diff_changes_nothing_and_exits_1(project, capsys):
    path = project / "002_index.sql"
    path.write_text(CHANGE)
    code, out, err = run(capsys, "lint", "--diff", "002_index.sql")
    assert code == 1 and path.read_text() == CHANGE
    assert "-CREATE INDEX orders_customer" in out and "+CREATE INDEX CONCURRENTLY orders_customer" in out
    assert "would fix 1 finding(s) in 1 file(s)" in err
    path.write_text(CHANGE.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY"))
    code, out, _ = run(capsys, "lint", "--diff", "002_index.sql")
    assert (code, out) == (0, "")


def test_unsafe_fixes_only_when_asked(project, capsys):
    path = project / "002_column.sql"
    path.write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    code, out, _ = run(capsys, "lint", "002_column.sql")
    assert "1 fixable with --fix --unsafe-fixes." in out and "[*]" not in out
    assert run(capsys, "lint", "--fix", "002_column.sql")[0] == 1
    assert path.read_text() == "ALTER TABLE orders ADD COLUMN note text;\n"
    run(capsys, "lint", "--fix", "--unsafe-fixes", "002_column.sql")
    assert path.read_text() == "SET lock_timeout = '2s';\nALTER TABLE orders ADD COLUMN note text;\n"


def test_display_only_fixes_are_shown_never_applied(project, capsys):
    path = project / "002_type.sql"
    sql = "ALTER TABLE orders ALTER COLUMN total TYPE numeric(20, 2);\n"
    path.write_text(sql)
    code, out, _ = run(capsys, "lint", "--format", "json", "002_type.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC104"]
    assert finding["fix"]["applicability"] == "display-only" and finding["fix"]["edits"] == []
    assert "ADD COLUMN total_new numeric(20,2)" in finding["fix"]["template"]
    run(capsys, "lint", "--fix", "--unsafe-fixes", "002_type.sql")
    assert path.read_text().endswith(sql)  # only SC110's timeout went in, above it


def test_expand_and_swap_of_a_key_column_names_what_stays_with_the_old_one(project, capsys):
    """A primary key column keeps its NOT NULL (the key needs it) and the template names the key,
    the index and the foreign key that stay with the renamed old column."""
    (project / "001_init.sql").write_text(
        "CREATE TABLE users (id int PRIMARY KEY);\n"
        "CREATE TABLE tokens (id int PRIMARY KEY, user_id int NOT NULL,"
        " CONSTRAINT tokens_user FOREIGN KEY (user_id) REFERENCES users (id));\n"
        "CREATE INDEX tokens_by_user ON tokens (user_id);\n"
    )
    (project / "002_type.sql").write_text("ALTER TABLE tokens ALTER COLUMN id TYPE bigint;\n")
    (project / "003_type.sql").write_text("ALTER TABLE tokens ALTER COLUMN user_id TYPE bigint;\n")
    _, out, _ = run(capsys, "lint", "--format", "json", "002_type.sql", "003_type.sql")
    key, ref = [f["fix"]["template"] for f in json.loads(out)["findings"] if f["code"] == "SC104"]
    assert "SET NOT NULL" in key and "DROP NOT NULL" not in key, key
    assert "stay with the old column, now id_old: the primary key, any view" in key, key
    assert "ALTER COLUMN user_id DROP NOT NULL" in ref, ref
    assert "now user_id_old: index tokens_by_user, foreign key tokens_user, any view" in ref, ref


def test_fix_refuses_standard_input(project, capsys, monkeypatch):
    code, _, err = run(capsys, "lint", "--fix", "-", stdin=CHANGE.encode(), monkeypatch=monkeypatch)
    assert code == 2 and "--fix cannot write standard input back" in err


def test_sarif_and_json_carry_the_fix(project, capsys):
    (project / "002_index.sql").write_text(CHANGE)
    _, out, _ = run(capsys, "lint", "--format", "sarif", "002_index.sql")
    doc = json.loads(out)
    from pathlib import Path

    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(doc, schema)
    (result,) = doc["runs"][0]["results"]
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    (replacement,) = change["replacements"]
    assert replacement["deletedRegion"] == {"startLine": 2, "startColumn": 14, "endLine": 2, "endColumn": 14}
    assert replacement["insertedContent"]["text"] == "CONCURRENTLY " and "(safe)" in fix["description"]["text"]
    _, out, _ = run(capsys, "lint", "--format", "json", "002_index.sql")
    (edit,) = json.loads(out)["findings"][0]["fix"]["edits"]
    assert (edit["line"], edit["column"], edit["start_byte"], edit["end_byte"]) == (2, 14, 35, 35)


def test_byte_offsets_count_bytes_not_characters():
    raw = "-- é\nCREATE INDEX i ON t (a);\n".encode()
    edit = Edit.insert("f.sql", 2, 14, "CONCURRENTLY ")
    assert byte_range(raw, edit) == (19, 19)  # "é" is two bytes
    assert apply(raw, [edit]) == "-- é\nCREATE INDEX CONCURRENTLY i ON t (a);\n".encode()


def test_goose_file_opts_out_of_its_transaction(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001_init.sql").write_text("-- +goose Up\n" + HISTORY)
    path = tmp_path / "002_index.sql"
    path.write_text("-- +goose Up\nCREATE INDEX CONCURRENTLY orders_total ON orders (total);\n")
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--history", "001_init.sql", "002_index.sql")
    assert "SC106 [*]" in out
    run(capsys, "lint", "--fix", "--dialect", "postgres", "--history", "001_init.sql", "002_index.sql")
    assert path.read_text().startswith("-- +goose NO TRANSACTION\n-- +goose Up\n")


MYSQL_HISTORY = (
    "CREATE TABLE customers (id bigint PRIMARY KEY) ENGINE=InnoDB;\n"
    "CREATE TABLE orders (id bigint PRIMARY KEY, total int, code varchar(40)) ENGINE=InnoDB;\n"
    "CREATE TABLE lines (id bigint PRIMARY KEY, order_id bigint, FOREIGN KEY (order_id) REFERENCES orders (id));\n"
)


@pytest.mark.parametrize(
    ("target", "table", "tool"),
    [
        ("mariadb-10.11", "orders", "pt-online-schema-change --alter 'MODIFY total bigint' --alter-foreign-keys"),
        (
            "mysql-8.0",
            "customers",
            "gh-ost --host=<host> --user=<user> --ask-pass --database=<database> --table=customers",
        ),
        (
            "mysql-8.0",
            "orders",
            "pt-online-schema-change --alter 'MODIFY total bigint' --alter-foreign-keys-method=auto",
        ),
        # a quoted name is the table the reader named, not the blanks its quotes hold to the clause reader
        ("mysql-8.0", "`customers`", "--database=<database> --table=customers --alter='MODIFY id int'"),
        ("mariadb-10.11", "`shop`.`orders`", "h=<host>,u=<user>,D=<database>,t=orders --ask-pass"),
    ],
)
def test_mysql_with_no_online_algorithm_shows_a_tool_command_line(tmp_path, capsys, monkeypatch, target, table, tool):
    """gh-ost where it can run (MySQL, no foreign keys on either side), else pt-online-schema-change;
    the ALTER's own ALGORITHM/LOCK clauses are left out of the tool's --alter."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001_init.sql").write_text(MYSQL_HISTORY)
    (tmp_path / ".schemacite.toml").write_text('dialect = "mysql"\nhistory = ["001_init.sql"]\n')
    change = "MODIFY total bigint" if table.endswith("orders`") or table == "orders" else "MODIFY id int"
    (tmp_path / "002.sql").write_text(f"ALTER TABLE {table} {change}, LOCK=SHARED;\n")
    _, out, _ = run(capsys, "lint", "--target", target, "--format", "json", "002.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] in ("SC104", "SC105")]
    fix = finding["fix"]
    assert fix["applicability"] == "display-only" and fix["edits"] == [], fix
    assert tool in fix["template"] and "LOCK" not in fix["template"], fix["template"]


def test_mysql_pin_replaces_the_clauses_and_keeps_the_rest(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001_init.sql").write_text(MYSQL_HISTORY)
    (tmp_path / ".schemacite.toml").write_text('dialect = "mysql"\nhistory = ["001_init.sql"]\n')
    path = tmp_path / "002.sql"
    path.write_bytes(b"ALTER TABLE orders\r\n  LOCK = SHARED, -- keep\r\n  ADD INDEX orders_total (total);\r\n")
    code, _, err = run(capsys, "lint", "--fix", "--target", "mysql-8.0", "002.sql")
    assert path.read_bytes() == (
        b"ALTER TABLE orders\r\n  ALGORITHM=INPLACE, LOCK=NONE, -- keep\r\n  ADD INDEX orders_total (total);\r\n"
    ), err


@pytest.mark.parametrize(
    ("dialect", "sql", "template", "title"),
    [
        (
            "postgres",
            "CREATE TABLE logs (at timestamptz NOT NULL, msg text);",
            "ALTER TABLE logs ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;",
            "(rewrites the table, blocks reads and writes)",
        ),
        (
            "mariadb",
            "CREATE TABLE logs (at datetime NOT NULL, msg text);",
            "ALTER TABLE logs ADD COLUMN id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST;",
            "(rebuilds the table, blocks writes)",
        ),
        (
            "postgres",
            'CREATE TABLE "InvitedUsers" ("inviteeEmail" text NOT NULL);\n'
            'CREATE UNIQUE INDEX "InvitedUsers_inviteeEmail_key" ON "InvitedUsers" ("inviteeEmail");',
            'ALTER TABLE "InvitedUsers" ADD CONSTRAINT "InvitedUsers_pkey" PRIMARY KEY USING INDEX '
            '"InvitedUsers_inviteeEmail_key";',
            "without building another (a brief AccessExclusiveLock, no row read)",
        ),
        (
            # a UNIQUE constraint's index stays its constraint's; a nullable column's would need a scan
            "postgres",
            "CREATE TABLE tokens (token text NOT NULL UNIQUE, code text);\nCREATE UNIQUE INDEX tokens_code ON tokens (code);",
            "ALTER TABLE tokens ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;",
            "add an identity column as the primary key",
        ),
        (
            "mysql",
            "CREATE TABLE tokens (token varchar(40) NOT NULL, UNIQUE KEY (token));",
            "ALTER TABLE tokens ADD PRIMARY KEY (token);",
            "declare (token) the primary key (rebuilds the table)",
        ),
    ],
)
def test_no_primary_key_shows_the_key_to_add_and_its_cost(tmp_path, capsys, monkeypatch, dialect, sql, template, title):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001.sql").write_text(sql + "\n")
    _, out, _ = run(capsys, "lint", "--dialect", dialect, "--format", "json", "001.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC101"]
    fix = finding["fix"]
    assert fix["applicability"] == "display-only" and fix["edits"] == [], fix
    assert fix["template"].endswith("\n" + template) and title in fix["title"], fix


PARTITIONED_PG = "CREATE TABLE m (id bigint, taken_on date) PARTITION BY RANGE (taken_on);\n"
PARTITIONED_MARIADB = (
    "CREATE TABLE m (id bigint, taken_on date) PARTITION BY RANGE COLUMNS (taken_on) "
    "(PARTITION p0 VALUES LESS THAN (MAXVALUE));\n"
)


@pytest.mark.parametrize(
    ("target", "sql", "template", "title"),
    [
        (
            "postgres-16",
            PARTITIONED_PG,
            "ALTER TABLE m ADD PRIMARY KEY (id, taken_on);",
            "declare (id, taken_on) the primary key",
        ),
        (
            "postgres-16",
            PARTITIONED_PG.replace("id bigint", "v int"),
            "ALTER TABLE m ADD COLUMN id bigserial, ADD PRIMARY KEY (id, taken_on);",
            "add a bigserial column id, and (id, taken_on) as the primary key (rewrites the table",
        ),
        (
            "postgres-17",
            PARTITIONED_PG.replace("id bigint", "v int"),
            "ALTER TABLE m ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY, ADD PRIMARY KEY (id, taken_on);",
            "add an identity column id, and (id, taken_on) as the primary key (rewrites the table",
        ),
        (
            "mariadb-10.11",
            PARTITIONED_MARIADB,
            "ALTER TABLE m ADD PRIMARY KEY (id, taken_on);",
            "declare (id, taken_on) the primary key",
        ),
        (
            "mariadb-10.11",
            PARTITIONED_MARIADB.replace("id bigint", "v int"),
            "ALTER TABLE m ADD COLUMN id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT FIRST, ADD PRIMARY KEY (id, taken_on);",
            "add an AUTO_INCREMENT column id, and (id, taken_on) as the primary key",
        ),
    ],
)
def test_no_primary_key_on_a_partitioned_table_holds_the_partition_columns(
    tmp_path, capsys, monkeypatch, target, sql, template, title
):
    """Both servers refuse a key of a partitioned table that lacks a partition column (PostgreSQL
    SQLSTATE 0A000, MariaDB error 1503): the key proposed holds them all (proven on the servers in
    test_fixes_proven.py)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001.sql").write_text(sql)
    _, out, _ = run(capsys, "lint", "--target", target, "--format", "json", "001.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC101"]
    fix = finding["fix"]
    assert fix["applicability"] == "display-only" and fix["template"].endswith("\n" + template), fix
    assert fix["title"].startswith(title) and "every partition column" in fix["template"], fix


def test_no_primary_key_is_proposed_on_a_table_partitioned_by_an_expression(tmp_path, capsys, monkeypatch):
    """PostgreSQL refuses every primary key on such a table: the finding says so and offers no key."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001.sql").write_text(
        "CREATE TABLE e (id bigint, at timestamp) PARTITION BY RANGE (date_trunc('day', at));\n"
    )
    _, out, _ = run(capsys, "lint", "--dialect", "postgres", "--format", "json", "001.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC101"]
    assert finding["fix"] is None, finding
    assert "no primary key can be proposed" in finding["suggestion"], finding
    assert "RANGE (date_trunc('day', at))" in finding["suggestion"], finding


def test_readme_shows_what_diff_prints_on_the_demo(capsys, monkeypatch):
    import glob
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    readme = (root / "README.md").read_text()
    pattern = r"```text\n\$ schemacite lint (\S+) --diff --unsafe-fixes --fix-committed\n(.*?)```"
    (block,) = re.findall(pattern, readme, re.S)
    code, out, _ = run(capsys, "lint", *sorted(glob.glob(block[0])), "--diff", "--unsafe-fixes", "--fix-committed")
    assert code == 1 and out == block[1]


def test_sql_generated_from_code_gets_display_only_fixes(project, capsys):
    # Django's sqlmigrate prints the transaction it runs the migration in: the fix names the code
    (project / ".schemacite.toml").write_text(
        'dialect = "postgres"\nframework = "django"\nhistory = ["001_init.sql"]\n'
    )
    path = project / "0002_index.sql"
    sql = "BEGIN;\n--\n-- Create index orders_customer on field(s) customer_id of model order\n--\n" + (
        "CREATE INDEX orders_customer ON orders (customer_id);\nCOMMIT;\n"
    )
    path.write_text(sql)
    _, out, _ = run(capsys, "lint", "--format", "json", "0002_index.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC105"]
    fix = finding["fix"]
    assert fix["applicability"] == "display-only"
    assert "Django migration" in fix["title"] and "atomic = False" in fix["title"]
    # shown as sqlmigrate prints the migration once it says atomic = False: no BEGIN ... COMMIT
    shown = sql.encode()
    for edit in sorted(fix["edits"], key=lambda e: -e["start_byte"]):
        shown = shown[: edit["start_byte"]] + edit["text"].encode() + shown[edit["end_byte"] :]
    assert shown.decode() == sql.removeprefix("BEGIN;\n").replace("INDEX", "INDEX CONCURRENTLY").replace(
        "COMMIT;\n", ""
    )
    assert run(capsys, "lint", "--fix", "--unsafe-fixes", "0002_index.sql")[0] == 1
    assert path.read_text() == sql


@pytest.mark.parametrize(
    ("framework", "sql", "words"),
    [
        ("alembic", "-- Running upgrade a -> b\n\n" + CHANGE, "op.get_context().autocommit_block()"),
        ("rails", CHANGE, "disable_ddl_transaction!"),
    ],
)
def test_generated_sql_names_its_runners_way_out_of_the_transaction(project, capsys, framework, sql, words):
    (project / ".schemacite.toml").write_text(
        f'dialect = "postgres"\nframework = "{framework}"\nhistory = ["001_init.sql"]\n'
    )
    (project / "002_printed.sql").write_text(sql)
    _, out, _ = run(capsys, "lint", "--format", "json", "002_printed.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC105"]
    assert finding["fix"]["applicability"] == "display-only"
    assert f"({words} where it must run outside a transaction)" in finding["fix"]["title"], finding["fix"]


def _goose_project(tmp_path, monkeypatch, name: str, body: str):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "001_init.sql").write_text("-- +goose Up\n" + HISTORY)
    (tmp_path / ".schemacite.toml").write_text(
        'dialect = "postgres"\nframework = "goose"\nhistory = ["001_init.sql"]\n'
    )
    path = tmp_path / name
    path.write_text("-- +goose Up\n" + body)
    return path


def test_no_concurrently_inside_a_goose_statement_block(tmp_path, capsys, monkeypatch):
    # goose sends a StatementBegin ... StatementEnd block as one query: one implicit transaction
    block = (
        "-- +goose StatementBegin\nALTER TABLE orders ADD COLUMN c int;\n"
        "CREATE INDEX orders_total ON orders (total);\n-- +goose StatementEnd\n"
    )
    path = _goose_project(tmp_path, monkeypatch, "002_block.sql", block)
    _, out, _ = run(capsys, "lint", "--diff", "--unsafe-fixes", "002_block.sql")
    assert "CONCURRENTLY" not in out and "NO TRANSACTION" not in out
    path.write_text(
        "-- +goose Up\n-- +goose StatementBegin\nCREATE INDEX orders_total ON orders (total);\n-- +goose StatementEnd\n"
    )
    _, out, _ = run(capsys, "lint", "--diff", "002_block.sql")  # alone in its block: fixed
    assert "+CREATE INDEX CONCURRENTLY orders_total" in out and "+-- +goose NO TRANSACTION" in out


def test_an_opt_out_is_judged_before_the_timeout_it_changes(tmp_path, capsys, monkeypatch):
    # SC109's opt-out and SC110's timeout in one file: the timeout must suit the file as then run
    body = "ALTER TABLE orders ADD COLUMN status text;\nUPDATE orders SET status = 'new';\n"
    path = _goose_project(tmp_path, monkeypatch, "002_status.sql", body)
    run(capsys, "lint", "--fix", "--unsafe-fixes", "002_status.sql")
    text = path.read_text()
    assert "-- +goose NO TRANSACTION" in text and "SET lock_timeout = '2s';" in text
    assert "SET LOCAL" not in text  # outside any transaction it would do nothing


def test_a_one_query_file_gets_a_local_timeout(tmp_path, capsys, monkeypatch):
    # golang-migrate: once the SET joins it, the file is one implicit transaction; SET LOCAL ends with
    # it instead of staying on the runner's connection for the migrations after it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "000001_init.up.sql").write_text(HISTORY)
    (tmp_path / "000002_note.up.sql").write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    _, out, _ = run(capsys, "lint", "--dialect", "postgres", "--diff", "--unsafe-fixes", "000002_note.up.sql")
    assert "+SET LOCAL lock_timeout = '2s';" in out


def test_committed_graphile_migrations_are_not_edited(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    committed = tmp_path / "migrations" / "committed"
    committed.mkdir(parents=True)
    (committed / "000001.sql").write_text("--! Previous: -\n--! Hash: sha1:0\n\n" + HISTORY)
    (committed / "000002.sql").write_text("--! Previous: sha1:0\n--! Hash: sha1:1\n\n" + CHANGE)
    (tmp_path / "migrations" / "current.sql").write_text(CHANGE.replace("orders_customer", "orders_c2"))
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\nframework = "graphile-migrate"\n')
    _, out, _ = run(capsys, "lint", "--diff", "migrations/committed/000002.sql", "migrations/current.sql")
    assert "current.sql" in out and "committed/000002.sql" not in out


def test_diff_shows_what_fix_writes_with_a_new_side_file(tmp_path, capsys, monkeypatch):
    # Flyway: the first fix writes V2__index.sql.conf; the second statement is judged with it in place
    monkeypatch.chdir(tmp_path)
    (tmp_path / "V1__init.sql").write_text(HISTORY)
    (tmp_path / "V2__index.sql").write_text(
        "CREATE INDEX orders_total ON orders (total);\nCREATE INDEX orders_customer ON orders (customer_id);\n"
    )
    (tmp_path / ".schemacite.toml").write_text(
        'dialect = "postgres"\nframework = "flyway"\nhistory = ["V1__init.sql"]\n'
    )
    _, diff, err = run(capsys, "lint", "--diff", "--unsafe-fixes", "V2__index.sql")
    assert diff.count("+CREATE INDEX CONCURRENTLY") == 2 and "executeInTransaction=false" in diff
    would = err.split("would fix ")[1].split(" ")[0]
    _, _, err = run(capsys, "lint", "--fix", "--unsafe-fixes", "V2__index.sql")
    assert f"fixed {would} finding(s)" in err
    assert (tmp_path / "V2__index.sql").read_text().count("CONCURRENTLY") == 2


def test_the_timeout_the_fix_sets_comes_from_the_config(project, capsys):
    (project / ".schemacite.toml").write_text(
        'dialect = "postgres"\nhistory = ["001_init.sql"]\n[rules.lock-timeout-missing]\nfix_timeout_seconds = 0.5\n'
    )
    path = project / "002_column.sql"
    path.write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    run(capsys, "lint", "--fix", "--unsafe-fixes", "002_column.sql")
    assert path.read_text().startswith("SET lock_timeout = '500ms';\n")
    (project / ".schemacite.toml").write_text(
        'dialect = "postgres"\nhistory = ["001_init.sql"]\n[rules.lock-timeout-missing]\nfix_timeout_seconds = "soon"\n'
    )
    code, _, err = run(capsys, "lint", "002_column.sql")
    assert code == 2 and "fix_timeout_seconds must be float, not 'soon'" in err


def test_generated_sql_names_the_opt_out_where_the_rewrite_needs_it(project, capsys):
    # NOT VALID, then VALIDATE needs transactions of their own: Django's atomic = False, as CONCURRENTLY does
    (project / ".schemacite.toml").write_text(
        'dialect = "postgres"\nframework = "django"\nhistory = ["001_init.sql"]\n'
    )
    (project / "001_init.sql").write_text(HISTORY + "CREATE TABLE customers (id bigint PRIMARY KEY);\n")
    (project / "0002_fk.sql").write_text(
        "BEGIN;\nALTER TABLE orders ADD CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) "
        "REFERENCES customers (id);\nCOMMIT;\n"
    )
    _, out, _ = run(capsys, "lint", "--format", "json", "0002_fk.sql")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC105"]
    assert finding["fix"]["applicability"] == "display-only" and "atomic = False" in finding["fix"]["title"]


@pytest.mark.parametrize(
    ("init", "change", "made"),
    [
        ("20240101000000_init", "20240220101559_status", "20240220101600_concurrently"),  # a second later
        ("01_init", "09_status", "10_concurrently"),  # numbered by hand: the next number
    ],
)
def test_prisma_moves_the_index_into_a_migration_of_its_own(tmp_path, capsys, monkeypatch, init, change, made):
    # Prisma sends migration.sql as one query (one implicit transaction): CONCURRENTLY goes into a new
    # migration holding it alone, as `prisma migrate dev --create-only` makes one, never schema.prisma
    monkeypatch.chdir(tmp_path)
    migrations = tmp_path / "prisma" / "migrations"
    index = "CREATE INDEX orders_customer ON orders (customer_id);\n"
    for folder, sql in ((init, HISTORY), (change, "ALTER TABLE orders ADD COLUMN note text;\n" + index)):
        (migrations / folder).mkdir(parents=True)
        (migrations / folder / "migration.sql").write_text(sql)
    (migrations / "migration_lock.toml").write_text('provider = "postgresql"\n')
    _, out, _ = run(capsys, "lint", "--format", "json", "prisma/migrations")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC105"]
    title = finding["fix"]["title"]
    assert finding["fix"]["applicability"] == "unsafe" and f"new migration {made}/migration.sql" in title, title
    assert "prisma migrate dev --create-only" in title and "schema.prisma" not in title
    assert run(capsys, "lint", "--fix", "--unsafe-fixes", "prisma/migrations")[0] == 0  # nothing left
    assert (migrations / made / "migration.sql").read_text() == index.replace("INDEX", "INDEX CONCURRENTLY")
    assert "CREATE INDEX" not in (migrations / change / "migration.sql").read_text()


def test_prisma_moves_nothing_out_of_a_migration_another_follows(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    migrations = tmp_path / "prisma" / "migrations"
    index = "CREATE INDEX orders_customer ON orders (customer_id);\n"
    files = {"01_init": HISTORY, "02_index": "ALTER TABLE orders ADD COLUMN note text;\n" + index, "03_more": ""}
    for folder, sql in files.items():
        (migrations / folder).mkdir(parents=True)
        (migrations / folder / "migration.sql").write_text(sql)
    (migrations / "migration_lock.toml").write_text('provider = "postgresql"\n')
    _, out, _ = run(capsys, "lint", "--format", "json", "prisma/migrations")
    (finding,) = [f for f in json.loads(out)["findings"] if f["code"] == "SC105"]
    assert finding["fix"] is None


# ------------------------------------------------------------------ every runner's fixture project

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "cases"
CASE_DIRS = sorted(p for p in CASES.iterdir() if p.is_dir())
# their SQL is printed by the framework's own tool from code, and that code deploys: an edit of the
# printed SQL stands for a change to the code, which the fix's title names
PRINTED_FROM_CODE = {"django", "alembic", "rails"}


def _errors(capsys, spec: dict) -> collections.Counter:
    """The project's error findings and parse errors, by rule and file."""
    history = [a for h in spec.get("history", []) for a in ("--history", h)]
    code, out, err = run(capsys, "lint", "--output-format", "json", *history, *spec["paths"])
    assert code in (0, 1, 2), err
    doc = json.loads(out)
    found = collections.Counter((f["code"], f["file"]) for f in doc["findings"] if f["severity"] == "error")
    return found + collections.Counter(("parse error", e["file"]) for e in doc["errors"])


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_every_fix_offered_runs_under_the_runner(case_dir, tmp_path, capsys, monkeypatch):
    """Each runner's fixture project, fixed with every fix the tool applies (`--fix --unsafe-fixes`),
    lints with no error it did not have: a fix never puts a statement where its runner refuses it
    (CONCURRENTLY into a file sent as one query). A display-only fix's edits, made by hand in a file
    that deploys as it is, must not either."""
    spec = yaml.safe_load((case_dir / "expect.yml").read_text())
    history = [a for h in spec.get("history", []) for a in ("--history", h)]
    project = tmp_path / case_dir.name
    shutil.copytree(case_dir, project)
    monkeypatch.chdir(project)
    before = _errors(capsys, spec)
    _, out, _ = run(capsys, "lint", "--output-format", "json", *history, *spec["paths"])
    shown = [f for f in json.loads(out)["findings"] if f["fix"] and f["fix"]["applicability"] == "display-only"]

    code, _, err = run(capsys, "lint", "--fix", "--unsafe-fixes", *history, *spec["paths"])
    assert code in (0, 1), err
    new = _errors(capsys, spec) - before
    assert not new, f"the fixes made {dict(new)}"

    if spec.get("framework") in PRINTED_FROM_CODE:
        return
    for n, finding in enumerate(f for f in shown if f["fix"]["edits"]):
        by_hand = tmp_path / f"by-hand-{n}"
        shutil.copytree(case_dir, by_hand)
        monkeypatch.chdir(by_hand)
        edits = [
            Edit(e["path"], e["line"], e["column"], e["end_line"], e["end_column"], e["text"], e["create"])
            for e in finding["fix"]["edits"]
        ]
        for path in {e.path for e in edits}:
            target, mine = by_hand / path, [e for e in edits if e.path == path]
            target.parent.mkdir(parents=True, exist_ok=True)
            made = mine[0].text.encode() if mine[0].create else apply(target.read_bytes(), mine)
            target.write_bytes(made)
        new = _errors(capsys, spec) - before
        assert not new, f"{finding['fix']['title']!r} made by hand makes {dict(new)}"


# ------------------------------------------------------------------ which files --fix changes


@pytest.fixture
def committed_project(project, tmp_path):
    """A git work tree: the history and 002 committed; 003 committed, then edited; 004 staged, never
    committed; 005 unknown to git. Each of 002 to 005 holds an index a fix builds CONCURRENTLY."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@e", "HOME": str(tmp_path)}

    def git(*args):
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, env=env)

    def index(n: int) -> str:
        return f"CREATE INDEX orders_{n} ON orders (total);\n"

    git("init", "-q", "-b", "main")
    for n in (2, 3):
        (project / f"00{n}_index.sql").write_text(index(n))
    git("add", ".")
    git("commit", "-q", "-m", "base")
    (project / "003_index.sql").write_text("-- edited\n" + index(3))
    (project / "004_index.sql").write_text(index(4))
    git("add", "004_index.sql")
    (project / "005_index.sql").write_text(index(5))
    return project, git


def _concurrent(project) -> list[str]:
    return sorted(p.name for p in project.glob("00*.sql") if "CONCURRENTLY" in p.read_text())


def test_fix_leaves_committed_migrations_alone_and_names_them(committed_project, capsys):
    project, _ = committed_project
    code, out, err = run(capsys, "lint", "--diff", "002_index.sql", "003_index.sql", "004_index.sql", "005_index.sql")
    assert "+++ b/002_index.sql" not in out and out.count("+++ b/") == 3
    assert "note: 1 committed migration(s) not fixed, as they may be deployed already: 002_index.sql; " in err
    assert "--fix-committed fixes them too" in err
    run(capsys, "lint", "--fix", "002_index.sql", "003_index.sql", "004_index.sql", "005_index.sql")
    assert _concurrent(project) == ["003_index.sql", "004_index.sql", "005_index.sql"]
    code, out, err = run(capsys, "lint", "--fix", "--fix-committed", "002_index.sql")
    assert _concurrent(project) == ["002_index.sql", "003_index.sql", "004_index.sql", "005_index.sql"]
    assert "not fixed" not in err


def test_fix_since_a_revision_fixes_what_changed_since_it(committed_project, capsys):
    # committed on the branch since REV is part of the change, not yet deployed
    project, git = committed_project
    git("add", ".")
    git("commit", "-q", "-m", "more")
    code, out, err = run(capsys, "lint", "--fix", "--since", "HEAD~1", ".")
    assert _concurrent(project) == ["003_index.sql", "004_index.sql", "005_index.sql"] and "not fixed" not in err


def test_fix_outside_git_fixes_every_file(project, capsys):
    for n in (2, 3):
        (project / f"00{n}_index.sql").write_text(f"CREATE INDEX orders_{n} ON orders (total);\n")
    code, out, err = run(capsys, "lint", "--fix", "002_index.sql", "003_index.sql")
    assert _concurrent(project) == ["002_index.sql", "003_index.sql"] and "not fixed" not in err


def test_files_other_servers_also_run_are_not_edited(tmp_path, capsys, monkeypatch):
    """Migrations in semaphore's SQLite-and-MySQL mix, which the application rewrites for each
    server: `--fix --unsafe-fixes` leaves them as they are (PostgreSQL and SQLite refuse the
    `SET SESSION lock_wait_timeout` it would add), and the run says why in a note."""
    case = Path(__file__).resolve().parent.parent / "fixtures" / "cases" / "rewritten-per-server"
    shutil.copytree(case, tmp_path / "project")
    monkeypatch.chdir(tmp_path / "project")
    before = Path("db/sql/migrations/v1.1.0.sql").read_text()
    code, out, err = run(capsys, "lint", "--fix", "--unsafe-fixes", "db/sql/migrations")
    assert code == 1 and Path("db/sql/migrations/v1.1.0.sql").read_text() == before, err
    assert "carry SQLite syntax MySQL refuses (AUTOINCREMENT" in err and "fixed 0 finding(s)" in err, err
    assert "fixable" not in out, out
