"""integer-key-runs-out: a counted key of a type that stops at 2^31 or sooner."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator

from schemacite.lint.workload import Exhaustion, exhaustion
from schemacite.model import Column, Table, latest
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.integers import IntegerType, integer_type
from schemacite.model.schema import owned_sequence
from schemacite.rule import Context, Finding, Option, Rule, Severity
from schemacite.rules.insert_heavy_indexes import APPEND_ONLY_NAMES
from schemacite.sources.names import in_sql, relation_in_sql

# types wide enough that no insert rate seen in practice fills them
WIDE_BITS = 64
# a 32-bit key fills only on a table that takes rows by the billion: without counters, only a table
# marked insert-heavy or named as one that only grows is flagged; narrower keys fill on ordinary tables
ORDINARY_BITS = 32
# names of tables that only grow, besides those insert-heavy-indexes reads (the bare plurals too)
GROWING_NAMES = (*APPEND_ONLY_NAMES, "events", "logs", "log", "history", "journal", "metrics", "audit")
# names of tables that hold a short list the application defines (kinds, states, settings): a counted
# key there is a choice, not a risk, unless a snapshot shows the table growing
LOOKUP_NAMES = (
    "*_type",
    "*_types",
    "*_kind",
    "*_kinds",
    "*_status",
    "*_statuses",
    "*_state",
    "*_states",
    "*_category",
    "*_categories",
    "*_setting",
    "*_settings",
    "settings",
    "*_config",
    "*_configs",
    "config",
    "configs",
    "*_enum",
    "*_enums",
    "*_role",
    "*_roles",
    "roles",
    "*_version",
    "*_versions",
    "schema_version",
    "schema_migrations",
    "*_migrations",
    "migrations",
    "*_lookup",
    "*_lookups",
    "countries",
    "currencies",
    "languages",
    "locales",
)
HORIZON = Option(float, 3.0, "a key that counters show running out within this many years is an error")
# a projection further off than this is no finding: nobody acts on it, and the counters' window says
# little about a century
IGNORED_AFTER_YEARS = 100


def counted(table: Table) -> list[tuple[Column, str]]:
    """The table's columns the server counts up (serial, identity, AUTO_INCREMENT, a nextval()
    default), each with how it is counted; a single-column primary key counts only that way."""
    out = []
    for column in table.columns.values():
        if column.serial:
            how = "serial"
        elif column.identity:
            how = "identity"
        elif column.auto_increment:
            how = "AUTO_INCREMENT"
        elif "nextval" in column.default_calls:
            how = "sequence default"
        else:
            continue
        out.append((column, how))
    return out


class IntegerKeyRunsOut(Rule):
    """Counted key of a 32-bit or smaller integer type.

    ## What it does
    Flags a column the server counts up for every insert (a PostgreSQL `serial`, `smallserial`, identity
    column or `nextval()` default; a MySQL/MariaDB `AUTO_INCREMENT` column) whose type stops short of
    64 bits. The limits are exact: PostgreSQL `smallint` 32,767 and `integer` 2,147,483,647; MySQL and
    MariaDB `TINYINT` 127 (255 unsigned), `SMALLINT` 32,767 (65,535), `MEDIUMINT` 8,388,607
    (16,777,215) and `INT` 2,147,483,647 (4,294,967,295). Foreign keys referencing the column share
    its limit, and the message names them. A bigint key that an integer foreign key column references
    is flagged by `foreign-key-narrower-than-key` (SC120).

    A PostgreSQL `serial` column widened to `bigint` on its own is flagged as well: the sequence the
    serial made keeps its `integer` maximum when only the column's type changes, so inserts still stop
    at 2,147,483,647 until `ALTER SEQUENCE ... AS bigint`. An identity column's sequence follows its
    column's type, and needs nothing more.

    The finding lands where the column got its type (the `CREATE TABLE`, the `ADD COLUMN`, the type
    change), so a table is reported once, by the migration that chose the type, not again by every
    later migration that touches it.

    With a snapshot or an audit whose counters cover a window of a day or more (`since` to
    `sampled_at`; a shorter one, after a restart, is no rate to project years ahead), the rule
    works out the rate: rows inserted a day over that window, and from the table's row count (a floor
    for the key's current value, since deleted rows and rolled-back inserts also used values), the day
    the key reaches its limit at that rate. It is an error when that day falls within `horizon_years`,
    a warning when later, and no finding when the counters show it more than a century away or show
    no inserts at all. The message gives every figure the date rests on.

    Without counters a key of 32 bits is flagged, as a warning, only on a table known to grow without
    end: marked insert-heavy (`-- schemacite: insert-heavy`, the `insert_heavy` setting) or named so
    (`events`, `*_events`, `*_log`, `*_logs`, `*_history`, `audit_*`, ...). A 32-bit key on a table of
    users, posts or orders is not: two billion rows is beyond nearly every such table. On the runner
    examples in the suite, flagging every 32-bit counted key gave eight warnings, all on such tables
    (users, posts, crates, releases, organizations), and this policy none; the full histories of
    six open-source projects hold no narrow counted key at all, and counting integer keys the
    application assigns would have added four harmless findings there (shard and partition numbers,
    a queue type). Narrower keys (`smallserial`, `MEDIUMINT`, ...) fill on ordinary tables and are
    flagged unless the table's name says it holds a short list the application defines (`*_types`,
    `*_statuses`, `settings`, `roles`, `schema_migrations`, ...): a ten-row table never runs out.
    Names are matched without their schema and case (`app.Settings` is a `settings`).

    ## Why is this bad?
    When the counter passes the type's limit, every insert into the table fails: PostgreSQL raises
    `nextval: reached maximum value of sequence` or `integer out of range`; MySQL and MariaDB report a
    duplicate entry for the largest value. Nothing warns beforehand. Basecamp 3 was read-only for
    almost five hours in November 2018 when the integer id of its events table reached 2,147,483,647.
    Widening the column later rewrites the table (PostgreSQL `ALTER COLUMN TYPE bigint` holds an
    ACCESS EXCLUSIVE lock while it does, see `access-exclusive-lock`), which is why the type is best
    chosen when the table is created.

    ## Example
    ```sql postgres
    CREATE TABLE events (id serial PRIMARY KEY, kind text NOT NULL, created_at timestamptz NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE events (id bigserial PRIMARY KEY, kind text NOT NULL, created_at timestamptz NOT NULL);
    ```

    ## Fix
    Display-only. A table the change creates is declared with `bigint` (`bigserial`, `bigint GENERATED
    ... AS IDENTITY`, `BIGINT UNSIGNED AUTO_INCREMENT`). A table that exists gets the widening as a
    template with its cost: on PostgreSQL `ALTER COLUMN ... TYPE bigint` rewrites the table under
    ACCESS EXCLUSIVE, so a large table is moved online instead (a new bigint column filled by a trigger
    and a batched backfill, then swapped in); on MySQL and MariaDB `MODIFY` copies the table and blocks
    writes, so a large one goes through an online schema change tool. Referencing columns are widened
    with it.

    ## Options
    - `horizon_years`: a key that counters show running out within this many years is an error
      (default 3).

    ## References
    - https://www.postgresql.org/docs/current/datatype-numeric.html
    - https://dev.mysql.com/doc/refman/8.4/en/integer-types.html
    - https://mariadb.com/kb/en/int/
    """

    code = "SC119"
    name = "integer-key-runs-out"
    family = "runs-out"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "Key {table}.{column} is {type}: inserts fail once it passes {limit}"
    default_severity = Severity.WARNING
    options = {"horizon_years": HORIZON}
    evidence = (
        "basecamp-2018-integer-id-outage",
        "swanson-2017-postgres-ids-ran-out",
        "mysql-bug-80373-auto-increment-max",
        "pg-doc-numeric-types",
        "mysql-doc-integer-types",
        "mariadb-kb-int",
    )
    evidence_note = (
        "The limit is arithmetic on the documented range of the type, checked on the PostgreSQL and "
        "MariaDB servers of the suite; the incidents show what reaching it costs, no benchmark applies."
    )

    def check_table(self, table: Table, ctx: Context) -> Iterator[Finding]:
        if not table.complete or table.temporary or table.partition_of:
            return
        for column, how in counted(table):
            kind = integer_type(ctx.dialect, column)
            sequence = integer_type(ctx.dialect, Column("", base_type=column.sequence_type or ""))
            if kind is not None and sequence is not None and sequence.max < kind.max:
                # a serial column widened alone: its sequence still stops at the old type's limit
                how = f"its serial sequence is still {sequence.name}"
                kind = IntegerType(kind.name, sequence.bits, sequence.max)
            if kind is None or kind.bits >= WIDE_BITS:
                continue
            at = latest(table.defined_at, column.defined_at)
            if at is None:
                continue
            finding = self._judge(table, column, how, kind, ctx, at)
            if finding is not None:
                yield finding

    def _judge(self, table: Table, column: Column, how: str, kind: IntegerType, ctx: Context, at) -> Finding | None:
        projection = exhaustion(table, kind.max)
        severity = None
        if projection is None:
            growing = _growing(table)
            if growing is None and (kind.bits >= ORDINARY_BITS or lookup(table)):
                return None
            when = f" ({growing})" if growing else ""
        else:
            severity = grade(projection, self.option_values["horizon_years"])
            if severity is None:
                return None
            when = f"; {projection.figures}"
        sharing = _referencing(table, column, ctx)
        shared = f"; {sharing} share the limit" if sharing else ""
        message = (
            self.summary.format(
                table=table.qualified_name, column=column.name, type=f"{kind.name} ({how})", limit=f"{kind.max:,}"
            )
            + when
            + shared
        )
        created = at == table.defined_at
        finding = self.finding(
            at,
            table=table.qualified_name,
            dialect=ctx.dialect,
            severity=severity,
            message=message,
            suggestion=_advice(created, ctx),
        )
        finding.fix = widen_fix(table, column, how, ctx)
        return finding


def grade(projection: Exhaustion, horizon_years: float) -> Severity | None:
    """An error within the horizon, a warning later, nothing past a century or with no inserts."""
    days = projection.days
    if days is None or days > IGNORED_AFTER_YEARS * 365.25:
        return None
    return Severity.ERROR if days <= horizon_years * 365.25 else Severity.WARNING


def _bare(table: Table) -> str:
    """The table's own name, without its schema (a replayed table's name holds it: `app.settings`),
    in lower case: the name patterns are about what the table holds, not how it is spelled."""
    return table.name.rsplit(".", 1)[-1].lower()


def lookup(table: Table) -> bool:
    """Whether the table's name says it holds a short list the application defines."""
    return any(fnmatch.fnmatchcase(_bare(table), pattern) for pattern in LOOKUP_NAMES)


def _growing(table: Table) -> str | None:
    """Why the table is taken to grow without end, when nothing counted its inserts."""
    if table.insert_heavy in GROWN_BY:
        return GROWN_BY[table.insert_heavy]
    if any(fnmatch.fnmatchcase(_bare(table), pattern) for pattern in GROWING_NAMES):
        return "its name says it only grows"
    return None


GROWN_BY = {
    "annotation": "annotated insert-heavy",
    "config": "listed in insert_heavy",
    "workload": "insert-heavy by its counters",
}


def _referencing_columns(key: str, table: Table, column: Column, ctx: Context) -> list[tuple[str, str]]:
    """(table key, column) of each foreign key column that holds values of `column`."""
    pk = table.primary_key.columns if table.primary_key is not None else ()
    out = []
    for other in ctx.schema.referencing(key):
        for fk in ctx.schema.tables[other].foreign_keys:
            ref = fk.ref_columns or pk
            if fk.references == key and column.name in ref and len(ref) == len(fk.columns):
                out.append((other, fk.columns[ref.index(column.name)]))
    return out


def _referencing(table: Table, column: Column, ctx: Context) -> str:
    """The referencing columns that hold values of `column`, as `orders.user_id`."""
    key = next((k for k, t in ctx.schema.tables.items() if t is table), table.name)
    names = [f"{ctx.schema.tables[o].qualified_name}.{c}" for o, c in _referencing_columns(key, table, column, ctx)]
    if len(names) > 3:
        return f"{', '.join(names[:3])} and {len(names) - 3} more"
    return ", ".join(names)


def _advice(created: bool, ctx: Context) -> str:
    postgres = ctx.dialect is Dialect.POSTGRES
    wide = "bigint (bigserial, or bigint GENERATED ... AS IDENTITY)" if postgres else "BIGINT UNSIGNED AUTO_INCREMENT"
    first = f"if this has not run yet, declare it {wide}; " if created else ""
    if postgres:
        return (
            f"{first}widening later rewrites the table under ACCESS EXCLUSIVE (SC104): on a large table add a "
            "bigint column, fill it by trigger and batched backfill, then swap it in"
        )
    return (
        f"{first}widening later copies the table and blocks writes: move a large table with gh-ost or "
        "pt-online-schema-change"
    )


def widen_fix(table: Table, column: Column, how: str, ctx: Context) -> Fix:
    """The statements that widen the key and the columns referencing it to 64 bits, as a template:
    each rewrites its table, so when and how to run them is the user's call."""
    key = next((k for k, t in ctx.schema.tables.items() if t is table), table.name)
    targets = [(table, column.name)] + [
        (ctx.schema.tables[other], fk_column) for other, fk_column in _referencing_columns(key, table, column, ctx)
    ]
    lines = []
    for owner, name in targets:
        current = integer_type(ctx.dialect, owner.columns[name])
        if current is not None and current.bits >= WIDE_BITS:
            continue  # already wide: a serial column widened without its sequence
        table_sql, column_sql = relation_in_sql(owner.qualified_name, ctx.dialect), in_sql(name, ctx.dialect)
        if ctx.dialect is Dialect.POSTGRES:
            lines.append(f"ALTER TABLE {table_sql} ALTER COLUMN {column_sql} TYPE bigint;")
        else:
            definition = owner.columns[name]
            auto = " AUTO_INCREMENT" if definition.auto_increment else ""
            null = " NOT NULL" if not definition.nullable else ""
            unsigned = " UNSIGNED" if definition.unsigned else ""
            lines.append(f"ALTER TABLE {table_sql} MODIFY {column_sql} BIGINT{unsigned}{null}{auto};")
    if ctx.dialect is Dialect.POSTGRES and how in ("serial", "sequence default"):
        # a serial column's sequence is created AS integer and keeps its maximum when the column widens
        sequence = relation_in_sql(owned_sequence(table.qualified_name, column.name), ctx.dialect)
        lines.append(f"ALTER SEQUENCE {sequence} AS bigint;  -- the sequence pg_get_serial_sequence names")
    return Fix(
        "widen the key and the columns referencing it to 64 bits (each statement rewrites its table)",
        Applicability.DISPLAY_ONLY,
        template="\n".join(lines),
    )
