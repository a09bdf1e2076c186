"""The dialect-neutral schema model shared by SQL replay, live catalogs and snapshots.

Table and index names are stored lower-cased and unquoted (see sql.names.table_key),
so `Events`, `events` and `` `events` `` meet in one table.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True, order=True)
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


@dataclass
class Column:
    name: str
    type: str = ""
    nullable: bool = True
    default: str | None = None


@dataclass
class Index:
    """A primary key, unique key or secondary index over columns (expressions kept as text)."""

    name: str | None
    columns: tuple[str, ...]
    unique: bool = False
    primary: bool = False
    kind: str = "btree"  # btree | hash | fulltext | spatial | gin | gist | ...
    partial: bool = False
    defined_at: Location | None = None
    # live catalogs: index scans since counters started (None = unknown)
    scans: int | None = None


@dataclass
class Partitioning:
    """How a table is partitioned: method and the columns its key reads."""

    method: str  # range | list | hash | key
    columns: tuple[str, ...]  # columns the partitioning expression / column list reads
    expression: str = ""  # as written, for messages
    uses_primary_key: bool = False  # MySQL `PARTITION BY KEY ()`: the PK itself is the key
    defined_at: Location | None = None


@dataclass
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


@dataclass
class Table:
    name: str
    schema: str | None = None
    columns: dict[str, Column] = field(default_factory=dict)
    primary_key: Index | None = None
    indexes: list[Index] = field(default_factory=list)  # unique and secondary, not the PK
    partitioning: Partitioning | None = None
    partition_of: str | None = None  # PostgreSQL: parent of a partition
    engine: str | None = None
    temporary: bool = False
    new: bool = False  # created earlier in this run: locking it harms nobody
    defined_at: Location | None = None
    key_changed_at: Location | None = None  # last statement that dropped or replaced the PK
    insert_heavy: str | None = None  # why it is insert-heavy: "annotation", "config", "workload", "name"
    workload: Workload | None = None
    complete: bool = True  # False: known only from statements that touch it, never its definition

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name

    @property
    def unique_keys(self) -> list[Index]:
        return [i for i in self.indexes if i.unique]

    @property
    def not_null_unique_keys(self) -> list[Index]:
        """Unique keys InnoDB could promote to the clustered index (all columns NOT NULL)."""
        return [
            i
            for i in self.unique_keys
            if i.columns
            and not i.partial
            and all(c in self.columns and not self.columns[c].nullable for c in i.columns)
        ]

    def copy(self) -> Table:
        """A copy whose columns and key lists can change without touching this table.
        Indexes are shared: replay replaces an Index rather than changing it."""
        return replace(
            self,
            columns={k: replace(c) for k, c in self.columns.items()},
            indexes=list(self.indexes),
            workload=replace(self.workload) if self.workload else None,
        )

    def index_named(self, name: str) -> Index | None:
        return next((i for i in self.indexes if i.name == name), None)


@dataclass
class View:
    name: str
    schema: str | None = None
    materialized: bool = False
    defined_at: Location | None = None


@dataclass
class Schema:
    """Every table and view known at one point of a replay, or on one live server."""

    dialect: str
    tables: dict[str, Table] = field(default_factory=dict)
    views: dict[str, View] = field(default_factory=dict)
    # where the model came from: "sql", a snapshot path, or a server DSN without password
    origin: str = "sql"

    def copy(self) -> Schema:
        return replace(self, tables={k: t.copy() for k, t in self.tables.items()}, views=dict(self.views))

    def table(self, key: str) -> Table | None:
        return self.tables.get(key)

    def index_owner(self, index_name: str) -> Table | None:
        for table in self.tables.values():
            for index in table.indexes:
                if index.name == index_name:
                    return table
        return None


