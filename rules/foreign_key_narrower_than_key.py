"""foreign-key-narrower-than-key: a foreign key column that holds fewer values than the key it references."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.lint.workload import exhaustion
from schemacite.model import Column, ForeignKey, Table, latest
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.integers import integer_type
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.integer_key_runs_out import HORIZON, grade, lookup
from schemacite.sources.names import in_sql, relation_in_sql


class ForeignKeyNarrowerThanKey(Rule):
    """Foreign key column of a narrower integer type than the key it references.

    ## What it does
    Flags a foreign key column of an integer type that stops before the type of the column it
    references: an `integer` column referencing a `bigint` key, a `smallint` one referencing an
    `integer` key. PostgreSQL accepts such a foreign key; once the referenced key passes the
    narrower type's limit (2,147,483,647 for `integer`, 32,767 for `smallint`), a row that points at
    the new parent rows cannot be stored, and the insert fails with `integer out of range`. MySQL and
    MariaDB refuse the foreign key itself when the integer types differ in size or sign (MariaDB
    reports errno 150, "Foreign key constraint is incorrectly formed"), so the rule is PostgreSQL's.

    The finding lands on the statement that made the two columns differ: the `CREATE TABLE` or
    `ADD COLUMN` of the referencing column, or the type change of either side, such as a key widened
    to `bigint` while the columns referencing it were left as they were. With a snapshot or an audit
    whose counters show the referenced table's inserts, the message gives the day its key passes
    the narrower limit: an error within `horizon_years`, a warning later, no finding past a century
    or when the counters show no inserts, as `integer-key-runs-out` grades its own dates. Without
    counters, a key of a table whose name says it holds a short list the application defines
    (`*_statuses`, `*_types`, `settings`, ...: `integer-key-runs-out`'s list) is left alone.

    ## Why is this bad?
    Widening a key that was running out is the usual remedy for `integer-key-runs-out`, and a
    referencing column left behind brings the same outage back through another table: the parent
    takes new rows, and the children that point at them are refused.

    ## Example
    ```sql postgres
    CREATE TABLE customers (id bigserial PRIMARY KEY);
    CREATE TABLE invoices (id bigserial PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE customers (id bigserial PRIMARY KEY);
    CREATE TABLE invoices (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers);
    ```

    ## Fix
    Display-only: `ALTER TABLE ... ALTER COLUMN ... TYPE bigint` (or the referenced column's type)
    for the referencing column. It rewrites the referencing table under ACCESS EXCLUSIVE (see
    `access-exclusive-lock`), so a large one is moved online: a new column filled by a trigger and
    batched backfill, then swapped in.

    ## Options
    - `horizon_years`: a referenced key that counters show passing the limit within this many years
      is an error (default 3).

    ## References
    - https://www.postgresql.org/docs/current/datatype-numeric.html
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK
    """

    code = "SC120"
    name = "foreign-key-narrower-than-key"
    family = "runs-out"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = (
        "Foreign key {table}.{column} is {narrow} but references {parent}.{key} ({wide}): rows pointing at "
        "{parent} fail once its key passes {limit}"
    )
    default_severity = Severity.WARNING
    options = {"horizon_years": HORIZON}
    dialects = frozenset({"postgres"})  # MySQL and MariaDB refuse a foreign key whose integer types differ
    evidence = ("pg-doc-numeric-types", "basecamp-2018-integer-id-outage", "swanson-2017-postgres-ids-ran-out")
    evidence_note = (
        "The limit is arithmetic on the documented range of the narrower type, checked on PostgreSQL "
        "in the suite; no benchmark applies."
    )

    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:
        if not table.complete or table.temporary or table.partition_of:
            return
        for fk in table.foreign_keys:
            parent = ctx.schema.tables.get(fk.references)
            if parent is None:
                continue
            for column, key in _pairs(table, parent, fk):
                finding = self._judge(table, column, parent, key, ctx)
                if finding is not None:
                    yield finding

    def _judge(self, table: Table, column: Column, parent: Table, key: Column, ctx: Context) -> Finding | None:
        narrow, wide = integer_type(ctx.dialect, column), integer_type(ctx.dialect, key)
        if narrow is None or wide is None or narrow.max >= wide.max:
            return None
        at = latest(table.defined_at, column.defined_at, key.defined_at)
        if at is None:
            return None
        severity = None
        when = ""
        projection = exhaustion(parent, narrow.max)
        if projection is None and lookup(parent):
            return None  # a short list the application defines (`order_statuses`) never counts that far
        if projection is not None:
            severity = grade(projection, self.option_values["horizon_years"])
            if severity is None:
                return None
            when = f"; {projection.figures}"
        finding = self.finding(
            at,
            table=table.qualified_name,
            dialect=ctx.dialect,
            severity=severity,
            message=self.summary.format(
                table=table.qualified_name,
                column=column.name,
                narrow=narrow.name,
                parent=parent.qualified_name,
                key=key.name,
                wide=wide.name,
                limit=f"{narrow.max:,}",
            )
            + when,
            suggestion=f"make {column.name} {wide.name} like the key it references; on a large table this rewrite "
            "holds ACCESS EXCLUSIVE (SC104): add a column, fill it by trigger and batched backfill, then swap it in",
        )
        finding.fix = Fix(
            f"make {column.name} {wide.name} (rewrites {table.qualified_name})",
            Applicability.DISPLAY_ONLY,
            template=f"ALTER TABLE {relation_in_sql(table.qualified_name, ctx.dialect)} "
            f"ALTER COLUMN {in_sql(column.name, ctx.dialect)} TYPE {wide.name};",
        )
        return finding


def _pairs(table: Table, parent: Table, fk: ForeignKey) -> Iterator[tuple[Column, Column]]:
    """Each referencing column with the column it references."""
    referenced = fk.ref_columns or (parent.primary_key.columns if parent.primary_key is not None else ())
    if len(referenced) != len(fk.columns):
        return
    for name, ref in zip(fk.columns, referenced):
        column, key = table.columns.get(name), parent.columns.get(ref)
        if column is not None and key is not None:
            yield column, key
