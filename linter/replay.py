"""Apply statements, in order, to a Schema."""
from __future__ import annotations

from dataclasses import replace

from schemacite.model import Column, Index, Schema, Table, View
from schemacite.sql.statement import Action, Statement


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
            from schemacite.sql.names import table_key

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
            from schemacite.sql.names import table_key

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
