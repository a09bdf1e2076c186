"""What a statement does to concurrent traffic, per dialect and server version.

`impacts(statement, schema, target)` is the single entry point: the lock rules
and `schemacite locks` both read it. The tables behind it are data modules,
one per dialect family (`postgres_table`, `mysql_table`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field

from schemacite.locks.modes import ALGORITHMS, MYSQL_LOCKS, worst
from schemacite.model import Index, Schema, Statement
from schemacite.model.dialects import Dialect, Target
from schemacite.model.record import record
from schemacite.model.statements import AlterTable, CopyFrom, CreateTableAs, Delete, Insert, Merge, RunsUnseen, Update
from schemacite.sources.names import written, written_names

# statement kinds that take no lock on a table that exists before the change
# statements the lock tables hold no row for: they lock no table, or (ALTER DOMAIN) lock the tables
# their own rule finds from the schema
NO_LOCK_KINDS = frozenset({"other", "set", "begin", "commit", "alter_domain", "alter_enum"})


@record(frozen=True)
class Lock:
    """One relation locked by a statement.

    `mode` is the pg_locks name on PostgreSQL (`AccessExclusiveLock`, ...) and the
    online-DDL lock level (`NONE`, `SHARED`, `EXCLUSIVE`) on MySQL/MariaDB.
    """

    relation: str
    mode: str
    blocks: str  # nothing | writes | reads+writes


@record
class LockImpact:
    """The lock outcome of one statement (or ALTER sub-command) on a given server."""

    operation: str  # the lock-table key, e.g. "alter_table.add_column"
    locks: list[Lock] = field(default_factory=list)
    rewrite: bool = False  # table rewritten (PostgreSQL) or rebuilt/copied (MySQL)
    rewrite_when: str | None = None  # the rewrite happens only on this condition, which the model cannot tell
    scan: bool = False  # a full scan (or index build) runs while the lock is held
    algorithm: str | None = None  # MySQL/MariaDB: INSTANT | INPLACE | NOCOPY | COPY
    alternative: str | None = None
    alternative_outside: bool = False  # the alternative runs outside any transaction block (CONCURRENTLY)
    note: str | None = None
    source: str = ""  # documentation the row comes from
    refused: str | None = None  # the error the server answers instead (MySQL code, PostgreSQL SQLSTATE)
    unknown: str | None = None  # why what it locks cannot be told (it runs SQL the reader cannot see)
    row: str | None = None  # the key of the lock-table row the prediction rests on
    # PostgreSQL: functions whose volatility decides the rewrite and is unknown (assumed volatile)
    volatility_unknown: tuple[str, ...] = ()

    @property
    def blocks(self) -> str:
        return worst(lk.blocks for lk in self.locks)


# variants named by the clause the statement itself wrote: printed as that clause, not in parentheses
# (`CREATE INDEX (EXISTS)` read as a glitch of the reader)
AS_WRITTEN = {"exists": "IF NOT EXISTS"}


def label(operation: str) -> str:
    """An operation key as words: `alter_table.add_column.virtual` -> `ALTER TABLE ADD COLUMN (VIRTUAL)`,
    `lock_table.access_exclusive` -> `LOCK TABLE (ACCESS EXCLUSIVE)`, `create_index.exists` ->
    `CREATE INDEX IF NOT EXISTS`."""
    parts = operation.split(".")
    if parts[0] == "alter_table" and len(parts) > 1:
        parts = [f"alter_table {parts[1]}", *parts[2:]]
    words = [p.replace("_", " ").upper() for p in parts[:1]]
    words += [f" {AS_WRITTEN[p]}" if p in AS_WRITTEN else f" ({p.replace('_', ' ').upper()})" for p in parts[1:]]
    return "".join(words)


def unmeasured(target: Target) -> str:
    """Why the lock verdicts for `target` rest on documentation alone, when no server of its kind
    was measured (MySQL), else ""."""
    if target.dialect is Dialect.POSTGRES:
        return ""  # every supported major is in postgres_table.MEASURED_ON
    # not at the top: a PostgreSQL run never loads the MySQL lock table
    from schemacite.locks.mysql_table import MEASURED_ON

    if target.dialect in MEASURED_ON:
        return ""
    name = {Dialect.MYSQL: "MySQL", Dialect.MARIADB: "MariaDB"}[target.dialect]
    return f"its lock rows rest on {name}'s documentation: no {name} server was run to measure them"


def worst_algorithm(impacts: list[LockImpact]) -> str | None:
    """The costliest MySQL/MariaDB algorithm among the impacts, if any names one."""
    return max((i.algorithm for i in impacts if i.algorithm in ALGORITHMS), key=ALGORITHMS.index, default=None)


def worst_lock_level(impacts: list[LockImpact]) -> str | None:
    """The strictest MySQL/MariaDB LOCK= level among the impacts, if any."""
    levels = (lk.mode for i in impacts for lk in i.locks if lk.mode in MYSQL_LOCKS)
    return max(levels, key=MYSQL_LOCKS.index, default=None)


# what the server answers to a table whose primary or unique key lacks a partitioning column
PARTITION_KEY_REFUSAL = {Dialect.POSTGRES: "0A000", Dialect.MYSQL: "1503", Dialect.MARIADB: "1503"}


def load_tables(dialect: Dialect) -> None:
    """Load the dialect's lock tables now instead of at the first statement looked up (a run that
    parses ahead in a second process loads them while that process parses the first file)."""
    # not at the top: locks.postgres and locks.mysql import this package; a run loads only its dialect's
    if dialect is Dialect.POSTGRES:
        import schemacite.locks.postgres  # noqa: F401 (its table loads with it)
    else:
        # not at the top: as above
        from schemacite.locks.mysql_table import tables

        tables()


def impacts_for(statement: Statement, schema: Schema, target: Target) -> list[LockImpact]:
    """The lock outcome of `statement` on the server `target` names (`postgres-16`, `mysql-8.0`, ...)."""
    if isinstance(statement.op, RunsUnseen):
        return [LockImpact(operation=statement.kind, unknown=f"{statement.op.what} runs SQL schemacite cannot read")]
    if target.dialect is Dialect.POSTGRES:
        # not at the top: locks.postgres and locks.mysql import this package; a run loads only its dialect's
        from schemacite.locks.postgres import impacts

        found = impacts(statement, schema, target.major)
    else:
        # not at the top: locks.postgres and locks.mysql import this package; a run loads only its dialect's
        from schemacite.locks.mysql import impacts as mysql_impacts

        found = mysql_impacts(statement, schema, target.dialect, target.version)
    model = getattr(statement.op, "model", None)
    if model is not None and model.keys_lacking_partition_columns():
        found = found or [LockImpact(operation=statement.kind)]
        found[0].refused = PARTITION_KEY_REFUSAL[target.dialect]
    return found


def locks_on_preexisting(impact: LockImpact, schema: Schema, statement: Statement | None = None) -> list[Lock]:
    """The locks of `impact` on relations that exist before this change.

    Tables created earlier in the change harm nobody when locked. With `statement` given, a
    `DROP ... IF EXISTS` of an object the model has never seen is not known to exist either (a
    dump's `DROP TABLE IF EXISTS` preamble, an idempotent migration): it locks nothing we can
    name; nor is an `ALTER TABLE IF EXISTS` of such a table that only drops constraints `IF
    EXISTS` and defaults (the rest of `pg_dump --clean --if-exists`'s preamble). Any other `ALTER
    TABLE IF EXISTS` of a table never seen is judged when nothing else of its schema is known (a
    file linted alone, a schema the platform owns such as Supabase's `auth`: the table may exist
    in production); when the history or a snapshot holds other tables of its schema, one it never
    created is most likely not there, and the server skips the statement.
    """
    if_exists = statement is not None and statement.if_exists
    drops = statement is not None and (statement.kind.startswith("drop") or _drops_only(statement.op))
    out = []
    for lk in impact.locks:
        if not is_preexisting(lk.relation, schema):
            continue
        # a dump's DROP ... IF EXISTS preamble drops what may not be there; an ALTER TABLE IF EXISTS
        # changes a table that exists, unless the replay dropped it or never saw it among others
        if if_exists and not schema.knows(lk.relation):
            if drops or lk.relation in schema.gone or _schema_known(lk.relation, schema):
                continue
        out.append(lk)
    return out


# what pg_dump --clean --if-exists writes before it recreates a table: `ALTER TABLE IF EXISTS ONLY t
# DROP CONSTRAINT IF EXISTS c`, `ALTER TABLE IF EXISTS t ALTER COLUMN id DROP DEFAULT`
_PREAMBLE_DROPS = frozenset({"drop_constraint", "drop_foreign_key", "drop_default"})


def _drops_only(op: object) -> bool:
    """Whether an ALTER TABLE only drops a constraint that may not be there, or a default."""
    actions = op.actions if isinstance(op, AlterTable) else ()
    return bool(actions) and all(
        a.op in _PREAMBLE_DROPS and (a.op == "drop_default" or getattr(a, "if_exists", False)) for a in actions
    )


def _schema_known(relation: str, schema: Schema) -> bool:
    """Whether the model holds tables of the (PostgreSQL) schema `relation` is in."""
    prefix = relation.rsplit(".", 1)[0] + "." if "." in relation else None
    return any(k.startswith(prefix) if prefix else "." not in k for k in schema.tables)


def unseen(relations: Iterable[str], schema: Schema) -> list[str]:
    """The relations the model has never seen (no CREATE in the history, not in the snapshot)."""
    return [r for r in relations if r != "*" and not schema.knows(r)]


def long_work(statement: Statement, schema: Schema, impacts: list[LockImpact]) -> str | None:
    """What long-running work the statement does on tables that exist before the change, in
    words ("rewrites orders", "UPDATE of every row of orders"), or None: work whose duration
    grows with a table's size, so that locks held meanwhile are held for that long."""

    def preexisting(name: str | None) -> bool:
        return name is not None and bool(name) and is_preexisting(name, schema)

    op = statement.op

    def w(name: str | None) -> str:
        return written(name or "", statement.dialect)

    def sized(name: str | None) -> bool:
        """A table whose size the work grows with: not one that holds a row at most."""
        table = schema.tables.get(name or "")
        return preexisting(name) and not (table is not None and table.single_row)

    if isinstance(op, (Update, Delete, Merge)) and sized(op.into) and (op.every_row or _null_everywhere(op, schema)):
        return f"{statement.kind.upper()} of every row of {w(op.into)}"
    if isinstance(op, Update) and op.reads_itself and sized(op.into):
        return f"UPDATE of {w(op.into)} from a query reading every row of it"
    if isinstance(op, (Update, Delete)) and sized(op.into) and (unindexed := _scanned_for(op, schema)):
        return f"{statement.kind.upper()} of {w(op.into)} finding its rows by {written_names(unindexed, statement.dialect)}, which no index leads"
    if isinstance(op, Insert) and (read := next((r for r in op.reads or () if preexisting(r)), None)):
        return f"INSERT ... SELECT reading {w(read)}"
    if isinstance(op, CopyFrom) and preexisting(op.into):
        return f"COPY into {w(op.into)}"
    creates = isinstance(op, CreateTableAs)  # its table is the one it fills: the work is its query's
    if not creates and not works_on_preexisting_table(statement, schema):
        return None  # a new table is empty: rewriting, indexing or validating it is quick
    if not creates and statement.table and not sized(statement.table):
        return None  # rewriting, indexing or validating a row is quick too
    for impact in impacts:
        if impact.rewrite or impact.scan:
            # the table it works on; a materialized view's or CREATE TABLE AS's query: the tables it reads
            on = w(None if creates else statement.table) or ", ".join(
                w(r)
                for r in dict.fromkeys(
                    r for lk in impact.locks for r in _read_through(lk.relation, schema) if preexisting(r)
                )
            )
            if not on:
                continue  # it reads only tables the change created: they are empty
            return f"{label(impact.operation)} {'rewrites' if impact.rewrite else 'scans'} {on}"
    return None


def _read_through(name: str, schema: Schema, depth: int = 0) -> list[str]:
    """`name`, or for a view the change created, the relations it reads in turn: a query of a new
    view over an existing table reads that table."""
    view = schema.views.get(name)
    if view is None or view.reads is None or is_preexisting(name, schema) or depth > 10:
        return [name]
    return [r for read in view.reads for r in _read_through(read, schema, depth + 1)]


def _null_everywhere(op: Update | Delete | Merge, schema: Schema) -> bool:
    """Whether the WHERE only asks for NULL in columns that hold nothing else (a backfill `WHERE
    new_col IS NULL` of a column just added): it matches every row, which no index would narrow."""
    table = schema.tables.get(op.into or "")
    if table is None or isinstance(op, Merge) or not op.filtered_on:
        return False
    return all(
        c in op.null_tested and (col := table.columns.get(c)) is not None and col.only_null for c in op.filtered_on
    )


def _scanned_for(op: Update | Delete, schema: Schema) -> tuple[str, ...]:
    """The columns a filtered UPDATE or DELETE looks its rows up by, when none of them is the first
    column of an index of its table: PostgreSQL then reads every row (a backfill `WHERE new_col IS
    NULL`). Empty when an index may serve, or the table is not fully known."""
    table = schema.tables.get(op.into)
    if table is None or not table.complete or not op.filtered_on:
        return ()
    keys = [table.primary_key, *table.indexes] if table.primary_key else table.indexes
    if any(_finds_rows(k, op) for k in keys):
        return ()
    # an unqualified name that is not one of its columns belongs to another relation of the query
    return tuple(c for c in op.filtered_on if c in table.columns) or op.filtered_on


# PostgreSQL's access methods that find `col IS NULL` rows (pg_am's amsearchnulls; checked on the
# servers by tests/test_locks_postgres.py): hash and GIN do not, so such a filter reads every row
SEARCHES_NULLS = frozenset({"btree", "gist", "spgist", "brin"})


def _finds_rows(index: Index, op: Update | Delete) -> bool:
    """Whether the index may find the rows of the filtered UPDATE or DELETE: its first column is one
    the WHERE uses (by IS NULL only where its access method searches NULLs), and a partial index's
    predicate uses only columns the WHERE uses too (else it may leave the rows out)."""
    if not index.columns:
        return False
    first = index.columns[0].lower()
    if first not in op.filtered_on or (first in op.null_tested and index.kind not in SEARCHES_NULLS):
        return False
    return not index.partial or set(index.predicate_columns) <= set(op.filtered_on)


def on_tables(locks: list[Lock], schema: Schema) -> list[Lock]:
    """The locks, an index's counted on its table (a lock on an index keeps its table's queries
    from planning; the table is what they wait for)."""
    out = []
    for lk in locks:
        owner = None if lk.relation in schema.tables else schema.index_owner_key(lk.relation)
        out.append(Lock(owner, lk.mode, lk.blocks) if owner else lk)
    return out


def works_on_preexisting_table(statement: Statement, schema: Schema) -> bool:
    """Whether the table a statement rewrites, indexes or validates existed before the change: a
    foreign key added to a table created earlier in the change scans that empty table, whatever
    the table it references holds."""
    return not statement.table or is_preexisting(statement.table, schema)


def may_hold_rows(name: str | None, schema: Schema) -> bool:
    """Whether table `name` existed before the change and is not known to be empty (a snapshot's
    count of 0 rows): whether a statement on it can meet rows already there."""
    if not name or not is_preexisting(name, schema):
        return False
    table = schema.tables.get(name)
    return table is None or table.rows != 0


def is_preexisting(name: str, schema: Schema) -> bool:
    """Whether relation `name` existed before the change: not a table (or the table of an index or
    of a serial column's sequence), view or sequence the change created. One never seen is taken to exist: the change does not create it."""
    table = schema.tables.get(name) or schema.index_owner(name) or schema.sequence_owner(name)
    return not (table.new if table is not None else name in schema.fresh)
