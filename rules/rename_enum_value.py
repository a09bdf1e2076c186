"""rename-enum-value: ALTER TYPE ... RENAME VALUE of a label the running release may still use."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Schema
from schemacite.model.listing import first_of
from schemacite.model.statements import RenameEnumValue, Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import BreaksRunning

SHOWN = 3  # columns named in a message; the rest are counted


class RenameEnumValueRule(BreaksRunning):
    """Enum label renamed while the previous release may still read or write the old one.

    ## What it does
    Flags PostgreSQL's `ALTER TYPE ... RENAME VALUE` on an enum type that existed before the
    deploy. A type the deploy created is not flagged. The message names the columns of that
    type the replayed history knows.

    ## Why is this bad?
    The rename takes effect in every row at once. During a rolling deploy the previous release
    keeps serving, and it was written for the old label: each of its writes of that label
    fails (`22P02 invalid input value for enum`), and its reads get a label its code does not
    know, until its last process stops. A rollback of the code fails the same way.

    ## Example
    ```sql postgres
    ALTER TYPE order_status RENAME VALUE 'done' TO 'completed';
    ```

    ## Use instead
    Add the new label beside the old one, move the code and the rows to it, and stop using the
    old one:
    ```sql postgres
    ALTER TYPE order_status ADD VALUE 'completed' AFTER 'done';
    ```
    Then a release that reads both labels and writes the new one, and a backfill
    (`UPDATE orders SET status = 'completed' WHERE status = 'done'`, in batches). PostgreSQL
    cannot drop the old label short of replacing the type.

    ## References
    - [strong_migrations: Renaming an enum value](https://github.com/ankane/strong_migrations#renaming-an-enum-value)
    - [PostgreSQL: ALTER TYPE](https://www.postgresql.org/docs/current/sql-altertype.html)
    """

    code = "SC131"
    name = "rename-enum-value"
    summary = (
        "Label '{old}' of enum {type} is renamed to '{new}' while the release still running may read or "
        "write '{old}'{where}"
    )
    dialects = frozenset({"postgres"})
    statement_kinds = frozenset({"other"})
    evidence = ("strong-migrations-renaming-enum-value-and-schema",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        if not isinstance(op, RenameEnumValue) or ("type", op.name) in ctx.schema.fresh_objects:
            return
        columns = [f"{t.name}.{c.name}" for t, c in ctx.schema.columns_of_type(op.name, arrays=True)]
        where = f" (in {first_of(columns, SHOWN)})" if columns else ""
        yield self.finding(
            stmt.location,
            sql=stmt.sql,
            identity=f"{op.name}.{op.old}",
            type=op.name,
            old=op.old,
            new=op.new,
            where=where,
            suggestion=(
                f"ADD VALUE '{op.new}' beside '{op.old}', release code that reads both and writes '{op.new}', "
                f"backfill the rows, then stop using '{op.old}'"
            ),
        )

    def answers(self, finding: Finding, schema: Schema) -> bool:
        return False  # the model keeps no labels: a rename back is not seen
