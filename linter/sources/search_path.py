"""PostgreSQL's search path: the schema an unqualified relation name means where it runs (and
MySQL's USE, the database it means).

The reader keys a relation named without a schema by its bare name (the `public` schema's key)
and lists it in `Statement.unqualified`; replay knows the search path in force at that point of
the deploy (`Session.search_path`) and the relations earlier statements left, and resolves each
such name as the server does: a relation that exists is the first one found along the path, a new
one is created in the path's first schema. With the default path (`"$user", public`) every name
stays as read, at no cost.

`"$user"` is left out: the deploying role is not known, and a schema named after it is rare.
"""

from __future__ import annotations

import copy
import re

from schemacite.model import Schema, Table
from schemacite.model.dialects import Dialect
from schemacite.model.record import fields, is_record, replace
from schemacite.model.statements import (
    Action,
    AlterIndex,
    AlterTable,
    AlterView,
    CreateTable,
    DropIndex,
    Op,
    Rename,
    Statement,
    UnreadCreateTable,
)
from schemacite.sources.names import folded, relation_key

DEFAULT = '"$user", public'
_IMPLICIT = frozenset({"$user", "pg_catalog", "pg_temp"})

# fields holding relation keys (a `name` only on statements and tables: elsewhere it names a
# column, an index or a constraint); index names are left alone, indexes are found by bare name
_KEYS = frozenset({"tables", "names", "on", "parent", "source", "reads", "into", "locked", "references", "partition"})
_TABLE_KEYS = frozenset({"name", "partition_of"})


def parse(value: str) -> tuple[str, ...]:
    """The schemas of a search_path setting as written (`app, "$user", public`), in order, without
    the ones replay cannot resolve against (`$user`, pg_catalog, pg_temp)."""
    names = (folded(part.strip(), Dialect.POSTGRES) for part in value.split(",") if part.strip())
    return tuple(n for n in names if n and n not in _IMPLICIT)


def resolve(stmt: Statement, path: tuple[str, ...], schema: Schema) -> Statement:
    """`stmt` with its unqualified relation names resolved along `path` against `schema`."""
    if not stmt.unqualified or path == ("public",):
        return stmt
    created = _created(stmt.op)
    mapping = {name: _lookup(name, path, schema, name == created) for name in stmt.unqualified}
    mapping = {k: v for k, v in mapping.items() if k != v}
    if not mapping:
        return stmt
    op = copy.deepcopy(stmt.op)
    _rekey(op, mapping)
    _rename_beside(op, stmt.unqualified)
    return replace(stmt, op=op)


def _lookup(name: str, path: tuple[str, ...], schema: Schema, creating: bool) -> str:
    keys = [relation_key(s, name) for s in path]
    found = None if creating else next((k for k in keys if schema.knows(k)), None)
    return found or (keys[0] if keys else name)


def _created(op: Op) -> str | None:
    """The relation a CREATE makes: it goes to the path's first schema, whatever later ones hold."""
    if isinstance(op, CreateTable):
        return op.model.name
    if isinstance(op, UnreadCreateTable):
        return op.name
    if op.kind in ("create_view", "create_matview", "create_sequence", "create_table_like"):
        return getattr(op, "name", None)
    return None


def _rekey(obj: object, mapping: dict[str, str]) -> None:
    skip = {"names", "name", "partition"} if isinstance(obj, (DropIndex, AlterIndex)) else set()
    for f in fields(obj):
        value = getattr(obj, f.name)
        if f.name in skip:
            continue
        if f.name in _KEYS or f.name in _TABLE_KEYS and not isinstance(obj, Action) and _holds_relations(obj):
            setattr(obj, f.name, _mapped(value, mapping))
        elif f.name in ("model", "actions", "key", "foreign_keys"):
            for inner in value if isinstance(value, list) else [value]:
                if is_record(inner):
                    _rekey(inner, mapping)
        elif f.name == "pairs":
            setattr(obj, f.name, tuple(tuple(_mapped(n, mapping) for n in pair) for pair in value))
        elif f.name in ("sources", "joins"):  # (column, relation, its column)
            setattr(obj, f.name, tuple((c, _mapped(r, mapping), rc) for c, r, rc in value))


def _holds_relations(obj: object) -> bool:
    return isinstance(obj, (Op, Table))


def _mapped(value, mapping: dict[str, str]):
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return tuple(mapping.get(v, v) for v in value)
    if isinstance(value, list):
        return value  # lists of objects are walked by the caller
    return value


def _rename_beside(op: Op, unqualified: frozenset[str]) -> None:
    """RENAME TO keeps the relation in its schema: the new name follows the old one's."""
    schema_of = op.name.rpartition(".")[0] if isinstance(op, (AlterTable, AlterView)) else ""
    if not schema_of:
        return
    if isinstance(op, AlterView) and op.new_name in unqualified:
        op.new_name = relation_key(schema_of, op.new_name)
    for a in op.actions if isinstance(op, AlterTable) else []:
        if isinstance(a, Rename) and a.op == "rename_table" and a.new_name in unqualified:
            a.new_name = relation_key(schema_of, a.new_name)


# ---------------------------------------------------------------- MySQL and MariaDB: USE

_USE = re.compile(r"USE\s+(`(?:[^`]|``)+`|[^\s;`]+)\s*;?\s*$", re.I)


def used_database(sql: str) -> str:
    """The database a `USE db` statement names, as MySQL keys it (lower-cased), else ""."""
    m = _USE.match(sql.strip())
    if m is None:
        return ""
    name = m.group(1)
    return (name[1:-1].replace("``", "`") if name.startswith("`") else name).lower()


class _InDatabase(dict):
    """Every bare relation key, as `database.key` (search_path's re-keying reads it with `get`)."""

    def __init__(self, database: str):
        super().__init__()
        self.database = database

    def get(self, key, default=None):
        return key if not key or "." in key or key == "*" else f"{self.database}.{key}"


def in_database(stmt: Statement, database: str) -> Statement:
    """`stmt` of a MySQL file whose USE named another database than the run's first: the tables it
    names live there, apart from the first database's tables of the same names. A MySQL key drops a
    written database qualifier, so `other.t` written out stays with the first database's `t`."""
    op = copy.deepcopy(stmt.op)
    mapping = _InDatabase(database)
    _rekey(op, mapping)
    for a in op.actions if isinstance(op, AlterTable) else []:
        if isinstance(a, Rename) and a.op == "rename_table":
            a.new_name = mapping.get(a.new_name)
    return replace(stmt, op=op)
