"""insert-heavy-indexes: insert-heavy tables carrying many secondary indexes."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator

from schemacite.lint.config import Config
from schemacite.lint.workload import describe
from schemacite.model import Table, latest
from schemacite.model.record import default
from schemacite.rule import Context, Finding, Option, Rule, Severity
from schemacite.sources.names import written

# names that say a table only ever grows; matches are reported as inferred, at info level
APPEND_ONLY_NAMES = (
    "*_log",
    "*_logs",
    "*_events",
    "*_history",
    "*_audit",
    "audit_*",
    "*_audit_log",
    "*_journal",
    "*_metrics",
)

WHY = {
    "annotation": "annotated `-- schemacite: insert-heavy`",
    "config": "listed in insert_heavy",
    "name": "inferred from its name",
}


class InsertHeavyIndexes(Rule):
    """Insert-heavy table has more secondary indexes than the limit.

    ## What it does
    Flags an insert-heavy table with more than `max_secondary_indexes` secondary
    indexes, unique ones included (the primary key is not counted; on
    MySQL/MariaDB the index InnoDB adds for a foreign key is). A table is
    insert-heavy when the `insert_heavy` setting lists it, when a
    `-- schemacite: insert-heavy` comment precedes its CREATE TABLE, when live
    workload counters in a snapshot or audit show it, or, reported as inferred and
    at info level, when its name says it only grows (`*_log`, `*_logs`, `*_events`,
    `*_history`, `*_audit`, `audit_*`, `*_journal`, `*_metrics`) and no other table's foreign key
    references it (a table others point to holds things rows are about: `billable_metrics`, a
    catalogue of the metrics a product bills, not a stream of them). Names and the setting's globs
    are matched without the table's schema and case (`app.Audit_Trail` is an `audit_*`; a setting's
    glob may name the schema too). With no sign of insert-heaviness there is no finding.

    ## Why is this bad?
    Every insert must also update every secondary index, in random order for most
    keys, so write throughput falls and the table and its indexes grow. In Percona's
    iiBench run on InnoDB, a table with three secondary indexes took roughly a third
    of the inserts per second of the same table with only a primary key, and took
    about three times the disk.

    ## Example
    ```sql mysql
    -- schemacite: insert-heavy
    CREATE TABLE events (id bigint PRIMARY KEY, account_id bigint, kind int, created_at timestamp,
      KEY (account_id), KEY (kind), KEY (created_at));
    ```

    ## Use instead
    ```sql mysql
    -- schemacite: insert-heavy
    CREATE TABLE events (id bigint PRIMARY KEY, account_id bigint, kind int, created_at timestamp,
      KEY (account_id, created_at));
    ```

    ## Options
    - `max_secondary_indexes`: how many secondary indexes an insert-heavy table may have (default: the
      top-level `max_secondary_indexes` setting, 2).
    - `infer_insert_heavy`: whether a table's name may make it insert-heavy (default: the top-level
      `infer_insert_heavy` setting, true).
    """

    code = "SC102"
    name = "insert-heavy-indexes"
    family = "schema"
    summary = "Insert-heavy table {table} has {count} secondary indexes (limit {limit})"
    default_severity = Severity.WARNING
    evidence = (
        "percona-2012-iibench-secondary-indexes",
        "tomfern-2019-mariadb-idle-indexes",
        "klotzandrew-2019-pg-insert-indexes",
        "postgresai-2023-over-indexing-planning",
        "pganalyze-doc-index-write-overhead",
    )
    options = {
        "max_secondary_indexes": Option(
            int,
            default(Config, "max_secondary_indexes"),
            "secondary indexes allowed on an insert-heavy table",
            setting="max_secondary_indexes",
        ),
        "infer_insert_heavy": Option(
            bool,
            default(Config, "infer_insert_heavy"),
            "append-only names count as insert-heavy (info level)",
            setting="infer_insert_heavy",
        ),
    }

    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:
        limit = self.option_values["max_secondary_indexes"]
        heavy = table.insert_heavy or self._named(table, ctx)
        if not heavy or len(table.indexes) <= limit:
            return
        at = latest(table.defined_at, *(i.defined_at for i in table.indexes))
        if at is None:
            return
        why = describe(table.workload) if heavy == "workload" and table.workload else WHY[heavy]
        # an index a foreign key needs cannot go (InnoDB: error 1553), used or not
        referencing = ctx.schema.foreign_keys_to_table(table) if ctx.dialect.is_mysql_family else None
        unused = [
            i.name or ",".join(i.columns)
            for i in table.indexes
            if i.scans == 0 and (referencing is None or table.foreign_key_needs(i, referencing) is None)
        ]
        hint = f"; never used since counters started: {', '.join(unused)}" if unused else ""
        newest = next((i for i in reversed(table.indexes) if i.defined_at == at), table.indexes[-1])
        yield self.finding(
            at,
            table=table.qualified_name,
            index=newest.name or "(" + ", ".join(newest.columns) + ")",
            dialect=ctx.dialect,
            severity=Severity.INFO if heavy == "name" else None,
            message=self.summary.format(
                table=written(table.qualified_name, ctx.dialect), count=len(table.indexes), limit=limit
            )
            + f" ({why}){hint}",
            suggestion="drop indexes that reads do not need, or merge them into one composite index",
        )

    def _named(self, table: Table, ctx: Context) -> str | None:
        """Why a table not marked insert-heavy counts as such here: "name", when it has no counters
        to go by, its name says it only grows, and no foreign key points to it."""
        if not self.option_values["infer_insert_heavy"] or table.workload is not None:
            return None
        # the table's own name, without the schema a replayed name holds (`app.audit_trail`), in lower
        # case: the patterns are about what the table holds, not how it is spelled
        bare = table.name.rsplit(".", 1)[-1].lower()
        if not any(fnmatch.fnmatchcase(bare, pat) for pat in APPEND_ONLY_NAMES):
            return None
        return None if ctx.schema.foreign_keys_to_table(table) else "name"
