"""Replay: walk history and reported files in order, applying each statement to a Schema.

`Replay` yields a `Step` per statement (the schema as it was before it), then applies the
statement with `apply`, which changes the model as the statement changes the server. Replay
reads only the typed facts of each statement (model.statements).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING

from schemacite.errors import reading
from schemacite.model import Index, Schema, Table, View
from schemacite.model.casts import constant_default, family, keeps_values
from schemacite.model.dialects import LOCK_WAIT, MYSQL_FAMILY, Dialect
from schemacite.model.record import record, replace
from schemacite.model.schema import Check, Column, ForeignKey, constraint_name, owned_sequence
from schemacite.model.statements import (
    Action,
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterColumnType,
    AlterEnum,
    AlterIndex,
    AlterSequence,
    AlterTable,
    AlterView,
    ConstraintAction,
    CopyFrom,
    CreateDomain,
    CreateEnum,
    CreateIndex,
    CreateMatview,
    CreateObject,
    CreatePartition,
    CreateRoutine,
    CreateSchema,
    CreateSequence,
    CreateTable,
    CreateTableAs,
    CreateTableLike,
    CreateView,
    Delete,
    DoBlock,
    DropIndex,
    DropObjects,
    DropSequence,
    DropTable,
    DropView,
    IndexAction,
    Insert,
    Merge,
    Option,
    Other,
    ParseError,
    PartitionAction,
    PartitionBy,
    RefreshMatview,
    Rename,
    RenameEnumValue,
    RenameSchema,
    RenameTable,
    RenameType,
    RunsUnseen,
    Select,
    SetDefault,
    SetVariable,
    Statement,
    UnreadCreateTable,
    Update,
    needs_own_transaction,
)
from schemacite.sources.dialect import sqlite_syntax
from schemacite.sources.engines import left_out as other_engines
from schemacite.sources.files import (
    RENDERED,
    escapes,
    expand,
    init_folder,
    overlaid,
    read_bytes,
    repository_root,
    walk,
)
from schemacite.sources.frameworks import FRAMEWORKS, detect
from schemacite.sources.frameworks.base import Unit
from schemacite.sources.names import relation_key
from schemacite.sources.read import decode_text, load_reader, next_seq, read_sql_file, seq_from
from schemacite.sources.search_path import DEFAULT as DEFAULT_SEARCH_PATH
from schemacite.sources.search_path import in_database, used_database
from schemacite.sources.search_path import parse as parse_search_path
from schemacite.sources.search_path import resolve as resolve_names

if TYPE_CHECKING:
    from schemacite.sources.ahead import ReadAhead
    from schemacite.sources.cache import HistoryState

# what bounds the wait for a table's lock, in any dialect
LOCK_TIMEOUT_VARIABLES = {wait.setting for wait in LOCK_WAIT.values()}
# values that leave no timeout: 0 turns PostgreSQL's off; DEFAULT and RESET (read as "") restore
# the server's default, none on PostgreSQL, a year on MySQL and a day on MariaDB
NO_TIMEOUT = {"", "0", "0s", "0ms", "default"}

EXCLUDED = "exclude; replayed as history"  # why files of the change were read but not linted


# what planning a replay sets (`Replay._plan`), sent back by a read-ahead child that plans
_PLANNED = ("reported", "errors", "reported_set", "framework_why", "unlinted", "skipped", "base_set", "order")

# below these a fork and the pickles cost more than the parse they move (sources.ahead)
AHEAD_FROM_FILES = 16
AHEAD_FROM_BYTES = 48_000


def fork_may_pay() -> bool:
    """Whether a second process may work beside this one: a second CPU, no other thread in this
    process (a fork copies none), Linux (macOS's system libraries are not safe to use after a fork)."""
    threads = sys.modules.get("threading")  # not loaded: no thread of its making runs
    if sys.platform != "linux" or threads is not None and threads.active_count() > 1:
        return False
    return len(os.sched_getaffinity(0)) >= 2  # the CPUs this process may run on


def many_files(paths: list[str], least: int) -> bool:
    """Whether `paths` name at least `least` files, folders' files counted until there are enough
    (any file: a guess made before the listing, which the plan checks)."""
    count = 0
    for path in paths:
        if not os.path.isdir(path):
            count += 1
        else:
            for _, names in walk(path):
                count += len(names)
                if count >= least:
                    return True
        if count >= least:
            return True
    return False


def read_ahead_pays(paths: list[str]) -> bool:
    """Whether parsing `paths` in a second process may pay: enough of them, weighing enough, and
    a second process may work beside this one (`fork_may_pay`)."""
    if len(paths) < AHEAD_FROM_FILES or not fork_may_pay():
        return False
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
        if total >= AHEAD_FROM_BYTES:
            return True
    return False


def apply(schema: Schema, stmt: Statement, *, new: bool) -> None:
    """Change `schema` as `stmt` would. `new`: the statement is part of the change being linted,
    so tables it creates do not exist on the server yet."""
    # `Schema.row_facts`, spelt out: this runs for every statement replayed
    if (
        schema.dropped_foreign_keys
        or schema.dropped_keys
        or schema.dropped_checks
        or schema.filled_from
        or schema.cleared_values
        or schema.held_values
    ):
        _follow_proofs(schema, stmt)
    handler = _STATEMENTS.get(type(stmt.op))
    if handler is not None:
        handler(schema, stmt, new)
        if handler not in (_write_rows, _delete_rows, _other):  # writing rows changes no table's shape
            schema.touch(*_touched(stmt, schema))


# ALTER TABLE actions that change no row and no value of a column
_KEEPS_VALUES = frozenset(
    {
        "add_foreign_key",
        "add_check",
        "add_not_null",
        "add_unique",
        "add_primary_key",
        "add_index",
        "add_exclude",
        "drop_constraint",
        "drop_foreign_key",
        "drop_index",
        "drop_primary_key",
        "validate_constraint",
        "alter_constraint",
        "rename_index",
        "rename_constraint",
        # a new name for the column: what is known of its values follows it (`_follow_column`)
        "rename_column",
        "set_not_null",
        "drop_not_null",
        "set_default",
        "drop_default",
        # a new name for the table: what is known of its rows follows it (`_follow_referenced`)
        "rename_table",
        "set_schema",
    }
)


# ALTER TABLE options that store the rows another way, or change only what new rows get
_TABLE_OPTIONS = frozenset(
    {
        "engine",
        "row_format",
        "key_block_size",
        "auto_increment",
        "table_comment",
        "default_charset",
        "algorithm",
        "lock",
    }
)


def _follow_proofs(schema: Schema, stmt: Statement) -> None:
    """Forget the facts about rows that `stmt` may void: the dropped foreign keys whose table or
    referenced table it writes, and the filled columns it may write or whose source it writes (a
    write the replay cannot place voids them all). An ALTER TABLE that may change values counts as
    a write, save a type change `casts.keeps_values` admits (an integer type to another, a
    PostgreSQL varchar widened: equal values stay equal); a rename moves what is known to the new
    name (`_follow_column`, `_follow_referenced`)."""
    op = stmt.op
    if isinstance(op, (CreateIndex, DropIndex, SetVariable, Select, RenameTable)):
        return  # RENAME TABLE: what is known of the rows follows the name (`_follow_referenced`)
    if isinstance(op, AlterTable):
        changed = [_changed_columns(schema, op.name, a, stmt.dialect) for a in op.actions]
        if all(c is not None for c in changed):
            # dropping columns leaves the others' values as they were: only what was known of the
            # dropped ones goes (documenso drops the old key column beside the one it filled); a
            # column whose values may change takes what is known of it along (Roundcube converts
            # its tables to utf8mb4 between dropping its integer foreign keys and adding them back)
            gone = {(op.name, a.column) for a in op.actions if a.op == "drop_column"}
            for key in gone.intersection(schema.filled_from):
                del schema.filled_from[key]
            for key in gone.intersection(schema.held_values):
                del schema.held_values[key]
            _forget_columns(schema, op.name, frozenset().union(*(c for c in changed if c)))
            return
    if isinstance(op, Other):
        if isinstance(op, DoBlock) and not op.writes:
            return  # its DDL follows as statements of their own, each followed in turn
        if isinstance(op, RunsUnseen) or op.what.split(" ")[0].upper() in (*_UNREAD_WRITES, "CALL", "DO"):
            for facts in schema.row_facts():
                facts.clear()
        return
    rows = isinstance(op, (Insert, Update, Delete, Merge, CopyFrom))
    written = {op.table} if rows else set(op.relations())
    setting = set(op.columns) if isinstance(op, Update) else None  # None: any column
    # rows taken away leave the others as they were: still unique, still passing the checks, still
    # referencing their parents, still off the values cleared; only the rows referencing them lose
    # their parent
    kept_by = op.table if isinstance(op, Delete) else None
    if isinstance(op, Update) and op.table and op.columns:
        # the columns it does not SET keep their values: keys, checks and foreign keys over them hold
        _forget_keys(schema, op.table, frozenset(op.columns))
    else:
        for key, keys in list(schema.dropped_foreign_keys.items()):
            kept = [fk for fk in keys if (key not in written or key == kept_by) and fk.references not in written]
            if kept:
                schema.dropped_foreign_keys[key] = kept
            else:
                del schema.dropped_foreign_keys[key]
        for known in (schema.dropped_keys, schema.dropped_checks):
            for key in written.intersection(known) - {kept_by}:
                del known[key]
    # a column SET to a constant can hold that one again, and nothing else it did not hold: the
    # other constants stay cleared (`SET s = '301-product' WHERE s = '301'`, then the same for '302')
    constants = dict(op.set_to) if isinstance(op, Update) else {}
    for table, column in [k for k in schema.cleared_values if k[0] in written and k[0] != kept_by]:
        if setting is None or column in setting:
            left = set()
            if column in constants:  # a length proof (a NUL-prefixed entry) no longer holds once a value is SET
                gone = schema.cleared_values[(table, column)]
                left = {v for v in gone if v != constants[column] and not v.startswith("\0")}
            if left:
                schema.cleared_values[(table, column)] = left
            else:
                del schema.cleared_values[(table, column)]
    for table, column in [k for k in schema.held_values if k[0] in written and k[0] != kept_by]:
        if setting is None or column in setting:  # set again on every row below (`_write_rows`)
            del schema.held_values[(table, column)]
    # an UPDATE filling the column again from the same relation's column keeps what is known: every
    # value it holds still came from there (documenso fills a column per kind of parent row)
    refilled = (
        {(op.table, name, relation, source) for name, relation, source in op.sources}
        if isinstance(op, Update)
        else set()
    )
    for (table, column), (relation, source, guards) in list(schema.filled_from.items()):
        if (table, column, relation, source) in refilled and not written.intersection(guards):
            continue
        if (
            table in written
            and table != kept_by
            and (setting is None or column in setting)
            or written.intersection(guards)
        ):
            del schema.filled_from[(table, column)]


# defaults that give each row a value of its own: a random UUID (version 4)
_RANDOM_UUIDS = frozenset({"gen_random_uuid()", "uuid_generate_v4()", "public.uuid_generate_v4()"})


def _distinct_values(column: Column) -> bool:
    """Whether adding the column gives each existing row a value no other row gets: the next value
    of a sequence (serial, identity) or a random UUID."""
    default = (column.default or "").strip().lower()
    return bool(column.serial or column.identity) or default in _RANDOM_UUIDS


def _remember_dropped(schema: Schema, key: str, indexes: list[Index]) -> None:
    """Keep the primary and whole unique keys a statement of the deploy dropped (see
    `Schema.dropped_keys`)."""
    unique = [i for i in indexes if (i.primary or i.unique) and not i.partial and i.columns]
    if unique:
        schema.dropped_keys.setdefault(key, []).extend(unique)


def _changed_columns(schema: Schema, table: str, a: Action, dialect: Dialect) -> frozenset[str] | None:
    """The columns of `table` whose values the action may change: none for one that keeps every
    value (`_KEEPS_VALUES`, a new column, a table option, a type change `casts.keeps_values`
    admits), the column a type change names, a CONVERT TO's string columns; None when it cannot
    tell (a write of the whole table)."""
    if a.op in _KEEPS_VALUES or a.op in _TABLE_OPTIONS or a.op in ("add_column", "drop_column"):
        return frozenset()
    t = schema.tables.get(table)
    if a.op == "convert_charset":
        return (
            frozenset(n for n, c in t.columns.items() if family(c.base_type) == "string") if t and t.complete else None
        )
    column = t.columns.get(a.column or "") if t is not None else None
    if column is None:
        return None
    if isinstance(a, AlterColumnType):
        keeps = a.using is None and a.collation is None and keeps_values(column, a.base_type, a.type_args, dialect)
        return frozenset() if keeps else frozenset({column.name})
    if isinstance(a, AddColumn) and a.op in ("modify_column", "change_column"):
        # a CHANGE that renames the column too: what is known follows the name (`_follow_column`)
        keeps = family(column.base_type) == family(a.definition.base_type) == "integer"
        return frozenset() if keeps else frozenset({column.name})
    return None


def _forget_columns(schema: Schema, table: str, columns: frozenset[str]) -> None:
    """What the deploy knows of rows through these columns of `table`, whose values may change:
    the dropped foreign keys over them or referencing them, keys and checks over them, the values
    they hold or were filled from."""
    if not columns:
        return
    _forget_keys(schema, table, columns)
    for name in columns:
        schema.cleared_values.pop((table, name), None)
        schema.held_values.pop((table, name), None)
        schema.filled_from.pop((table, name), None)
    for key, (relation, source, guards) in list(schema.filled_from.items()):
        if (relation, source) in {(table, n) for n in columns} or table in guards and relation != table:
            del schema.filled_from[key]


def _forget_keys(schema: Schema, table: str, columns: frozenset[str]) -> None:
    """The dropped foreign keys over these columns of `table` or referencing them, and the keys and
    checks over them: the rows may not satisfy them any longer."""
    for key, keys in list(schema.dropped_foreign_keys.items()):
        kept = [
            fk
            for fk in keys
            if not (key == table and columns.intersection(fk.columns))
            and not (fk.references == table and columns.intersection(schema.referenced_columns(fk) or columns))
        ]
        if kept:
            schema.dropped_foreign_keys[key] = kept
        else:
            del schema.dropped_foreign_keys[key]
    if table in schema.dropped_keys:
        schema.dropped_keys[table] = [i for i in schema.dropped_keys[table] if not columns.intersection(i.columns)]
    if table in schema.dropped_checks:
        schema.dropped_checks[table] = [
            c
            for c in schema.dropped_checks[table]
            if (c.not_null or c.columns) and not columns.intersection(c.columns or (c.not_null,))
        ]
    for known in (schema.dropped_keys, schema.dropped_checks):
        if table in known and not known[table]:
            del known[table]


def _touched(stmt: Statement, schema: Schema) -> list[str | None]:
    """Keys of the tables `stmt` may have added, dropped or changed."""
    keys: list[str | None] = list(stmt.op.relations())
    if isinstance(stmt.op, (DropIndex, AlterIndex)):  # the owner is found by the index name
        keys += [schema.index_owner_key(name) for name in stmt.op.relations() if name]
    return keys


def _table(schema: Schema, key: str | None) -> Table | None:
    """The table a statement touches; one never seen gets a partial entry."""
    if not key:
        return None
    t = schema.tables.get(key)
    if t is None:
        t = schema.tables[key] = Table(name=key, complete=False)
    return t


def _stamp(table: Table, stmt: Statement) -> Table:
    for idx in ([table.primary_key] if table.primary_key else []) + table.indexes:
        if idx.defined_at is None:
            idx.defined_at = stmt.location
    if table.partitioning is not None and table.partitioning.defined_at is None:
        table.partitioning.defined_at = stmt.location
    return table


# ---- statements ------------------------------------------------------------------------


def _create_table(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateTable)
    if op.if_not_exists and op.model.name in schema.tables and schema.tables[op.model.name].complete:
        return
    # the statement hands its table over: a parsed statement is applied once (the parse
    # cache stores statements before replay), and copying every column costs time on dumps
    table = op.model
    table.defined_at = stmt.location
    for column in table.columns.values():
        column.defined_at = stmt.location
    table.new = new or table.temporary
    if isinstance(op, CreatePartition):  # columns and keys come from the parent
        parent = schema.tables.get(op.parent)
        table.partition_of = op.parent
        if parent is not None:
            inherited = parent.copy()
            table.columns = {**inherited.columns, **table.columns}
            table.primary_key = table.primary_key or inherited.primary_key
            table.indexes = inherited.indexes + table.indexes
            table.checks = inherited.checks + table.checks
            table.insert_heavy = parent.insert_heavy
    if "insert-heavy" in stmt.annotations:
        table.insert_heavy = "annotation"
    schema.tables[table.name] = _stamp(table, stmt)


def _create_unread(schema: Schema, stmt: Statement, new: bool) -> None:
    """A CREATE TABLE that could not be parsed still makes its table: one known by name only."""
    op = stmt.op
    assert isinstance(op, UnreadCreateTable)
    if op.if_not_exists and op.name in schema.tables:
        return
    table = Table(name=op.name, persistence=op.persistence, complete=False, defined_at=stmt.location)
    table.new = new or table.temporary
    schema.tables[op.name] = table


def _create_like(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateTableLike)
    source = schema.tables.get(op.source)
    table = source.copy() if source else Table(name=op.name, complete=False)
    table.name = op.name
    table.new = new
    table.defined_at = stmt.location
    table.workload = None
    table.persistence = op.persistence
    table.partition_of = table.partition_bound = None
    table.insert_heavy = "annotation" if "insert-heavy" in stmt.annotations else None
    table.foreign_keys = []  # LIKE copies no foreign keys
    if not op.copies_keys:
        table.primary_key, table.indexes = None, []
    schema.tables[op.name] = table


def _drop_table(schema: Schema, stmt: Statement, new: bool) -> None:
    for key in stmt.op.relations():
        schema.tables.pop(key, None)
        schema.gone.add(key)


def _rename_table(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, RenameTable)
    for old, to in op.pairs:
        _rename(schema, old, to)


def _rename(schema: Schema, old: str, to: str) -> None:
    table = schema.tables.pop(old, None)
    if table is not None:
        if not table.new:  # keys as (table, ""), beside the columns'
            given = {(k, "") for k in schema.renamed_tables}
            _follow_rename(schema, (old, ""), (to, ""), given)
            schema.renamed_tables = {k for k, _ in given}
        table.name = to
        schema.tables[to] = table
        moved = {(t, c) for t, c in schema.fresh_columns if t == old}
        schema.fresh_columns.difference_update(moved)
        schema.fresh_columns.update((to, c) for _, c in moved)
        _follow_referenced(schema, old, to)
        return
    view = schema.views.pop(old, None)
    if view is not None:
        view.name = to
        schema.views[to] = view
        return
    if old in schema.sequences:  # ALTER SEQUENCE ... RENAME TO
        schema.sequences.discard(old)
        schema.sequences.add(to)


def _follow_referenced(schema: Schema, old: str, to: str) -> None:
    """A table renamed: the foreign keys that reference it reference it still (the server keeps
    the table, not its name), those of other tables and those the deploy dropped alike, and what
    the deploy knows of its rows goes with it."""
    for t in schema.tables.values():
        if any(fk.references == old for fk in t.foreign_keys):
            t.foreign_keys = [replace(fk, references=to) if fk.references == old else fk for fk in t.foreign_keys]
    for key, keys in list(schema.dropped_foreign_keys.items()):
        keys = [replace(fk, references=to) if fk.references == old else fk for fk in keys]
        del schema.dropped_foreign_keys[key]
        schema.dropped_foreign_keys[to if key == old else key] = keys
    for known in (schema.dropped_keys, schema.dropped_checks):
        if old in known:
            known[to] = known.pop(old)
    for table, column in [k for k in schema.cleared_values if k[0] == old]:
        schema.cleared_values[(to, column)] = schema.cleared_values.pop((table, column))
    for table, column in [k for k in schema.refused_columns if k[0] == old]:
        schema.refused_columns.discard((table, column))
        schema.refused_columns.add((to, column))
    for (table, column), (relation, source, guards) in list(schema.filled_from.items()):
        if old in (table, relation) or old in guards:
            del schema.filled_from[(table, column)]
            moved = tuple(to if g == old else g for g in guards)
            schema.filled_from[(to if table == old else table, column)] = (
                to if relation == old else relation,
                source,
                moved,
            )


def _create_index(schema: Schema, stmt: Statement, new: bool) -> None:
    view = schema.views.get(stmt.table or "")
    if view is not None and view.materialized and stmt.table not in schema.tables:
        # a new View: copies of the schema share the old one
        schema.views[view.name] = replace(
            view, indexes=[*view.indexes, replace(stmt.op.index, defined_at=stmt.location)]
        )
        return
    table = _table(schema, stmt.table)
    if table is None:
        return
    idx = replace(stmt.op.index, defined_at=stmt.location)
    if idx.name and stmt.op.or_replace:
        table.indexes = [i for i in table.indexes if i.name != idx.name]
    elif idx.name and table.index_named(idx.name):
        return  # IF NOT EXISTS, or a re-run
    if idx.name and stmt.op.if_not_exists and schema.relation_in_schema_of(stmt.table or "", idx.name):
        return  # another relation has the name: the server skips the statement
    table.indexes.append(idx)


def _drop_index(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, DropIndex)
    for name in op.names:
        key = op.on or schema.index_owner_key(name)
        owner = schema.tables.get(key) if key else None
        if key and owner is not None:
            _remember_dropped(schema, key, [i for i in owner.indexes if i.name == name])
            owner.indexes = [i for i in owner.indexes if i.name != name]
        for key, view in list(schema.views.items()):
            if any(i.name == name for i in view.indexes):
                schema.views[key] = replace(view, indexes=[i for i in view.indexes if i.name != name])


def _alter_index(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, AlterIndex)
    if op.new_name:
        owner = schema.index_owner(op.name)
        if owner is not None:
            owner.indexes = [replace(i, name=op.new_name) if i.name == op.name else i for i in owner.indexes]


def _create_view(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateView)
    if getattr(op, "if_not_exists", False) and op.name in schema.views:
        return  # skipped: the view there stays as it was
    replaced = op.or_replace and op.name in schema.views and op.name not in schema.fresh
    populated = getattr(op, "with_data", True)
    schema.views[op.name] = View(
        op.name, materialized=op.materialized, defined_at=stmt.location, reads=op.reads, populated=populated
    )
    if new and not replaced:  # a view redefined in place is the one queries already use
        schema.fresh.add(op.name)


def _refresh_matview(schema: Schema, stmt: Statement, new: bool) -> None:
    view = schema.views.get(stmt.op.name)
    if view is not None and view.populated != stmt.op.with_data:
        schema.views[view.name] = replace(view, populated=stmt.op.with_data)


def _create_sequence(schema: Schema, stmt: Statement, new: bool) -> None:
    schema.sequences.add(stmt.op.name)
    if new:
        schema.fresh.add(stmt.op.name)


def _alter_sequence(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, AlterSequence)
    owner = schema.sequence_owner(op.name) if op.as_type else None
    if owner is None:
        return
    key = next(k for k, t in schema.tables.items() if t is owner)
    for column in owner.columns.values():
        if column.serial and owned_sequence(key, column.name) == op.name:
            column.sequence_type = op.as_type


def _drop_sequence(schema: Schema, stmt: Statement, new: bool) -> None:
    for name in stmt.op.relations():
        schema.sequences.discard(name)
        schema.fresh.discard(name)


def _create_routine(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateRoutine)
    (schema.routines.add if op.runs_sql else schema.routines.discard)(op.name)
    if op.volatility:
        schema.functions[op.name] = op.volatility
    _created(schema, "procedure" if "PROCEDURE" in op.what.upper() else "function", op.name, new, op.or_replace)


def _created(schema: Schema, kind: str, name: str, new: bool, or_replace: bool = False) -> None:
    """A function, procedure or extension created: new to the running release unless it replaces
    one already there."""
    key = (kind, name)
    if new and not (or_replace and key in schema.objects):
        schema.fresh_objects.add(key)
    schema.objects.add(key)


def _create_object(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateObject)
    if op.object == "sequence":  # MariaDB's
        if new and not (op.or_replace and op.name in schema.sequences):
            schema.fresh.add(op.name)
        schema.sequences.add(op.name)
    else:
        _created(schema, op.object, op.name, new, op.or_replace)


def _drop_objects(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, DropObjects)
    for name in op.names:
        if op.object == "sequence":
            schema.sequences.discard(name)
            schema.fresh.discard(name)
        elif op.object == "type":
            schema.enum_labels.pop(name, None)
        elif op.object in ("function", "procedure", "routine", "extension"):
            for kind in ("function", "procedure") if op.object == "routine" else (op.object,):
                schema.objects.discard((kind, name))
                schema.fresh_objects.discard((kind, name))


def _create_domain(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateDomain)
    schema.domains.add(op.name)


def _create_enum(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateEnum)
    schema.enum_labels[op.name] = op.labels
    if new:
        schema.fresh_objects.add(("type", op.name))
    if stmt.transaction is not None:
        schema.types_created_in[op.name] = stmt.transaction


def _alter_enum(schema: Schema, stmt: Statement, new: bool) -> None:
    """A label added in a transaction can be used once it commits (PostgreSQL 17 and later: or at
    once, when the same transaction created the type)."""
    op = stmt.op
    assert isinstance(op, AlterEnum)
    if op.name in schema.enum_labels and op.value not in schema.enum_labels[op.name]:
        schema.enum_labels[op.name] += (op.value,)
    tx = stmt.transaction
    if tx is not None:
        schema.pending_labels[op.name, op.value] = (tx, stmt.location, schema.types_created_in.get(op.name) == tx)


def _rename_enum_value(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, RenameEnumValue)
    if op.name in schema.enum_labels:
        schema.enum_labels[op.name] = tuple(
            op.new if label == op.old else label for label in schema.enum_labels[op.name]
        )


def _create_schema(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, CreateSchema)
    if new:
        schema.fresh_objects.add(("schema", op.name))


def _rename_schema(schema: Schema, stmt: Statement, new: bool) -> None:
    """A schema the deploy created keeps being new under its new name."""
    op = stmt.op
    assert isinstance(op, RenameSchema)
    if ("schema", op.name) in schema.fresh_objects:
        schema.fresh_objects.add(("schema", op.new_name))


def _rename_type(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, RenameType)
    if op.name in schema.enum_labels:
        schema.enum_labels[op.new_name] = schema.enum_labels.pop(op.name)
    for _table, col in schema.columns_of_type(op.name, arrays=True):
        _base, bracket, dims = col.base_type.partition("[")
        col.base_type = col.type = op.new_name + bracket + dims


def unseen_calls(stmt: Statement, schema: Schema) -> Statement:
    """A SELECT calling a function whose body changes tables (or runs SQL it builds) runs SQL the
    statement does not show."""
    op = stmt.op
    if type(op) is not Other or not schema.routines:
        return stmt
    called = next((c for c in op.calls if c in schema.routines), None)
    return replace(stmt, op=RunsUnseen(what=f"{called}()")) if called else stmt


def _runs_unseen(schema: Schema, stmt: Statement, new: bool) -> None:
    """SQL the reader cannot see may have changed any table: none is known in full any more (a
    key the model holds may have been dropped, one it lacks added)."""
    op = stmt.op
    assert isinstance(op, RunsUnseen)
    for table in schema.tables.values() if op.ddl else ():
        table.complete = False


def _drop_view(schema: Schema, stmt: Statement, new: bool) -> None:
    for name in stmt.op.relations():
        schema.views.pop(name, None)
        schema.fresh.discard(name)


def _alter_table(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, AlterTable)
    if op.if_exists and op.name not in schema.tables:
        return  # a table the replay never saw, or dropped: ALTER TABLE IF EXISTS changes nothing
    table = _table(schema, op.name)
    if table is None:
        return
    for action in op.actions:
        handler = _ACTIONS.get(action.op)
        if handler is not None:
            handler(schema, table, action, stmt)
        if new and not table.new:
            _follow_fresh_column(schema, table.name, action)
        if isinstance(action, Rename) and action.op == "rename_table":
            _rename(schema, table.name, action.new_name)
        elif isinstance(action, Option) and action.op == "set_schema" and action.value:
            # a move is a rename: the key is the schema-qualified name
            _rename(schema, table.name, relation_key(action.value, table.name.rsplit(".", 1)[-1]))


def _alter_view(schema: Schema, stmt: Statement, new: bool) -> None:
    op = stmt.op
    assert isinstance(op, AlterView)
    if op.new_name and op.name in schema.views:
        fresh = op.name in schema.fresh
        _rename(schema, op.name, op.new_name)
        if fresh:
            schema.fresh.discard(op.name)
            schema.fresh.add(op.new_name)


def _follow_fresh_column(schema: Schema, table: str, a: Action) -> None:
    """Keep `schema.fresh_columns` (the column names this deploy added to existing tables) and
    `schema.vacated` (the names it took away) in step."""
    fresh = schema.fresh_columns
    if isinstance(a, AddColumn) and a.op == "add_column":
        fresh.add((table, a.definition.name))
    elif isinstance(a, AddColumn) and a.old_name and a.old_name != a.definition.name:  # CHANGE old new
        _follow_rename(schema, (table, a.old_name), (table, a.definition.name), fresh)
    elif isinstance(a, Rename) and a.op == "rename_column" and a.column:
        _follow_rename(schema, (table, a.column), (table, a.new_name), fresh)
    elif a.op == "drop_column":
        fresh.discard((table, a.column or ""))


def _follow_rename(schema: Schema, old: tuple[str, str], new: tuple[str, str], given: set) -> None:
    """A rename within the deploy: a name the deploy gave (in `given`) passes to the new one; an
    older name is vacated (the running release uses it) and the new one given, unless it is a name
    vacated before, which the running release uses again."""
    if old in given:
        given.discard(old)
    else:
        schema.vacated.add(old)
    if new in schema.vacated:
        schema.vacated.discard(new)
    else:
        given.add(new)


# ---- ALTER TABLE actions ------------------------------------------------------------


def _add_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, AddColumn)
    column = replace(a.definition, defined_at=stmt.location)
    if a.if_exists and t.complete and (a.old_name or column.name) not in t.columns:
        return  # MariaDB's MODIFY/CHANGE IF EXISTS of a column the table lacks: a note, no change
    renamed = a.old_name if a.old_name and a.old_name != column.name and a.old_name in t.columns else None
    was = t.columns.get(a.old_name or column.name) if a.op != "add_column" else None
    if renamed:  # CHANGE old new ...
        _rename_in_keys(t, renamed, column.name)
        _follow_column(schema, stmt.table or t.name, renamed, column.name)
    if was is not None and column.nullable:  # MODIFY c ... without NOT NULL: the column takes NULL now
        _remember_not_null(schema, stmt.table or t.name, replace(was, name=column.name))
    if a.if_not_exists and column.name in t.columns:
        return
    # nothing fills the old rows of a nullable column added without a default; a NOT NULL one
    # PostgreSQL adds only to a table with no row (`not-null-without-default` reports the refusal),
    # where every row holds NULL all the same (MySQL and MariaDB fill the type's implicit default)
    fills = column.default or column.generated or column.identity or column.serial or column.auto_increment
    refused = not column.nullable or a.primary
    column.only_null = a.op == "add_column" and not fills and (not refused or stmt.dialect is Dialect.POSTGRES)
    if column.only_null and refused:
        schema.refused_columns.add((t.name, column.name))
    schema.only_null_columns |= column.only_null
    _put_column(t, column, renamed, a.position, a.after)
    held = constant_default(column.default) if a.op == "add_column" and not t.new else None
    if held is not None and not (column.generated or column.identity or column.serial or column.auto_increment):
        schema.held_values[(stmt.table or t.name, column.name)] = held  # every old row gets it
    if a.op == "add_column" and not t.new and _distinct_values(column):
        # every old row draws its own value: a key over the column cannot meet a duplicate
        schema.dropped_keys.setdefault(stmt.table or t.name, []).append(Index(None, (column.name,), unique=True))
    if a.primary:
        t.primary_key = Index(None, (column.name,), unique=True, primary=True, defined_at=stmt.location)
    if a.unique:
        t.indexes.append(Index(None, (column.name,), unique=True, defined_at=stmt.location))
    # MySQL parses an inline REFERENCES and ignores it
    for ref in a.references if stmt.dialect != Dialect.MYSQL else ():
        _add_fk(t, ForeignKey(None, (column.name,), ref), stmt)


def _drop_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.columns.pop(a.column or "", None)
    t.indexes = [i for i in t.indexes if a.column not in i.columns]
    t.foreign_keys = [fk for fk in t.foreign_keys if a.column not in fk.columns]
    if t.primary_key and a.column in t.primary_key.columns:
        t.primary_key = None
        t.key_changed_at = stmt.location


def _rename_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, Rename)
    if a.column in t.columns:
        col = t.columns[a.column]
        col.name = a.new_name
        _put_column(t, col, a.column, None, None)
    _rename_in_keys(t, a.column or "", a.new_name)
    _follow_column(schema, stmt.table or t.name, a.column or "", a.new_name)


def _follow_column(schema: Schema, key: str, old: str, new: str) -> None:
    """A column renamed: the foreign keys that reference it reference it still (the server keeps
    the column, not its name), and what the deploy knows of its values goes with it; a dropped
    check, whose expression names it, no longer proves anything."""

    def ren(columns: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(new if c == old else c for c in columns)

    def followed(fk: ForeignKey, own: bool) -> ForeignKey:
        columns = ren(fk.columns) if own else fk.columns
        refs = ren(fk.ref_columns) if fk.references == key else fk.ref_columns
        return fk if (columns, refs) == (fk.columns, fk.ref_columns) else replace(fk, columns=columns, ref_columns=refs)

    for t in schema.tables.values():
        if any(fk.references == key and old in fk.ref_columns for fk in t.foreign_keys):
            t.foreign_keys = [followed(fk, False) for fk in t.foreign_keys]
    for table, keys in schema.dropped_foreign_keys.items():
        schema.dropped_foreign_keys[table] = [followed(fk, table == key) for fk in keys]
    if key in schema.dropped_keys:
        schema.dropped_keys[key] = [replace(i, columns=ren(i.columns)) for i in schema.dropped_keys[key]]
    # a NOT NULL dropped follows its column; a check whose expression may name the old name goes
    schema.dropped_checks[key] = [
        replace(c, not_null=new, proves_not_null=new, columns=(new,)) if c.not_null == old else c
        for c in schema.dropped_checks.get(key, ())
        if c.not_null or c.columns and old not in c.columns
    ]
    if not schema.dropped_checks[key]:
        del schema.dropped_checks[key]
    if (key, old) in schema.cleared_values:
        schema.cleared_values[(key, new)] = schema.cleared_values.pop((key, old))
    for (table, column), (relation, source, guards) in list(schema.filled_from.items()):
        if (relation, source) == (key, old):
            schema.filled_from[(table, column)] = (relation, new, guards)
    if (key, old) in schema.filled_from:
        schema.filled_from[(key, new)] = schema.filled_from.pop((key, old))
    if (key, old) in schema.held_values:
        schema.held_values[(key, new)] = schema.held_values.pop((key, old))
    if (key, old) in schema.refused_columns:
        schema.refused_columns.discard((key, old))
        schema.refused_columns.add((key, new))


def _put_column(t: Table, column: Column, old: str | None, position: str | None, after: str | None) -> None:
    """Put the column in the table's order as the server does: in the place of `old` (a rename, a
    CHANGE), else where it stood, else last; MySQL's FIRST and AFTER move it. The order decides
    whether an ADD COLUMN ... AFTER goes last (INSTANT on MySQL 8.0.12 to 8.0.28)."""
    stood = old if old is not None and old in t.columns else column.name
    if stood == column.name and position is None:
        t.columns[column.name] = column  # the common case: the same place, or last
        return
    items = [
        (column.name, column) if k == stood else (k, c) for k, c in t.columns.items() if k != column.name or k == stood
    ]
    if stood not in t.columns:
        items.append((column.name, column))
    if position == "first" or position == "after" and after:
        items = [item for item in items if item[0] != column.name]
        at = 0 if position == "first" else next((n + 1 for n, (k, _) in enumerate(items) if k == after), len(items))
        items.insert(at, (column.name, column))
    t.columns.clear()
    t.columns.update(items)


def _rename_in_keys(t: Table, old: str, new: str) -> None:
    def ren(i: Index) -> Index:
        return replace(i, columns=tuple(new if c == old else c for c in i.columns))

    t.indexes = [ren(i) for i in t.indexes]
    if t.primary_key:
        t.primary_key = ren(t.primary_key)
    t.foreign_keys = [replace(fk, columns=tuple(new if c == old else c for c in fk.columns)) for fk in t.foreign_keys]
    if t.partitioning:
        t.partitioning = replace(t.partitioning, columns=tuple(new if c == old else c for c in t.partitioning.columns))


def _set_nullability(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    if a.column in t.columns:
        column = t.columns[a.column]
        if a.op == "drop_not_null":
            _remember_not_null(schema, stmt.table or t.name, column)
        column.nullable = a.op == "drop_not_null"


def _remember_not_null(schema: Schema, key: str, column: Column) -> None:
    """A NOT NULL the deploy drops is a check every row passes (`Schema.dropped_checks`): until a
    write to the table, no row holds NULL there, and SET NOT NULL again cannot fail."""
    if not column.nullable:
        schema.dropped_checks.setdefault(key, []).append(
            Check(None, not_null=column.name, proves_not_null=column.name, columns=(column.name,))
        )


def _alter_type(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, AlterColumnType)
    col = t.columns.get(a.column or "")
    if col is not None:
        col.type, col.base_type, col.type_args = a.type, a.base_type, a.type_args
        col.defined_at = stmt.location
        col.collation = a.collation


def _set_default(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    col = t.columns.get(a.column or "")
    if col is None:
        return
    if isinstance(a, SetDefault):
        col.default, col.default_calls = a.default, a.default_calls
    else:
        col.default, col.default_calls = None, ()


def _add_key(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, AddKey)
    idx = replace(a.index, defined_at=stmt.location)
    if a.using_index:
        existing = t.index_named(a.using_index)
        t.indexes = [i for i in t.indexes if i.name != a.using_index]
        idx = replace(idx, columns=existing.columns if existing else idx.columns, name=idx.name or a.using_index)
    if idx.primary:
        for c in idx.columns:
            if c in t.columns:
                t.columns[c].nullable = False
        t.primary_key = idx
    else:
        t.indexes.append(idx)


def _add_foreign_key(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, AddForeignKey)
    # MySQL after SET foreign_key_checks = 0 adds the key without reading a row: nothing proves them
    _add_fk(t, replace(a.key, validated=not a.not_valid and stmt.foreign_key_checks), stmt)


def _add_fk(t: Table, fk, stmt: Statement) -> None:
    t.foreign_keys.append(fk)
    if stmt.dialect != Dialect.POSTGRES:
        # start-up: create_table brings sqlglot; only a MySQL foreign key asks it for its implicit index
        from schemacite.sources.mysql.create_table import implicit_fk_index

        before = len(t.indexes)
        implicit_fk_index(t, fk.columns, fk.name)
        for idx in t.indexes[before:]:
            idx.defined_at = stmt.location


def _add_check(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, AddCheck)
    check = replace(a.constraint, validated=not a.not_valid)
    t.checks.append(check)
    if check.not_null and check.validated and check.not_null in t.columns:
        t.columns[check.not_null].nullable = False


def _validate_constraint(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, ConstraintAction)
    t.checks = [replace(c, validated=True) if c.name == a.name else c for c in t.checks]
    t.foreign_keys = [replace(fk, validated=True) if fk.name == a.name else fk for fk in t.foreign_keys]
    for c in t.checks:
        if c.name == a.name and c.not_null in t.columns:
            t.columns[c.not_null].nullable = False


def _alter_constraint(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, ConstraintAction)
    if a.enforced is None:
        return
    t.checks = [replace(c, enforced=a.enforced) if c.name == a.name else c for c in t.checks]
    t.foreign_keys = [replace(fk, enforced=a.enforced) if fk.name == a.name else fk for fk in t.foreign_keys]


def _drop_constraint(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, ConstraintAction)
    name = a.name
    pk = t.primary_key
    key = stmt.table or t.name
    if pk and name and (pk.name == name or name == f"{t.name.rsplit('.', 1)[-1]}_pkey"):
        _remember_dropped(schema, key, [pk])
        t.primary_key = None
        t.key_changed_at = stmt.location
        return
    postgres = stmt.dialect is Dialect.POSTGRES

    def named(kept: str | None, columns: tuple[str, ...], suffix: str) -> bool:
        # PostgreSQL names an unnamed UNIQUE or FOREIGN KEY after its table and columns
        return (constraint_name(kept, key, columns, suffix) if postgres else kept) == name

    gone_keys = [i for i in t.indexes if i.name == name or i.unique and named(i.name, i.columns, "key")]
    _remember_dropped(schema, key, gone_keys)
    t.indexes = [i for i in t.indexes if i not in gone_keys]
    gone = [fk for fk in t.foreign_keys if named(fk.name, fk.columns, "fkey")]
    t.foreign_keys = [fk for fk in t.foreign_keys if fk not in gone]
    if proven := [fk for fk in gone if fk.validated and fk.enforced]:
        schema.dropped_foreign_keys.setdefault(key, []).extend(proven)
    # PostgreSQL names an unnamed check after the one column it reads, else after its table alone
    dropped = [c for c in t.checks if named(c.name, c.columns if len(c.columns) == 1 else (), "check")]
    t.checks = [c for c in t.checks if c not in dropped]
    if proven := [c for c in dropped if c.validated and c.enforced and not c.not_null]:
        schema.dropped_checks.setdefault(key, []).extend(proven)
    for c in dropped:
        if c.not_null in t.columns:
            t.columns[c.not_null].nullable = True


def _drop_primary_key(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    if t.primary_key is not None:
        _remember_dropped(schema, stmt.table or t.name, [t.primary_key])
    t.primary_key = None
    t.key_changed_at = stmt.location


def _drop_index_action(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, IndexAction)
    _remember_dropped(schema, stmt.table or t.name, [i for i in t.indexes if i.name == a.index])
    t.indexes = [i for i in t.indexes if i.name != a.index]


def _rename_index(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, Rename)
    t.indexes = [replace(i, name=a.new_name) if i.name == a.name else i for i in t.indexes]


def _rename_constraint(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, Rename)
    t.checks = [replace(c, name=a.new_name) if c.name == a.name else c for c in t.checks]
    t.foreign_keys = [replace(fk, name=a.new_name) if fk.name == a.name else fk for fk in t.foreign_keys]
    t.indexes = [replace(i, name=a.new_name) if i.name == a.name else i for i in t.indexes]
    if t.primary_key is not None and t.primary_key.name == a.name:
        t.primary_key = replace(t.primary_key, name=a.new_name)


def _partition_by(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, PartitionBy)
    t.partitioning = replace(a.partitioning, defined_at=stmt.location)


def _remove_partitioning(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.partitioning = None


def _attach(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, PartitionAction)
    part = schema.tables.get(a.partition)
    if part is not None:
        part.partition_of = t.name
        part.partition_bound = a.bound


def _detach(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, PartitionAction)
    part = schema.tables.get(a.partition)
    if part is not None and a.op != "detach_partition_concurrently":
        part.partition_of = part.partition_bound = None


def _option(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    assert isinstance(a, Option)
    if a.op == "engine":
        t.engine = a.value
    elif a.op == "row_format":
        t.row_format = a.value
    elif a.op == "set_access_method":
        t.engine = a.value
    elif a.op in ("default_charset", "convert_charset"):
        if a.option == "COLLATE":
            t.collation = a.value
            t.charset = (a.value or "").split("_")[0] or t.charset
        else:
            t.charset = a.value or t.charset
            t.collation = a.collation
        if a.op == "convert_charset":  # every text column follows the table
            for col in t.columns.values():
                if col.charset is not None:
                    col.charset, col.collation = t.charset, t.collation


def _persistence(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.persistence = "unlogged" if a.op == "set_unlogged" else "permanent"


_ACTIONS = {
    "add_column": _add_column,
    "modify_column": _add_column,
    "change_column": _add_column,
    "drop_column": _drop_column,
    "rename_column": _rename_column,
    "set_not_null": _set_nullability,
    "drop_not_null": _set_nullability,
    "alter_column_type": _alter_type,
    "set_default": _set_default,
    "drop_default": _set_default,
    "add_primary_key": _add_key,
    "add_unique": _add_key,
    "add_index": _add_key,
    "add_exclude": _add_key,
    "add_foreign_key": _add_foreign_key,
    "add_check": _add_check,
    "add_not_null": _add_check,
    "validate_constraint": _validate_constraint,
    "alter_constraint": _alter_constraint,
    "drop_constraint": _drop_constraint,
    "drop_foreign_key": _drop_constraint,
    "drop_primary_key": _drop_primary_key,
    "drop_index": _drop_index_action,
    "rename_index": _rename_index,
    "rename_constraint": _rename_constraint,
    "partition_by": _partition_by,
    "remove_partitioning": _remove_partitioning,
    "attach_partition": _attach,
    "detach_partition": _detach,
    "detach_partition_finalize": _detach,
    "engine": _option,
    "row_format": _option,
    "set_access_method": _option,
    "default_charset": _option,
    "convert_charset": _option,
    "set_logged": _persistence,
    "set_unlogged": _persistence,
}


def _write_rows(schema: Schema, stmt: Statement, new: bool) -> None:
    """A statement that writes rows: the columns it may give values no longer hold only NULL; an
    UPDATE of every row holding NULL in a column backfills it, and a new row may hold NULL again."""
    op = stmt.op
    table = schema.tables.get(op.table or "")
    if table is None:
        return
    named = set(getattr(op, "columns", ()))
    if isinstance(op, Update) and op.sources:
        _follow_fills(schema, op, table)
    if isinstance(op, Update) and op.clears:
        _clear_values(schema, op)
    if isinstance(op, Update) and op.copies:
        _follow_copies(schema, stmt, op, table)
    if isinstance(op, Update):
        _follow_unorphaned(schema, op)
    if isinstance(op, Update) and op.every_row:
        schema.held_values.update(((op.table or "", name), value) for name, value in op.set_to)
    if isinstance(op, Update):
        _follow_distinct(schema, op, table)
    for column in table.columns.values():
        if not named or column.name in named:
            column.only_null = False
        if not isinstance(op, Update) or column.name in op.nulled:
            column.backfilled = False  # a row may hold NULL again
        elif column.name in named and (op.every_row or column.name in op.nulls_matched):
            column.backfilled = not _may_be_null(schema, op, column.name, table)


def _follow_distinct(schema: Schema, op: Update, table: Table) -> None:
    """`SET token = gen_random_uuid()` on every row (no WHERE, or `WHERE token IS NULL` of a column
    holding only NULL): no two rows share a value, as a key the deploy knows of (`Schema.dropped_keys`)."""
    for name in op.distinct_set:
        column = table.columns.get(name)
        if column is not None and (op.every_row or column.only_null and name in op.nulls_matched):
            schema.dropped_keys.setdefault(op.table or table.name, []).append(Index(None, (name,), unique=True))


def _may_be_null(schema: Schema, op: Update, name: str, table: Table) -> bool:
    """Whether the UPDATE may leave NULL in the column on some row: its value may be NULL, or is NULL
    where a column of the row it reads (a copy, an expression over it) may be NULL."""
    if name in op.may_be_null:
        return True
    reads = [*dict(op.null_with).get(name, ()), *(source for column, source in op.copies if column == name)]
    held = [table.columns.get(r) for r in reads]
    if any(c is None or c.nullable and not c.backfilled for c in held):
        return True
    # a subquery finding its row by a nullable column of this row gives NULL where that column is
    # NULL; a name the subquery's relations hold means theirs, and an unknown relation may hold it
    for column, key, inner in op.null_with_subquery:
        mine = table.columns.get(key)
        if column != name or mine is None or not mine.nullable or mine.backfilled:
            continue
        relations = [schema.tables.get(r) for r in inner]
        if all(r is not None and r.complete and key not in r.columns for r in relations):
            return True
    return False


def _follow_copies(schema: Schema, stmt: Statement, op: Update, table: Table) -> None:
    """`SET slug = id`: a column given the value of a column that a whole key keeps unique holds
    no two rows alike, where the UPDATE sets it on every row, or it held only NULL before (the rows
    the WHERE leaves out keep NULL, which no unique key counts). Kept as a key the deploy knows of
    (`Schema.dropped_keys`) until a statement writes the table."""
    for column, source in op.copies:
        held = table.columns.get(column)
        if held is None or not (op.every_row or held.only_null):
            continue
        keys = [table.primary_key, *table.indexes]
        if any(k is not None and (k.primary or k.unique) and not k.partial and k.columns == (source,) for k in keys):
            schema.dropped_keys.setdefault(stmt.table or table.name, []).append(Index(None, (column,), unique=True))


def _delete_rows(schema: Schema, stmt: Statement, new: bool) -> None:
    """Rows deleted give no column a value; those holding some constants gone, no row holds them."""
    if isinstance(stmt.op, Delete) and stmt.op.clears:
        _clear_values(schema, stmt.op)
    if isinstance(stmt.op, Delete):
        _follow_unorphaned(schema, stmt.op)
        table = schema.tables.get(stmt.op.table or "")
        for name in stmt.op.nulls_matched if table is not None else ():
            if (column := table.columns.get(name)) is not None:
                column.backfilled = True  # every row holding NULL there is gone


def _follow_unorphaned(schema: Schema, op: Update | Delete) -> None:
    """Orphans deleted or set to NULL: every value the column holds is one the relation holds, as
    if filled from it, until a write to either table (`schema.filled_from`)."""
    if op.unorphaned:
        column, relation, source = op.unorphaned
        schema.filled_from[(op.table or "", column)] = (relation, source, (relation,))


def _clear_values(schema: Schema, op: Update | Delete) -> None:
    schema.cleared_values.setdefault((op.table or "", op.clears[0]), set()).update(op.clears[1:])


def _follow_fills(schema: Schema, op: Update, table: Table) -> None:
    """An UPDATE setting columns to another relation's column (`SET account_id = posts.account_id
    FROM posts WHERE posts.id = comments.post_id`, or a scalar subquery). Where it sets every row, or
    the column held only NULL, every value the column holds came from that relation's column, and
    `schema.filled_from` keeps it. Where its WHERE joins by a NOT NULL column whose validated
    foreign key references that relation, each row finds exactly one row there: a NOT NULL source
    column leaves no NULL behind, and the column is backfilled."""
    for name, relation, source in op.sources:
        column = table.columns.get(name)
        if column is None:
            continue
        joined = _joined_to_one_row(schema, op, table, relation)
        if op.every_row or joined or column.only_null:
            origin = schema.tables.get(relation)
            guards = [relation]
            if origin is not None:
                guards += [fk.references for fk in origin.foreign_keys if fk.columns == (source,)]
            schema.filled_from[(op.table or "", name)] = (relation, source, tuple(guards))
            held = origin.columns.get(source) if origin is not None else None
            if joined and held is not None and not held.nullable:
                column.backfilled = True


def _joined_to_one_row(schema: Schema, op: Update, table: Table, relation: str) -> bool:
    """Whether the UPDATE's WHERE is one equality between a NOT NULL column of the table and the
    column its validated foreign key references in `relation`: every row then finds one row there."""
    if len(op.joins) != 1 or op.joins[0][1] != relation:
        return False
    mine, _, theirs = op.joins[0]
    column = table.columns.get(mine)
    if column is None or column.nullable:
        return False
    parent = schema.tables.get(relation)
    pk = parent.primary_key.columns if parent is not None and parent.primary_key is not None else ()
    return any(
        fk.columns == (mine,) and fk.references == relation and (fk.ref_columns or pk) == (theirs,)
        for fk in table.foreign_keys
        if fk.validated and fk.enforced
    )


# writes a reader leaves unread (MySQL's DML is an Other): the table they write is unknown
_UNREAD_WRITES = frozenset({"INSERT", "UPDATE", "REPLACE", "DELETE", "LOAD", "MERGE", "COPY"})


def _other(schema: Schema, stmt: Statement, new: bool) -> None:
    """A write whose table is not read may give any column a value: nothing holds only NULL now.
    The walk over every column runs once per column added, not once per INSERT of a dump."""
    if not schema.only_null_columns or not isinstance(stmt.op, Other):
        return
    if stmt.op.what.split(" ")[0].upper() in _UNREAD_WRITES:
        for table in schema.tables.values():
            for column in table.columns.values():
                column.only_null = False
        schema.only_null_columns = False


_STATEMENTS = {
    CreateTable: _create_table,
    CreatePartition: _create_table,
    CreateTableAs: _create_table,
    CreateTableLike: _create_like,
    UnreadCreateTable: _create_unread,
    DropTable: _drop_table,
    RenameTable: _rename_table,
    DropIndex: _drop_index,
    AlterIndex: _alter_index,
    DropView: _drop_view,
    AlterView: _alter_view,
    AlterTable: _alter_table,
    CreateIndex: _create_index,
    CreateView: _create_view,
    CreateMatview: _create_view,
    CreateSequence: _create_sequence,
    AlterSequence: _alter_sequence,
    DropSequence: _drop_sequence,
    RunsUnseen: _runs_unseen,
    CreateRoutine: _create_routine,
    CreateObject: _create_object,
    DropObjects: _drop_objects,
    RenameType: _rename_type,
    RenameEnumValue: _rename_enum_value,
    CreateDomain: _create_domain,
    CreateEnum: _create_enum,
    CreateSchema: _create_schema,
    RenameSchema: _rename_schema,
    AlterEnum: _alter_enum,
    RefreshMatview: _refresh_matview,
    Insert: _write_rows,
    Update: _write_rows,
    Delete: _delete_rows,
    Merge: _write_rows,
    CopyFrom: _write_rows,
    Other: _other,
}


# ---- the walk ------------------------------------------------------------------------


# statements MySQL and MariaDB run inside a transaction; every other one commits it first (DDL)
_MYSQL_TRANSACTIONAL = frozenset({"insert", "update", "delete", "select", "set", "other", "begin", "commit"})


@record
class Session:
    """What earlier statements set for the ones after them: the transaction open (the runner's, or
    an explicit BEGIN), a lock timeout, MySQL's foreign_key_checks and sql_mode, the TimeZone. `see` records a
    statement's effect and stamps the statement with it."""

    dialect: Dialect = Dialect.POSTGRES
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    transaction: int | None = None
    explicit: bool = False  # the open transaction came from BEGIN, not from the runner
    why: str = ""  # who opened it
    # how: "begin" (the file's BEGIN), "runner" (the runner's), "query" (PostgreSQL's implicit one
    # around a multi-statement query), "nested" (the runner's, after a BEGIN of the file inside it)
    opened_by: str = ""
    found: str = ""  # `opened_by` of the transaction the last statement seen found open ("": none)
    found_why: str = ""
    session_lock_timeout: bool = False  # SET (SESSION) gave the session a lock timeout
    local_lock_timeout: bool | None = None  # SET LOCAL said, until the transaction ends
    foreign_key_checks: bool = True
    sql_mode: str | None = None  # MySQL/MariaDB: after SET [SESSION] sql_mode (None: the server's)
    time_zone: str | None = None
    run: int | None = None  # the transaction a `run` unit joins: shared by the change's files
    default_path: tuple[str, ...] = ("public",)  # the search_path setting the deploy starts with
    session_path: tuple[str, ...] | None = None  # after SET search_path (None: the default)
    local_path: tuple[int | None, tuple[str, ...]] | None = None  # SET LOCAL: (its transaction, the path)
    database: str = ""  # MySQL/MariaDB: the database the file's last USE named ("": the connection's)

    @property
    def search_path(self) -> tuple[str, ...]:
        """The schemas an unqualified name is looked up in here (SET LOCAL lasts until its
        transaction ends, SET until the session does)."""
        if self.local_path is not None and self.local_path[0] == self.transaction:
            return self.local_path[1]
        return self.default_path if self.session_path is None else self.session_path

    @property
    def in_transaction(self) -> bool:
        return self.transaction is not None

    @property
    def lock_timeout(self) -> bool:
        """Whether a lock timeout is in force for the next statement."""
        return self.session_lock_timeout if self.local_lock_timeout is None else self.local_lock_timeout

    def open_unit(self, unit: Unit, statements: list[Statement]) -> None:
        """A unit starts: the runner opens its transaction, if it does (see frameworks.base)."""
        self.close_unit()
        if self.dialect is not Dialect.POSTGRES:
            return  # MySQL/MariaDB DDL commits whatever transaction the runner opened
        mode, why = unit.transaction, unit.why
        if mode == "flyway":  # none when every statement must run alone; a mix is refused
            alone = [s for s in statements if needs_own_transaction(s.op)]
            mode = "script" if alone and len(alone) == len(statements) else "unit"
            if alone and mode == "unit":
                why = "Flyway refuses a migration mixing it with statements that run in a transaction (mixed = false)"
        if mode == "run":  # one transaction around the run's pending migrations (see frameworks.base)
            self.transaction, self.explicit, self.why = self.run or next(self.ids), False, why
            self.opened_by = "runner"
        elif mode == "unit" or mode == "implicit" and len(statements) > 1:
            self.transaction, self.explicit = next(self.ids), False
            self.opened_by = "runner" if mode == "unit" else "query"
            self.why = (
                why if mode == "unit" else f"{why}: PostgreSQL runs a multi-statement query as one implicit transaction"
            )

    def close_unit(self) -> None:
        if not self.explicit:
            self._end_transaction()

    def _end_transaction(self) -> None:
        self.transaction, self.explicit, self.why, self.opened_by = None, False, "", ""
        self.local_lock_timeout = None

    def see(self, stmt: Statement) -> None:
        self.found, self.found_why = self.opened_by, self.why
        if self.dialect in MYSQL_FAMILY and isinstance(stmt.op, Other) and stmt.op.what == "USE":
            self.database = used_database(stmt.sql) or self.database
        if stmt.kind == "begin":
            # PostgreSQL warns and stays in the transaction open, but a BEGIN turns the implicit
            # transaction of a multi-statement query into its own; MySQL and MariaDB commit the
            # open transaction and start another
            if self.transaction is None or self.opened_by == "query" or self.dialect in MYSQL_FAMILY:
                if self.opened_by != "query":
                    self.transaction = next(self.ids)
                self.explicit, self.why, self.opened_by = True, "BEGIN ... COMMIT", "begin"
            elif self.opened_by == "runner":
                self.opened_by = "nested"
        elif stmt.kind == "commit":
            self._end_transaction()
        elif self.dialect in MYSQL_FAMILY and stmt.kind not in _MYSQL_TRANSACTIONAL:
            self._end_transaction()  # DDL commits first, and itself
        elif isinstance(stmt.op, SetVariable) and not stmt.op.server:  # SET GLOBAL: later sessions', not this one's
            var = stmt.op.variable
            if var in LOCK_TIMEOUT_VARIABLES:
                in_force = stmt.op.value.strip().lower() not in NO_TIMEOUT
                if not stmt.op.local:
                    self.session_lock_timeout, self.local_lock_timeout = in_force, None
                elif self.transaction is not None:  # SET LOCAL outside a transaction changes nothing
                    self.local_lock_timeout = in_force
            if var == "foreign_key_checks":
                self.foreign_key_checks = stmt.op.value.upper() not in ("0", "OFF", "FALSE")
            elif var == "sql_mode":
                self.sql_mode = None if stmt.op.reset else stmt.op.value
            elif var == "timezone":
                self.time_zone = stmt.op.value
            elif var == "search_path" and self.dialect is Dialect.POSTGRES:
                self._set_path(stmt.op)
        stmt.foreign_key_checks = self.foreign_key_checks
        stmt.sql_mode = self.sql_mode
        stmt.time_zone = self.time_zone
        stmt.transaction = self.transaction

    def _set_path(self, op: SetVariable) -> None:
        path = None if op.reset else parse_search_path(op.value)
        if op.local:  # outside a transaction SET LOCAL does nothing (the server warns)
            self.local_path = (
                (self.transaction, self.default_path if path is None else path) if self.in_transaction else None
            )
        else:
            self.session_path, self.local_path = path, None


@record
class Step:
    """One statement on its way through a replay, with the schema as it was before it."""

    statement: Statement
    schema: Schema
    reported: bool
    in_transaction: bool = False
    lock_timeout_set: bool = False
    unit: Unit | None = None  # the deploy it belongs to
    transaction_why: str = ""  # who opened the transaction it runs in
    explicit: bool = False  # that transaction is the file's own BEGIN, not the runner's
    unit_size: int = 0  # statements in the deploy
    unit_ddl: int = 0  # of them, those MySQL and MariaDB commit as they run (DDL)
    found: str = ""  # the transaction the statement found open (see `Session.opened_by`)
    found_why: str = ""  # who opened that one
    # for a BEGIN: the later statement of its deploy that ends the transaction it is in (None:
    # none does), and how many statements of the deploy follow that one; for any statement, how
    # many of its deploy follow it
    closed_by: Statement | None = None
    later: int = 0
    after_close: int = 0  # statements of the deploy after `closed_by`


def closing(rest: list[Statement], dialect: Dialect) -> Statement | None:
    """The first of `rest`, the statements after a BEGIN, that ends the transaction it is in: a
    COMMIT or ROLLBACK, and on MySQL and MariaDB also a BEGIN or DDL, which commit it."""
    for stmt in rest:
        if (
            stmt.kind == "commit"
            or dialect in MYSQL_FAMILY
            and (stmt.kind == "begin" or stmt.kind not in _MYSQL_TRANSACTIONAL)
        ):
            return stmt
    return None


# a history of fewer files is replayed each time: its state costs more to keep than to make
HISTORY_KEPT_FROM = 20


class Replay:
    """Walk history and reported files in replay order.

    Iterating yields a Step per statement that runs on deploy, then applies the statement to
    `schema`. The project's framework (detected, or named in the config) decides the order of
    the files, which parts of them deploy (down sections, rollback and revert scripts are only
    read for their syntax) and which statements share a transaction. History files come first;
    reported files follow unless the history already names them, in which case they keep their
    place there and are not applied twice. Each deploy (a file, a changeset) is judged against
    the schema every earlier one left: a table is new only within the deploy that created it.
    """

    def __init__(
        self,
        dialect: str,
        paths: Iterable[str],
        history: Iterable[str] = (),
        base: Schema | None = None,
        cache=None,
        framework: str | None = None,
        stdin: tuple[str, bytes] | None = None,
        search_path: str = DEFAULT_SEARCH_PATH,
        lock_timeout: str = "",
        excluded: Callable[[str], bool] | None = None,
        overlay: dict[str, bytes] | None = None,
        change_together: bool = False,
        read_ahead: bool | Callable[[], object] = False,
    ):
        self.dialect = Dialect(dialect)  # callers of the API may name it as text
        # the change's migrations reach production in one deploy (a commit's, a pull request's):
        # what one of them creates is new to the others, each keeping its own transaction
        self.change_together = change_together
        self._change_begun = False
        self.search_path = parse_search_path(search_path)
        # the deploy's connection sets it (the runner's script, its connection string, the role)
        self.lock_timeout = lock_timeout.strip().lower() not in NO_TIMEOUT
        self.cache = cache
        self._entries_from = 0  # the size from which a file's parse is read from the cache
        self.stdin = stdin
        # files read from memory instead of the disk, by absolute path (fixes made, not yet written)
        self.overlay = overlay or {}
        self._base_given = base is not None
        # a run over many files parses them in a second process, ahead of the replay (the CLI's);
        # a callable is what this process loads meanwhile (sources.ahead)
        self._read_ahead = bool(read_ahead) and not stdin and not self.overlay
        self._meanwhile = read_ahead if callable(read_ahead) else None
        self._ahead: ReadAhead | None = None
        paths, history = list(paths), list(history)
        if not self._plan_ahead(paths, history, framework, excluded):
            self._plan(paths, history, framework, excluded)
        self._init: str | None = None  # the init folder whose deploy is under way
        self._run_transaction: int | None = None  # the change's files' shared transaction (`run` units)
        self.schema = base.copy() if base is not None else Schema(dialect)
        self._read_paths: list[str] = []  # every file read, includes too, in order
        self.file_ignores: dict[str, tuple[frozenset[str], int]] = {}  # ids, line of the comment
        self.bad_directives: dict[str, list[ParseError]] = {}  # `schemacite:` comments that do not parse
        self.units = 0  # deploys walked
        # files of a MySQL-family run holding SQLite syntax its server refuses, with what they hold
        self.sqlite: dict[str, Counter[str]] = {}
        self._ids = itertools.count(1)
        self._new: set[str] = set()  # tables the current deploy created

    def _plan(
        self, paths: list[str], history: list[str], framework: str | None, excluded: Callable[[str], bool] | None
    ) -> None:
        """List the files, find their runner, and order them as it deploys them; set aside those
        no part of the run. Sets the attributes `_PLANNED` names."""
        stdin = self.stdin
        rendered: list[str] = []  # templates the folders hold beside their SQL
        self.reported, self.errors = expand(paths, stdin_name=stdin[0] if stdin else None, rendered=rendered)
        past, history_errors = expand(history)
        self.errors += history_errors
        as_given = {os.path.abspath(f): f for f in self.reported}
        self.reported_set = set(as_given)
        past = [as_given.get(os.path.abspath(f), f) for f in past]
        later = [f for f in self.reported if f not in past]
        if framework:
            self.framework, self.framework_why = FRAMEWORKS[framework], "configured"
        else:
            self.framework, self.framework_why = detect([f for f in past + later if not stdin or f != stdin[0]])
        self.unlinted: dict[str, list[str]] = {}  # why -> files of the change read but not linted
        past, later, base_files = self._set_aside(past, later)
        if rendered:
            self.skipped[RENDERED] = rendered
        ordered = self.framework.order(past) + self.framework.order(later)
        # an empty cluster's init scripts run before any migration, as one deploy
        self.order = base_files + sorted(ordered, key=lambda f: init_folder(f) is None)
        if excluded is not None:
            self._exclude(excluded)

    def _plan_ahead(
        self, paths: list[str], history: list[str], framework: str | None, excluded: Callable[[str], bool] | None
    ) -> bool:
        """Plan in the read-ahead child, which then parses the files, when the run names many files
        and no history (a CI job or an audit over a folder): this process meanwhile loads what its
        checks need. False when it plans for itself (a run with history forks, if at all, once its
        state is known: see `from_change`)."""
        if not self._read_ahead or history or not fork_may_pay() or not many_files(paths, AHEAD_FROM_FILES):
            return False
        # start-up: the fork's module loads only for a run over many files
        from schemacite.sources.ahead import ReadAhead

        def planned() -> tuple[object, list[str]]:
            load_reader(self.dialect)  # meanwhile the other process loads what its checks need
            self._plan(paths, history, framework, excluded)
            plan = {name: getattr(self, name) for name in _PLANNED} | {"framework": self.framework.name}
            if FRAMEWORKS.get(self.framework.name) is not self.framework:
                raise ValueError("a runner made for this run: planned here")
            self._read_count(len(self.order))  # as `from_change`, which starts at the first file
            return plan, self.order if read_ahead_pays(self.order) else []

        self._ahead = ReadAhead(planned, self._parse, self._meanwhile)
        load_reader(self.dialect)  # for the files this process parses when it catches up with the child
        plan = self._ahead.plan()
        if not isinstance(plan, dict):
            self._stop_ahead()
            return False
        self.__dict__.update(plan, framework=FRAMEWORKS[plan["framework"]])
        if not self._ahead.paths:
            self._stop_ahead()  # too few files to be worth the child's parsing
        return True

    def _set_aside(self, past: list[str], later: list[str]) -> tuple[list[str], list[str], list[str]]:
        """Leave out the files no part of this run (another database's migrations), and set apart
        the base schema the runner loads on reset, which is history whichever list names it.
        Returns the history and the change without them, and the base files."""
        self.skipped: dict[str, list[str]] = {}  # why -> files no part of this run
        engines = other_engines(past + later, self.dialect)  # first: the runner sees only the run's files
        runner = self.framework.skipped([f for f in past + later if f not in engines], self.dialect)
        for f, why in {**engines, **runner}.items():
            self.skipped.setdefault(why, []).append(f)
        left_out = {f for files in self.skipped.values() for f in files}
        past, later = [f for f in past if f not in left_out], [f for f in later if f not in left_out]
        base_files = self.framework.base(past + later)
        shown = [f for f in base_files if f in self.reported]
        if shown:
            self.unlinted[f"{self.framework.title} builds the schema the migrations start from with them"] = shown
        past = [f for f in past if f not in base_files]
        later = [f for f in later if f not in base_files]
        self.reported = [f for f in self.reported if f not in left_out and f not in base_files]
        self.base_set = {os.path.abspath(f) for f in base_files}
        self.reported_set -= self.base_set
        return past, later, base_files

    def _exclude(self, excluded: Callable[[str], bool]) -> None:
        """Files the config excludes still deploy: replayed in their place, never linted."""
        dropped = [f for f in self.reported if not (self.stdin and f == self.stdin[0]) and excluded(f)]
        if dropped:
            self.reported = [f for f in self.reported if f not in dropped]
            self.reported_set -= {os.path.abspath(f) for f in dropped}
            self.unlinted[EXCLUDED] = dropped

    def __iter__(self) -> Iterator[Step]:
        self._read_count(len(self.order))
        self._start_ahead(self.order)
        try:
            for path in self.order:
                with reading(path), overlaid(self.overlay):
                    yield from self._file(path)
        finally:
            self._stop_ahead()

    def from_change(self) -> Iterator[Step]:
        """The steps from the change's first file on (history deploying between the change's files
        included): the history files before it are replayed as iterating does, yielding nothing,
        or, when the cache holds the state that replay left, not replayed at all (a pre-commit
        run's hundreds of unchanged migrations). A replay that reads the state back ends as one that
        replays the history would, every step after it the same."""
        ahead = self._history_ahead()
        key = self._state_key(ahead) if ahead else None
        start = 0
        errors_before = len(self.errors)
        if key is not None and (state := self.cache.get_state(key)) is not None:
            self._restore(state)
            start = len(ahead)
        self._read_count(len(self.order) - start)
        self._start_ahead(self.order[start:])
        try:
            for n in range(start, len(self.order)):
                if n == len(ahead) and start == 0 and key is not None:
                    self._keep_state(key, ahead, errors_before)
                path = self.order[n]
                with reading(path), overlaid(self.overlay):
                    steps = self._file(path)
                    if n < len(ahead):
                        for _ in steps:  # replayed for the state it leaves
                            pass
                    else:
                        yield from steps
        finally:
            self._stop_ahead()

    def _start_ahead(self, paths: list[str]) -> None:
        if self._read_ahead and self._ahead is None and read_ahead_pays(paths):
            # start-up: the fork's module loads only for a run over many files
            from schemacite.sources.ahead import ReadAhead

            self._ahead = ReadAhead(paths, self._parse, self._meanwhile)

    def _stop_ahead(self) -> None:
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None

    def _read_count(self, files: int) -> None:
        """The run is about to read `files` files: the cache says from which size it keeps their parse."""
        self._entries_from = self.cache.entries_from(files) if self.cache is not None else 0

    def _history_ahead(self) -> list[str]:
        """The history files the replay walks before the change's first one, whose state the cache
        may keep: none when there is no cache, the schema starts from a given one, one of them is
        read from memory (a fix not yet written), or they are too few to be worth keeping."""
        if self.cache is None or self._base_given:
            return []
        ahead = []
        for path in self.order:
            if os.path.abspath(path) in self.reported_set or (self.stdin and path == self.stdin[0]):
                break
            if os.path.abspath(path) in self.overlay:
                return []
            ahead.append(path)
        return ahead if len(ahead) >= HISTORY_KEPT_FROM else []

    def _state_key(self, ahead: list[str]) -> str | None:
        parts = [
            "history",
            self.dialect.value,
            repr(self.search_path),
            str(self.lock_timeout),
            self.framework.name,
        ]
        for path in ahead:
            try:
                parts += [path, self.cache.digest(self.raw(path)), str(os.path.abspath(path) in self.base_set)]
            except OSError:
                return None  # unreadable: the replay says so, as it always does
        return self.cache.state_key(parts)

    def _restore(self, state: HistoryState) -> None:
        self.schema = state.schema
        self.errors.extend(state.errors)
        self.file_ignores.update(state.file_ignores)
        self.bad_directives.update(state.bad_directives)
        self.units = state.units
        self._ids = itertools.count(state.next_id)
        seq_from(state.next_seq)
        self._init = state.init
        self._new = set(state.new)

    def _keep_state(self, key: str, ahead: list[str], errors_before: int) -> None:
        if self.sqlite:
            return  # the notes on SQLite syntax are not kept: a history holding some is replayed
        next_id = next(self._ids)
        self._ids = itertools.count(next_id)  # as a run reading the state back goes on
        seq = next_seq() + 1  # where this run's replay order goes on, and a run reading the state back
        covered = set(ahead)
        try:
            included = {path: self.cache.digest(self.raw(path)) for path in self._read_paths if path not in covered}
        except OSError:
            return
        self.cache.put_state(
            key,
            schema=self.schema,
            errors=self.errors[errors_before:],
            file_ignores=dict(self.file_ignores),
            bad_directives=dict(self.bad_directives),
            units=self.units,
            next_id=next_id,
            next_seq=seq,
            init=self._init,
            new=set(self._new),
            included=included,
        )

    def text_of(self, path: str) -> str:
        """A file's text as it was linted (standard input's, for the name it was given)."""
        return decode_text(self.raw(path))

    def raw(self, path: str) -> bytes:
        """A file's bytes as this run reads them."""
        if self.stdin and path == self.stdin[0]:
            return self.stdin[1]
        if (held := self.overlay.get(os.path.abspath(path))) is not None:
            return held
        return read_bytes(path)

    def _read(self, path: str):
        self._read_paths.append(path)
        if self._ahead is not None and (parsed := self._ahead.take(path)) is not None:
            return parsed
        return self._parse(path)

    def _parse(self, path: str):
        data = self.stdin[1] if self.stdin and path == self.stdin[0] else self.overlay.get(os.path.abspath(path))
        return read_sql_file(
            path, self.dialect, self.cache, framework=self.framework, data=data, entries_from=self._entries_from
        )

    def _file(self, path: str) -> Iterator[Step]:
        reported = os.path.abspath(path) in self.reported_set
        parsed = self._read(path)
        self.errors.extend(parsed.errors)
        if self.dialect in MYSQL_FAMILY and (found := sqlite_syntax("\n".join(st.sql for st in parsed.statements))):
            self.sqlite[path] = found
        self.file_ignores.setdefault(path, (parsed.ignore_file, parsed.ignore_file_at))
        self.bad_directives.setdefault(path, parsed.bad_directives)
        base = os.path.abspath(path) in self.base_set  # run whole, as a script, before any migration
        if not base and not self.framework.deployed(path):
            if reported and parsed.statements:
                self._not_linted(path)
            return  # a down or revert script: read for its syntax only
        session = Session(
            self.dialect, self._ids, default_path=self.search_path, session_lock_timeout=self.lock_timeout
        )
        if reported:
            self._run_transaction = self._run_transaction or next(self._ids)
            session.run = self._run_transaction
        units = [Unit(os.path.basename(path))] if base else parsed.units or [Unit(os.path.basename(path))]
        placed = [
            (stmt, own, unit_of or _unit_at(units, stmt.location.line) or units[-1])
            for stmt, own, unit_of in self._statements(path, parsed, reported, ())
        ]
        members: dict[int, list[Statement]] = {}  # each unit's statements, for its runner's transaction
        place: dict[int, int] = {}  # each statement's place among its unit's
        for stmt, _, unit in placed:
            place[id(stmt)] = len(members.setdefault(id(unit), []))
            members[id(unit)].append(stmt)
        # each unit's DDL that MySQL commits as it runs: counted once a unit, not once a statement
        ddl = {key: sum(1 for s in stmts if s.kind not in _MYSQL_TRANSACTIONAL) for key, stmts in members.items()}
        current = None
        init = init_folder(path)
        if reported and placed and not any(unit.deploy for _, _, unit in placed):
            self._not_linted(path)  # a seeds file beside goose migrations: no Up section
        postgres = self.dialect is Dialect.POSTGRES
        refused: list[tuple[Statement, Table]] = []  # CREATE TABLE of a table that exists: one error a file
        for stmt, own, unit in placed:
            if not unit.deploy:
                continue
            if unit is not current:
                current = unit
                if not init or init != self._init:  # an init folder's scripts are one deploy
                    self.units += 1
                    if not (reported and self._change_begun):
                        self._start_unit()
                    self._change_begun = reported and self.change_together
                self._init = init
                session.open_unit(unit, members[id(unit)])
            at = place[id(stmt)] + 1
            closed_by = closing(members[id(unit)][at:], self.dialect) if stmt.kind == "begin" else None
            if postgres:
                stmt = unseen_calls(resolve_names(stmt, session.search_path, self.schema), self.schema)
            elif session.database and session.database != self.schema.database:
                stmt = in_database(stmt, session.database)
            if init:
                self._on_empty_cluster(stmt)
            session.see(stmt)
            if session.database and not self.schema.database:
                self.schema.database = session.database  # the run's first: its tables keep bare keys
            yield Step(
                stmt,
                self.schema,
                own and not isinstance(stmt.op, UnreadCreateTable),  # its parse error is reported instead
                session.in_transaction,
                session.lock_timeout,
                unit,
                session.why,
                session.explicit,
                len(members[id(unit)]),
                ddl[id(unit)],
                session.found,
                session.found_why,
                closed_by,
                len(members[id(unit)]) - at,
                len(members[id(unit)]) - place[id(closed_by)] - 1 if closed_by is not None else 0,
            )
            again = _existing(self.schema, stmt)
            if again:  # the server refuses it and the table stays as it was: existing, not new
                refused.append((stmt, again))
                continue
            apply(self.schema, stmt, new=own)
            if own:
                self._new.update(k for k in stmt.op.relations() if k and (t := self.schema.tables.get(k)) and t.new)
        session.close_unit()
        if refused:
            first = refused[0][0].location
            why = _refusal(self.dialect, first.file, [t for _, t in refused])
            self.errors.append(ParseError(first.file, first.line, why))

    def _on_empty_cluster(self, stmt: Statement) -> None:
        """An init script runs on a cluster with no table yet: whatever it touches is new."""
        for key in stmt.op.relations():
            table = self.schema.tables.get(key) if key else None
            if table is not None and not table.new:
                table.new = True
                self._new.add(key)
            elif table is None and key:
                self.schema.fresh.add(key)

    def _not_linted(self, path: str) -> None:
        """A file of the change read for its syntax only: said in a note, never silently."""
        self.unlinted.setdefault(f"{self.framework.title} never runs them on deploy", []).append(path)

    def _start_unit(self) -> None:
        """A new deploy: what earlier deploys created exists on the server by now."""
        for key in self._new:
            table = self.schema.tables.get(key)
            if table is not None and not table.temporary:
                table.new = False
        self._new.clear()
        for key, name in self.schema.refused_columns:  # written by the release that deploy started
            if (table := self.schema.tables.get(key)) is not None and name in table.columns:
                table.columns[name].only_null = False
        self.schema.refused_columns.clear()
        self.schema.fresh.clear()
        self.schema.fresh_columns.clear()
        self.schema.fresh_objects.clear()
        self.schema.vacated.clear()
        self.schema.renamed_tables.clear()
        for facts in self.schema.row_facts():
            facts.clear()

    def _statements(self, path: str, parsed, reported: bool, including: tuple[str, ...]):
        """(statement, reported?, unit or None) of a file, with those of the files it includes in
        place (they run in the including file's deploy)."""
        if reported:
            self.reported_set.add(os.path.abspath(path))  # included files are part of the change
        includes = list(parsed.includes)
        for stmt in [*parsed.statements, None]:
            while includes and (stmt is None or includes[0][0] < stmt.location.line):
                line, target, relative = includes.pop(0)
                unit = _unit_at(parsed.units, line)
                for inner, own, _ in self._include(path, line, target, relative, reported, including):
                    yield inner, own, unit
            if stmt is None:
                break
            yield stmt, reported, None

    def _include(
        self,
        path: str,
        line: int,
        target: str,
        relative: bool,
        reported: bool,
        including: tuple[str, ...],
    ) -> Iterator[tuple[Statement, bool, Unit | None]]:
        """The statements of a file `path` includes at `line` (psql \\i, \\ir; mysql source), in place."""
        base = os.path.dirname(path) if relative else os.getcwd()
        full = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
        chain = (*including, os.path.abspath(path))
        if not os.path.isfile(full):
            where = "the including file's folder" if relative else "the working directory"
            self.errors.append(ParseError(path, line, f"included file {target} not found (looked in {where}: {full})"))
        elif os.path.abspath(full) in chain:
            self.errors.append(
                ParseError(path, line, f"included file {target} includes itself (through {len(chain)} file(s))")
            )
        elif why := escapes(full, repository_root(path)):
            self.errors.append(ParseError(path, line, f"included file {target} {why}"))
        else:
            with reading(full):
                parsed = self._read(full)
                self.errors.extend(parsed.errors)
                yield from self._statements(full, parsed, reported, chain)


# the error a server answers to CREATE TABLE of a table that exists
DUPLICATE_TABLE = {Dialect.POSTGRES: "42P07", Dialect.MYSQL: "error 1050", Dialect.MARIADB: "error 1050"}


def _existing(schema: Schema, stmt: Statement) -> Table | None:
    """The table an earlier CREATE TABLE made that `stmt`, a CREATE TABLE without IF NOT EXISTS,
    makes again (which the server refuses), else None."""
    op = stmt.op
    if not isinstance(op, CreateTable) or op.if_not_exists or op.model.temporary:
        return None
    table = schema.tables.get(op.model.name)
    if table is None or not table.complete or table.temporary:
        return None  # a table only seen in use may be the one this creates, in a file read out of order
    return table


def _refusal(dialect: Dialect, path: str, refused: list[Table]) -> str:
    """One file's CREATE TABLE of tables that exist, said once: most often a schema for fresh
    installs read in the same run as the migrations, before or after them."""
    first, more = refused[0], [t.name for t in refused[1:]]
    why = (
        f"CREATE TABLE {first.name}: the table exists (created at {first.defined_at}), so the server refuses "
        f"this statement ({DUPLICATE_TABLE[dialect]}) and the deploy stops here"
    )
    if more:
        why += f"; so do {len(more)} more CREATE TABLE in this file ({', '.join(more[:5])}{', ...' if len(more) > 5 else ''})"
    earlier = first.defined_at.file if first.defined_at else "the earlier file"
    return why + (
        f"; if {path} or {earlier} sets up a fresh database in place of the migrations, it is not run with "
        "them: lint it on its own"
    )


def _unit_at(units: list[Unit], line: int) -> Unit | None:
    return next((u for u in units if u.holds(line)), None)
