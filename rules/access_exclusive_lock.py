"""access-exclusive-lock: statements that block reads and writes on an existing table."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.lock_findings import UNMEASURED, lock_findings


class AccessExclusiveLock(Rule):
    """Statement blocks reads and writes on an existing table.

    ## What it does
    Flags statements that take a lock conflicting with plain reads on a table that
    exists before the migration: PostgreSQL `ACCESS EXCLUSIVE` (most ALTER TABLE
    forms, DROP/TRUNCATE, VACUUM FULL, CLUSTER, REINDEX of an index, REFRESH
    MATERIALIZED VIEW, LOCK TABLE, CREATE RULE, DROP INDEX, ...) and MySQL/MariaDB
    operations that run with `LOCK=EXCLUSIVE`. The lock tables behind it are those
    `schemacite locks` prints, for the `--target` server version.

    It flags a lock held over real work: an error when the table is rewritten or
    scanned while the lock is held (the outage lasts as long as the table is large;
    with a snapshot's size, an error only when the estimate exceeds
    `max_lock_seconds`). A brief lock that only changes the catalog (ADD COLUMN
    without a rewrite, SET DEFAULT, DROP COLUMN, RENAME, DROP TABLE, ...) is flagged
    here only on a table a snapshot shows to be large (reading it whole at the scan rate
    measured for the target would outlast `max_lock_seconds`; PostgreSQL only, the one
    with a measured scan rate): a warning, info after `SET lock_timeout`. Elsewhere its
    one risk, the wait for the lock, is reported once per deploy by
    `lock-timeout-missing`. Tables created earlier in the same change are
    not flagged.

    A statement whose locks block reads on one relation and only writes on another is this
    rule's alone: `write-blocking-lock` reports statements that block writes and nothing more,
    and takes over the ones that block reads too only when this rule is off.

    ## Why is this bad?
    `ACCESS EXCLUSIVE` conflicts with every other lock mode, including the
    `ACCESS SHARE` a plain SELECT takes. While the statement waits for it (behind any
    long transaction) and while it holds it, every query on the table queues.

    ## Fix
    PostgreSQL (each proven on 12 to 18 by the suite: same final catalog, the weaker locks,
    runs under the runner's transaction mode):
    - `REINDEX` becomes `REINDEX ... CONCURRENTLY` (12+): safe.
    - `DROP INDEX` of one index on a table a snapshot shows large becomes `DROP INDEX
      CONCURRENTLY`: safe.
    - `ADD CHECK (...)` is added `NOT VALID`, then validated with `VALIDATE CONSTRAINT` in a
      transaction of its own; an unnamed one gets the name PostgreSQL would give it: safe.
    - `SET NOT NULL` is preceded by a `CHECK (col IS NOT NULL) NOT VALID` that is validated,
      and the check is dropped after (12-17); on 18 the `NOT NULL` constraint itself is added
      `NOT VALID` and validated: safe.
    - `ADD PRIMARY KEY` / `ADD UNIQUE` become `CREATE UNIQUE INDEX CONCURRENTLY` and
      `ADD CONSTRAINT ... USING INDEX`: safe.
    - `REFRESH MATERIALIZED VIEW` becomes `... CONCURRENTLY` where the view holds data and has
      a unique index on plain columns: safe.
    - `DETACH PARTITION` (on a table a snapshot shows large) becomes `... CONCURRENTLY` (14+),
      followed by dropping the CHECK constraint the server adds to the detached table: safe.
    - `ADD COLUMN` with a volatile default: the column added without it, the default set for
      new rows, the old rows filled in batches that each commit (a `DO` block), and a `NOT NULL`
      made as above: unsafe (the column holds NULLs for a while). The suggestion for `ADD
      COLUMN` follows why it holds its lock over the rows: a rewrite (a backfill), an inline
      `UNIQUE` or `PRIMARY KEY` (the index built `CONCURRENTLY`, then attached `USING INDEX`),
      an inline `REFERENCES` with a default or a `CHECK` (added `NOT VALID`, then validated).
    - `ALTER COLUMN ... TYPE` that rewrites: a display-only template (a new column, a batched
      backfill, a swap). The new column gets the old one's `DEFAULT` and `NOT NULL` (proven by a
      validated `CHECK` first); the template names the indexes, keys and foreign keys that stay
      with the old column, to be made again on the new one.

    MySQL/MariaDB: where the statement blocks only because of its own clause (`ALGORITHM=COPY`,
    `LOCK=SHARED`, `LOCK=EXCLUSIVE`) and the target does it online, the fix pins the online
    clause in its place, `ALGORITHM=INSTANT` or `ALGORITHM=INPLACE, LOCK=NONE`: safe (proven on
    MariaDB 10.11), and the server then refuses the statement rather than silently blocking where
    production differs from the history. Where the target has no online algorithm, a display-only
    command line: gh-ost on MySQL for a table with no foreign keys on either side, else
    pt-online-schema-change.

    A statement that must leave the transaction is fixed only where the runner allows it:
    outside any transaction (safe), or with the runner's own opt-out (safe when the
    migration holds only that statement, unsafe when its other statements would then commit
    one by one); a golang-migrate or Prisma file, which is sent as one query, has its last
    statement moved into a new migration after it (unsafe; only for the newest migration);
    inside the file's own `BEGIN` there is no fix. For SQL printed from code (Django, Alembic,
    Rails) the fix is display-only and names the migration to change.

    ## Example
    ```sql postgres
    ALTER TABLE accounts ALTER COLUMN balance TYPE numeric(20, 4);
    ```

    ## Use instead
    ```sql postgres
    SET lock_timeout = '2s';
    ALTER TABLE accounts ADD COLUMN balance_new numeric(20, 4);
    -- backfill in batches, then switch columns in a short transaction
    ```
    """

    code = "SC104"
    name = "access-exclusive-lock"
    family = "locks"
    summary = "{what} takes {mode} on {on}: blocks reads and writes{why}"
    default_severity = Severity.WARNING
    evidence = (
        "percona-2018-pg-heavyweight-locks",
        "dbi-2018-pg10-vs-11-add-column-default",
        "dbamohsin-2019-pg11-add-column-400m-rows",
        "pg10-doc-alter-table-rewrite",
        "pg-doc-explicit-locking",
        "mysql-doc-online-ddl-operations",
        "mariadb-doc-innodb-online-ddl",
        "mysql-doc-metadata-locking",
        "mariadb-doc-metadata-locking",
        "mysql-doc-lock-wait-timeout",
    )
    evidence_note = UNMEASURED
    needs_locks = True

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        yield from lock_findings(self, stmt, ctx, "reads+writes")
