"""Replay: walk history and reported files in order, applying each statement to a Schema.

`Replay` yields a `Step` per statement (the schema as it was before it), then applies the
statement with `apply`.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from schemacite.errors import reading
from schemacite.sources.files import escapes, expand, repository_root

from schemacite.model import Column, Index, Schema, Table, View
from schemacite.model.statements import Action, ParseError, Statement

LOCK_TIMEOUT_VARIABLES = {"lock_timeout", "lock_wait_timeout", "innodb_lock_wait_timeout"}


def apply(schema: Schema, stmt: Statement, *, new: bool) -> None:
    """Change `schema` as `stmt` would. `new`: the statement is part of the change being linted,
    so tables it creates do not exist on the server yet."""
    handler = _STATEMENTS.get(stmt.kind)
    if handler is not None:
        handler(schema, stmt, new)
        schema.touch(*_touched(stmt, schema))


def statement_keys(stmt: Statement) -> list[str]:
    """Keys of the relations `stmt` names: its own, the ones it renames, drops, attaches,
    copies or references."""
    d = stmt.details
    keys = [stmt.table, stmt.target, d.get("parent"), d.get("source"), *d.get("tables", ()), *d.get("names", ()),
            *(d.get("references") or ())]
    for old, to in d.get("pairs", ()):
        keys += [old, to]
    for a in stmt.actions:
        keys += [a.details.get("partition"), a.details.get("parent"), *_as_list(a.details.get("references"))]
        if a.op == "rename_table" and a.new_name:
            from schemacite.sources.names import table_key

            keys.append(table_key(a.new_name, stmt.dialect))
    return [k for k in keys if isinstance(k, str) and k]


def _as_list(value) -> list:
    return [value] if isinstance(value, str) else list(value or ())


def _touched(stmt: Statement, schema: Schema) -> list[str | None]:
    """Keys of the tables `stmt` may have added, dropped or changed."""
    keys: list[str | None] = list(statement_keys(stmt))
    if stmt.kind in ("drop_index", "alter_index"):  # the owner is found by the index name
        keys += [schema.index_owner_key(name) for name in [stmt.target, *stmt.details.get("names", ())] if name]
    return keys


def implicit_fk_index(table: Table, cols: tuple[str, ...], dialect: str, name: str | None) -> None:
    """InnoDB creates an index for a foreign key unless one already starts with its columns."""
    if dialect == "postgres" or not cols:
        return
    keys = ([table.primary_key] if table.primary_key else []) + table.indexes
    if any(k.columns[: len(cols)] == cols for k in keys):
        return
    table.indexes.append(Index(name, cols, kind="btree"))


def _table(schema: Schema, key: str | None) -> Table | None:
    """The table a statement touches; one never seen gets a partial entry."""
    if key is None:
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


def _create_table(schema: Schema, stmt: Statement, new: bool) -> None:
    if stmt.table in schema.tables and schema.tables[stmt.table].complete and "IF NOT EXISTS" in stmt.sql[:200].upper():
        return
    # the statement hands its table over: a parsed statement is applied once (the parse
    # cache stores statements before replay), and copying every column costs time on dumps
    table = stmt.details["model"]
    table.defined_at = stmt.location
    table.new = new or table.temporary
    parent_key = stmt.details.get("parent")
    if parent_key:  # PostgreSQL partition: columns and keys come from the parent
        parent = schema.tables.get(parent_key)
        table.partition_of = parent_key
        if parent is not None:
            inherited = parent.copy()
            table.columns = {**inherited.columns, **table.columns}
            table.primary_key = table.primary_key or inherited.primary_key
            table.indexes = inherited.indexes + table.indexes
            table.insert_heavy = parent.insert_heavy
    if "insert-heavy" in stmt.annotations:
        table.insert_heavy = "annotation"
    schema.tables[stmt.table] = _stamp(table, stmt)


def _create_like(schema: Schema, stmt: Statement, new: bool) -> None:
    source = schema.tables.get(stmt.details["source"])
    table = source.copy() if source else Table(name=stmt.table, complete=False)
    table.name = stmt.table
    table.new = new
    table.defined_at = stmt.location
    table.workload = None
    table.insert_heavy = "annotation" if "insert-heavy" in stmt.annotations else None
    if not stmt.details["copies_keys"]:
        table.primary_key, table.indexes = None, []
    schema.tables[stmt.table] = table


def _create_as(schema: Schema, stmt: Statement, new: bool) -> None:
    _create_table(schema, stmt, new)


def _drop_table(schema: Schema, stmt: Statement, new: bool) -> None:
    for key in stmt.details["tables"]:
        schema.tables.pop(key, None)


def _rename_table(schema: Schema, stmt: Statement, new: bool) -> None:
    for old, to in stmt.details["pairs"]:
        _rename(schema, old, to)


def _rename(schema: Schema, old: str, to: str) -> None:
    table = schema.tables.pop(old, None)
    if table is not None:
        table.name = to
        schema.tables[to] = table


def _create_index(schema: Schema, stmt: Statement, new: bool) -> None:
    table = _table(schema, stmt.table)
    idx = replace(stmt.details["index"], defined_at=stmt.location)
    if idx.name and table.index_named(idx.name):
        return  # IF NOT EXISTS, or a re-run
    table.indexes.append(idx)


def _drop_index(schema: Schema, stmt: Statement, new: bool) -> None:
    for name in stmt.details["names"]:
        owner = schema.tables.get(stmt.table) if stmt.table else schema.index_owner(name)
        if owner is not None:
            owner.indexes = [i for i in owner.indexes if i.name != name]


def _alter_index(schema: Schema, stmt: Statement, new: bool) -> None:
    new_name = stmt.details.get("new_name")
    if new_name:
        owner = schema.index_owner(stmt.target)
        if owner is not None:
            owner.indexes = [replace(i, name=new_name) if i.name == stmt.target else i for i in owner.indexes]


def _create_view(schema: Schema, stmt: Statement, new: bool) -> None:
    schema.views[stmt.target] = View(stmt.target, materialized=stmt.kind == "create_matview", defined_at=stmt.location)


def _drop_view(schema: Schema, stmt: Statement, new: bool) -> None:
    for name in stmt.details["names"]:
        schema.views.pop(name, None)


def _alter_table(schema: Schema, stmt: Statement, new: bool) -> None:
    table = _table(schema, stmt.table)
    for action in stmt.actions:
        handler = _ACTIONS.get(action.op)
        if handler is not None:
            handler(schema, table, action, stmt)
        if action.op == "rename_table" and action.new_name:
            from schemacite.sources.names import table_key

            _rename(schema, table.name, table_key(action.new_name, stmt.dialect))


# ---- ALTER TABLE actions ------------------------------------------------------------


def _add_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    d = a.details
    t.columns[a.column] = Column(a.column, d.get("type", ""), nullable=not d.get("not_null"), default=d.get("default"))
    if d.get("primary"):
        t.primary_key = Index(None, (a.column,), unique=True, primary=True, defined_at=stmt.location)
    if d.get("unique"):
        t.indexes.append(Index(None, (a.column,), unique=True, defined_at=stmt.location))
    if d.get("references"):
        _fk_index(t, (a.column,), stmt, None)


def _modify_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    old = a.column
    new = a.new_name or a.column
    d = a.details
    if old in t.columns and old != new:
        del t.columns[old]
        _rename_in_keys(t, old, new)
    t.columns[new] = Column(new, d.get("type", ""), nullable=not d.get("not_null"), default=d.get("default"))
    if d.get("primary"):
        t.primary_key = Index(None, (new,), unique=True, primary=True, defined_at=stmt.location)


def _drop_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.columns.pop(a.column, None)
    t.indexes = [i for i in t.indexes if a.column not in i.columns]
    if t.primary_key and a.column in t.primary_key.columns:
        t.primary_key = None
        t.key_changed_at = stmt.location


def _rename_column(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    if a.column in t.columns:
        col = t.columns.pop(a.column)
        col.name = a.new_name
        t.columns[a.new_name] = col
    _rename_in_keys(t, a.column, a.new_name)


def _rename_in_keys(t: Table, old: str, new: str) -> None:
    def ren(i: Index) -> Index:
        return replace(i, columns=tuple(new if c == old else c for c in i.columns))

    t.indexes = [ren(i) for i in t.indexes]
    if t.primary_key:
        t.primary_key = ren(t.primary_key)
    if t.partitioning:
        t.partitioning = replace(t.partitioning, columns=tuple(new if c == old else c for c in t.partitioning.columns))


def _set_nullability(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    if a.column in t.columns:
        t.columns[a.column].nullable = a.op == "drop_not_null"


def _alter_type(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    if a.column in t.columns:
        t.columns[a.column].type = a.details.get("type", "")


def _add_primary_key(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    idx = replace(a.details["index"], defined_at=stmt.location)
    using = a.details.get("using_index")
    if using:
        existing = t.index_named(using)
        t.indexes = [i for i in t.indexes if i.name != using]
        idx = replace(idx, columns=existing.columns if existing else ())
    for c in idx.columns:
        if c in t.columns:
            t.columns[c].nullable = False
    t.primary_key = idx


def _add_index(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    idx = replace(a.details["index"], defined_at=stmt.location)
    using = a.details.get("using_index")
    if using:
        existing = t.index_named(using)
        t.indexes = [i for i in t.indexes if i.name != using]
        idx = replace(idx, columns=existing.columns if existing else (), name=idx.name or using)
    t.indexes.append(idx)


def _add_foreign_key(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    _fk_index(t, a.details.get("columns", ()), stmt, a.details.get("name"))


def _fk_index(t: Table, cols: tuple[str, ...], stmt: Statement, name: str | None) -> None:
    before = len(t.indexes)
    implicit_fk_index(t, cols, stmt.dialect, name)
    for idx in t.indexes[before:]:
        idx.defined_at = stmt.location


def _drop_constraint(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    name = a.details.get("constraint")
    if t.primary_key and name and (t.primary_key.name == name or name == f"{t.name}_pkey"):
        t.primary_key = None
        t.key_changed_at = stmt.location
        return
    t.indexes = [i for i in t.indexes if i.name != name]


def _drop_primary_key(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.primary_key = None
    t.key_changed_at = stmt.location


def _drop_index_action(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.indexes = [i for i in t.indexes if i.name != a.details.get("index")]


def _rename_index(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    old = a.details.get("index")
    t.indexes = [replace(i, name=a.new_name) if i.name == old else i for i in t.indexes]


def _partition_by(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.partitioning = replace(a.details["partitioning"], defined_at=stmt.location)


def _remove_partitioning(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.partitioning = None


def _attach(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    part = schema.tables.get(a.details["partition"])
    if part is not None:
        part.partition_of = t.name


def _detach(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    part = schema.tables.get(a.details["partition"])
    if part is not None and a.op != "detach_partition_concurrently":
        part.partition_of = None


def _engine(schema: Schema, t: Table, a: Action, stmt: Statement) -> None:
    t.engine = a.details.get("value")


_ACTIONS = {
    "add_column": _add_column,
    "modify_column": _modify_column,
    "change_column": _modify_column,
    "drop_column": _drop_column,
    "rename_column": _rename_column,
    "set_not_null": _set_nullability,
    "drop_not_null": _set_nullability,
    "alter_column_type": _alter_type,
    "add_primary_key": _add_primary_key,
    "add_unique": _add_index,
    "add_index": _add_index,
    "add_exclude": _add_index,
    "add_foreign_key": _add_foreign_key,
    "drop_constraint": _drop_constraint,
    "drop_primary_key": _drop_primary_key,
    "drop_index": _drop_index_action,
    "rename_index": _rename_index,
    "partition_by": _partition_by,
    "remove_partitioning": _remove_partitioning,
    "attach_partition": _attach,
    "detach_partition": _detach,
    "detach_partition_finalize": _detach,
    "engine": _engine,
}

_STATEMENTS = {
    "create_table": _create_table,
    "create_partition": _create_table,
    "create_table_as": _create_as,
    "create_table_like": _create_like,
    "drop_table": _drop_table,
    "rename_table": _rename_table,
    "create_index": _create_index,
    "drop_index": _drop_index,
    "alter_index": _alter_index,
    "create_view": _create_view,
    "create_matview": _create_view,
    "drop_view": _drop_view,
    "alter_table": _alter_table,
}


@dataclass
class Step:
    """One statement on its way through a replay, with the schema as it was before it."""

    statement: Statement
    schema: Schema
    reported: bool
    in_transaction: bool = False
    lock_timeout_set: bool = False


class Replay:
    """Walk history and reported files in replay order.

    Iterating yields a Step per statement, then applies the statement to `schema`.
    History files come first in their version order; reported files follow unless
    the history already names them, in which case they keep their place there and
    are not applied twice. `*.down.sql` files are checked on a copy and never kept.
    """

    def __init__(self, dialect: str, paths: Iterable[str], history: Iterable[str] = (), base: Schema | None = None,
                 cache=None):
        self.dialect = dialect
        self.cache = cache
        self.reported, self.errors = expand(paths)
        past, history_errors = expand(history)
        self.errors += history_errors
        as_given = {os.path.abspath(f): f for f in self.reported}
        self.reported_set = set(as_given)
        past = [as_given.get(os.path.abspath(f), f) for f in past]
        self.order = past + [f for f in self.reported if f not in past]
        self.schema = base.copy() if base is not None else Schema(dialect)
        self.file_ignores: dict[str, tuple[frozenset[str], int]] = {}  # ids, line of the comment

    def __iter__(self) -> Iterator[Step]:
        from schemacite.sources.read import read_sql_file

        for path in self.order:
            with reading(path):
                yield from self._file(path, apply, read_sql_file)

    def _file(self, path: str, apply, read_sql_file, reported: bool | None = None,
              including: tuple[str, ...] = ()) -> Iterator[Step]:
        if reported is None:
            reported = os.path.abspath(path) in self.reported_set
        parsed = read_sql_file(path, self.dialect, self.cache)
        self.errors.extend(parsed.errors)
        self.file_ignores.setdefault(path, (parsed.ignore_file, parsed.ignore_file_at))
        if reported:
            self.reported_set.add(os.path.abspath(path))  # included files are part of the change
        schema = self.schema.copy() if path.lower().endswith(".down.sql") else self.schema
        in_tx = lock_timeout = False
        fk_checks = True
        includes = list(parsed.includes)
        for stmt in [*parsed.statements, None]:
            while includes and (stmt is None or includes[0][0] < stmt.location.line):
                line, target, relative = includes.pop(0)
                yield from self._include(path, line, target, relative, apply, read_sql_file, reported, including)
            if stmt is None:
                break
            if stmt.kind == "begin":
                in_tx = True
            elif stmt.kind == "commit":
                in_tx = False
            elif stmt.kind == "set":
                var = stmt.details["variable"]
                lock_timeout = lock_timeout or var in LOCK_TIMEOUT_VARIABLES
                if var == "foreign_key_checks":
                    fk_checks = stmt.details["value"].strip("'\" ").upper() not in ("0", "OFF", "FALSE")
            if not fk_checks:
                stmt.details["foreign_key_checks"] = False
            yield Step(stmt, schema, reported, in_tx, lock_timeout)
            apply(schema, stmt, new=reported)

    def _include(self, path: str, line: int, target: str, relative: bool, apply, read_sql_file, reported: bool,
                 including: tuple[str, ...]) -> Iterator[Step]:
        """The statements of a file `path` includes at `line` (psql \\i, \\ir; mysql source), in place."""
        base = os.path.dirname(path) if relative else os.getcwd()
        full = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
        chain = (*including, os.path.abspath(path))
        if not os.path.isfile(full):
            where = "the including file's folder" if relative else "the working directory"
            self.errors.append(ParseError(path, line, f"included file {target} not found (looked in {where}: {full})"))
        elif os.path.abspath(full) in chain:
            self.errors.append(ParseError(path, line, f"included file {target} includes itself (through {len(chain)} file(s))"))
        elif why := escapes(full, repository_root(path)):
            self.errors.append(ParseError(path, line, f"included file {target} {why}"))
        else:
            with reading(full):
                yield from self._file(full, apply, read_sql_file, reported, chain)
