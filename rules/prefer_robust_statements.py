"""prefer-robust-statements: CREATE and DROP that fail when run again (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.dialects import Dialect
from schemacite.model.statements import (
    Action,
    AddColumn,
    AlterTable,
    ConstraintAction,
    CreateIndex,
    DropColumn,
    Statement,
)
from schemacite.rule import Context, Finding, Rule, Severity

_ALL = frozenset({Dialect.POSTGRES, Dialect.MYSQL, Dialect.MARIADB})
_NOT_MYSQL = frozenset({Dialect.POSTGRES, Dialect.MARIADB})
# the forms whose IF [NOT] EXISTS clause each dialect accepts: (what is missing, dialects)
_CLAUSE = {
    "create_table": ("IF NOT EXISTS", _ALL),
    "create_partition": ("IF NOT EXISTS", frozenset({Dialect.POSTGRES})),
    "create_index": ("IF NOT EXISTS", _NOT_MYSQL),
    "create_matview": ("IF NOT EXISTS", frozenset({Dialect.POSTGRES})),
    "drop_table": ("IF EXISTS", _ALL),
    "drop_index": ("IF EXISTS", _NOT_MYSQL),
    "drop_view": ("IF EXISTS", _ALL),
    "drop_sequence": ("IF EXISTS", _NOT_MYSQL),
}


def _unguarded(action: Action) -> tuple[str, str] | None:
    """An ALTER TABLE sub-command that a second run repeats and fails on, with the clause that
    would let it pass: (what it is, the clause)."""
    if isinstance(action, AddColumn) and action.op == "add_column" and not action.if_not_exists:
        return f"ADD COLUMN {action.column or ''}".strip(), "IF NOT EXISTS"
    if isinstance(action, DropColumn) and not action.if_exists:
        return f"DROP COLUMN {action.column or ''}".strip(), "IF EXISTS"
    if isinstance(action, ConstraintAction) and action.op == "drop_constraint" and not action.if_exists:
        return f"DROP CONSTRAINT {action.name or ''}".strip(), "IF EXISTS"
    return None


class PreferRobustStatements(Rule):
    """CREATE or DROP that fails when the script runs a second time.

    ## What it does
    Flags `CREATE TABLE`, `CREATE INDEX`, `CREATE MATERIALIZED VIEW` and `ALTER TABLE ... ADD
    COLUMN` without `IF NOT EXISTS`, and `DROP TABLE`, `DROP INDEX`, `DROP VIEW`, `DROP
    SEQUENCE`, `ALTER TABLE ... DROP COLUMN` and `DROP CONSTRAINT` without `IF EXISTS`, where the
    dialect accepts the clause (MySQL has none for indexes, sequences or ALTER TABLE's
    sub-commands). An unnamed `CREATE INDEX` does not fail when run again: it builds a second,
    duplicate index, which is flagged too. Temporary tables are not flagged. On PostgreSQL a statement inside a transaction (BEGIN ...
    COMMIT, or the runner's) is not flagged: a failure there rolls the whole transaction back, so
    a second run starts clean. On MySQL and MariaDB each DDL statement commits on its own, so
    every one is judged. A preference: it runs only when selected.

    ## Why is this bad?
    A script that stops half way (a lock timeout, a failed `CREATE INDEX CONCURRENTLY`, a lost
    connection) leaves the statements before it applied. Run again, its first `CREATE TABLE` fails
    with "already exists" and the rest never runs. Turn it on for scripts that are re-run by hand or
    by a runner that retries.

    The clause has a cost on `CREATE INDEX CONCURRENTLY`: a failed concurrent build leaves an
    INVALID index behind, and `IF NOT EXISTS` on the retry skips it, keeping an index that
    queries ignore and that still slows every write. Put `DROP INDEX CONCURRENTLY IF EXISTS`
    before such a build, as the message says.

    ## Example
    ```sql postgres
    CREATE TABLE invoices (id bigint PRIMARY KEY, total numeric(12, 2) NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE IF NOT EXISTS invoices (id bigint PRIMARY KEY, total numeric(12, 2) NOT NULL);
    ```

    ## References
    - [PostgreSQL: CREATE INDEX, Building Indexes Concurrently](https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY)
    - [MySQL: Atomic Data Definition Statement Support (DDL commits)](https://dev.mysql.com/doc/refman/8.4/en/implicit-commit.html)
    """

    code = "SC206"
    name = "prefer-robust-statements"
    family = "preferences"
    summary = "{what} without {clause} fails if the script runs again after stopping half way"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres", "mysql", "mariadb"})
    statement_kinds = frozenset({*_CLAUSE, "alter_table"})
    evidence = ("pg-doc-create-index-concurrently",)
    evidence_note = "A re-run preference: documented behaviour, no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        if ctx.dialect is Dialect.POSTGRES and ctx.in_transaction:
            return  # the transaction rolls back whole: a second run starts clean
        op = stmt.op
        if isinstance(op, AlterTable):
            if ctx.dialect in _NOT_MYSQL:  # MySQL's ALTER TABLE takes neither clause
                for action in op.actions:
                    if (unguarded := _unguarded(action)) is not None:
                        yield self._finding(stmt, ctx, *unguarded)
            return
        clause, dialects = _CLAUSE[stmt.kind]
        if ctx.dialect not in dialects or getattr(op, "if_not_exists", False) or stmt.if_exists:
            return
        if getattr(op, "model", None) is not None and op.model.temporary:  # type: ignore[attr-defined]
            return
        yield self._finding(stmt, ctx, stmt.kind.replace("_", " ").upper(), clause)

    def _finding(self, stmt: Statement, ctx: Context, what: str, clause: str) -> Finding:
        op = stmt.op
        suggestion = f"add {clause}"
        if isinstance(op, CreateIndex) and not op.index.name:
            suggestion = "name the index and add IF NOT EXISTS: run again, an unnamed CREATE INDEX builds a duplicate"
        elif isinstance(op, CreateIndex) and op.concurrently:
            suggestion = (
                f"add {clause}, and run DROP INDEX CONCURRENTLY IF EXISTS {op.index.name} before it: a failed "
                "concurrent build leaves an INVALID index that IF NOT EXISTS alone would keep"
            )
        return self.finding(
            stmt.location,
            table=stmt.table,
            what=what,
            clause=clause,
            suggestion=suggestion,
            dialect=ctx.dialect,
            identity=what,
        )
