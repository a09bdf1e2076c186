"""transaction-not-committed: a BEGIN whose deploy ends with its transaction open."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.dialects import MYSQL_FAMILY
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity

OWN = {"postgres": ("", "query"), "mysql": ("", "begin")}  # what a BEGIN opening its own transaction finds


class TransactionNotCommitted(Rule):
    """BEGIN with no COMMIT before the migration ends.

    ## What it does
    Flags a `BEGIN` or `START TRANSACTION` that opens a transaction the migration (a file, or
    the part of it the runner deploys at once) never ends: no `COMMIT` or `ROLLBACK` follows it,
    and on MySQL and MariaDB no DDL or `BEGIN` commits it implicitly, while statements still run
    in it. A `BEGIN` inside the runner's own transaction (goose, dbmate, Flyway, ...) only warns
    on PostgreSQL, and the runner commits: it is not flagged.

    ## Why is this bad?
    What ran after the `BEGIN` is committed only if something later commits it. A plain script
    (psql, mysql) ends its session there, and the server rolls the transaction back: the
    migration reports success and its changes are gone. golang-migrate and Prisma send the file
    as one query that ends inside the transaction; what becomes of it then depends on the
    runner's next statements on that connection.

    ## Example
    ```sql postgres
    BEGIN;
    ALTER TABLE orders ADD COLUMN note text;
    ```

    ## Use instead
    ```sql postgres
    BEGIN;
    ALTER TABLE orders ADD COLUMN note text;
    COMMIT;
    ```

    ## References
    - [PostgreSQL: BEGIN](https://www.postgresql.org/docs/current/sql-begin.html)
    - [MySQL: START TRANSACTION, COMMIT, and ROLLBACK](https://dev.mysql.com/doc/refman/8.4/en/commit.html)
    """

    code = "SC122"
    name = "transaction-not-committed"
    family = "transactions"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "BEGIN with no COMMIT before the migration ends: {then}"
    default_severity = Severity.ERROR
    statement_kinds = frozenset({"begin"})
    evidence_note = (
        "Server behaviour (a session that ends inside a transaction rolls it back), checked on "
        "PostgreSQL by tests/test_transaction_facts.py: there is no cost to measure."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        family = "mysql" if ctx.dialect in MYSQL_FAMILY else "postgres"
        if ctx.found_transaction not in OWN[family] or ctx.closed_by is not None or not ctx.later:
            return
        severity = None
        if ctx.unit is not None and ctx.unit.transaction == "implicit":
            then = "the runner's query ends inside the transaction, and what it does next decides whether it commits"
            severity = Severity.WARNING
        else:
            then = "the server rolls it back when the session ends, and the statements after it are lost"
        yield self.finding(
            stmt.location,
            sql=stmt.sql,
            then=then,
            severity=severity,
            suggestion="end the transaction with COMMIT after its last statement",
        )
