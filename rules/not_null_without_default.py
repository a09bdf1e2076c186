"""not-null-without-default: a NOT NULL column added to a table with rows, with nothing to fill them."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.locks import may_hold_rows
from schemacite.model.casts import implicit_default, zero_date
from schemacite.model.dialects import Dialect
from schemacite.model.schema import Column
from schemacite.model.statements import AddColumn, Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.sources.names import in_sql, written

# what `insert-needs-new-column` would say too: this rule's finding stands for both
OLD_INSERTS = "the release still running fails to insert rows without the column while it has no default"


class NotNullWithoutDefault(Rule):
    """NOT NULL column added without a default to a table that has rows.

    ## What it does
    Flags `ALTER TABLE ... ADD COLUMN c type NOT NULL` (or `PRIMARY KEY`) with no `DEFAULT` on a
    table that exists before the deploy. A column that fills itself is left alone: an identity,
    `serial` or `AUTO_INCREMENT` column, and a generated one. A table a snapshot shows empty
    (0 rows) is not flagged, nor is one created earlier in the same deploy; neither is an `ALTER
    TABLE IF EXISTS` of a table the history does not hold, nor an `ADD COLUMN IF NOT EXISTS` of a
    column the table has (both do nothing). A statement adding several such columns gives one
    finding naming them all (on MySQL and MariaDB, a column with a unique key gets its own: its
    outcome differs).

    ## Why is this bad?
    Each existing row needs a value for the new column, and the statement gives none.

    - PostgreSQL refuses the statement as soon as the table holds one row (`column "c" of
      relation "t" contains null values`, SQLSTATE 23502): the deploy stops there, with the
      statements before it applied unless one transaction holds them all. An error.
    - MySQL and MariaDB in strict mode do not refuse it: they fill every existing row with the
      type's implicit default (0, `''`, the first `ENUM` member, the zero date), which the
      statement never says. A warning: the old rows now hold a value nobody chose. Where that
      value is a zero date and `sql_mode` holds `NO_ZERO_DATE`, the server refuses the statement
      instead (`Incorrect date value: '0000-00-00'`); where the column is also `UNIQUE` or the
      `PRIMARY KEY`, every row holds the same value and a table of two rows refuses it (`Duplicate
      entry '0'`). Both are errors.

    Where the column is added, the release still running (which has never heard of it) inserts
    rows without it, and each fails while the column is NOT NULL with no default: the finding
    says so too, and `insert-needs-new-column` leaves such a column to this rule.

    Whether the statement blocks traffic, and for how long, is the lock rules' part
    (`access-exclusive-lock`, `write-blocking-lock`); this rule says only what the rows do to it.

    ## Example
    ```sql postgres
    ALTER TABLE accounts ADD COLUMN region text NOT NULL;
    ```

    ## Use instead
    ```sql postgres
    ALTER TABLE accounts ADD COLUMN region text NOT NULL DEFAULT 'eu';
    ```
    Where no one value fits the old rows: add the column nullable, backfill it in batches that
    each commit, then make it NOT NULL (on PostgreSQL after a validated
    `CHECK (region IS NOT NULL)`, so `SET NOT NULL` skips its scan).

    ## References
    - [PostgreSQL: ALTER TABLE](https://www.postgresql.org/docs/current/sql-altertable.html)
    - [MySQL: Data Type Default Values](https://dev.mysql.com/doc/refman/8.0/en/data-type-defaults.html)
    - [MySQL: Server SQL Modes, NO_ZERO_DATE](https://dev.mysql.com/doc/refman/8.0/en/sql-mode.html#sqlmode_no_zero_date)
    """

    code = "SC111"
    name = "not-null-without-default"
    family = "fails-on-rows"
    summary = "ADD COLUMN {column} NOT NULL without a DEFAULT {outcome}"
    default_severity = Severity.WARNING
    statement_kinds = frozenset({"alter_table"})
    evidence = ("pg-doc-alter-table-not-null", "mysql-doc-data-type-defaults")
    evidence_note = (
        "Documented server behaviour, checked on PostgreSQL and MariaDB by the suite: a refusal or a filled "
        "value, not a cost to measure."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        added = [a for a in stmt.actions if isinstance(a, AddColumn) and flags(stmt, a, ctx)]
        if not added:
            return
        table = ctx.schema.tables.get(stmt.table)
        where = (table.qualified_name if table is not None else stmt.table) or ""
        if ctx.dialect is Dialect.POSTGRES:
            # the server refuses the statement whichever column it meets first: one risk, one finding
            yield self._refused(stmt, [a.definition.name for a in added], where, ctx)
            return
        # MySQL and MariaDB fill each column: a key over one refuses the duplicates, the others keep
        # values nobody chose (together, one finding)
        for action in added:
            if action.primary or action.unique:
                yield self._duplicates(stmt, action, where, ctx)
        filled = [a for a in added if not (a.primary or a.unique)]
        if filled:
            yield self._filled(stmt, filled, where, ctx)

    def _refused(self, stmt: Statement, names: list[str], where: str, ctx: Context) -> Finding:
        checks = ", ".join(f"CHECK ({in_sql(n, ctx.dialect)} IS NOT NULL) NOT VALID" for n in names)
        if len(names) == 1:
            (name,) = names
            steps = f"add {name} nullable, backfill it in batches, add {checks}, VALIDATE it, then SET NOT NULL"
            every, them = "it", "it"
        else:
            steps = f"add each nullable, backfill them in batches, add {checks}, VALIDATE them, then SET NOT NULL"
            every, them = "each", "them"
        return self.finding(
            stmt.location,
            table=where,
            severity=Severity.ERROR,
            sql=stmt.sql,
            dialect=ctx.dialect,
            column=", ".join(names),
            outcome=f"fails on {written(where, ctx.dialect)} once it holds a row: PostgreSQL refuses it (contains null "
            f"values, 23502); where it passes, {OLD_INSERTS}",
            suggestion=f"give {every} a DEFAULT every old row may hold, and keep it while a release that leaves "
            f"{' and '.join(names)} out still runs; else {steps} once every release running writes {them}",
        )

    def _duplicates(self, stmt: Statement, action: AddColumn, where: str, ctx: Context) -> Finding:
        column = action.definition
        return self.finding(
            stmt.location,
            table=where,
            severity=Severity.ERROR,
            sql=stmt.sql,
            dialect=ctx.dialect,
            column=column.name,
            outcome=f"fails on {written(where, ctx.dialect)} once it holds two rows: {_server(ctx)} fills each with "
            f"{_filled_with(column)}, and its unique key refuses the duplicates",
            suggestion=f"add {column.name} NULL, backfill it in batches, then MODIFY it NOT NULL, then add the key",
        )

    def _filled(self, stmt: Statement, actions: list[AddColumn], where: str, ctx: Context) -> Finding:
        columns = [a.definition for a in actions]
        names = [c.name for c in columns]
        values = [_filled_with(c) for c in columns]
        filled = (
            f" with {values[0]}"
            if len(columns) == 1
            else ": " + ", ".join(f"{c.name} with {v}" for c, v in zip(columns, values, strict=True))
        )
        zeros = [f"{v} is no date" for c, v in zip(columns, values, strict=True) if zero_date(c)]
        zero = f"; a server whose sql_mode holds NO_ZERO_DATE refuses it ({', '.join(zeros)})" if zeros else ""
        listed = " and ".join(names)
        if len(names) == 1:
            later = f"add {listed} NULL, backfill it in batches, then MODIFY it NOT NULL once every release running writes it"
        else:
            later = f"add {listed} NULL, backfill them in batches, then MODIFY them NOT NULL once every release running writes them"
        return self.finding(
            stmt.location,
            table=where,
            sql=stmt.sql,
            dialect=ctx.dialect,
            column=", ".join(names),
            outcome=f"fills every existing row of {written(where, ctx.dialect)}{filled}: {_server(ctx)} strict mode "
            f"does not refuse it{zero}; then {OLD_INSERTS} (1364 in strict mode)",
            suggestion=f"give {'each' if len(names) > 1 else 'it'} the DEFAULT the old rows should hold, and keep it "
            f"while a release that leaves {listed} out still runs; or {later}",
        )


def _server(ctx: Context) -> str:
    return "MariaDB" if ctx.server is Dialect.MARIADB else "MySQL"


def _filled_with(column: Column) -> str:
    """The value MySQL and MariaDB give the old rows, as a message says it."""
    return implicit_default(column) or "the type's implicit default"


def flags(stmt: Statement, action: AddColumn, ctx: Context) -> bool:
    """Whether this rule reports the ADD COLUMN: NOT NULL with nothing to fill the rows of a table
    that may hold some. `insert-needs-new-column` leaves such a column to this rule when it runs."""
    if action.op != "add_column" or not _unfilled(action):
        return False
    if not may_hold_rows(stmt.table, ctx.schema):
        return False  # a table the change created, or one a snapshot counts empty
    table = ctx.schema.tables.get(stmt.table)
    if stmt.if_exists and table is None:
        return False  # ALTER TABLE IF EXISTS of a table the history does not hold: it changes nothing
    # ADD COLUMN IF NOT EXISTS of a column the table has: skipped
    return not (action.if_not_exists and table is not None and action.definition.name in table.columns)


def _unfilled(action: AddColumn) -> bool:
    """Whether the column is NOT NULL and nothing fills it in the existing rows."""
    column = action.definition
    not_null = not column.nullable or action.primary
    default = column.default is not None and column.default.strip().upper() != "NULL"
    fills = default or column.identity or column.serial or column.auto_increment or column.generated
    return not_null and not fills
