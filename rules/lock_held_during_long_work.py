"""lock-held-during-long-work: a blocking lock kept while the same transaction does long work."""

from __future__ import annotations

import os
from collections.abc import Iterator

from schemacite.locks import on_tables
from schemacite.locks.held import levels, worse
from schemacite.model.fixes import Fix
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.rewrites import opt_out_fix
from schemacite.sources.names import written


class LockHeldDuringLongWork(Rule):
    """Blocking lock held while the same transaction does long work.

    ## What it does
    Flags a statement whose lock blocks reads or writes of an existing table when a
    later statement of the same transaction does work that grows with a table's
    size: a backfill (`UPDATE` or `DELETE` of every row, or one whose `WHERE` uses
    no column of its table that leads an index, as in `WHERE new_col IS NULL`, or
    whose `FROM` queries every row of the table it updates; `INSERT ... SELECT`,
    `COPY`), a table rewrite, or a scan (an index build, a
    constraint validated). None of these is long on a table that holds one row at most: a
    NOT NULL key that validated checks hold to one value (`lock char(1) NOT NULL UNIQUE,
    CHECK (lock = 'X')`).
    Locks the long work itself takes as strongly on the same table are not
    counted. The transaction may be an explicit `BEGIN ... COMMIT` or the one the migration
    runner wraps each migration in (goose, dbmate, Liquibase, Atlas, Flyway), or
    the implicit transaction of a multi-statement query (golang-migrate, Prisma).

    ## Why is this bad?
    PostgreSQL keeps every table lock until the transaction ends. A brief
    `ALTER TABLE a ADD COLUMN` followed by a backfill of `b` in the same
    migration keeps `a` locked, and its readers or writers queued, for as long as
    the backfill runs, which grows with `b`.

    ## Example
    ```sql postgres
    BEGIN;
    ALTER TABLE accounts ADD COLUMN plan text;
    UPDATE invoices SET total_cents = total * 100;
    COMMIT;
    ```

    ## Use instead
    Split the migration: the brief locking statement in one transaction, the long
    work in another (or in batches, outside any migration transaction).
    ```sql postgres
    BEGIN;
    ALTER TABLE accounts ADD COLUMN plan text;
    COMMIT;
    BEGIN;
    UPDATE invoices SET total_cents = total * 100;
    COMMIT;
    ```

    ## References
    - [PostgreSQL: Explicit Locking, table-level locks are held until the end of the transaction](https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES)
    """

    code = "SC109"
    name = "lock-held-during-long-work"
    family = "locks"
    summary = (
        "{what} locks {on} ({mode}: blocks {blocks}) until the transaction ends, while {line} does long work:"
        " {work} ({why})"
    )
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})  # MySQL and MariaDB commit before and after every DDL statement
    reads_earlier = True
    evidence = ("pg-doc-explicit-locking",)
    evidence_note = (
        "Documented PostgreSQL behaviour (locks last until the transaction ends); how long the long work takes "
        "is measured by the lock-durations experiment."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        # each finding is an earlier statement's lock: without one, the work need not be looked up
        if not ctx.in_transaction or not ctx.earlier or ctx.work is None:
            return
        own = levels(on_tables([lk for _, locks in ctx.locks for lk in locks], ctx.schema))
        # each lock is reported where the transaction took it, at the first long work it makes worse
        # (locks.held drops it from `earlier` after that); a table the long work itself blocks as
        # much loses nothing more to the earlier lock
        fix = _commit_each(stmt, ctx)
        for held in ctx.earlier:
            locks = worse(held.locks, own)
            if not locks:
                continue
            blocks = "reads and writes" if any(lk.blocks == "reads+writes" for lk in locks) else "writes"
            on = ", ".join(dict.fromkeys(lk.relation for lk in locks))
            finding = self.finding(
                held.statement.location,
                table=on,
                sql=held.statement.sql,
                what=held.operation,
                on=", ".join(written(lk, ctx.dialect) for lk in dict.fromkeys(lk.relation for lk in locks)),
                mode="/".join(dict.fromkeys(lk.mode for lk in locks)),
                blocks=blocks,
                why=ctx.transaction_why or "the transaction",
                work=ctx.work,
                # a transaction that spans files (one around the run) does the work in another file
                line=f"line {stmt.location.line}"
                if stmt.location.file == held.statement.location.file
                else f"{os.path.basename(stmt.location.file)}:{stmt.location.line}",
                suggestion="split the migration: commit after this statement and do the long work in a transaction "
                "of its own (or in batches)",
            )
            finding.fix = fix
            yield finding


def _commit_each(stmt: Statement, ctx: Context) -> Fix | None:
    """The runner's own way out of its transaction, where each statement then commits alone: the
    lock is released before the long work starts. Unsafe: the migration is no longer atomic."""
    if ctx.framework is None or ctx.framework.opt_out_mode != "script":
        return None  # a runner that still sends the file as one query keeps one transaction
    return opt_out_fix(stmt, ctx, ": each statement commits alone", unsafe=True)
