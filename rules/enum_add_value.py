"""enum-add-value: a label ALTER TYPE ... ADD VALUE added, used before its transaction commits."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import AlterTable, Insert, Statement, Update
from schemacite.rule import Context, Finding, Rule, Severity


class EnumAddValue(Rule):
    """Enum label used in the transaction that added it.

    ## What it does
    Flags a statement that uses a label `ALTER TYPE ... ADD VALUE` added earlier in the same
    transaction (between `BEGIN` and `COMMIT`, or in the transaction the migration runner wraps
    each migration in): the statement holds the label as a string and casts to the enum type or
    touches a table with a column of it (an `INSERT` or `UPDATE` writing it, a `DEFAULT`, a
    `WHERE` comparing with it). From PostgreSQL 17 a type created in the same transaction is
    left out: the server lets that transaction use the labels added to it (12 to 16 refuse them too).

    The position `BEFORE` or `AFTER` gives the new label changes how existing labels sort
    relative to it, which `ORDER BY` and range comparisons on the column follow; that is a
    choice, not flagged.

    ## Why is this bad?
    PostgreSQL refuses the statement with "unsafe use of new value" until the transaction that
    added the label commits: the migration fails, and the label it added is rolled back with it.
    (Before PostgreSQL 12, `ADD VALUE` could not run in a transaction block at all; schemacite's
    targets start at 12.)

    ## Example
    ```sql postgres
    BEGIN;
    ALTER TYPE order_status ADD VALUE 'refunded';
    UPDATE orders SET status = 'refunded' WHERE refunded_at IS NOT NULL;
    COMMIT;
    ```

    ## Use instead
    ```sql postgres
    ALTER TYPE order_status ADD VALUE 'refunded';
    BEGIN;
    UPDATE orders SET status = 'refunded' WHERE refunded_at IS NOT NULL;
    COMMIT;
    ```
    In a framework's migration, put the `ALTER TYPE` in a migration of its own, before the
    one that uses the label.

    ## References
    - [PostgreSQL: ALTER TYPE, Notes](https://www.postgresql.org/docs/current/sql-altertype.html#SQL-ALTERTYPE-NOTES)
    """

    code = "SC128"
    name = "enum-add-value"
    family = "transactions"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "'{label}' is used in the transaction that added it to {type} at line {line}: the server refuses it"
    default_severity = Severity.ERROR
    dialects = frozenset({"postgres"})
    evidence = ("pg-doc-alter-type-add-value",)
    evidence_note = "Documented PostgreSQL behaviour (the statement is refused), checked on PostgreSQL 12 and 18 by the suite's tests."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        pending = ctx.schema.pending_labels
        if not pending or stmt.transaction is None or not any(tx == stmt.transaction for tx, _, _ in pending.values()):
            return
        # start-up: the PostgreSQL reader loads only when a label waits for its transaction to commit
        from schemacite.sources.postgres.reader import constants

        strings, types = constants(stmt.sql)
        for (type_, label), (tx, added, type_is_new) in pending.items():
            if tx != stmt.transaction or label not in strings or (type_is_new and ctx.version >= (17,)):
                continue
            if not _uses_type(stmt, type_, types, ctx):
                continue
            yield self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                label=label,
                type=type_,
                line=added.line,
                suggestion=f"commit the ALTER TYPE first: move it to a migration of its own, before this one "
                f"({ctx.transaction_why or 'BEGIN ... COMMIT'})",
            )


def _uses_type(stmt: Statement, type_: str, types: frozenset[str], ctx: Context) -> bool:
    """Whether the statement names the type, or a column of it that its string could go to: one it
    writes, compares or sets the default of."""
    if type_ in types:
        return True
    op = stmt.op
    for table, col in ctx.schema.columns_of_type(type_, arrays=True):
        if table.qualified_name not in op.relations():
            continue
        if isinstance(op, AlterTable):
            named = {a.column for a in op.actions}
        elif isinstance(op, (Insert, Update)):
            named = {*op.columns, *op.filtered_on} if op.columns else {col.name}
        else:
            named = set(getattr(op, "filtered_on", ())) or {col.name}
        if col.name in named:
            return True
    return False
