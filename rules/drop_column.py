"""drop-column: ALTER TABLE ... DROP COLUMN of a column the running release may still use."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import (
    STOP_USING_COLUMN,
    STOP_USING_DEFAULT,
    ColumnGoes,
    runner,
    unwritable,
    used_column,
)
from schemacite.sources.names import in_sql, relation_in_sql


class DropColumn(ColumnGoes):
    """Column dropped while the previous release may still read or write it.

    ## What it does
    Flags `ALTER TABLE ... DROP COLUMN` of a column of a table that existed before the deploy.
    A column added earlier in the same deploy, or of a table the deploy created, is not flagged;
    neither is a column the deploy adds back under the same name before it ends, nor one under
    a name an earlier rename of the deploy gave it (the rename is the finding).

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs, and
    ORMs name every column they know in their queries: Active Record caches the columns at
    start-up, Django lists them all in each SELECT. Once the column is gone, that release's
    reads and inserts of the table fail (PostgreSQL `42703 column does not exist`, MySQL and
    MariaDB `1054 Unknown column`) until its last process restarts.

    The rule cannot see whether the code stopped using the column in an earlier release. After
    such a deprecation, silence the finding where it stands with
    `-- schemacite: ignore[drop-column] no release reads it since 4.2` on the line before the
    statement, or record it in a baseline (`--write-baseline`).

    ## Fix
    A display-only template: the release that stops using the column, then the drop in a
    later one (with the ORM's words in the suggestion when the runner is Rails or Django).

    ## Example
    ```sql postgres
    ALTER TABLE orders DROP COLUMN customer_id;
    ```

    ## Use instead
    Stop using the column in one release, and drop it in the next:
    ```sql postgres
    -- release N: the code no longer reads or writes orders.customer_id
    -- release N+1:
    -- schemacite: ignore[drop-column] unused since release N
    ALTER TABLE orders DROP COLUMN customer_id;
    ```
    In Rails, deploy `self.ignored_columns += ["customer_id"]` on the model first; in Django, a
    migration whose `SeparateDatabaseAndState` holds only the `RemoveField` state operation,
    with the database operation in a later release. A NOT NULL column without a default needs
    a default (or DROP NOT NULL) first: code that no longer writes it cannot insert rows. That
    DROP NOT NULL is the one place drop-not-null (SC133) is harmless: suppress it there.

    ## References
    - [strong_migrations: Removing a column](https://github.com/ankane/strong_migrations#removing-a-column)
    - [django-migration-linter: Dropping a column](https://github.com/3YOURMIND/django-migration-linter/blob/main/docs/incompatibilities.md)
    - [Rails: ignored_columns](https://api.rubyonrails.org/classes/ActiveRecord/ModelSchema.html#method-c-ignored_columns)
    - [Django: SeparateDatabaseAndState](https://docs.djangoproject.com/en/stable/ref/migration-operations/#separatedatabaseandstate)
    """

    code = "SC114"
    name = "drop-column"
    summary = "Column {table}.{column} is dropped while the release still running may read or write it"
    statement_kinds = frozenset({"alter_table"})
    evidence = ("strong-migrations-removing-a-column", "django-migration-linter-incompatibilities")

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for action in stmt.actions:
            if action.op != "drop_column":
                continue
            column = used_column(ctx.schema, stmt.table, action.column)
            if column is None or (stmt.if_exists and stmt.table not in ctx.schema.tables):
                continue
            advice = STOP_USING_COLUMN.get(runner(ctx), STOP_USING_DEFAULT).format(
                column=column.name, what=f"{stmt.table}.{column.name}"
            )
            if unwritable(column):
                advice += (
                    "; it is NOT NULL without a default: give it one first, or inserts fail once code stops writing it"
                )
            finding = self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                dialect=ctx.dialect,
                identity=column.name,
                column=column.name,
                suggestion=advice,
            )
            finding.fix = Fix(
                "stop using the column in one release, drop it in the next",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"-- release N: the code stops reading and writing {column.name}\n"
                    f"-- release N+1, once no process of an older release runs:\n"
                    f"ALTER TABLE {relation_in_sql(stmt.table or '', ctx.dialect, stmt.sql)} "
                    f"DROP COLUMN {in_sql(column.name, ctx.dialect, stmt.sql)};"
                ),
            )
            yield finding
