"""rename-column: RENAME COLUMN (or MySQL CHANGE old new) of a column the running release uses."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import Action, AddColumn, Rename, Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import ColumnGoes, used_column
from schemacite.sources.names import in_sql, relation_in_sql


def renamed(action: Action) -> tuple[str, str] | None:
    """(old, new) when the action gives a column another name."""
    if isinstance(action, Rename) and action.op == "rename_column" and action.column:
        return action.column, action.new_name
    if isinstance(action, AddColumn) and action.op == "change_column" and action.old_name:
        if action.old_name != action.definition.name:
            return action.old_name, action.definition.name
    return None


class RenameColumn(ColumnGoes):
    """Column renamed while the previous release may still use its old name.

    ## What it does
    Flags `ALTER TABLE ... RENAME COLUMN old TO new`, and MySQL's and MariaDB's
    `CHANGE old new ...` when the names differ, on a column of a table that existed before the
    deploy. A column the deploy added, or one a later statement of the deploy gives its old
    name back, is not flagged, nor a second rename of a column the deploy renamed already (the
    first is the finding).

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs, and
    its queries name the old column: they fail (PostgreSQL `42703`, MySQL and MariaDB `1054
    Unknown column`) until its last process stops. A rename cannot be deployed in one step
    without errors; a rollback of the code fails the same way.

    ## Fix
    A display-only template: the new column added beside the old one, written and backfilled,
    and the old one dropped once no release reads it.

    ## Example
    ```sql postgres
    ALTER TABLE orders RENAME COLUMN customer_id TO buyer_id;
    ```

    ## Use instead
    Expand, then contract, over several releases:
    ```sql postgres
    ALTER TABLE orders ADD COLUMN buyer_id bigint;
    -- release N writes both columns; backfill buyer_id from customer_id in batches;
    -- release N+1 reads buyer_id; a later release drops customer_id
    ```

    ## References
    - [strong_migrations: Renaming a column](https://github.com/ankane/strong_migrations#renaming-a-column)
    - [PostgreSQL: ALTER TABLE](https://www.postgresql.org/docs/current/sql-altertable.html)
    - [MySQL: ALTER TABLE, renaming columns](https://dev.mysql.com/doc/refman/8.4/en/alter-table.html#alter-table-redefine-column)
    """

    code = "SC116"
    name = "rename-column"
    summary = "Column {table}.{column} is renamed to {new}: the release still running uses the old name"
    statement_kinds = frozenset({"alter_table"})
    evidence = ("strong-migrations-renaming",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for action in stmt.actions:
            names = renamed(action)
            if names is None:
                continue
            old, new = names
            column = used_column(ctx.schema, stmt.table, old)
            if column is None or (stmt.if_exists and stmt.table not in ctx.schema.tables):
                continue
            finding = self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                dialect=ctx.dialect,
                identity=old,
                column=old,
                new=new,
                suggestion=(
                    f"add {new} beside {old}, write both, backfill {new}, move reads to {new}, "
                    f"then drop {old} in a later release"
                ),
            )
            table = relation_in_sql(stmt.table or "", ctx.dialect, stmt.sql)
            finding.fix = Fix(
                "a new column written beside the old one, the old one dropped later",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"ALTER TABLE {table} ADD COLUMN {in_sql(new, ctx.dialect, stmt.sql)} {column.type or '<type>'};\n"
                    f"-- release N writes {old} and {new}; backfill {new} = {old} in batches\n"
                    f"-- release N+1 reads {new} only; then, once no older release runs:\n"
                    f"ALTER TABLE {table} DROP COLUMN {in_sql(old, ctx.dialect, stmt.sql)};"
                ),
            )
            yield finding
