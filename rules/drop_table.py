"""drop-table: DROP TABLE or DROP VIEW of a relation the running release may still use, and a table
dropped and created again, rows lost."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.fixes import Applicability, Fix
from schemacite.model.record import replace
from schemacite.model.statements import CreateTable, DropView, Statement
from schemacite.model.statements import DropTable as DropTableOp
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import STOP_USING_DEFAULT, STOP_USING_TABLE, TableGoes, preexisting, runner
from schemacite.sources.names import relation_in_sql, written

KNOWN, UNSEEN, CREATED = "table", "table never seen", "created again"


class DropTable(TableGoes):
    """Table or view dropped while the previous release may still use it, or a table created again empty.

    ## What it does
    Flags `DROP TABLE` of a table that existed before the deploy, and `DROP VIEW` / `DROP
    MATERIALIZED VIEW` of a view that did. A table or view the deploy created, a temporary table,
    a `DROP ... IF EXISTS` of one the files never created, a table the deploy renamed to the name
    dropped (the rename is the finding), and a view the deploy creates again under the same name
    before it ends (a view redefined) are not flagged.

    A table the history holds, dropped and created again under its name by the same deploy
    (`DROP TABLE IF EXISTS users CASCADE; CREATE TABLE users (...)`, which Rails'
    `create_table ... force: true` runs), is flagged for its rows: the running release finds the
    name again, empty. A dump's `DROP TABLE IF EXISTS x; CREATE TABLE x` over a table the
    history does not hold is left alone (no rows are known to be there), as is a table rebuilt
    under another name and renamed to the old one.

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs. Its
    queries of the table or view fail once it is gone (PostgreSQL `42P01 relation does not
    exist`, MySQL and MariaDB `1146 Table doesn't exist`) until its last process stops, and a
    rollback of the code finds the table and its rows gone. A table created again under the
    same name answers those queries, but every row it held is lost.

    The rule cannot see whether the code stopped using the table in an earlier release. After
    such a deprecation, silence the finding where it stands with
    `-- schemacite: ignore[drop-table] unused since 4.2` on the line before the statement, or
    record it in a baseline (`--write-baseline`).

    ## Fix
    A display-only template: the release that stops using the table, then the drop in a later one.

    ## Example
    ```sql postgres
    DROP TABLE orders;
    ```

    ## Use instead
    Stop using the table in one release, and drop it in the next:
    ```sql postgres
    -- release N: the code no longer reads or writes orders
    -- release N+1:
    -- schemacite: ignore[drop-table] unused since release N
    DROP TABLE orders;
    ```
    In Django, a migration whose `SeparateDatabaseAndState` holds only the `DeleteModel` state
    operation comes first, with the database operation in a later release. To change a view's
    query, `CREATE OR REPLACE VIEW` it in place; to change a table, `ALTER TABLE` it rather than
    creating it again (in Rails, `create_table` without `force: true`).

    ## References
    - [django-migration-linter: Dropping a table](https://github.com/3YOURMIND/django-migration-linter/blob/main/docs/incompatibilities.md)
    - [strong_migrations: Creating a table with the force option](https://github.com/ankane/strong_migrations#creating-a-table-with-the-force-option)
    - [squawk: ban-drop-view](https://squawkhq.com/docs/ban-drop-view)
    - [Django: SeparateDatabaseAndState](https://docs.djangoproject.com/en/stable/ref/migration-operations/#separatedatabaseandstate)
    """

    code = "SC115"
    name = "drop-table"
    summary = "Table {table} is dropped while the release still running may read or write it"
    # CREATE TABLE only to notice a table dropped and created again under its name
    statement_kinds = frozenset({"drop_table", "drop_view", "create_table"})
    evidence = ("django-migration-linter-incompatibilities", "strong-migrations-create-table-force")

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op, schema = stmt.op, ctx.schema
        if isinstance(op, CreateTable):
            # a mark, never reported: the name was dropped earlier in the deploy (`combine` pairs it)
            if stmt.table and stmt.table in schema.gone and not op.model.temporary:
                yield Finding(
                    self.name, self.code, self.severity, stmt.location, "", table=stmt.table, identity=CREATED
                )
            return
        if isinstance(op, DropView):
            yield from self.drop_views(stmt, op, ctx)
            return
        assert isinstance(op, DropTableOp)
        for name in op.tables:
            if preexisting(schema, name) is None or (op.if_exists and name not in schema.tables):
                continue
            finding = self.finding(
                stmt.location,
                table=name,
                sql=stmt.sql,
                dialect=ctx.dialect,
                # whether the history holds the table: only then are rows known to go when it is created again
                identity=KNOWN if name in schema.tables else UNSEEN,
                suggestion=STOP_USING_TABLE.get(runner(ctx), STOP_USING_DEFAULT).format(table=name, what=name),
            )
            finding.fix = Fix(
                "stop using the table in one release, drop it in the next",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"-- release N: the code stops reading and writing {name}\n"
                    f"-- release N+1, once no process of an older release runs:\n"
                    f"DROP TABLE {relation_in_sql(name, ctx.dialect, stmt.sql)};"
                ),
            )
            yield finding

    def drop_views(self, stmt: Statement, op: DropView, ctx: Context) -> Iterator[Finding]:
        schema = ctx.schema
        word = "MATERIALIZED VIEW" if op.materialized else "VIEW"
        for name in op.names:
            if name in schema.views:
                if name in schema.fresh:  # created by this deploy
                    continue
            elif op.if_exists or name in schema.tables or name in schema.fresh or name in schema.gone:
                continue  # IF EXISTS of a view never seen, or not a view the release knows
            finding = self.finding(
                stmt.location,
                table=name,
                sql=stmt.sql,
                dialect=ctx.dialect,
                identity="view",
                message=(
                    f"{'Materialized view' if op.materialized else 'View'} {written(name, ctx.dialect)} is dropped "
                    "while the release still running may query it"
                ),
                suggestion=(
                    f"first deploy code that no longer queries {name}, then drop it in a later release; "
                    f"to change its query, CREATE OR REPLACE VIEW {name} in place"
                    if not op.materialized
                    else f"first deploy code that no longer queries {name}, then drop it in a later release"
                ),
            )
            finding.fix = Fix(
                "stop using the view in one release, drop it in the next",
                Applicability.DISPLAY_ONLY,
                template=(
                    f"-- release N: the code stops querying {name}\n"
                    f"-- release N+1, once no process of an older release runs:\n"
                    f"DROP {word} {relation_in_sql(name, ctx.dialect, stmt.sql)};"
                ),
            )
            yield finding

    def combine(self, findings: list[Finding], ctx: Context) -> Iterator[Finding]:
        schema = ctx.schema
        created = {f.table for f in findings if f.identity == CREATED}
        for f in findings:
            if f.identity == CREATED:
                continue
            if not self.answers(f, schema):
                yield f
            elif f.identity == KNOWN and f.table in created:
                # CREATE TABLE under the dropped name: the name answers again, empty
                yield replace(
                    f,
                    message=(
                        f"Table {written(f.table or '', ctx.dialect)} is dropped and created again: "
                        "its rows go, and the release still running finds it empty"
                    ),
                    suggestion=(
                        "change the table in place (ALTER TABLE), or create the new one under another name, "
                        "copy the rows and move the code to it"
                    ),
                    fix=None,
                )
