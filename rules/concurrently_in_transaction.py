"""concurrently-in-transaction: CONCURRENTLY forms inside an explicit transaction."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement, needs_own_transaction
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.rewrites import opt_out_fix, where_alone


class ConcurrentlyInTransaction(Rule):
    """Statement cannot run inside a transaction block.

    ## What it does
    Flags `CREATE INDEX CONCURRENTLY`, `DROP INDEX CONCURRENTLY`,
    `REINDEX ... CONCURRENTLY`, `ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY`,
    `VACUUM` and the other statements PostgreSQL refuses in a transaction block,
    when they run in one: between `BEGIN` and `COMMIT`, in the transaction the
    migration runner wraps each migration in (goose, dbmate, Liquibase, Atlas,
    Flyway), or in the implicit transaction of a multi-statement query (a
    golang-migrate or Prisma file holding other statements too).

    ## Why is this bad?
    PostgreSQL refuses them with "cannot run inside a transaction block": the
    migration fails when it runs, after the statements before it in the
    transaction were executed and rolled back.

    ## Fix
    The runner's own opt-out of its transaction: goose `-- +goose NO TRANSACTION`,
    sql-migrate `-- +migrate Up notransaction`, dbmate `transaction:false`, sqlx `-- no-transaction`, graphile-migrate `--! no-transaction`,
    Liquibase `runInTransaction:false`, Atlas `-- atlas:txmode none`, morph
    `-- morph:nontransactional`, Diesel's `metadata.toml` and Flyway's `<file>.conf` (new
    files beside the migration). Safe when the migration holds only that statement, unsafe
    when its other statements would then commit one by one. Runners that send the file as
    one query after the opt-out (sqlx, dbmate, graphile-migrate, Diesel, morph) get it only for
    a migration of one statement.

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
    In a framework's migration, opt out of its transaction (`-- +goose NO TRANSACTION`,
    `-- migrate:up transaction:false`, `runInTransaction:false`, `-- atlas:txmode none`)
    and keep the statement alone in its file.

    ## References
    - [PostgreSQL: CREATE INDEX, Building Indexes Concurrently](https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY)
    - [PostgreSQL: multiple statements in a simple Query](https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-MULTI-STATEMENT)
    """

    code = "SC106"
    name = "concurrently-in-transaction"
    family = "transactions"
    summary = "{what} cannot run inside a transaction block ({why})"
    default_severity = Severity.ERROR
    dialects = frozenset({"postgres"})
    evidence = ("pg-doc-create-index-concurrently",)
    evidence_note = "Documented PostgreSQL behaviour (the statement is refused): there is no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        what = needs_own_transaction(stmt.op)
        if not ctx.in_transaction or what is None:
            return
        finding = self.finding(
            stmt.location,
            table=stmt.table,
            sql=stmt.sql,
            what=what,
            why=ctx.transaction_why or "BEGIN ... COMMIT",
            suggestion=f"run it outside any transaction: {where_alone(stmt, ctx)}",
        )
        finding.fix = opt_out_fix(stmt, ctx)
        yield finding
