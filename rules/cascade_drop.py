"""cascade-drop: DROP ... CASCADE and TRUNCATE ... CASCADE reaching objects the statement does not name."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.listing import first_of
from schemacite.model.schema import Schema
from schemacite.model.statements import DropObjects, DropTable, DropView, Statement, Truncate
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.sources.names import quoted_name, written

SHOWN = 4  # objects named in a message; the rest are counted


def _listed(names: list[str]) -> str:
    return first_of(names, SHOWN)


class CascadeDrop(Rule):
    """DROP or TRUNCATE with CASCADE reaches objects it does not name.

    ## What it does
    Flags `DROP TABLE ... CASCADE`, `DROP VIEW ... CASCADE` (materialized too),
    `DROP TYPE ... CASCADE`, `DROP DOMAIN ... CASCADE` and `TRUNCATE ... CASCADE` of objects
    that exist before the change, when the replayed schema knows what else goes with them: the
    views that read them (and the views reading those), the foreign keys of other tables that
    reference a dropped table, the columns of a dropped type or domain (arrays of it too), and
    for `TRUNCATE` every table that references a truncated one, directly or through others. When
    the replay knows of nothing that depends on them, nothing is reported: objects the
    history does not show (functions, views it could not read) are not guessed at. The one
    exception is `TRUNCATE ... CASCADE` of a table the history never saw: the replay cannot show
    that no table references it, so it is flagged (a warning) saying the tables emptied with it
    are unknown. A table
    or view the same migration created is left alone.

    ## Why is this bad?
    PostgreSQL drops the dependent views and foreign key constraints without naming them, so
    the release still running fails on a view the migration never mentions, and a table loses
    its foreign key silently. A dropped type or domain takes the columns of that type with
    their data. `TRUNCATE ... CASCADE` deletes every row of each referencing table too. Without `CASCADE`, PostgreSQL refuses while anything depends on the object, and
    the migration says what it removes.

    ## Example
    ```sql postgres
    -- order_lines.order_id references orders
    TRUNCATE orders CASCADE;
    ```

    ## Use instead
    ```sql postgres
    TRUNCATE orders, order_lines;
    ```

    ## References
    - [PostgreSQL: Dependency Tracking](https://www.postgresql.org/docs/current/ddl-depend.html)
    - [PostgreSQL: TRUNCATE](https://www.postgresql.org/docs/current/sql-truncate.html)
    - [squawk: ban-truncate-cascade](https://squawkhq.com/docs/ban-truncate-cascade)
    """

    code = "SC124"
    name = "cascade-drop"
    family = "breaks-running-code"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "{statement} CASCADE also {what}"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    statement_kinds = frozenset({"drop_table", "drop_view", "truncate", "other"})  # DROP TYPE is an "other"
    evidence_note = "Documented PostgreSQL behaviour (what CASCADE removes): there is no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op, schema = stmt.op, ctx.schema

        def shown(keys: list[str]) -> list[str]:
            return [written(k, ctx.dialect) for k in keys]

        if isinstance(op, Truncate) and op.cascade:
            named = [k for k in op.tables if _existing_table(schema, k)]
            emptied = [k for k in schema.referencing_closure(named) if not schema.tables[k].new]
            unseen = [k for k in op.tables if k not in schema.tables and k not in schema.gone]
            if not emptied and unseen:
                # the replay knows no table referencing these, so it cannot show that none does
                yield self.finding(
                    stmt.location,
                    table=unseen[0],
                    sql=stmt.sql,
                    statement=f"TRUNCATE {', '.join(shown(unseen))}",
                    what=(
                        "empties every table referencing it by foreign keys, directly or in a chain; the history "
                        "does not show the table, so which tables lose their rows is unknown"
                    ),
                    suggestion="name every table to empty in the TRUNCATE and leave CASCADE out: "
                    "PostgreSQL then refuses if another table references them",
                )
                return
            if not emptied:
                return
            yield self.finding(
                stmt.location,
                table=named[0],
                sql=stmt.sql,
                severity=Severity.ERROR,
                statement=f"TRUNCATE {', '.join(shown(named))}",
                what=f"empties {_listed(shown(emptied))}, referencing it by foreign keys (directly or in a chain): all their rows go",
                suggestion="name every table to empty in the TRUNCATE and leave CASCADE out",
            )
            return
        if isinstance(op, DropObjects) and op.cascade and op.object in ("type", "domain"):
            # a type's key is schema-qualified like a table's (`audit.mood`; `mood` in public), as are
            # the column types naming it: the schema tells two types of one name apart
            columns = [
                f"{written(table.qualified_name, ctx.dialect)}.{quoted_name(column.name)}"
                for name in op.names
                for table, column in schema.columns_of_type(name, arrays=True)
                if not table.new
            ]
            if columns:
                yield self.finding(
                    stmt.location,
                    sql=stmt.sql,
                    severity=Severity.ERROR,
                    statement=f"DROP {op.object.upper()} {', '.join(shown(list(op.names)))}",
                    what=f"drops the column{'s' if len(columns) > 1 else ''} {_listed(columns)} of that type, and their data",
                    suggestion="change or drop those columns by name first and leave CASCADE out",
                )
            return
        if isinstance(op, DropTable) and op.cascade:
            named, word = [k for k in op.tables if _existing_table(schema, k)], "TABLE"
        elif isinstance(op, DropView) and op.cascade:
            named = [k for k in op.names if k in schema.views and k not in schema.fresh]
            word = "MATERIALIZED VIEW" if op.materialized else "VIEW"
        else:
            return
        dropped = set(op.relations())
        views = [v for v in schema.views_reading(named) if v not in dropped and v not in schema.fresh]
        keys = [
            f"{written(r, ctx.dialect)} ({', '.join(quoted_name(c) for c in fk.columns)})"
            for t in named
            for r in schema.referencing(t)
            if r not in dropped and not schema.tables[r].new
            for fk in schema.tables[r].foreign_keys
            if fk.references == t
        ]
        parts = [f"drops the view{'s' if len(views) > 1 else ''} {_listed(shown(views))}"] if views else []
        if keys:
            parts.append(f"the foreign key{'s' if len(keys) > 1 else ''} of {_listed(keys)}")
        if not parts:
            return
        yield self.finding(
            stmt.location,
            table=named[0],
            sql=stmt.sql,
            statement=f"DROP {word} {', '.join(shown(named))}",
            what=" and ".join(parts) + ": the running release's queries on them fail, or lose that check",
            suggestion="drop each dependent by name first (DROP VIEW, ALTER TABLE ... DROP CONSTRAINT) "
            "and leave CASCADE out, so anything unforeseen stops the migration",
        )


def _existing_table(schema: Schema, key: str) -> bool:
    table = schema.tables.get(key)
    return table is not None and not table.new
