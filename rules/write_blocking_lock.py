"""write-blocking-lock: statements that block writes (not reads) on an existing table."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.access_exclusive_lock import AccessExclusiveLock
from schemacite.rules.lock_findings import UNMEASURED, blocks_reads, lock_findings


class WriteBlockingLock(Rule):
    """Statement blocks writes on an existing table.

    ## What it does
    Flags statements that let reads through but block INSERT, UPDATE and DELETE on a
    table that exists before the migration: PostgreSQL `SHARE` (CREATE INDEX without
    CONCURRENTLY) and `SHARE ROW EXCLUSIVE` (foreign keys, on both tables; triggers);
    MySQL/MariaDB operations that copy the table or run with `LOCK=SHARED` on the
    `--target` version. A lock that blocks only writes of a materialized view (REFRESH
    MATERIALIZED VIEW CONCURRENTLY's `EXCLUSIVE`) is not reported: nothing but its own
    refresh writes to one.

    Each statement's one risk is its worst lock, reported by one rule: a statement that also
    blocks reads is `access-exclusive-lock`'s, and this rule leaves it alone while that one runs.
    With `access-exclusive-lock` off (disabled, or `--select SC105` alone), this rule reports
    such a statement itself, as blocking reads and writes, with that rule's grading (an error
    while it rewrites or scans the table), rather than hide a statement that blocks writes.

    As for `access-exclusive-lock`, a brief lock that does no work under it (a trigger, a
    foreign key `NOT VALID`, a sequence change) is left to `lock-timeout-missing`, once per
    deploy, unless a snapshot shows the table to be large.

    ## Why is this bad?
    Writers queue for as long as the statement runs, which for an index build or a
    table copy grows with the table. On a busy table the queue of blocked writers
    fills the connection pool.

    ## Fix
    PostgreSQL (each proven on 12 to 18 by the suite): `CREATE INDEX` becomes
    `CREATE INDEX CONCURRENTLY` (not on a partitioned table); `ADD FOREIGN KEY` is added
    `NOT VALID` (named as PostgreSQL would name it) and validated with `VALIDATE CONSTRAINT`
    in a transaction of its own. A concurrent build that fails leaves an INVALID index, which
    a retry's `IF NOT EXISTS` takes for done: with `IF NOT EXISTS` the fix is unsafe and says
    to drop that index before a retry. Both are safe outside a transaction; inside the runner's,
    the fix adds the runner's opt-out and is safe when the migration holds only that
    statement, unsafe otherwise; inside the file's own `BEGIN` there is no fix. Where the
    statement cannot take CONCURRENTLY where it stands (a golang-migrate or Prisma file of
    several statements, a runner's transaction), the suggestion says where it can, in the
    runner's words: its opt-out, or alone in a migration of its own.

    MySQL/MariaDB, as for `access-exclusive-lock`: a `LOCK=SHARED` or `ALGORITHM=COPY` the
    target does not need is replaced by the online clause pinned (safe, proven on MariaDB
    10.11); with no online algorithm on the target, a gh-ost or pt-online-schema-change command
    line (display-only).

    ## Example
    ```sql postgres
    CREATE INDEX orders_customer_idx ON orders (customer_id);
    ```

    ## Use instead
    ```sql postgres
    CREATE INDEX CONCURRENTLY orders_customer_idx ON orders (customer_id);
    ```
    """

    code = "SC105"
    name = "write-blocking-lock"
    family = "locks"
    summary = "{what} takes {mode} on {on}: blocks {blocks}{why}"
    default_severity = Severity.WARNING
    evidence = (
        "percona-2018-pg-heavyweight-locks",
        "pg-doc-explicit-locking",
        "pg-doc-create-index-concurrently",
        "mysql-doc-online-ddl-operations",
        "mariadb-doc-innodb-online-ddl",
    )
    evidence_note = UNMEASURED
    needs_locks = True

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        if not ctx.runs(AccessExclusiveLock.name) and blocks_reads(ctx):
            yield from lock_findings(self, stmt, ctx, "reads+writes")
            return
        for f in lock_findings(self, stmt, ctx, "writes"):
            # a write block during a scan is the normal case here: an error only when the
            # table's size says it lasts longer than max_lock_seconds
            if f.severity == Severity.ERROR and f.estimate is None:
                f.severity = self.severity
            yield f
