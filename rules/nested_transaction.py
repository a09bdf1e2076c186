"""nested-transaction: a BEGIN inside a transaction already open."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.dialects import MYSQL_FAMILY
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity


class NestedTransaction(Rule):
    """BEGIN inside a transaction already open.

    ## What it does
    Flags `BEGIN` or `START TRANSACTION` that runs inside a transaction already open: the one
    the migration runner wraps each migration in (goose, dbmate, sqlx, Flyway, Liquibase, Atlas,
    ...), or, on MySQL and MariaDB, one an earlier `BEGIN` of the file opened. A file that
    golang-migrate or Prisma sends as one query is not flagged: PostgreSQL turns the implicit
    transaction of such a query into the one the `BEGIN` opens, with no warning.

    On PostgreSQL it is flagged only when a `COMMIT` or `ROLLBACK` follows in the migration with
    statements after it: a `BEGIN` alone only warns, and a `BEGIN ... COMMIT` around the whole file
    commits what the runner's transaction would have.

    ## Why is this bad?
    PostgreSQL answers "there is already a transaction in progress" and stays in the runner's
    transaction, so the file's `COMMIT` commits the runner's transaction early; the statements
    after it commit one by one, the runner's own `COMMIT` or `ROLLBACK` finds no transaction,
    and a failure after the `COMMIT` leaves the migration half applied instead of undone.
    MySQL and MariaDB commit the open transaction at a `BEGIN`: a `ROLLBACK` after it cannot
    undo what ran before it.

    ## Example
    ```sql mysql
    BEGIN;
    UPDATE orders SET status = 'open' WHERE status IS NULL;
    BEGIN;
    UPDATE customers SET tier = 1 WHERE tier IS NULL;
    COMMIT;
    ```

    ## Use instead
    ```sql mysql
    BEGIN;
    UPDATE orders SET status = 'open' WHERE status IS NULL;
    UPDATE customers SET tier = 1 WHERE tier IS NULL;
    COMMIT;
    ```
    In a runner's migration, leave `BEGIN` and `COMMIT` out and let the runner's transaction
    hold the migration; where the file must control its own transactions, opt out of the
    runner's (`-- +goose NO TRANSACTION`, `-- migrate:up transaction:false`).

    ## References
    - [PostgreSQL: BEGIN](https://www.postgresql.org/docs/current/sql-begin.html)
    - [MySQL: Statements That Cause an Implicit Commit](https://dev.mysql.com/doc/refman/8.4/en/implicit-commit.html)
    """

    code = "SC121"
    name = "nested-transaction"
    family = "transactions"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "BEGIN inside {inside}: {then}"
    default_severity = Severity.WARNING
    statement_kinds = frozenset({"begin"})
    evidence = ("mariadb-doc-implicit-commit",)
    evidence_note = (
        "Server behaviour, checked on PostgreSQL and MariaDB by tests/test_transaction_facts.py "
        "(MySQL from its manual's list of statements that commit implicitly): there is no cost to measure."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        if ctx.dialect in MYSQL_FAMILY:
            if ctx.found_transaction != "begin" or not ctx.later:
                return
            inside = "a transaction an earlier BEGIN opened"
            then = "MySQL and MariaDB commit that one here: a failure or ROLLBACK after it cannot undo what ran before"
            advice = "drop this BEGIN, or COMMIT the earlier transaction first if two transactions are meant"
        else:
            end = ctx.closed_by
            if ctx.found_transaction not in ("runner", "begin") or end is None or not ctx.after_close:
                return
            ended = f"the {'ROLLBACK' if getattr(end.op, 'rollback', False) else 'COMMIT'} at line {end.location.line}"
            if ctx.found_transaction == "runner":
                inside = f"the runner's transaction ({ctx.found_why})"
                then = f"PostgreSQL only warns; {ended} ends the runner's, and what follows it commits statement by statement"
                out = ctx.framework.opt_out if ctx.framework is not None else ""
                advice = "drop the file's BEGIN and COMMIT and let the runner's transaction hold the migration" + (
                    f", or opt out of it with {out} to keep them" if out else ""
                )
            else:
                inside = "a transaction an earlier BEGIN opened"
                then = f"PostgreSQL only warns; {ended} ends the earlier one, and what follows it runs outside"
                advice = "drop this BEGIN and the COMMIT meant to pair with it"
        yield self.finding(stmt.location, sql=stmt.sql, inside=inside, then=then, suggestion=advice)
