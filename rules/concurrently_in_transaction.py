"""concurrently-in-transaction: CONCURRENTLY forms inside an explicit transaction."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite import hookimpl
from schemacite.lint.rule import Context, Finding, Rule, Severity
from schemacite.model.statements import Statement


class ConcurrentlyInTransaction(Rule):
    """Statement cannot run inside a transaction block.

    ## What it does
    Flags `CREATE INDEX CONCURRENTLY`, `DROP INDEX CONCURRENTLY`,
    `REINDEX ... CONCURRENTLY`, `ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY`
    and `VACUUM` between `BEGIN` (or `START TRANSACTION`) and `COMMIT` in the same
    file.

    ## Why is this bad?
    PostgreSQL refuses them with "cannot run inside a transaction block": the
    migration fails when it runs, after the statements before it in the
    transaction were executed and rolled back.

    ## Example
    ```sql postgres
    BEGIN;
    CREATE INDEX CONCURRENTLY orders_customer_idx ON orders (customer_id);
    COMMIT;
    ```

    ## Use instead
    ```sql postgres
    CREATE INDEX CONCURRENTLY orders_customer_idx ON orders (customer_id);
    ```
    """

    code = "SC106"
    name = "concurrently-in-transaction"
    summary = "{what} cannot run inside a transaction block"
    default_severity = Severity.ERROR
    dialects = frozenset({"postgres"})
    evidence_note = "Documented PostgreSQL behaviour (the statement is refused), not a measurement."
    statement_kinds = frozenset({"create_index", "drop_index", "reindex", "vacuum", "alter_table"})

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        if not ctx.in_transaction:
            return
        concurrent = getattr(stmt.op, "concurrently", False) or any(
            a.op == "detach_partition_concurrently" for a in stmt.actions
        )
        if stmt.kind == "vacuum":
            what = "VACUUM"
        elif concurrent:
            what = {
                "create_index": "CREATE INDEX CONCURRENTLY",
                "drop_index": "DROP INDEX CONCURRENTLY",
                "reindex": "REINDEX CONCURRENTLY",
            }.get(stmt.kind, "DETACH PARTITION CONCURRENTLY")
        else:
            return
        yield self.finding(
            stmt.location,
            table=stmt.table,
            sql=stmt.sql,
            what=what,
            suggestion="move it out of BEGIN ... COMMIT (and out of migration-tool transactions) into its own migration",
        )


@hookimpl
def schemacite_rules():
    return [ConcurrentlyInTransaction]
