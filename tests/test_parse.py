"""What the front-end reads out of real DDL, including the forms sqlglot does not parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemacite.sources.read import parse_text, read_sql_file

ROOT = Path(__file__).resolve().parents[1]


def one(sql: str, dialect: str = "postgres"):
    parsed = parse_text(sql, "t.sql", dialect)
    assert not parsed.errors, [str(e) for e in parsed.errors]
    assert len(parsed.statements) == 1
    return parsed.statements[0]


@pytest.mark.parametrize(
    "sql, kind, facts",
    [
        ("VACUUM FULL orders", "vacuum", {"full": True, "tables": ("orders",)}),
        ("VACUUM (FULL, ANALYZE) orders", "vacuum", {"full": True}),
        ("VACUUM ANALYZE orders", "vacuum", {"full": False}),
        ("CLUSTER orders USING orders_pkey", "cluster", {"name": "orders", "index": "orders_pkey"}),
        ("CLUSTER VERBOSE orders", "cluster", {"name": "orders"}),
        ("REINDEX TABLE CONCURRENTLY orders", "reindex", {"object": "table", "concurrently": True}),
        ("LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE NOWAIT", "lock_table", {"mode": "SHARE ROW EXCLUSIVE"}),
        ("LOCK orders", "lock_table", {"mode": "ACCESS EXCLUSIVE"}),
        ("CREATE RULE r AS ON INSERT TO orders DO INSTEAD NOTHING", "create_rule", {"on": "orders", "name": "r"}),
        ("REFRESH MATERIALIZED VIEW CONCURRENTLY mv", "refresh_matview", {"concurrently": True}),
        ("DROP INDEX CONCURRENTLY IF EXISTS a, b", "drop_index", {"concurrently": True, "names": ("a", "b")}),
        ("TRUNCATE ONLY a, b", "truncate", {"tables": ("a", "b"), "only": True}),
    ],
)
def test_maintenance_statements(sql, kind, facts):
    stmt = one(sql)
    assert stmt.kind == kind
    for k, v in facts.items():
        assert getattr(stmt.op, k) == v, k


def test_mysql_partition_forms():
    stmt = one(
        "CREATE TABLE t (id int, k int, PRIMARY KEY (id, k)) ENGINE=InnoDB PARTITION BY HASH(k) PARTITIONS 8", "mysql"
    )
    part = stmt.op.model.partitioning
    assert (part.method, part.columns) == ("hash", ("k",))
    stmt = one(
        "CREATE TABLE t (d date) PARTITION BY RANGE (YEAR(d)) "
        "(PARTITION p0 VALUES LESS THAN (2000), PARTITION p1 VALUES LESS THAN MAXVALUE)",
        "mysql",
    )
    assert stmt.op.model.partitioning.columns == ("d",)
    stmt = one("CREATE TABLE t (id int PRIMARY KEY) PARTITION BY KEY() PARTITIONS 2", "mysql")
    assert stmt.op.model.partitioning.uses_primary_key


def test_alter_table_actions_carry_what_locks_need():
    stmt = one(
        "ALTER TABLE ONLY orders ADD COLUMN n int NOT NULL DEFAULT random(), "
        "ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES accounts (id) NOT VALID, "
        "VALIDATE CONSTRAINT fk, ALTER COLUMN total TYPE bigint USING total::bigint"
    )
    assert stmt.op.only
    ops = [a.op for a in stmt.actions]
    assert ops == ["add_column", "add_foreign_key", "validate_constraint", "alter_column_type"]
    add, fk, validate, typ = stmt.actions
    (attach,) = one("ALTER TABLE orders ATTACH PARTITION orders_2024 FOR VALUES FROM (1) TO (2)").actions
    assert add.definition.default_calls == ("random",) and not add.definition.nullable
    assert (fk.key.name, fk.key.columns, fk.key.references, fk.key.ref_columns, fk.not_valid) == (
        "fk",
        ("a",),
        "accounts",
        ("id",),
        True,
    )
    assert validate.name == "fk"
    assert (typ.base_type, typ.using, typ.using_only_column) == ("int8", "total::bigint", True)
    assert (attach.partition, attach.bound) == ("orders_2024", "FOR VALUES FROM (1) TO (2)")


def test_mysql_alter_options_without_commas():
    stmt = one("ALTER TABLE t ADD INDEX i (a), ALGORITHM=INPLACE, LOCK=NONE, ENGINE=InnoDB ROW_FORMAT=DYNAMIC", "mysql")
    assert [(a.op, a.value) for a in stmt.actions[1:]] == [
        ("algorithm", "INPLACE"),
        ("lock", "NONE"),
        ("engine", "InnoDB"),
        ("row_format", "DYNAMIC"),
    ]
    assert stmt.actions[0].index.columns == ("a",)


def test_bad_statements_are_located_and_the_rest_still_parsed():
    parsed = parse_text(
        "CREATE TABLE ok1 (id int);\nCRATE TABLE x (a int);\nCREATE TABLE bad (a int;\n"
        "ALTER TABLE ok1 FROBNICATE;\nCREATE TABLE ok2 (id int);\n",
        "f.sql",
        "postgres",
    )
    # a CREATE TABLE refused stands in the replay for the table its head names (UnreadCreateTable)
    assert [(s.table, s.kind) for s in parsed.statements] == [
        ("ok1", "create_table"),
        ("bad", "other"),
        ("ok2", "create_table"),
    ]
    # PostgreSQL's own messages, at the line and column of the token it stopped at
    assert [(e.line, e.column, e.message) for e in parsed.errors] == [
        (2, 1, 'syntax error at or near "CRATE"'),
        (3, 24, "syntax error at end of input"),
        (4, 17, 'syntax error at or near "FROBNICATE"'),
    ]


def test_binary_and_non_utf8_files(tmp_path):
    b = tmp_path / "b.sql"
    b.write_bytes(b"\x00\x01\x02CREATE")
    assert str(read_sql_file(str(b), "mysql").errors[0]) == f"{b}:0: binary file, not SQL"
    latin = tmp_path / "l.sql"
    latin.write_bytes(b"SELECT 1;\nSELECT 'caf\xe9';\n")
    assert str(read_sql_file(str(latin), "mysql").errors[0]) == f"{latin}:2: not valid UTF-8 (byte 0xe9)"


def test_directives_attach_to_the_next_statement():
    parsed = parse_text(
        "-- schemacite: ignore[no-primary-key, SC104] legacy\nCREATE TABLE a (v int);\n"
        "-- schemacite: insert-heavy\nCREATE TABLE b (v int);\n",
        "f.sql",
        "postgres",
    )
    a, b = parsed.statements
    assert a.suppressed == {"no-primary-key", "sc104"} and not a.annotations
    assert b.annotations == {"insert-heavy"} and not b.suppressed


def test_mariadb_column_definitions_read_as_mysql():
    stmt = one("ALTER TABLE t ADD COLUMN c varchar(10) NOT NULL DEFAULT 'x' AFTER id", "mariadb")
    add = stmt.actions[0]
    assert (add.position, add.after, add.definition.base_type, add.definition.type_args) == (
        "after",
        "id",
        "varchar",
        "10",
    )


@pytest.mark.parametrize("dialect", ["mysql", "mariadb"])
def test_key_column_order_words_in_a_primary_key(dialect):
    # both servers accept ASC/DESC in a PRIMARY KEY's columns (ory/keto's migrations use it)
    stmt = one(
        "CREATE TABLE t (a int NOT NULL, b int NOT NULL, c int, PRIMARY KEY (a ASC, b DESC), KEY k (c DESC))", dialect
    )
    table = stmt.op.model
    assert table.primary_key.columns == ("a", "b")
    assert [i.columns for i in table.indexes if not i.primary] == [("c",)]


def test_mysql_generated_always_as_without_a_keyword_is_a_virtual_column_not_an_identity():
    """MySQL and MariaDB have no identity columns: `GENERATED ALWAYS AS (expr)` with neither STORED
    nor VIRTUAL is a virtual generated column, nullable unless it says otherwise."""
    sql = (
        'CREATE TABLE t (doc JSON, flag BOOLEAN GENERATED ALWAYS AS (doc->"$.f"), n INT GENERATED ALWAYS AS (1) STORED)'
    )
    columns = one(sql, "mysql").op.model.columns
    assert (columns["flag"].generated, columns["flag"].identity, columns["flag"].nullable) == ("virtual", None, True)
    assert columns["flag"].expression is not None and "doc" in columns["flag"].expression
    assert (columns["n"].generated, columns["n"].identity) == ("stored", None)


def test_an_inline_references_is_a_foreign_key_on_mariadb_and_nothing_on_mysql():
    from schemacite.model import Schema
    from schemacite.sources.replay import apply

    for dialect, keys in (("mariadb", [("p",)]), ("mysql", [])):
        schema = Schema(dialect)
        for sql in (
            "CREATE TABLE p (id int PRIMARY KEY)",
            "CREATE TABLE c (id int PRIMARY KEY, p_id int REFERENCES p (id))",
            "CREATE TABLE d (id int PRIMARY KEY)",
            "ALTER TABLE d ADD COLUMN p_id int REFERENCES p (id)",
        ):
            apply(schema, one(sql, dialect), new=False)
        assert [(fk.references,) for fk in schema.tables["c"].foreign_keys] == keys, dialect
        assert [(fk.references,) for fk in schema.tables["d"].foreign_keys] == keys, dialect


def test_ddl_inside_prepare_strings_and_called_procedures_is_read():
    sql = (
        "CREATE TABLE r (a int NOT NULL, b int NOT NULL);\n"
        "SET @s = (SELECT IF((SELECT 1) > 0, 'SELECT 1', 'ALTER TABLE r ADD COLUMN c int;'));\n"
        "PREPARE st FROM @s;\nEXECUTE st;\n"
        "CREATE PROCEDURE fix_pk()\nBEGIN\n  IF 1 THEN\n    ALTER TABLE r ADD PRIMARY KEY (a, b);\n  END IF;\nEND;\n"
        "CALL fix_pk();\n"
    )
    stmts = parse_text(sql, "m.sql", "mysql").statements
    embedded = [(s.location.line, [a.op for a in s.actions]) for s in stmts if s.embedded]
    assert embedded == [(2, ["add_column"]), (8, ["add_primary_key"])]
    # the procedure's DDL runs where it is called, after the table exists
    assert [s.kind for s in stmts].index("alter_table") > [s.kind for s in stmts].index("create_table")


def test_ddl_in_do_blocks_but_not_dynamic_format_strings():
    sql = (
        "DO $$\nBEGIN\n  IF NOT EXISTS (SELECT 1) THEN\n    ALTER TABLE t ADD COLUMN x bigint DEFAULT '0'::bigint;\n"
        "  END IF;\n  EXECUTE format('DROP INDEX %I', 'i');\nEND $$;\n"
    )
    parsed = parse_text(sql, "d.sql", "postgres")
    assert not parsed.errors
    assert [(s.location.line, s.kind) for s in parsed.statements if s.embedded] == [(4, "alter_table")]


# ---- MySQL CREATE TABLE in dump layout: the fast reading must equal sqlglot's ----------------


def _create_tables(text: str, dialect: str):
    import re

    from schemacite.sources.mysql.partition import find_partition_by
    from schemacite.sources.names import tokenize
    from schemacite.sources.split import split_sql

    for chunk in split_sql(text, dialect).chunks:
        if re.match(r"CREATE\s+(?:TEMPORARY\s+)?TABLE", chunk.text, re.I):
            body = chunk.text
            toks = tokenize(body) if re.search(r"PARTITION\s+BY", body, re.I) else []
            cut = find_partition_by(toks)
            yield body[: toks[cut].start] if cut >= 0 else body


def test_dump_layout_reading_equals_sqlglot_reading(tmp_path):
    import sys

    from schemacite.sources.mysql.create_table import read_dump_layout, sqlglot_parse, table_from_create

    sys.path.insert(0, str(ROOT / "bench"))
    from dump_scaling import make_dump

    corpus = ROOT.parent / "shared" / "corpus"
    generated = tmp_path / "generated-dump.sql"
    make_dump(str(generated), 0.3, "mysql")
    sources = [
        ROOT / "tests" / "data" / "mariadb-10.11-dump.sql",
        ROOT / "fixtures" / "demo" / "mysql" / "schema.sql",
        generated,
        *sorted(corpus.glob("*mysql*/**/*.sql")),
    ]
    accepted = 0
    for path in sources:
        for body in _create_tables(path.read_text(errors="replace"), "mysql"):
            fast = read_dump_layout(body, "mysql")
            if fast is None:
                continue
            accepted += 1
            slow_table, slow_refs = table_from_create(sqlglot_parse(body, "mysql"), "mysql")
            slow_table.name = fast[0].name
            assert fast == (slow_table, slow_refs), body
    assert accepted > 200  # the generated dump alone has about 220 tables


def test_dump_layout_hands_anything_else_to_sqlglot():
    from schemacite.sources.mysql.create_table import read_dump_layout

    assert read_dump_layout("CREATE TABLE `t` (\n  `a` int NOT NULL\n) ENGINE=InnoDB SELECT 1", "mysql") is None
    assert read_dump_layout("CREATE TABLE `t` (\n  `a` int NOT NULL PRIMARY KEY\n) ENGINE=InnoDB", "mysql") is None
    assert read_dump_layout("CREATE TABLE `t` (\n  `a` int,\n  KEY `k` ((`a` + 1))\n)", "mysql") is None
    table, refs = read_dump_layout(
        "CREATE TABLE `t` (\n  `a` int NOT NULL COMMENT 'x, y',\n  PRIMARY KEY (`a`)\n) ENGINE=MyISAM COMMENT='it''s'",
        "mysql",
    )
    assert (table.engine, list(table.columns), table.primary_key.columns, refs) == ("MyISAM", ["a"], ("a",), [])


def test_a_real_mariadb_dump_reads_without_errors(capsys):
    """mysqldump of MariaDB 10.11 (tests/data): the sandbox-mode line is a client command, spatial
    columns are read, and every table is known."""
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter

    result = Linter(load_config(None, {"dialect": "mariadb"})).lint(
        [str(ROOT / "tests" / "data" / "mariadb-10.11-dump.sql")]
    )
    assert result.errors == [] and result.statements > 40
    from schemacite.sources.read import parse_text

    parsed = parse_text((ROOT / "tests" / "data" / "mariadb-10.11-dump.sql").read_text(), "dump.sql", "mariadb")
    tables = {s.table: s.op.model for s in parsed.statements if s.kind == "create_table"}
    assert sorted(tables) == ["child", "geo", "logs", "parent", "parts"]
    assert tables["geo"].columns["p"].type == "POINT" and tables["child"].partitioning is None
    assert tables["parts"].partitioning.columns == ("d",)


# ---- PostgreSQL that the reader before PostgreSQL's own grammar refused -------------------------

REAL_POSTGRES = [
    # pagila: a range-typed column, an EXCLUDE constraint, enum and array columns, a domain
    ("CREATE TYPE public.mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17')", "other"),
    (
        "CREATE DOMAIN public.year AS integer CONSTRAINT year_check CHECK (((VALUE >= 1901) AND (VALUE <= 2155)))",
        "other",
    ),
    (
        "CREATE TABLE public.film (film_id integer DEFAULT nextval('public.film_film_id_seq'::regclass) NOT NULL,"
        " title text NOT NULL, rating public.mpaa_rating DEFAULT 'G'::public.mpaa_rating,"
        " special_features text[], fulltext tsvector NOT NULL)",
        "create_table",
    ),
    (
        "CREATE TABLE public.rental (rental_id integer NOT NULL, inventory_id integer NOT NULL,"
        " rental_period tstzrange, EXCLUDE USING gist (inventory_id WITH =, rental_period WITH &&))",
        "create_table",
    ),
    ("CREATE TEMPORARY TABLE staging (id int) ON COMMIT DROP", "create_table"),
    (
        "CREATE TABLE tags (id int PRIMARY KEY, names text[] DEFAULT '{}'::text[] NOT NULL,"
        " scores int[] DEFAULT ARRAY[1, 2])",
        "create_table",
    ),
    ("CLUSTER VERBOSE orders USING orders_pkey", "cluster"),
    ('CREATE TABLE "Documents" (id uuid PRIMARY KEY, format "public"."ImageFormat" NOT NULL)', "create_table"),
    ('ALTER TABLE "Documents" ALTER COLUMN format TYPE "ImageFormat" USING format::text::"ImageFormat"', "alter_table"),
    # PostgreSQL 18
    ("CREATE TABLE v18 (a int, b int GENERATED ALWAYS AS (a * 2) VIRTUAL)", "create_table"),
    ("ALTER TABLE v18 ADD CONSTRAINT a_nn NOT NULL a NOT VALID", "alter_table"),
    ("ALTER TABLE v18 ALTER CONSTRAINT fk NOT ENFORCED", "alter_table"),
]


@pytest.mark.parametrize("sql, kind", REAL_POSTGRES, ids=[s[:40] for s, _ in REAL_POSTGRES])
def test_real_postgres_reads(sql, kind):
    assert one(sql).kind == kind


def test_postgres_facts_from_real_forms():
    rental = one(REAL_POSTGRES[3][0]).op.model
    (excl,) = rental.indexes
    assert (excl.kind, excl.columns) == ("exclude", ("inventory_id", "rental_period"))
    film = one(REAL_POSTGRES[2][0]).op.model
    assert (film.columns["rating"].base_type, film.columns["special_features"].base_type) == ("mpaa_rating", "text[]")
    assert film.columns["film_id"].default_calls == ("nextval",)
    assert one(REAL_POSTGRES[4][0]).op.model.persistence == "temporary"
    virtual = one(REAL_POSTGRES[9][0]).op.model.columns["b"]
    assert (virtual.generated, virtual.expression) == ("virtual", "a * 2")
    (nn,) = one(REAL_POSTGRES[10][0]).actions
    assert (nn.op, nn.column, nn.not_valid, nn.constraint.name) == ("add_not_null", "a", True, "a_nn")
    (enforce,) = one(REAL_POSTGRES[11][0]).actions
    assert (enforce.op, enforce.name, enforce.enforced) == ("alter_constraint", "fk", False)


def _postgres_sources():
    """Every PostgreSQL text of the fixtures (files and YAML cases) and of the shared corpus."""
    import yaml

    corpus = ROOT.parent / "shared" / "corpus"
    for path in sorted([*corpus.glob("*postgres*/**/*.sql"), *(ROOT / "fixtures").rglob("*.sql")]):
        if "mysql" not in str(path):
            yield str(path), path.read_text()
    for path in sorted((ROOT / "fixtures" / "rules").glob("*.yml")):
        doc = yaml.safe_load(path.read_text())
        for name, case in doc["cases"].items():
            if case.get("dialect", doc.get("dialect")) == "postgres":
                for part in ("history", "sql"):
                    if case.get(part):
                        yield f"{path.name}::{name}::{part}", case[part]


def test_every_statement_postgres_accepts_is_read():
    """What PostgreSQL 18's grammar accepts, the reader reads: its only input errors are statements
    the grammar itself refuses."""
    from pglast import parser as pg

    checked = 0
    for name, text in _postgres_sources():
        parsed = parse_text(text, name, "postgres")
        checked += len(parsed.statements)
        for error in parsed.errors:
            lines = text.splitlines()
            statement = "\n".join(lines[error.line - 1 :])
            with pytest.raises(pg.ParseError):  # the grammar refuses it too
                pg.parse_sql(statement.split(";")[0])
    assert checked > 100


def test_statements_start_after_their_leading_comments():
    parsed = parse_text(
        "-- first\nCREATE TABLE a (v int);\n/* a /* nested */ note */\n  CREATE TABLE b (v int);\n"
        "SELECT 'é';\nCREATE TABLE c (v int) ;\n",
        "f.sql",
        "postgres",
    )
    assert not parsed.errors
    assert [(s.location.line, s.location.column, s.sql) for s in parsed.statements] == [
        (2, 1, "CREATE TABLE a (v int)"),
        (4, 3, "CREATE TABLE b (v int)"),
        (5, 1, "SELECT 'é'"),
        (6, 1, "CREATE TABLE c (v int)"),
    ]


def test_a_long_file_is_read_in_batches_and_one_bad_statement_costs_only_itself():
    from schemacite.sources.postgres import statements

    # `lower(...)` is read back from the text, at byte offsets that the 'é' before it shifts
    good = "".join(
        f"CREATE TABLE t{i} (id int PRIMARY KEY, low text DEFAULT lower('É{i}'), note text DEFAULT 'é{i}');\n"
        for i in range(3000)
    )
    text = good + "CREATE TABLE broken (id int;\n" + good.replace("CREATE TABLE t", "CREATE TABLE u")
    assert len(text) > 3 * statements._BATCH
    parsed = parse_text(text, "big.sql", "postgres")
    assert len(parsed.statements) == 6001  # the broken one stands in for its table
    assert [(e.line, e.message) for e in parsed.errors] == [(3001, "syntax error at end of input")]
    assert (parsed.statements[3000].location.line, parsed.statements[3000].table) == (3001, "broken")
    last = parsed.statements[-1]
    assert (last.location.line, last.table, last.op.model.columns["note"].default) == (6001, "u2999", "'é2999'")
    assert [parsed.statements[n].op.model.columns["low"].default for n in (2000, -1)] == [
        "lower('É2000')",
        "lower('É2999')",
    ]


@pytest.mark.parametrize(
    "long_one",
    [
        # each holds `;` ending a line where a batch is first cut: the guess fails, the scanner cuts
        "CREATE FUNCTION f() RETURNS void AS $$\nBEGIN\n" + "  PERFORM 1;\n" * 9000 + "END;\n$$ LANGUAGE plpgsql;\n",
        "COMMENT ON TABLE t0 IS '" + "a line;\n" * 12000 + "';\n",
        "/*\n" + "not sql;\n" * 12000 + "*/\nSELECT 1;\n",
    ],
    ids=["function body", "string", "comment"],
)
def test_a_batch_is_never_cut_inside_a_statement(long_one):
    from schemacite.sources.postgres import statements

    head = "".join(f"CREATE TABLE t{i} (id int PRIMARY KEY);\n" for i in range(200))
    tail = "".join(f"CREATE INDEX i{i} ON t0 (id);\n" for i in range(200))
    text = head + long_one + tail
    assert len(head) < statements._BATCH < len(head + long_one)
    parsed = parse_text(text, "big.sql", "postgres")
    assert parsed.errors == []
    assert len(parsed.statements) == 401
    assert [s.kind for s in parsed.statements[199:202]] == ["create_table", parsed.statements[200].kind, "create_index"]
    assert parsed.statements[-1].location.line == text.count("\n")


def test_psql_variables_stand_for_their_names():
    text = (
        "\\set schema app\n"
        "CREATE TABLE :schema.orders (id bigint PRIMARY KEY, tags int[]);\n"
        "ALTER TABLE :\"tbl\" ADD COLUMN note text DEFAULT :'dflt';\n"
        "SELECT tags[1:2], 'a:b', now()::date FROM orders;\n"
        "SELECT :;\n"
    )
    parsed = parse_text(text, "v.sql", "postgres")
    assert [(s.location.line, s.kind, s.table) for s in parsed.statements] == [
        (2, "create_table", "schema.orders"),
        (3, "alter_table", "tbl"),
        (4, "select", None),
    ]
    assert parsed.statements[1].op.actions[0].definition.default == "'dflt'"
    assert parsed.statements[1].sql.endswith("DEFAULT :'dflt'")  # shown as written
    assert [(e.line, e.message) for e in parsed.errors] == [(5, 'syntax error at or near ":"')]


def test_psql_meta_commands_after_code_end_or_leave_the_query():
    """`\\gset` and the other sending commands end a statement wherever they stand, as `;` does;
    backslashes inside strings are not commands."""
    text = (
        "SELECT id AS key_id FROM keys WHERE name = 'a\\gset' \\gset\n"
        "SELECT format('CREATE INDEX ON %I (c)', t)\n"
        "FROM tables\n"
        "\\gexec\n"
        "CREATE TABLE t (id int PRIMARY KEY);\n"
        "SELECT :'key_id' \\g\n"
    )
    parsed = parse_text(text, "s.sql", "postgres")
    assert not parsed.errors, [str(e) for e in parsed.errors]
    assert [(s.location.line, s.kind) for s in parsed.statements] == [
        (1, "select"),
        (2, "select"),
        (5, "create_table"),
        (6, "other"),  # a SELECT that reads no table
    ]
    assert parsed.statements[0].sql == "SELECT id AS key_id FROM keys WHERE name = 'a\\gset'"


@pytest.mark.parametrize(
    ("dialect", "sql", "later"),
    [
        # Synapse's schema files: a placeholder its runner fills in stands where the column type goes
        (
            "postgres",
            "CREATE TABLE t (id $%AUTO_INCREMENT_PRIMARY_KEY%$, x BIGINT NOT NULL);\n",
            "CREATE INDEX t_x ON t (x);\n",
        ),
        (
            "mysql",
            "CREATE TABLE t (id $%AUTO_INCREMENT_PRIMARY_KEY%$, x BIGINT NOT NULL);\n",
            "ALTER TABLE t ADD INDEX t_x (x);\n",
        ),
        (
            "postgres",
            '-- made by the runner\nCREATE UNLOGGED TABLE IF NOT EXISTS app."T" (id $%ID%$, x int);\n',
            'CREATE INDEX t_x ON app."T" (x);\n',
        ),
        (
            "mariadb",
            "/* made by the runner */\nCREATE TABLE IF NOT EXISTS `db`.`t` (id $%ID%$, x int);\n",
            "ALTER TABLE db.t ADD INDEX t_x (x);\n",
        ),
    ],
)
def test_a_table_whose_create_cannot_be_read_is_new_to_the_statements_after_it(tmp_path, capsys, dialect, sql, later):
    """The parse error is reported; the table it creates exists for the statements after it, new in
    this deploy, so locking it is no finding (it was "not seen in the history" before)."""
    import json

    from cli import run

    path = tmp_path / "001.sql"
    path.write_text(sql + later)
    code, out, err = run(capsys, "lint", "--no-cache", "--dialect", dialect, "--format", "json", str(path))
    assert code == 2 and f"{path}:{sql.count(chr(10))}" in err, err
    assert json.loads(out)["findings"] == []


def test_reading_postgres_leaves_pglasts_classes_unbuilt_until_asked_for():
    """The reader reads JSON parse trees: pglast's AST classes and enums (22 ms of a cold start)
    are built only when something asks for them, and are then the real modules."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from schemacite.sources.read import parse_text\n"
        "parsed = parse_text('CREATE INDEX i ON t (a);\\nALTER TABLE t ADD COLUMN b int;\\n', 't.sql', 'postgres')\n"
        "print([type(s.op).__name__ for s in parsed.statements])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pglast.enums.', 'pglast.printers'))))\n"
        "import pglast, pglast.ast\n"
        "from pglast.enums import AlterTableType\n"
        "stmt = pglast.parse_sql('ALTER TABLE t ADD COLUMN b int')[0].stmt\n"
        "print(type(stmt) is pglast.ast.AlterTableStmt, stmt.cmds[0].subtype is AlterTableType.AT_AddColumn)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["['CreateIndex', 'AlterTable']", "[]", "True True"]


def test_mariadb_or_replace_index_and_modify_if_exists_are_read_and_replayed(tmp_path):
    """MariaDB's CREATE OR REPLACE [UNIQUE] INDEX (an index of that name dropped first) and MODIFY
    / CHANGE [COLUMN] IF EXISTS (nothing where the column is missing): photoprism's migrations."""
    from schemacite.model import Schema
    from schemacite.sources.replay import apply

    sql = (
        "CREATE TABLE files (id int PRIMARY KEY, media_id varbinary(32), path varchar(10));\n"
        "CREATE INDEX idx_files_media ON files (path);\n"
        "CREATE OR REPLACE UNIQUE INDEX idx_files_media ON files (media_id);\n"
        "ALTER TABLE files MODIFY IF EXISTS path VARCHAR(1024);\n"
        "ALTER TABLE files MODIFY COLUMN IF EXISTS gone VARCHAR(10);\n"
        "ALTER TABLE files CHANGE IF EXISTS media_id media VARBINARY(64);\n"
    )
    parsed = parse_text(sql, "m.sql", "mariadb")
    assert not parsed.errors, [str(e) for e in parsed.errors]
    replace_index, modify, missing, change = parsed.statements[2:]
    assert (replace_index.op.or_replace, replace_index.op.index.unique) == (True, True)
    assert [(a.op, a.column, a.if_exists) for a in modify.actions + missing.actions + change.actions] == [
        ("modify_column", "path", True),
        ("modify_column", "gone", True),
        ("change_column", "media_id", True),
    ]
    schema = Schema("mariadb")
    for stmt in parsed.statements:
        apply(schema, stmt, new=False)
    files = schema.tables["files"]
    assert [(i.name, i.columns, i.unique) for i in files.indexes] == [("idx_files_media", ("media",), True)]
    assert list(files.columns) == ["id", "media", "path"]  # as SHOW CREATE TABLE lists them on MariaDB 10.11
    assert files.columns["path"].type_args == "1024"


def test_sqlglot_falling_back_to_a_command_says_nothing_unlocated(caplog):
    """The statement sqlglot cannot read is reported once, located; sqlglot's own warning (on
    stderr, with no file or line) is kept back."""
    parsed = parse_text("CREATE TABLE u (a int) WITH SYSTEM VERSIONING;\n", "u.sql", "mariadb")
    assert [(e.line, e.message) for e in parsed.errors] == [(1, "cannot parse CREATE TABLE")]
    assert not [r for r in caplog.records if "Falling back" in r.getMessage()]


def test_mysql_column_order_follows_renames_first_and_after():
    """A column renamed (CHANGE, RENAME COLUMN) keeps its place; FIRST and AFTER move it: the order
    decides whether an ADD COLUMN ... AFTER goes last."""
    from schemacite.model import Schema
    from schemacite.sources.replay import apply

    sql = (
        "CREATE TABLE t (id int PRIMARY KEY, a int, b int, c int);\n"
        "ALTER TABLE t CHANGE a a2 bigint;\n"
        "ALTER TABLE t MODIFY c int FIRST;\n"
        "ALTER TABLE t ADD COLUMN d int AFTER a2;\n"
        "ALTER TABLE t RENAME COLUMN b TO b2;\n"
        "ALTER TABLE t MODIFY id bigint AFTER b2;\n"
    )
    parsed = parse_text(sql, "t.sql", "mysql")
    assert not parsed.errors
    schema = Schema("mysql")
    orders = []
    for stmt in parsed.statements:
        apply(schema, stmt, new=False)
        orders.append(list(schema.tables["t"].columns))
    assert orders[1:] == [
        ["id", "a2", "b", "c"],
        ["c", "id", "a2", "b"],
        ["c", "id", "a2", "d", "b"],
        ["c", "id", "a2", "d", "b2"],
        ["c", "a2", "d", "b2", "id"],
    ]
