"""unused-index: secondary indexes a live server never read from since its counters started."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.lint.workload import describe, idle, moment
from schemacite.model import Table
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.sources.names import written


class UnusedIndex(Rule):
    """Secondary index never used since the server's counters started.

    ## What it does
    On a schema read from a live server (`schemacite audit`) or from a snapshot
    (`--schema prod.json`), flags each non-unique secondary index whose usage counter
    is zero: `pg_stat_user_indexes.idx_scan` on PostgreSQL, rows fetched through the
    index in `performance_schema.table_io_waits_summary_by_index_usage` (or
    `INDEX_STATISTICS` with userstat) on MySQL and MariaDB. It is a warning on an
    insert-heavy table, where every insert still pays for the index, and info
    elsewhere. Tables without workload figures (SQL files, counters off), and tables
    with no recorded activity at all since the counters started (nothing to judge an
    index by), are never checked. Unique indexes and primary keys are left alone: they
    enforce a constraint even when no query reads through them. On MySQL and MariaDB
    an index a foreign key needs (the only one leading with the key's columns, on
    either table) is reported at info as backing that key, never as one to drop:
    InnoDB's foreign-key checks read through it without touching the counters, and
    the server refuses to drop it (error 1553). Partitions of a PostgreSQL
    partitioned table are not reported one by one: their parent is, with the
    partitions' scans summed.

    ## Why is this bad?
    An index nobody reads still has to be updated by every INSERT (and by UPDATEs of
    its columns and DELETEs), takes disk and buffer-pool memory, and lengthens
    backups and replication. In Percona's iiBench run on InnoDB, three secondary
    indexes cut the single-row insert rate to about a third and tripled the table's
    size. Counters only cover the time since they started (server start, statistics
    reset): check that this span includes month-end jobs, reports and rare admin
    queries before dropping anything, and on replicas check there too.

    ## Example
    ```sql
    -- production counters: 12.4M inserts vs 0.3M reads; idx_scan of events_kind = 0
    CREATE INDEX events_kind ON events (kind);
    ```

    ## Use instead
    ```sql
    -- after confirming no query (on the primary or any replica) needs it
    DROP INDEX CONCURRENTLY events_kind;   -- MySQL/MariaDB: ALTER TABLE events DROP INDEX events_kind
    ```
    """

    code = "SC107"
    name = "unused-index"
    family = "schema"
    summary = "Index {index} on {table} was never used since {since}"
    default_severity = Severity.WARNING
    evidence = (
        "percona-2012-iibench-secondary-indexes",
        "tomfern-2019-mariadb-idle-indexes",
        "klotzandrew-2019-pg-insert-indexes",
        "postgresai-2023-over-indexing-planning",
    )

    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:
        w = table.workload
        if w is None or table.partition_of is not None or table.defined_at is None:
            return
        if idle(w):
            return  # not enough activity to judge an index by (the audit notes how many tables)
        since = (
            moment(w.since)
            if w.since
            else (
                "userstat began counting (the server does not record when)"
                if w.source == "userstat"
                else "the counters started"
            )
        )
        referencing = ctx.schema.foreign_keys_to_table(table) if ctx.dialect.is_mysql_family else []
        for index in table.indexes:
            if index.unique or index.primary or index.scans != 0:
                continue
            at = index.defined_at or table.defined_at
            label = index.name or "(" + ", ".join(index.columns) + ")"
            shown = written(index.name, ctx.dialect) if index.name else label  # as DROP INDEX writes it
            fk = table.foreign_key_needs(index, referencing) if ctx.dialect.is_mysql_family else None
            if fk is not None:
                # InnoDB's foreign-key checks read through the index without touching these counters
                backing = self.finding(
                    at,
                    table=table.qualified_name,
                    index=label,
                    dialect=ctx.dialect,
                    severity=Severity.INFO,
                    message=f"Index {label} on {table.qualified_name} backs foreign key {fk.name or fk.columns}: "
                    "the counters do not record foreign-key checks, and InnoDB refuses to drop it "
                    "(error 1553) while the key needs it",
                    identity=label,
                )
                backing.foreign_key = fk.name or ", ".join(fk.columns)  # reports tell these apart
                yield backing
                continue
            if table.insert_heavy:
                cost = f"insert-heavy: {describe(w, since=False)}; every insert also writes this index"
            else:
                cost = describe(w, since=False)  # the message said since when
            yield self.finding(
                at,
                table=table.qualified_name,
                index=label,
                dialect=ctx.dialect,
                severity=None if table.insert_heavy else Severity.INFO,
                message=self.summary.format(index=shown, table=written(table.qualified_name, ctx.dialect), since=since)
                + f" ({cost})",
                identity=label,
                suggestion=f"drop index {shown} once no query on the primary or a replica needs it",
            )
