"""insert-needs-new-column: a column the deploy adds that ends it NOT NULL with no default, which
the running release's inserts leave out."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Column, Schema
from schemacite.model.statements import AddColumn, Statement
from schemacite.rule import Context, Finding
from schemacite.rules.not_null_without_default import NotNullWithoutDefault, flags
from schemacite.rules.running_release import BreaksRunning, preexisting, runner

# how each runner's project keeps a default in the database
KEEP_DEFAULT = {
    "django": (
        "give the field db_default= (Django 5.0+), so the database keeps the default Django otherwise "
        "drops after filling the rows; or add it null=True and make it NOT NULL in a later release"
    ),
    "rails": "keep the default: add_column with default: and null: false, and no change_column_default to nil",
}
KEEP_DEFAULT_ANY = (
    "keep a default on the column (ALTER COLUMN {column} SET DEFAULT ...), or add it nullable and "
    "make it NOT NULL once every release running writes it"
)


def _required(column: Column) -> bool:
    """Whether an INSERT that leaves the column out fails: NOT NULL, no default, nothing that fills it."""
    return (
        not column.nullable
        and (column.default is None or column.default.strip().upper() == "NULL")
        and not (column.generated or column.identity or column.serial or column.auto_increment)
    )


class InsertNeedsNewColumn(BreaksRunning):
    """Column added NOT NULL with no default: the previous release's inserts leave it out and fail.

    ## What it does
    Flags `ALTER TABLE ... ADD COLUMN` on a table that existed before the deploy when the column
    ends the deploy NOT NULL with no default: added so, or added with a default that a later
    statement drops. That is what Django prints for a new field with a `default=` (the default
    fills the existing rows, then `DROP DEFAULT`, since Django applies defaults in Python). An
    identity, serial, `AUTO_INCREMENT` or generated column fills itself and is not flagged, nor
    is a column of a table the deploy created, nor one it drops again.

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs, and it
    has never heard of the column: its INSERTs name only the columns it knows, so the server has
    no value for the new one and refuses each row (PostgreSQL `23502 null value in column ...
    violates not-null constraint`; MySQL and MariaDB in strict mode `1364 Field ... doesn't have
    a default value`; outside strict mode they store the type's zero value with a warning). The
    inserts fail until the last process of that release stops, and again if the code is rolled
    back while the column stays.

    Whether existing rows let the column be added is another question, `not-null-without-default`'s.
    A column added NOT NULL with no default at all to a table that may hold rows is that rule's
    finding, which names the failing inserts too: this rule leaves it alone while that rule runs,
    and keeps the column added with a default the deploy then drops.

    ## Example
    ```sql postgres
    BEGIN;
    ALTER TABLE orders ADD COLUMN region text DEFAULT 'eu' NOT NULL;
    ALTER TABLE orders ALTER COLUMN region DROP DEFAULT;
    COMMIT;
    ```

    ## Use instead
    Keep the default in the database, so rows the old release inserts get it:
    ```sql postgres
    ALTER TABLE orders ADD COLUMN region text DEFAULT 'eu' NOT NULL;
    ```
    In Django 5.0 and later, `db_default='eu'` on the field keeps it; before, add the field with
    `null=True`, and make it NOT NULL in a release after the one that writes it.

    ## References
    - [django-migration-linter: Adding NOT NULL column with default value](https://github.com/3YOURMIND/django-migration-linter/blob/main/docs/incompatibilities.md)
    - [Django: Field.db_default](https://docs.djangoproject.com/en/stable/ref/models/fields/#db-default)
    """

    code = "SC130"
    name = "insert-needs-new-column"
    summary = (
        "Column {table}.{column} is added NOT NULL and ends the deploy without a default: the release "
        "still running inserts rows without it, and they fail"
    )
    statement_kinds = frozenset({"alter_table"})
    evidence = ("django-migration-linter-not-null",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for action in stmt.actions:
            if action.op != "add_column" or not isinstance(action, AddColumn):
                continue
            table = preexisting(ctx.schema, stmt.table)
            name = action.definition.name
            if table is None or not name or name in table.columns:
                continue
            if ctx.runs(NotNullWithoutDefault.name) and flags(stmt, action, ctx):
                continue  # added with nothing to fill it: one risk, one finding, not-null-without-default's
            advice = KEEP_DEFAULT.get(runner(ctx), KEEP_DEFAULT_ANY).format(column=name)
            if action.definition.default is not None:
                advice += f" (it was added with DEFAULT {action.definition.default})"
            yield self.finding(
                stmt.location,
                table=stmt.table,
                sql=stmt.sql,
                identity=name,
                column=name,
                suggestion=advice,
            )

    def answers(self, finding: Finding, schema: Schema) -> bool:
        # the finding stands only if the column ends the deploy required on a table still there
        table = schema.tables.get(finding.table or "")
        column = table.columns.get(finding.identity) if table is not None else None
        return column is None or not _required(column)
