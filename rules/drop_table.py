"""drop-table: DROP TABLE of a table the running release may still use."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite import hookimpl
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import DropTable as DropTableOp
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import STOP_USING_DEFAULT, STOP_USING_TABLE, TableGoes, preexisting, runner
from schemacite.sources.names import relation_in_sql


class DropTable(TableGoes):
    """Table dropped while the previous release may still read or write it.

    ## What it does
    Flags `DROP TABLE` of a table that existed before the deploy. A table the deploy created,
    a temporary table, a `DROP TABLE IF EXISTS` of a table the files never created, a table
    the deploy renamed to the name dropped (the rename is the finding), and a table the deploy
    creates again under the same name before it ends are not flagged.

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs. Its
    queries of the table fail once it is gone (PostgreSQL `42P01 relation does not exist`,
    MySQL and MariaDB `1146 Table doesn't exist`) until its last process stops, and a rollback
    of the code finds the table and its rows gone.

    The rule cannot see whether the code stopped using the table in an earlier release. After
    such a deprecation, silence the finding where it stands with
    `-- schemacite: ignore[drop-table] unused since 4.2` on the line before the statement, or
    record it in a baseline (`--write-baseline`).

    ## Fix
    A display-only template: the release that stops using the table, then the drop in a later one.

    ## Example
    ```sql postgres
    DROP TABLE orders;
    ```

    ## Use instead
    Stop using the table in one release, and drop it in the next:
    ```sql postgres
    -- release N: the code no longer reads or writes orders
    -- release N+1:
    -- schemacite: ignore[drop-table] unused since release N
    DROP TABLE orders;
    ```
    In Django, a migration whose `SeparateDatabaseAndState` holds only the `DeleteModel` state
    operation comes first, with the database operation in a later release.

    ## References
    - [django-migration-linter: Dropping a table](https://github.com/3YOURMIND/django-migration-linter/blob/main/docs/incompatibilities.md)
    - [Django: SeparateDatabaseAndState](https://docs.djangoproject.com/en/stable/ref/migration-operations/#separatedatabaseandstate)
    """

    code = "SC115"
    name = "drop-table"
    summary = "Table {table} is dropped while the release still running may read or write it"
    statement_kinds = frozenset({"drop_table"})
    evidence = ("django-migration-linter-incompatibilities",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        assert isinstance(op, DropTableOp)
        for name in op.tables:
            if preexisting(ctx.schema, name) is None or (op.if_exists and name not in ctx.schema.tables):
                continue
            finding = self.finding(
                stmt.location,
                table=name,
                sql=stmt.sql,
                dialect=ctx.dialect,
                suggestion=STOP_USING_TABLE.get(runner(ctx), STOP_USING_DEFAULT).format(table=name, what=name),
            )
            finding.fix = Fix(
                "stop using the table in one release, drop it in the next",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"-- release N: the code stops reading and writing {name}\n"
                    f"-- release N+1, once no process of an older release runs:\n"
                    f"DROP TABLE {relation_in_sql(name, ctx.dialect, stmt.sql)};"
                ),
            )
            yield finding


@hookimpl
def schemacite_rules():
    return [DropTable]
