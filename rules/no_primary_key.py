"""no-primary-key: tables with no primary key."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Table, latest
from schemacite.model.dialects import Dialect
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.rewrites_keys import key_fix


class NoPrimaryKey(Rule):
    """Table has no primary key.

    ## What it does
    Flags tables that end up with no primary key, whether created that way (including
    `CREATE TABLE ... AS SELECT`, which copies no key) or left without one by a later
    `DROP PRIMARY KEY`. Views, temporary tables and PostgreSQL partitions (which take
    their keys from the parent) are not flagged. On MySQL/MariaDB a table whose first
    declared `NOT NULL UNIQUE` key of whole columns InnoDB promotes to the clustered index
    only gets an info-level nudge naming that key, since it avoids the hidden row id. A
    unique key on a column prefix (`UNIQUE KEY (token(16))`) is never promoted: such a
    table gets a hidden row id and the warning.

    ## Why is this bad?
    On InnoDB (MySQL, MariaDB) a table with neither a primary key nor a NOT NULL unique
    key is clustered on a hidden 6-byte row id that every insert draws from one
    server-wide counter under the data-dictionary mutex, so concurrent inserts into
    such tables queue on that mutex. Percona measured single-row insert throughput and
    parallel bulk loads fall well behind the same table with a primary key.

    On PostgreSQL no such counter exists; the cost is elsewhere: logical replication
    cannot publish UPDATE or DELETE on a table without a replica identity, which is the
    primary key by default, and rows have no stable identity for tools that need one.

    ## Fix
    Display-only, every dialect: the key to add, with what adding it costs. On PostgreSQL a unique
    index over NOT NULL columns made by CREATE UNIQUE INDEX (not a UNIQUE constraint's) becomes the
    key with `ADD CONSTRAINT t_pkey PRIMARY KEY USING INDEX idx`, a brief lock that reads no row
    (where the table has an `id` column, only an index of `id`). Otherwise a column named `id`,
    or on MySQL/MariaDB the NOT NULL unique key InnoDB already clusters on, is declared the
    primary key; failing that PostgreSQL gets
    `ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY` (a rewrite under ACCESS
    EXCLUSIVE) and MySQL/MariaDB `ADD COLUMN id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY
    KEY FIRST` (a rebuild that blocks writes). The cost comes from the lock table, and how long it
    lasts from the measured rate when a snapshot gives the table's size.

    On a partitioned table the key also holds every partition column, which both servers demand
    (`PRIMARY KEY (id, taken_on)`); a new `id` column is `bigserial` on PostgreSQL before 17, which
    refuses an identity column there. Where a snapshot shows a PostgreSQL partition to be large, the
    key is built one partition at a time: NOT NULL proven by a validated CHECK, the key declared `ON
    ONLY` the parent, then each partition's unique index built `CONCURRENTLY`, made its primary key
    `USING INDEX` and attached to the parent's (`ALTER INDEX ... ATTACH PARTITION`). PostgreSQL
    refuses every primary key on a table partitioned by an expression: the finding says so and
    proposes none.

    ## Example
    ```sql
    CREATE TABLE page_views (viewed_at timestamp NOT NULL, url text NOT NULL);
    ```

    ## Use instead
    ```sql
    CREATE TABLE page_views (id bigint NOT NULL PRIMARY KEY, viewed_at timestamp NOT NULL, url text NOT NULL);
    ```
    """

    code = "SC101"
    name = "no-primary-key"
    family = "schema"
    summary = "Table {table} has no primary key"
    default_severity = Severity.WARNING
    evidence = (
        "percona-2013-hidden-rowid",
        "mysql-bug-53375-rbr-no-pk-delete",
        "cloudfoundry-2018-galera-no-pk-delete",
        "baidu-rds-no-pk-replication-delay",
        "mysql-doc-rbr-row-searches-hash-scan",
        "mariadb-kb-rbr-no-primary-key",
        "mysql-doc-innodb-hidden-row-id",
        "mysql-wl11807-sql-require-primary-key",
        "aiven-doc-mysql-rbr-no-pk",
        "pg-doc-replica-identity",
        "aws-doc-replica-identity-full",
        "pgsql-hackers-2026-ri-full-index-selection",
    )

    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:
        for finding in self._findings(table, ctx):
            if _expression_key(table, ctx) is None:
                finding.fix = key_fix(table, ctx)
            yield finding

    def _findings(self, table: Table, ctx: Context) -> Iterator[Finding]:
        if table.primary_key is not None or not table.complete or table.temporary or table.partition_of:
            return
        at = latest(table.key_changed_at, table.defined_at)
        if at is None:
            return
        expression = _expression_key(table, ctx)
        if expression is not None:
            yield self.finding(
                at,
                table=table.qualified_name,
                dialect=ctx.dialect,
                suggestion=f"no primary key can be proposed: PostgreSQL refuses one on a table partitioned by an "
                f"expression ({expression}); partition by columns, or set REPLICA IDENTITY FULL for logical replication",
            )
            return
        if ctx.dialect is Dialect.POSTGRES:
            yield self.finding(
                at,
                table=table.qualified_name,
                dialect=ctx.dialect,
                suggestion="add a primary key: logical replication cannot publish UPDATE/DELETE without a replica identity",
            )
            return
        if table.engine and table.engine.lower() != "innodb":
            return  # the hidden row id is an InnoDB cost
        key = table.clustering_key
        if key is not None:
            yield self.finding(
                at,
                table=table.qualified_name,
                dialect=ctx.dialect,
                severity=Severity.INFO,
                message=f"Table {table.qualified_name} has no primary key; InnoDB clusters it on NOT NULL unique key "
                f"{key.name or '(' + ', '.join(key.columns) + ')'}",
                suggestion="declare that key as the PRIMARY KEY so the choice is explicit",
            )
            return
        prefixed = next((i for i in table.indexes if i.unique and i.prefix), None)
        why = (
            f"; its unique key {prefixed.name or '(' + ', '.join(prefixed.columns) + ')'} indexes a column prefix, "
            "which InnoDB never clusters on"
            if prefixed is not None
            else ""
        )
        yield self.finding(
            at,
            table=table.qualified_name,
            dialect=ctx.dialect,
            message=self.summary.format(table=table.qualified_name) + why,
            suggestion="add a PRIMARY KEY (an AUTO_INCREMENT id, or the natural key) so InnoDB does not "
            "allocate hidden row ids under its global dictionary mutex",
        )


def _expression_key(table: Table, ctx: Context) -> str | None:
    """The partition key of a PostgreSQL table partitioned by an expression, on which the server
    refuses every primary key and unique constraint; None for any other table."""
    part = table.partitioning
    by_expression = ctx.dialect is Dialect.POSTGRES and part is not None and part.by_expression
    return part.expression if by_expression and part is not None else None
