"""duplicate-column-assignment: one ALTER TABLE that changes the same column twice."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Action, AlterTable, CreateTable, CreateView, Insert, Merge, Statement, Update
from schemacite.rule import Context, Finding, Rule, Severity

# sub-commands that name a column the table has before the statement: MySQL and MariaDB match each
# against the table's columns once, so a second one naming the same column finds none
MYSQL_EXISTING = frozenset(
    {
        "modify_column",
        "change_column",
        "set_default",
        "drop_default",
        "drop_column",
        "rename_column",
        "alter_column_visibility",
    }
)
# PostgreSQL runs an ALTER TABLE's sub-commands in passes, every DROP before any SET: a DROP written
# after the SET of the same attribute runs first, and the SET is what stays
PG_UNDONE = {"drop_default": "set_default", "drop_not_null": "set_not_null"}


class DuplicateColumnAssignment(Rule):
    """One ALTER TABLE changes the same column twice.

    ## What it does
    Flags an `ALTER TABLE` whose sub-commands change one column more than once:

    - PostgreSQL: two `ALTER COLUMN ... TYPE` of one column, which it refuses ("cannot alter type
      of column twice"), and a `DROP DEFAULT` or `DROP NOT NULL` written after the `SET DEFAULT`
      or `SET NOT NULL` of the same column, which it accepts and undoes: it runs every DROP
      before any SET, so the column keeps the default or the NOT NULL the statement drops last.
    - MySQL and MariaDB: any two of `MODIFY`, `CHANGE`, `ALTER COLUMN ... SET|DROP DEFAULT`,
      `RENAME COLUMN` and `DROP COLUMN` naming one column: the server matches each against the
      table's columns once, and refuses the second with "Unknown column" (error 1054).

    A `SET DEFAULT` given twice on PostgreSQL keeps the last one, as written, and is not flagged.
    PostgreSQL also refuses an `UPDATE` (or `INSERT ... ON CONFLICT DO UPDATE`, or a `MERGE` clause)
    that sets a column twice and an `INSERT` that lists one twice, unless each names a different
    field or element of it (`SET a.x = 1, a.y = 2`): those are flagged too. So are a `CREATE TABLE`
    that declares a column twice and a view, materialized view, `CREATE TABLE ... AS` or
    `SELECT ... INTO` whose columns come out under one name twice ("column specified more than
    once"): named so in its column list or select list, or named alike by the server (two
    constants are both `?column?`, two `count(*)` both `count`). MySQL and MariaDB run an
    `UPDATE`'s assignments in order, so a repeated one there is left alone.

    ## Why is this bad?
    Where the server refuses it, the migration fails when it runs. Where PostgreSQL accepts it,
    the column is left with the opposite of what the statement reads as: a default or a NOT NULL
    that the migration meant to remove stays, and nothing reports it.

    ## Example
    ```sql postgres
    ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'new', ALTER COLUMN status DROP DEFAULT;
    ```

    ```sql mysql
    ALTER TABLE orders MODIFY status VARCHAR(20) NOT NULL, ALTER COLUMN status SET DEFAULT 'new';
    ```

    ## Use instead
    ```sql postgres
    ALTER TABLE orders ALTER COLUMN status DROP DEFAULT;
    ```

    ```sql mysql
    ALTER TABLE orders MODIFY status VARCHAR(20) NOT NULL DEFAULT 'new';
    ```

    ## References
    - [PostgreSQL: ALTER TABLE](https://www.postgresql.org/docs/current/sql-altertable.html)
    - [MySQL: ALTER TABLE Statement](https://dev.mysql.com/doc/refman/8.4/en/alter-table.html)
    """

    code = "SC127"
    name = "duplicate-column-assignment"
    family = "silent-changes"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "{what}"
    default_severity = Severity.WARNING
    statement_kinds = frozenset(
        {
            "alter_table",
            "update",
            "insert",
            "merge",
            "create_table",
            "create_partition",
            "create_table_as",
            "create_view",
            "create_matview",
        }
    )
    evidence_note = (
        "Server behaviour checked on PostgreSQL 12 and 18 and on MariaDB by the suite's tests; MySQL is "
        "taken to refuse it as MariaDB does (no MySQL server here): the same column matching."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        if isinstance(op, (Insert, Update, Merge)) and op.repeated:
            yield self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                severity=Severity.ERROR,
                what=f"PostgreSQL refuses this {stmt.kind.upper()}: it assigns column {op.repeated[0]} twice",
                suggestion="keep one assignment of the column",
            )
            return
        if isinstance(op, (CreateTable, CreateView)) and op.repeated:
            what = {
                "create_table": "CREATE TABLE",
                "create_partition": "CREATE TABLE",
                "create_table_as": "CREATE TABLE AS",
                "create_view": "CREATE VIEW",
                "create_matview": "CREATE MATERIALIZED VIEW",
            }[stmt.kind]
            yield self.finding(
                stmt.location,
                table=stmt.table or stmt.target,
                sql=stmt.sql,
                severity=Severity.ERROR,
                what=f"PostgreSQL refuses this {what}: column {op.repeated[0]} is specified more than once (42701)",
                suggestion="give each column its own name (an alias in the select list, or the column list)",
            )
            return
        if not isinstance(op, AlterTable):
            return
        pairs = _mysql_pairs(op.actions) if ctx.dialect.is_mysql_family else _pg_pairs(op.actions)
        for first, second, refused in pairs:
            if refused:
                server = "PostgreSQL" if ctx.dialect == "postgres" else "the server"
                what = (
                    f"{server} refuses this ALTER TABLE: {second.text} changes column {first.column} "
                    f"again after {first.text}"
                )
                suggestion = "merge the two changes into one sub-command, or split them into two ALTER TABLE statements"
            else:
                what = (
                    f"{second.text} of column {first.column} runs before {first.text}: the column keeps "
                    "what the statement drops"
                )
                suggestion = "leave out the SET, or drop in a separate ALTER TABLE after it"
            yield self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                severity=Severity.ERROR if refused else None,
                what=what,
                suggestion=suggestion,
            )


def _mysql_pairs(actions: list[Action]) -> Iterator[tuple[Action, Action, bool]]:
    seen: dict[str, Action] = {}
    for a in actions:
        if a.op not in MYSQL_EXISTING or not a.column:
            continue
        if a.column in seen:
            yield seen[a.column], a, True
        else:
            seen[a.column] = a


def _pg_pairs(actions: list[Action]) -> Iterator[tuple[Action, Action, bool]]:
    seen: dict[tuple[str, str | None], Action] = {}
    for a in actions:
        if a.op == "alter_column_type" and ("alter_column_type", a.column) in seen:
            yield seen["alter_column_type", a.column], a, True
        undone = PG_UNDONE.get(a.op)
        if undone is not None and (undone, a.column) in seen:
            yield seen[undone, a.column], a, False
        seen.setdefault((a.op, a.column), a)
