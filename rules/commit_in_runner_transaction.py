"""commit-in-runner-transaction: COMMIT or ROLLBACK inside the runner's own transaction."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Commit, Statement
from schemacite.rule import Context, Finding, Rule, Severity


class CommitInRunnerTransaction(Rule):
    """COMMIT or ROLLBACK inside the runner's own transaction.

    ## What it does
    Flags `COMMIT` or `ROLLBACK` in a migration the runner wraps in its own transaction
    (goose, dbmate, sqlx, Flyway, Liquibase, Atlas, ...) when the file opened no transaction
    itself (a `BEGIN` inside the runner's transaction is `nested-transaction`'s). A `COMMIT`
    that ends the migration is not flagged: what it commits is what the runner would have.

    ## Why is this bad?
    PostgreSQL ends the runner's transaction there. After a `COMMIT` the statements that follow
    commit one by one, so a failure among them leaves the migration half applied, and the
    runner's own `COMMIT` or `ROLLBACK` only warns "there is no transaction in progress". A
    `ROLLBACK` undoes what the migration did before it, and the runner goes on as if it had
    run.

    ## Example
    ```sql postgres
    -- +goose Up
    ALTER TABLE orders ADD COLUMN note text;
    COMMIT;
    UPDATE orders SET note = '' WHERE note IS NULL;
    ```

    ## Use instead
    ```sql postgres
    -- +goose Up
    ALTER TABLE orders ADD COLUMN note text;
    UPDATE orders SET note = '' WHERE note IS NULL;
    ```
    Where parts must commit apart, give each its own migration, or opt out of the runner's
    transaction (`-- +goose NO TRANSACTION`) and write the file's own `BEGIN` and `COMMIT`.

    ## References
    - [PostgreSQL: COMMIT](https://www.postgresql.org/docs/current/sql-commit.html)
    """

    code = "SC123"
    name = "commit-in-runner-transaction"
    family = "transactions"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "{what} inside the runner's transaction ({why}): {then}"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    statement_kinds = frozenset({"commit"})
    evidence_note = (
        "PostgreSQL behaviour, checked on the server by tests/test_transaction_facts.py: there is no cost to measure."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        rollback = isinstance(stmt.op, Commit) and stmt.op.rollback
        if ctx.found_transaction != "runner" or not (rollback or ctx.later):
            return
        if rollback:
            then = "it undoes what the migration did before it, and the runner goes on as if it had run"
        else:
            then = "what follows commits statement by statement, so a failure leaves the migration half applied"
        out = ctx.framework.opt_out if ctx.framework is not None else ""
        yield self.finding(
            stmt.location,
            sql=stmt.sql,
            what="ROLLBACK" if rollback else "COMMIT",
            why=ctx.found_why,
            then=then,
            suggestion="drop it and let the runner's transaction end the migration; to commit parts apart, "
            + (f"opt out with {out} and write BEGIN ... COMMIT around each" if out else "split the migration"),
        )
