"""partition-key-not-in-pk: partitioned tables whose keys lack the partition columns."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Table, latest
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.sources.names import written, written_names


class PartitionKeyNotInPk(Rule):
    """Partitioned table's primary key or unique key lacks a partition column.

    ## What it does
    On MySQL/MariaDB, flags a partitioned table when a column that its partitioning
    expression or column list reads (RANGE, LIST, HASH, KEY, LINEAR and COLUMNS forms,
    subpartitions included; `KEY()` uses the primary key itself) is missing from the
    primary key or from any unique key. On PostgreSQL, flags a partitioned table whose
    primary key or unique constraints do not include every partition key column. It
    also catches partitioning added later with `ALTER TABLE ... PARTITION BY`.

    ## Why is this bad?
    Both servers refuse the statement: MySQL and MariaDB with error 1503 (a primary
    or unique key must include all columns of the partitioning function) and
    PostgreSQL with "unique constraint on partitioned table must include all
    partitioning columns". The migration fails when it runs. The usual fix is to
    widen the key, `PRIMARY KEY (id, created_at)`; lookups that do not name the
    partition key then read every partition, one after another.

    ## Example
    ```sql mysql
    CREATE TABLE measurements (id bigint NOT NULL, taken_on date NOT NULL, PRIMARY KEY (id))
      PARTITION BY RANGE (YEAR(taken_on)) (PARTITION p0 VALUES LESS THAN MAXVALUE);
    ```

    ## Use instead
    ```sql mysql
    CREATE TABLE measurements (id bigint NOT NULL, taken_on date NOT NULL, PRIMARY KEY (id, taken_on))
      PARTITION BY RANGE (YEAR(taken_on)) (PARTITION p0 VALUES LESS THAN MAXVALUE);
    ```
    """

    code = "SC103"
    name = "partition-key-not-in-pk"
    family = "schema"
    summary = "Partitioned table {table}: {key} lacks partition column(s) {missing}"
    default_severity = Severity.ERROR
    evidence = (
        "mysql-doc-partitioning-keys",
        "mariadb-doc-partitioning-limitations",
        "pg-doc-partitioned-unique-keys",
        "percona-2017-mysql-partitioning",
    )
    evidence_note = (
        "The server refuses such a table (MySQL and MariaDB error 1503, PostgreSQL SQLSTATE 0A000): there is no "
        "cost to measure, and the servers' documentation is the evidence."
    )

    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:
        for key, missing in table.keys_lacking_partition_columns():
            label = "primary key" if key.primary else f"unique key {key.name or '(' + ', '.join(key.columns) + ')'}"
            shown = label if key.primary or not key.name else f"unique key {written(key.name, ctx.dialect)}"
            at = latest(table.partitioning.defined_at, key.defined_at, table.defined_at)
            if at is None:
                continue
            cols = written_names(key.columns + missing, ctx.dialect)
            yield self.finding(
                at,
                table=table.qualified_name,
                dialect=ctx.dialect,
                key=f"{shown} ({written_names(key.columns, ctx.dialect)})",
                missing=written_names(missing, ctx.dialect),
                identity=label,
                suggestion=f"include the partition column(s) in the key: ({cols})",
            )
