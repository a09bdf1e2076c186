"""rename-table: RENAME TABLE / ALTER TABLE ... RENAME TO of a table the running release uses."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Schema
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import AlterView, Option, Statement
from schemacite.model.statements import RenameTable as RenameTableOp
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import TableGoes, preexisting
from schemacite.sources.names import in_sql, relation_in_sql, relation_key, written


def renames(stmt: Statement) -> list[tuple[str, str]]:
    """The (old, new) table or view names the statement renames, in order; a move to another
    schema (SET SCHEMA) is a rename to the schema-qualified name."""
    if isinstance(stmt.op, RenameTableOp):
        return list(stmt.op.pairs)
    if isinstance(stmt.op, AlterView):
        return [(stmt.op.name, stmt.op.new_name)] if stmt.op.new_name else []
    pairs = []
    for a in stmt.actions:
        if a.op == "rename_table" and hasattr(a, "new_name"):
            pairs.append((stmt.table or "", a.new_name))
        elif isinstance(a, Option) and a.op == "set_schema" and a.value and stmt.table:
            pairs.append((stmt.table, relation_key(a.value, stmt.table.rsplit(".", 1)[-1])))
    return pairs


def _view_in_use(schema: Schema, name: str) -> bool:
    """A view a running release may query: one from before the deploy, or one never seen (taken to exist)."""
    if name in schema.views:
        return name not in schema.fresh
    return name not in schema.tables and name not in schema.fresh


class RenameTable(TableGoes):
    """Table renamed while the previous release may still use its old name.

    ## What it does
    Flags `ALTER TABLE ... RENAME TO` and MySQL's and MariaDB's `RENAME TABLE` of a table that
    existed before the deploy, `ALTER VIEW` / `ALTER MATERIALIZED VIEW ... RENAME TO` of such a
    view, and `ALTER TABLE`, `ALTER VIEW` or `ALTER MATERIALIZED VIEW ... SET SCHEMA` (PostgreSQL):
    a move to another schema takes the name the running code uses away as a rename does. A table the deploy created is not flagged, nor one the deploy
    renamed already (the first rename is the finding), nor a rename whose
    old name the deploy gives back before it ends: the swap `RENAME TABLE t TO t_old, t_new TO
    t`, or a view under the old name.

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs, and
    its queries name the old table: they fail (PostgreSQL `42P01 relation does not exist`,
    MySQL and MariaDB `1146 Table doesn't exist`) until its last process stops.

    ## Fix
    A display-only template: the rename and a view under the old name, in one transaction on
    PostgreSQL (right after the rename on MySQL and MariaDB, whose DDL commits as it runs).

    ## Example
    ```sql postgres
    ALTER TABLE orders RENAME TO purchases;
    ```

    ## Use instead
    Keep the old name answering with a view until no release uses it. On PostgreSQL a view of
    one table with no aggregates or joins takes INSERT, UPDATE and DELETE (simple views are
    automatically updatable), and both statements commit together, so other sessions see the
    table renamed and the view in place at once:
    ```sql postgres
    BEGIN;
    ALTER TABLE orders RENAME TO purchases;
    CREATE VIEW orders AS SELECT * FROM purchases;
    COMMIT;
    ```
    MariaDB (checked in the suite) and MySQL (by its documentation) also update through such a
    view, but the two DDL statements commit one by one: queries in between fail. The view lists the columns the
    table had when it was made; drop it in a later release. Otherwise create the new table,
    write both, backfill, move reads, and drop the old one.

    ## References
    - [squawk: ban-set-schema](https://squawkhq.com/docs/ban-set-schema)
    - [squawk: renaming-object](https://squawkhq.com/docs/renaming-object)
    - [strong_migrations: Renaming a table](https://github.com/ankane/strong_migrations#renaming-a-table)
    - [PostgreSQL: CREATE VIEW, Updatable Views](https://www.postgresql.org/docs/current/sql-createview.html#SQL-CREATEVIEW-UPDATABLE-VIEWS)
    - [MySQL: Updatable and Insertable Views](https://dev.mysql.com/doc/refman/8.4/en/view-updatability.html)
    """

    code = "SC117"
    name = "rename-table"
    summary = "Table {table} is renamed to {new}: the release still running uses the old name"
    statement_kinds = frozenset({"alter_table", "rename_table", "alter_view"})
    evidence = ("strong-migrations-renaming",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        view = isinstance(stmt.op, AlterView)
        for old, new in renames(stmt):
            if view:
                if not _view_in_use(ctx.schema, old):
                    continue
            elif preexisting(ctx.schema, old) is None or (stmt.if_exists and old not in ctx.schema.tables):
                continue
            postgres = ctx.dialect == Dialect.POSTGRES
            was, now = relation_in_sql(old, ctx.dialect, stmt.sql), relation_in_sql(new, ctx.dialect, stmt.sql)
            keep = f"CREATE VIEW {was} AS SELECT * FROM {now};"
            moved = old.rsplit(".", 1)[-1] == new.rsplit(".", 1)[-1]
            what = ("Materialized view" if stmt.op.materialized else "View") if view else "Table"
            message = None
            if view or moved:
                done = f"moved to {now}" if moved else f"renamed to {written(new, ctx.dialect)}"
                message = f"{what} {written(old, ctx.dialect)} is {done}: the release still running uses the old name"
            finding = self.finding(
                stmt.location,
                table=old,
                sql=stmt.sql,
                dialect=ctx.dialect,
                new=new,
                message=message,
                suggestion=(
                    f"keep {old} answering: {keep} in the {'move' if moved else 'rename'}'s transaction, "
                    "dropped in a later release"
                    if postgres
                    else f"create {new} beside {old}, write both, backfill, move reads, then drop {old} later"
                ),
            )
            if view or moved:
                change = stmt.sql.strip().rstrip(";")
            else:
                # PostgreSQL's RENAME TO takes the bare name: the table stays in its schema
                change = f"ALTER TABLE {was} RENAME TO {in_sql(new.rsplit('.', 1)[-1], ctx.dialect, stmt.sql)}"
            finding.fix = Fix(
                "a view under the old name" if postgres else "a view under the old name, right after the rename",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"BEGIN;\n{change};\n{keep}\nCOMMIT;"
                    if postgres
                    else f"RENAME TABLE {was} TO {now};\n-- queries of {old} fail until the next statement\n{keep}"
                ),
            )
            yield finding
