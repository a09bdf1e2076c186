"""drop-database-or-schema: DROP DATABASE or DROP SCHEMA in a migration."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.dialects import MYSQL_FAMILY
from schemacite.model.listing import first_of
from schemacite.model.statements import DropObjects, Statement
from schemacite.rule import Context, Finding, Rule, Severity

SHOWN = 3  # tables named in a message; the rest are counted


class DropDatabaseOrSchema(Rule):
    """DROP DATABASE or DROP SCHEMA in a migration.

    ## What it does
    Flags `DROP DATABASE`, and `DROP SCHEMA` (on MySQL and MariaDB a synonym of
    `DROP DATABASE`), in a migration. The message names the tables the replayed history put in
    it. On PostgreSQL a `DROP SCHEMA` without `CASCADE` is not flagged (the server refuses it
    while the schema holds anything), nor one whose every known table the same deploy created,
    nor a `DROP SCHEMA IF EXISTS` of a schema the history puts no table in.

    ## Why is this bad?
    It removes every table in the database or schema, and their rows, at once: the release
    still running fails on each of them, and only a backup brings the data back. On PostgreSQL
    `DROP SCHEMA ... CASCADE` also drops whatever outside the schema depends on its objects
    (views, foreign keys); without `CASCADE` it fails unless the schema is empty. A migration
    that drops one is usually a development reset script run against the wrong database.

    ## Example
    ```sql postgres
    DROP SCHEMA billing CASCADE;
    ```

    ## Use instead
    ```sql postgres
    DROP TABLE billing.invoices_archive;
    ```
    Drop the tables that are no longer used, each once the running release no longer reads it;
    drop a whole database or schema by hand, after a backup, outside the migrations.

    ## References
    - [PostgreSQL: DROP SCHEMA](https://www.postgresql.org/docs/current/sql-dropschema.html)
    - [MySQL: DROP DATABASE](https://dev.mysql.com/doc/refman/8.4/en/drop-database.html)
    """

    code = "SC125"
    name = "drop-database-or-schema"
    family = "breaks-running-code"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "{statement} removes {what}: the running release loses them, and only a backup brings the data back"
    default_severity = Severity.ERROR
    statement_kinds = frozenset({"other"})
    evidence_note = "Documented behaviour (the statement removes every table in it): there is no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        if not isinstance(op, DropObjects) or op.object not in ("schema", "database"):
            return
        inside = sorted(k for k in ctx.schema.tables if k.split(".", 1)[0] in op.names and "." in k)
        if not inside and ctx.dialect not in MYSQL_FAMILY and "public" in op.names:
            inside = sorted(k for k in ctx.schema.tables if "." not in k)
        kind = "database" if op.object == "database" else "schema"
        if kind == "schema" and ctx.dialect not in MYSQL_FAMILY:
            if not op.cascade:
                return  # PostgreSQL refuses to drop a schema that holds anything without CASCADE
            if inside and all(ctx.schema.tables[k].new for k in inside):
                return  # every table in it is one this deploy created: nobody used them
            if not inside and op.if_exists:
                return  # IF EXISTS of a schema the history puts no table in
        if inside:
            what = f"every table of the {kind} ({first_of(inside, SHOWN)})"
        else:
            what = f"every table of the {kind}, and their rows"
        yield self.finding(
            stmt.location,
            sql=stmt.sql,
            statement=f"DROP {'SCHEMA' if op.what.endswith('SCHEMA') else 'DATABASE'} {', '.join(op.names)}",
            what=what,
            suggestion="take it out of the migration: drop the unused tables one by one, "
            f"or the {kind} by hand after a backup",
        )
