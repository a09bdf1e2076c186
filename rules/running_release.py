"""What the breaks-running-code rules share: a deploy's drops and renames judged against what the
deploy leaves behind, and the expand/contract steps in the words of the runner that deploys them.

During a rolling deploy the previous release keeps serving while the migration runs, and it
keeps its own idea of the schema (an ORM selects every column it knows by name). A name the
migration takes away fails that release's queries until the last of its processes stops.
"""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Column, Schema, Table
from schemacite.rule import Context, Finding, Rule, Severity

NOTHING_TO_MEASURE = (
    "The previous release's queries fail on a name that is gone: an error, not a cost, so there is "
    "nothing to measure; the citations are the peers' documentation of the hazard."
)

# how each runner's project stops using a column before the migration that drops it
STOP_USING_COLUMN = {
    "rails": 'deploy `self.ignored_columns += ["{column}"]` on the model first, then drop it in a later release',
    "django": (
        "first release a migration whose SeparateDatabaseAndState holds only the state operation "
        "(RemoveField), then drop the column (RunSQL) in a later release"
    ),
}
STOP_USING_TABLE = {
    "rails": "first deploy code with no model or query using {table}, then drop it in a later release",
    "django": (
        "first release a migration whose SeparateDatabaseAndState holds only the state operation "
        "(DeleteModel), then drop the table (RunSQL) in a later release"
    ),
}
STOP_USING_DEFAULT = "first deploy code that no longer reads or writes {what}, then drop it in a later release"


def runner(ctx: Context) -> str:
    return ctx.framework.name if ctx.framework is not None else ""


def preexisting(schema: Schema, table: str | None) -> Table | None:
    """The table a running release may use: one that existed before this deploy (a table never
    seen is taken to exist, as elsewhere; None when it was created in this deploy)."""
    if not table:
        return None
    found = schema.tables.get(table)
    if found is None:  # dropped by an earlier statement: nothing left to break
        return None if table in schema.gone or table in schema.fresh else Table(table, complete=False)
    # created, or named by a rename, in this deploy: the running release never used that name
    return None if found.new or table in schema.renamed_tables else found


def used_column(schema: Schema, table: str | None, column: str | None) -> Column | None:
    """The column of an existing table a running release may use: not one this deploy added, nor
    one a table known in full lacks (the statement then fails or, with IF EXISTS, does nothing)."""
    t = preexisting(schema, table)
    if t is None or not column or (t.name, column) in schema.fresh_columns:
        return None
    if column in t.columns:
        return t.columns[column]
    return None if t.complete else Column(column)


def unwritable(column: Column) -> bool:
    """Whether code that stops writing the column can no longer insert rows: NOT NULL, no default."""
    return (
        not column.nullable
        and column.default is None
        and not (column.generated or column.identity or column.serial or column.auto_increment)
    )


class BreaksRunning(Rule):
    """Base of the rules whose finding is a name the running release still uses going away."""

    family = "breaks-running-code"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    default_severity = Severity.WARNING
    evidence_note = NOTHING_TO_MEASURE

    def combine(self, findings: list[Finding], ctx: Context) -> Iterator[Finding]:
        # a name the deploy takes away and gives back (a table dropped and created again, RENAME
        # TABLE t TO t_old, t_new TO t, a view under the old name) still answers the old queries
        yield from (f for f in findings if not self.answers(f, ctx.schema))

    def answers(self, finding: Finding, schema: Schema) -> bool:
        """Whether the name the finding is about is there again once its deploy has run."""
        raise NotImplementedError


class TableGoes(BreaksRunning):
    def answers(self, finding: Finding, schema: Schema) -> bool:
        return finding.table in schema.tables or finding.table in schema.views


class ColumnGoes(BreaksRunning):
    # the finding's identity is the column's name
    def answers(self, finding: Finding, schema: Schema) -> bool:
        table = schema.tables.get(finding.table or "")
        return table is not None and finding.identity in table.columns
