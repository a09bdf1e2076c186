"""rename-schema: ALTER SCHEMA ... RENAME TO of a schema the running release may still name."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Schema
from schemacite.model.listing import first_of
from schemacite.model.statements import RenameSchema, Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import BreaksRunning

SHOWN = 3  # tables named in a message; the rest are counted


class RenameSchemaRule(BreaksRunning):
    """Schema renamed while the previous release may still name it.

    ## What it does
    Flags PostgreSQL's `ALTER SCHEMA ... RENAME TO` of a schema that existed before the
    deploy. A schema the deploy created is not flagged. The message names the tables the
    replayed history put in it.

    ## Why is this bad?
    Every table, view, sequence, type and function in the schema changes its qualified name at
    once. During a rolling deploy the previous release keeps serving, and its queries name the
    old schema, written out or through its `search_path`: they fail (`42P01 relation does not
    exist`) until its last process stops.

    ## Example
    ```sql postgres
    ALTER SCHEMA billing RENAME TO invoicing;
    ```

    ## Use instead
    Move the objects over several releases, as for a renamed table: create the new schema,
    move or copy each table with a view left under the old name, move the code, then drop the
    old schema once no release names it.
    ```sql postgres
    CREATE SCHEMA invoicing;
    ```

    ## References
    - [strong_migrations: Renaming a schema](https://github.com/ankane/strong_migrations#renaming-a-schema)
    - [PostgreSQL: ALTER SCHEMA](https://www.postgresql.org/docs/current/sql-alterschema.html)
    """

    code = "SC132"
    name = "rename-schema"
    summary = "Schema {schema} is renamed to {new} while the release still running may name it{inside}"
    dialects = frozenset({"postgres"})
    statement_kinds = frozenset({"other"})
    evidence = ("strong-migrations-renaming-enum-value-and-schema",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        if not isinstance(op, RenameSchema) or ("schema", op.name) in ctx.schema.fresh_objects:
            return
        tables = sorted(k for k in ctx.schema.tables if "." in k and k.split(".", 1)[0] == op.name)
        inside = f": its queries of {first_of(tables, SHOWN)} fail" if tables else ""
        yield self.finding(
            stmt.location,
            sql=stmt.sql,
            identity=op.name,
            schema=op.name,
            new=op.new_name,
            inside=inside,
            suggestion=(
                f"create {op.new_name} beside {op.name}, move each table with a view left under its old "
                f"name, move the code, and drop {op.name} once no release names it"
            ),
        )

    def answers(self, finding: Finding, schema: Schema) -> bool:
        return False  # the model keeps no schemas: a rename back is not seen
