"""drop-not-null: a NOT NULL column of an existing table made nullable while the release still
running reads it as always holding a value."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Column, Schema
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import AddColumn, Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import BreaksRunning, preexisting
from schemacite.sources.names import in_sql, relation_in_sql


class DropNotNull(BreaksRunning):
    """NOT NULL column made nullable while the previous release reads it as never NULL.

    ## What it does
    Flags `ALTER TABLE ... ALTER COLUMN ... DROP NOT NULL` (PostgreSQL) and a `MODIFY` or
    `CHANGE` that leaves a NOT NULL column nullable (MySQL, MariaDB) on a table that existed
    before the deploy. A column the deploy added, a table the deploy created, a column already
    nullable, and a column the deploy makes NOT NULL again (or drops) before it ends are not
    flagged. On PostgreSQL a column of a table the files never created is taken to be NOT NULL
    (the statement says so); on MySQL and MariaDB, where `MODIFY` restates the whole column, only
    a column the history shows NOT NULL is judged.

    ## Why is this bad?
    The migration itself writes no NULL: the danger comes once the new release does. During a
    rolling deploy the previous release keeps serving, and its code was written for a column that
    always held a value: a NULL it reads fails a non-optional field (a Rust or Go struct, a
    Kotlin non-null type), raises in a template or a sum, or is taken for a real value. Reports,
    triggers and functions written in PL/pgSQL meet the same NULLs.

    It is harmless as the first step of dropping the column: code that stops writing a NOT NULL
    column without a default cannot insert rows, so the column is made nullable in the release
    that stops using it, and nothing reads it any more. Silence the finding there with
    `-- schemacite: ignore[drop-not-null] step before dropping the column` on the line before the
    statement, or record it in a baseline (`--write-baseline`).

    ## Fix
    A display-only template: the release that reads NULL safely first, then the DROP NOT NULL
    with the release that writes NULL.

    ## Example
    ```sql postgres
    ALTER TABLE shipments ALTER COLUMN shipped_at DROP NOT NULL;
    ```

    ## Use instead
    Expand, then contract: deploy code that handles a NULL in the column everywhere it reads it
    while still writing a value, then drop the constraint with the release that may write NULL,
    once no process of an older release runs:
    ```sql postgres
    -- release N: every reader handles shipments.shipped_at IS NULL; writers still set it
    -- release N+1:
    -- schemacite: ignore[drop-not-null] release N reads NULL safely
    ALTER TABLE shipments ALTER COLUMN shipped_at DROP NOT NULL;
    ```
    Where a NULL is only a stand-in for "no value yet", a marker value keeps the column NOT NULL
    and the old code working.

    ## References
    - [squawk: ban-drop-not-null](https://squawkhq.com/docs/ban-drop-not-null)
    - [PostgreSQL: ALTER TABLE, SET/DROP NOT NULL](https://www.postgresql.org/docs/current/sql-altertable.html)
    - [MySQL: ALTER TABLE, MODIFY COLUMN](https://dev.mysql.com/doc/refman/8.4/en/alter-table.html#alter-table-redefine-column)
    """

    code = "SC133"
    name = "drop-not-null"
    summary = "Column {table}.{column} {becomes}: the release still running reads it as never NULL"
    statement_kinds = frozenset({"alter_table"})
    evidence = ("squawk-ban-drop-not-null",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        table = preexisting(ctx.schema, stmt.table)
        if table is None or (stmt.if_exists and stmt.table not in ctx.schema.tables):
            return
        postgres = ctx.dialect == Dialect.POSTGRES
        for action in stmt.actions:
            if action.op == "drop_not_null":
                name = action.column or ""
            elif isinstance(action, AddColumn) and action.op in ("modify_column", "change_column"):
                if not action.definition.nullable or action.definition.identity or action.primary:
                    continue
                name = action.old_name or action.column or ""
            else:
                continue
            if not name or (table.name, name) in ctx.schema.fresh_columns:
                continue
            column = table.columns.get(name)
            if column is None:
                # PostgreSQL's DROP NOT NULL of a table never seen says the column was NOT NULL; a
                # MySQL MODIFY restates the column whatever it was
                if table.complete or not postgres:
                    continue
                column = Column(name, nullable=False)
            if column.nullable:
                continue
            becomes = "drops NOT NULL" if postgres else "is redefined nullable"
            finding = self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                dialect=ctx.dialect,
                identity=name,
                column=name,
                becomes=becomes,
                suggestion=(
                    f"first deploy code that reads a NULL in {stmt.table}.{name} safely (and still writes a value), "
                    "then allow NULL with the release that may write one; before dropping the column, "
                    "this step is harmless: suppress it there"
                ),
            )
            relation = relation_in_sql(stmt.table or "", ctx.dialect, stmt.sql)
            change = (
                f"ALTER TABLE {relation} ALTER COLUMN {in_sql(name, ctx.dialect, stmt.sql)} DROP NOT NULL;"
                if postgres
                else f"ALTER TABLE {relation} {action.text};"
            )
            finding.fix = Fix(
                "read NULL safely in one release, allow it in the next",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"-- release N: every reader of {name} handles NULL; writers still set a value\n"
                    f"-- release N+1, once no process of an older release runs:\n{change}"
                ),
            )
            yield finding

    def answers(self, finding: Finding, schema: Schema) -> bool:
        # NOT NULL again, or the column (or its table) gone, once the deploy has run
        table = schema.tables.get(finding.table or "")
        if table is None:  # dropped or renamed away by the deploy, or never seen (then still there)
            return finding.table in schema.gone or (finding.table, "") in schema.vacated
        column = table.columns.get(finding.identity)
        if column is None:
            return table.complete
        return not column.nullable
