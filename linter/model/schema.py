"""The dialect-neutral schema model shared by SQL replay, live catalogs and snapshots.

Names are stored unquoted, as the server knows them (see sources.names.table_key): on
PostgreSQL a bare name folded to lower case and a quoted one exactly, so `Events` and `events`
meet in one table and `"Events"` is another; on MySQL/MariaDB lower-cased, so `` `Events` `` and
`events` meet. Replay, the catalog readers and snapshots fill the same fields, so a live schema
and a replayed one are one model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from schemacite.model.dialects import Dialect
from schemacite.model.record import record, replace


@record(frozen=True, order=True, slots=True)
class Location:
    """Where something was written: a file position, or a live server object."""

    file: str
    line: int = 0
    column: int = 0
    seq: int = field(default=0, compare=False, repr=False)  # replay order across files

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


def latest(*locations: Location | None) -> Location | None:
    """The location replayed last (a later migration beats an earlier one)."""
    known = [loc for loc in locations if loc is not None]
    return max(known, key=lambda loc: loc.seq) if known else None


@record(slots=True)
class Column:
    """A column as the server has it.

    `type` is the type as written or as the catalog prints it (`varchar(26)`, `bigint(20)
    unsigned`); `base_type` and `type_args` are its name and modifiers, normalised by the reader
    of the column's dialect (`varchar`, "26"; `numeric`, "20,2"), which is what type changes are
    judged on. `default_calls` names the functions the default calls (their volatility decides
    whether adding the column rewrites a PostgreSQL table).
    """

    name: str
    type: str = ""
    nullable: bool = True
    default: str | None = None
    base_type: str = ""
    type_args: str = ""
    default_calls: tuple[str, ...] = ()
    generated: str | None = None  # "stored" | "virtual": GENERATED ALWAYS AS (...)
    expression: str | None = None  # the generation expression
    identity: str | None = None  # "always" | "by default": GENERATED ... AS IDENTITY
    serial: bool = False  # PostgreSQL serial types: a sequence default
    auto_increment: bool = False  # MySQL/MariaDB AUTO_INCREMENT
    unsigned: bool = False  # MySQL/MariaDB numeric attributes
    zerofill: bool = False
    charset: str | None = None  # MySQL/MariaDB, when the definition names one (else the table's)
    collation: str | None = None
    invisible: bool = False  # MySQL/MariaDB INVISIBLE: left out of SELECT *
    # every row holds NULL here as far as the statements read tell: the column was added nullable,
    # with nothing to fill it, and no statement read since wrote its table (a key over it cannot
    # meet a duplicate or a missing parent in those rows)
    only_null: bool = False
    # an UPDATE read since gave a value to every row that held NULL here (it named no WHERE, or only
    # `col IS NULL`), and no INSERT or COPY read since may have added a NULL: NOT NULL then holds
    backfilled: bool = False
    # PostgreSQL serial columns: the type of the sequence the serial made (int2, int4, int8), which
    # changing the column's type leaves as it was; ALTER SEQUENCE ... AS changes it. None: unknown
    sequence_type: str | None = field(default=None, compare=False)
    # the statement that last set the column's type (CREATE TABLE, ADD COLUMN, a type change): where a
    # finding about the type lands. Not compared: a replayed column equals the catalog's
    defined_at: Location | None = field(default=None, compare=False)


@record(slots=True)
class Index:
    """A primary key, unique key or secondary index over columns (expressions kept as text)."""

    name: str | None
    columns: tuple[str, ...]
    unique: bool = False
    primary: bool = False
    kind: str = "btree"  # btree | hash | fulltext | spatial | gin | gist | exclude | ...
    partial: bool = False
    predicate_columns: tuple[str, ...] = ()  # a partial index's: the columns its WHERE uses (() unknown)
    # a partial index's WHERE as PostgreSQL parsed it, places in the text left out: two written
    # alike, spaces and parentheses aside, are equal ("" unknown)
    predicate: str = ""
    defined_at: Location | None = None
    # live catalogs: index scans since counters started (None = unknown)
    scans: int | None = None
    prefix: bool = False  # MySQL/MariaDB: some column is indexed by a prefix of its value, `col(16)`
    # live catalogs: the index's own size (PostgreSQL pg_relation_size, InnoDB persistent statistics); None = unknown
    bytes: int | None = None
    # PostgreSQL: the index of a UNIQUE, PRIMARY KEY or EXCLUDE constraint (not a bare CREATE INDEX), which no
    # other constraint can take over with USING INDEX
    constraint: bool = False


@record(slots=True)
class Check:
    """A CHECK constraint, or a NOT NULL constraint (`not_null` names its column: PostgreSQL 18
    gives them names and a validated state). `validated` is False after NOT VALID until
    VALIDATE CONSTRAINT; `enforced` is False for NOT ENFORCED (PostgreSQL 18, MySQL 8)."""

    name: str | None
    expression: str = ""
    validated: bool = True
    enforced: bool = True
    not_null: str | None = None
    # the column a `CHECK (col IS NOT NULL)` proves never NULL, which lets SET NOT NULL skip its scan
    proves_not_null: str | None = None
    # sets of columns: where every column of one set holds only NULL, the check passes on every
    # row (it is NULL there, or true: `char_length(c) <= 10` over c; `a IS NULL AND b IS NULL`)
    null_passes: tuple[tuple[str, ...], ...] = ()
    # PostgreSQL: the columns the expression reads, which name an unnamed check (`t_col_check`,
    # `t_check` for none or several); and for a check holding one column to a list of constants
    # (`kind IN ('a', 'b')`, `kind = ANY (ARRAY[...])`), that column, then the constants
    columns: tuple[str, ...] = ()
    allows: tuple[str, ...] = ()
    # (column, constant) pairs: a row holding one of these constants there passes the check,
    # whatever else it holds (`kind IN ('a', 'b')`; `type = 'STANDARD' OR status = 'DISABLED'`)
    passes_when: tuple[tuple[str, str], ...] = ()


@record(slots=True)
class ForeignKey:
    """A foreign key of this table: its columns reference `references` (a table key)."""

    name: str | None
    columns: tuple[str, ...]
    references: str
    ref_columns: tuple[str, ...] = ()
    validated: bool = True
    enforced: bool = True


@record
class Partitioning:
    """How a table is partitioned: method and the columns its key reads."""

    method: str  # range | list | hash | key
    columns: tuple[str, ...]  # columns the partitioning expression / column list reads
    expression: str = ""  # as written, for messages
    uses_primary_key: bool = False  # MySQL `PARTITION BY KEY ()`: the PK itself is the key
    # PostgreSQL: the key holds an expression, which no primary key or unique constraint can hold
    by_expression: bool = False
    defined_at: Location | None = None


@record
class Workload:
    """Per-table activity read from a live server's counters."""

    inserts: int = 0
    reads: int = 0
    updates: int = 0
    deletes: int = 0
    rows: int | None = None
    since: str | None = None  # when the counters started (ISO text), if known
    sampled_at: str | None = None
    source: str = ""  # performance_schema | userstat | pg_stat_user_tables | sample


@record
class Table:
    """A table: its columns, keys, indexes, checks and what is known of its size and workload."""

    name: str
    schema: str | None = None
    columns: dict[str, Column] = field(default_factory=dict)
    primary_key: Index | None = None
    indexes: list[Index] = field(default_factory=list)  # unique and secondary, not the PK
    checks: list[Check] = field(default_factory=list)  # CHECK and named NOT NULL constraints
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    partitioning: Partitioning | None = None
    partition_of: str | None = None  # PostgreSQL: parent of a partition
    partition_bound: str | None = None  # PostgreSQL: FOR VALUES ... as written, or "DEFAULT"
    engine: str | None = None  # MySQL/MariaDB storage engine, PostgreSQL table access method
    persistence: str = "permanent"  # permanent | unlogged | temporary
    charset: str | None = None  # MySQL/MariaDB defaults for the table's columns
    collation: str | None = None
    row_format: str | None = None
    new: bool = False  # created earlier in this change: locking it harms nobody
    defined_at: Location | None = None
    key_changed_at: Location | None = None  # last statement that dropped or replaced the PK
    insert_heavy: str | None = None  # why it is insert-heavy: "annotation", "config", "workload", "name"
    workload: Workload | None = None
    # size on a live server: rows (the statistics' estimate), and bytes of the table's own data
    rows: int | None = None
    bytes: int | None = None
    # False: the server's statistics have not counted the rows since the table was filled (PostgreSQL:
    # never vacuumed or analysed), so `rows` is unknown however large `bytes` is; None: not said
    analysed: bool | None = None
    complete: bool = True  # False: known only from statements that touch it, never its definition

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name

    @property
    def temporary(self) -> bool:
        return self.persistence == "temporary"

    @property
    def default_partition(self) -> bool:
        return self.partition_bound == "DEFAULT"

    @property
    def unique_keys(self) -> list[Index]:
        return [i for i in self.indexes if i.unique]

    @property
    def not_null_unique_keys(self) -> list[Index]:
        """Unique keys InnoDB could promote to the clustered index, in the order declared: all columns
        NOT NULL and indexed whole (a prefix key such as `UNIQUE (token(16))` never is)."""
        return [
            i
            for i in self.indexes
            if i.unique
            and i.columns
            and not i.partial
            and not i.prefix
            and all(c in self.columns and not self.columns[c].nullable for c in i.columns)
        ]

    @property
    def single_row(self) -> bool:
        """Whether the table can hold one row at most: a key over columns that validated checks
        each hold to one constant (`lock char(1) NOT NULL UNIQUE, CHECK (lock = 'X')`: Synapse's
        stream positions), NOT NULL so that no second row slips in with a NULL."""
        pinned = {c.allows[0] for c in self.checks if c.validated and c.enforced and len(c.allows) == 2}
        keys = ([self.primary_key] if self.primary_key is not None else []) + self.not_null_unique_keys
        return bool(pinned) and any(k.columns and set(k.columns) <= pinned for k in keys)

    @property
    def clustering_key(self) -> Index | None:
        """The key InnoDB clusters the rows on: the primary key, else the first declared NOT NULL unique
        key of whole columns (the server sorts such keys first, in declaration order); None: a hidden
        row id."""
        if self.primary_key is not None:
            return self.primary_key
        keys = self.not_null_unique_keys
        return keys[0] if keys else None

    def foreign_key_needs(self, index: Index, referencing: list[ForeignKey]) -> ForeignKey | None:
        """The foreign key that needs `index` on InnoDB: one of this table's (its columns), or of
        `referencing` (keys of other tables that reference this one: their referenced columns), that
        `index` leads with and that no other key of the table (primary key included) could serve.
        InnoDB refuses to drop such an index (error 1553)."""
        keys = [k for k in ([self.primary_key] if self.primary_key else []) + self.indexes if k is not index]
        wanted = [fk.columns for fk in self.foreign_keys] + [fk.ref_columns for fk in referencing]
        owners = [*self.foreign_keys, *referencing]
        for columns, fk in zip(wanted, owners):
            n = len(columns)
            if not columns or index.columns[:n] != columns:
                continue
            if not any(k.columns[:n] == columns and not k.prefix for k in keys):
                return fk
        return None

    def keys_lacking_partition_columns(self) -> list[tuple[Index, tuple[str, ...]]]:
        """The primary and unique keys of a partitioned table that lack partitioning columns, each
        with the columns it lacks. MySQL and MariaDB refuse such a table (error 1503); PostgreSQL
        refuses such a key on a partitioned table (SQLSTATE 0A000)."""
        part = self.partitioning
        if part is None or part.uses_primary_key or not part.columns or self.partition_of:
            return []
        keys = ([self.primary_key] if self.primary_key is not None else []) + self.unique_keys
        out = []
        for key in keys:
            missing = tuple(c for c in part.columns if c not in key.columns)
            if missing:
                out.append((key, missing))
        return out

    def proven_not_null(self, column: str) -> bool:
        """Whether a valid, enforced CHECK already proves `column` never NULL."""
        return any(c.proves_not_null == column and c.validated and c.enforced for c in self.checks)

    def copy(self) -> Table:
        """A copy whose columns and key lists can change without touching this table.
        Indexes, checks and foreign keys are shared: replay replaces them rather than changing them."""
        return replace(
            self,
            columns={k: replace(c) for k, c in self.columns.items()},
            indexes=list(self.indexes),
            checks=list(self.checks),
            foreign_keys=list(self.foreign_keys),
            workload=replace(self.workload) if self.workload else None,
        )

    def index_named(self, name: str) -> Index | None:
        return next((i for i in self.indexes if i.name == name), None)


@record
class View:
    """A view or materialized view."""

    name: str
    schema: str | None = None
    materialized: bool = False
    defined_at: Location | None = None
    reads: tuple[str, ...] | None = None  # the relations its query reads (None: unknown)
    # materialized views: their indexes (a unique one on plain columns allows REFRESH ... CONCURRENTLY),
    # and whether they hold data (CREATE ... WITH NO DATA until a REFRESH)
    indexes: list[Index] = field(default_factory=list)
    populated: bool = True


@record
class Schema:
    """Every table and view known at one point of a replay, or on one live server."""

    dialect: str
    tables: dict[str, Table] = field(default_factory=dict)
    views: dict[str, View] = field(default_factory=dict)
    # where the model came from: "sql", a snapshot path, or a server DSN without password
    origin: str = "sql"
    # MySQL/MariaDB: the database the replay's first USE named, whose tables (and those of files
    # naming none) are keyed by bare name; another database's are keyed `database.table`
    database: str = ""
    # sequences of their own (CREATE SEQUENCE); those serial and identity columns own are found
    # through their tables (`sequence_owner`)
    sequences: set[str] = field(default_factory=set)
    # PostgreSQL functions and procedures whose body changes tables or runs SQL it builds
    routines: set[str] = field(default_factory=set)
    # PostgreSQL functions the replay saw created, by name: the volatility each declares
    functions: dict[str, str] = field(default_factory=dict)
    # the functions, procedures and extensions the replay saw created (and MariaDB's sequences in
    # `sequences`), as (object, name): a drop of one the history never saw, IF EXISTS, does nothing
    objects: set[tuple[str, str]] = field(default_factory=set)
    # views and sequences the current deploy created: like new tables, nobody uses them yet
    fresh: set[str] = field(default_factory=set, repr=False, compare=False)
    # (table, column) pairs the current deploy added to tables that existed before it, or named by
    # a rename: like new tables, no running code reads them yet
    fresh_columns: set[tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    # ("type", name) and ("schema", name) of the enum types and schemas the current deploy created,
    # and ("function" | "procedure" | "extension", name) of those it created under a new name
    fresh_objects: set[tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    # names the current deploy took away by a rename from tables and columns that existed before
    # it, as (table, column), column "" for a table: the release still running uses them, and a
    # rename giving one back restores it. And the table keys such renames gave, which it never used
    vacated: set[tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    renamed_tables: set[str] = field(default_factory=set, repr=False, compare=False)
    # some column holds only NULL (`Column.only_null`): a write the replay cannot place must clear it
    only_null_columns: bool = field(default=False, repr=False, compare=False)
    # the NOT NULL columns the current deploy added with nothing to fill them, as (table, column):
    # they hold only NULL because their table holds no row, which the release it starts will write
    refused_columns: set[tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    # tables the replay dropped: an ALTER TABLE IF EXISTS of one of them changes nothing
    gone: set[str] = field(default_factory=set, repr=False, compare=False)
    # validated foreign keys the current deploy dropped, by the key of their table: while no
    # statement since changed the rows or the key columns of either table, the rows still satisfy
    # them, and the same key added back cannot fail
    dropped_foreign_keys: dict[str, list[ForeignKey]] = field(default_factory=dict, repr=False, compare=False)
    # likewise the primary keys and whole unique indexes it dropped, and the columns it added
    # drawing a value of their own for each row (serial, identity, a random UUID): no two rows share one
    dropped_keys: dict[str, list[Index]] = field(default_factory=dict, repr=False, compare=False)
    # and the values an UPDATE of it took out of a column, by (table, column): no row holds them
    # (`SET status = 'paused' WHERE status = 'scheduled'` before an enum loses 'scheduled')
    cleared_values: dict[tuple[str, str], set[str]] = field(default_factory=dict, repr=False, compare=False)
    # and the one constant every row holds in a column, by (table, column): the deploy added the
    # column with it as its default, or an UPDATE without a WHERE set it, and no statement since
    # wrote the column or added rows (a check that this constant passes cannot fail)
    held_values: dict[tuple[str, str], str] = field(default_factory=dict, repr=False, compare=False)
    # and the validated checks it dropped: every row passes them (a check that allows one more
    # value, dropped and added again, cannot fail)
    dropped_checks: dict[str, list[Check]] = field(default_factory=dict, repr=False, compare=False)
    # columns an UPDATE of the current deploy filled from another relation's column, each row that
    # held anything but NULL included: (table, column) -> (relation, its column, the tables a write
    # to which voids it: the relation and those its column references). A foreign key that column
    # satisfies then holds for this one too, while no statement since changed either
    filled_from: dict[tuple[str, str], tuple[str, str, tuple[str, ...]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    # PostgreSQL enum labels that ALTER TYPE ... ADD VALUE added inside a transaction, by (type,
    # label): the transaction, where, and whether that transaction created the type too. And the
    # enum types created inside a transaction, by name
    pending_labels: dict[tuple[str, str], tuple[int, Location, bool]] = field(default_factory=dict)
    types_created_in: dict[str, int] = field(default_factory=dict)
    # the domains the replay saw created (CREATE DOMAIN), as the columns' types spell them
    domains: set[str] = field(default_factory=set)
    # PostgreSQL enum types the replay saw created, as the columns' types spell them: their labels
    enum_labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _lookup: _Lookup | None = field(default=None, repr=False, compare=False)

    def row_facts(self) -> tuple[dict[Any, Any], ...]:
        """What the current deploy knows of the rows its statements leave (the keys and checks it
        dropped, the columns it filled or cleared), which it forgets together."""
        return (
            self.dropped_foreign_keys,
            self.dropped_keys,
            self.dropped_checks,
            self.filled_from,
            self.cleared_values,
            self.held_values,
        )

    def copy(self) -> Schema:
        return replace(
            self,
            tables={k: t.copy() for k, t in self.tables.items()},
            views=dict(self.views),
            sequences=set(self.sequences),
            routines=set(self.routines),
            functions=dict(self.functions),
            objects=set(self.objects),
            fresh=set(self.fresh),
            fresh_columns=set(self.fresh_columns),
            fresh_objects=set(self.fresh_objects),
            vacated=set(self.vacated),
            renamed_tables=set(self.renamed_tables),
            only_null_columns=self.only_null_columns,
            refused_columns=set(self.refused_columns),
            gone=set(self.gone),
            dropped_foreign_keys={k: list(v) for k, v in self.dropped_foreign_keys.items()},
            dropped_keys={k: list(v) for k, v in self.dropped_keys.items()},
            dropped_checks={k: list(v) for k, v in self.dropped_checks.items()},
            cleared_values={k: set(v) for k, v in self.cleared_values.items()},
            held_values=dict(self.held_values),
            filled_from=dict(self.filled_from),
            pending_labels=dict(self.pending_labels),
            types_created_in=dict(self.types_created_in),
            domains=set(self.domains),
            enum_labels=dict(self.enum_labels),
            _lookup=None,
        )

    def table(self, key: str) -> Table | None:
        return self.tables.get(key)

    def touch(self, *keys: str | None) -> None:
        """Say that the tables under `keys` were added, dropped or changed, so lookups follow."""
        if self._lookup is not None:
            self._lookup.dirty.update(k for k in keys if k)

    def index_owner(self, index_name: str) -> Table | None:
        """The table owning the index (or primary key constraint) of that name, if any."""
        key = self.index_owner_key(index_name)
        return self.tables.get(key) if key else None

    def referenced_columns(self, fk: ForeignKey) -> tuple[str, ...]:
        """The columns a foreign key references: those it names, else the referenced table's
        primary key's (() when that is not known)."""
        ref = self.tables.get(fk.references)
        return fk.ref_columns or (ref.primary_key.columns if ref is not None and ref.primary_key else ())

    def index_owner_key(self, index_name: str) -> str | None:
        owners = self._fresh().owner
        return owners.get(index_name) or owners.get(index_name.rsplit(".", 1)[-1])

    def columns_of_type(self, name: str, *, arrays: bool = False) -> list[tuple[Table, Column]]:
        """The columns declared of type `name` as PostgreSQL names it (`mood`, `app.mood`; a type of
        the public schema either way), with arrays of it when `arrays` is set."""
        out = []
        for table in self.tables.values():
            for col in table.columns.values():
                base, bracket, _dims = col.base_type.partition("[")
                if base in (name, f"public.{name}") and (arrays or not bracket):
                    out.append((table, col))
        return out

    def partitions(self, key: str) -> list[str]:
        """The direct partitions of table `key`, in the order they were added."""
        return list(self._fresh().children.get(key, ()))

    def referencing(self, key: str) -> list[str]:
        """The tables whose foreign keys reference table `key` (itself excluded)."""
        return [k for k in self._fresh().referencing.get(key, ()) if k != key]

    def views_reading(self, keys: Iterable[str]) -> list[str]:
        """The views whose query reads one of the relations `keys`, or a view that does, and so
        on (the objects DROP ... CASCADE drops with them); views of unknown query are left out."""
        found: list[str] = []
        frontier = set(keys)
        while frontier:
            more = [
                name
                for name, view in self.views.items()
                if name not in found and view.reads and frontier.intersection(view.reads)
            ]
            found.extend(sorted(more))
            frontier = set(more)
        return found

    def referencing_closure(self, keys: Iterable[str]) -> list[str]:
        """The tables that reference one of `keys` by a foreign key, or reference a table that
        does, and so on (what TRUNCATE ... CASCADE empties with them); `keys` left out."""
        seen = set(keys)
        found: list[str] = []
        frontier = list(seen)
        while frontier:
            more = sorted({r for k in frontier for r in self.referencing(k)} - seen)
            seen.update(more)
            found.extend(more)
            frontier = more
        return found

    def foreign_keys_to(self, key: str) -> list[ForeignKey]:
        """The foreign keys of other tables that reference table `key`."""
        return [fk for r in self.referencing(key) for fk in self.tables[r].foreign_keys if fk.references == key]

    def foreign_keys_to_table(self, table: Table) -> list[ForeignKey]:
        """`foreign_keys_to` for a table of this schema, whatever key it is filed under."""
        for key in (table.qualified_name, table.name):
            if self.tables.get(key) is table:
                return self.foreign_keys_to(key)
        return []

    def sequence_owner(self, name: str) -> Table | None:
        """The table whose serial or identity column owns the sequence of that name, if any."""
        key = self._fresh().sequence_owner.get(name)
        return self.tables.get(key) if key else None

    def relation_in_schema_of(self, table: str, name: str) -> bool:
        """Whether a relation (table, view, index, sequence) called `name` exists in the schema of
        table `table`: PostgreSQL's relations share one namespace per schema, so CREATE INDEX IF
        NOT EXISTS skips a name a table already has."""
        qualifier = table.rsplit(".", 1)[0] + "." if "." in table else ""
        return self.knows(qualifier + name) or (not qualifier and self.index_owner(name) is not None)

    def knows(self, name: str) -> bool:
        """Whether the model has seen a table, view, index or sequence of that name."""
        return (
            name in self.tables
            or name in self.views
            or name in self.sequences
            or self.index_owner(name) is not None
            or self.sequence_owner(name) is not None
        )

    def _fresh(self) -> _Lookup:
        if self._lookup is None:
            self._lookup = _Lookup(dirty=set(self.tables))
        look = self._lookup
        if look.dirty:
            for key in look.dirty:
                look.refresh(key, self.tables.get(key), self.dialect)
            look.dirty.clear()
        return look


@record
class _Lookup:
    """Index names, partitions and foreign keys by table, kept up to date table by table
    (`Schema.touch`) instead of scanning every table on each question: dumps hold thousands."""

    dirty: set[str]
    owner: dict[str, str] = field(default_factory=dict)  # index or constraint name -> table key
    names_of: dict[str, set[str]] = field(default_factory=dict)
    parent_of: dict[str, str] = field(default_factory=dict)
    children: dict[str, dict[str, None]] = field(default_factory=dict)  # ordered sets
    targets_of: dict[str, set[str]] = field(default_factory=dict)  # table -> tables its FKs reference
    referencing: dict[str, dict[str, None]] = field(default_factory=dict)  # table -> tables referencing it
    sequence_owner: dict[str, str] = field(default_factory=dict)  # sequence a column owns -> table key
    sequences_of: dict[str, set[str]] = field(default_factory=dict)

    def refresh(self, key: str, table: Table | None, dialect: str) -> None:
        for name in self.names_of.pop(key, ()):
            if self.owner.get(name) == key:
                del self.owner[name]
        parent = self.parent_of.pop(key, None)
        if parent is not None:
            self.children.get(parent, {}).pop(key, None)
        for target in self.targets_of.pop(key, ()):
            self.referencing.get(target, {}).pop(key, None)
        for name in self.sequences_of.pop(key, ()):
            if self.sequence_owner.get(name) == key:
                del self.sequence_owner[name]
        if table is None:
            return
        postgres = dialect == Dialect.POSTGRES
        if postgres:
            owned = {owned_sequence(key, c.name) for c in table.columns.values() if c.serial or c.identity}
            for name in owned:
                self.sequence_owner[name] = key
            self.sequences_of[key] = owned
        names = {i.name for i in table.indexes if i.name}
        pk = table.primary_key
        if pk is not None:
            names.add(pk.name or (f"{table.name.rsplit('.', 1)[-1]}_pkey" if postgres else "primary"))
        for name in names:
            self.owner[name] = key
        self.names_of[key] = names
        if table.partition_of:
            self.parent_of[key] = table.partition_of
            self.children.setdefault(table.partition_of, {})[key] = None
        targets = {fk.references for fk in table.foreign_keys}
        for target in targets:
            self.referencing.setdefault(target, {})[key] = None
        self.targets_of[key] = targets


def owned_sequence(table_key: str, column: str) -> str:
    """The name PostgreSQL gives the sequence of a serial or identity column (`orders_id_seq`),
    shortened as it does to fit 63 bytes: the longer of the two names loses characters first."""
    schema, _, table = table_key.rpartition(".")
    room = 63 - len("__seq")
    while len(table.encode()) + len(column.encode()) > room:
        if len(table) > len(column):
            table = table[:-1]
        else:
            column = column[:-1]
    return f"{schema}.{table}_{column}_seq" if schema else f"{table}_{column}_seq"


def constraint_name(name: str | None, table_key: str, columns: tuple[str, ...], suffix: str) -> str | None:
    """The name a PostgreSQL constraint goes by: its own, else the one the server gave it."""
    return name if name is not None else default_constraint_name(table_key, columns, suffix)


def default_constraint_name(table_key: str, columns: tuple[str, ...], suffix: str) -> str | None:
    """The name PostgreSQL gives an unnamed constraint (`orders_customer_id_fkey`, `users_email_key`),
    or None where the server would have cut it to 63 bytes (its cut is not guessed at)."""
    name = "_".join([table_key.rsplit(".", 1)[-1], *columns, suffix])
    return name if len(name.encode()) <= 63 else None
