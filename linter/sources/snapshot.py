"""A Schema as JSON: what `schemacite snapshot` writes and `lint --schema FILE` starts from.

Format version 1 (stdlib json, one object):

    {
      "version": 1,
      "dialect": "mariadb",                    # mysql | mariadb | postgres
      "target": "mariadb-10.11",               # nearest supported target of the server, if known
      "origin": "mariadb://audit@db1:3306",    # where it was read; never a password
      "sampled_at": "2025-01-31T10:00:00Z",    # when the workload figures were read
      "tables": [
        {"key": "events", "name": "events", "schema": "shop", "engine": "InnoDB",
         "temporary": false, "partition_of": null, "location": "mariadb://audit@db1:3306/shop",
         "columns": [{"name": "id", "type": "bigint(20)", "nullable": false, "default": null}],
         "primary_key": {"name": "primary", "columns": ["id"], "unique": true, "kind": "btree",
                         "partial": false, "scans": 1200},
         "indexes": [{"name": "k_kind", "columns": ["kind"], "unique": false, "kind": "btree",
                      "partial": false, "scans": 0}],
         "partitioning": {"method": "range", "columns": ["created"], "expression": "RANGE(...)",
                          "uses_primary_key": false},
         "workload": {"inserts": 12400000, "reads": 300000, "updates": 0, "deletes": 0,
                      "rows": 12000000, "since": "...", "sampled_at": "...", "source": "performance_schema"}}
      ],
      "views": [{"key": "v", "name": "v", "schema": "shop", "materialized": false}]
    }

`key` is the name the table is known by in the model (and in migrations replayed on top of
it); `location` is where findings about the table point. `scans` null means unknown.
"""
from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import Any

from schemacite.model import (
    Column,
    Index,
    Location,
    Partitioning,
    Schema,
    Table,
    View,
    Workload,
)

VERSION = 1


class SnapshotError(Exception):
    """A snapshot file that cannot be read or written; the message starts with its path."""


# ---------------------------------------------------------------- writing


def _index(index: Index) -> dict[str, Any]:
    return {
        "name": index.name,
        "columns": list(index.columns),
        "unique": index.unique,
        "kind": index.kind,
        "partial": index.partial,
        "scans": index.scans,
    }


def _table(key: str, table: Table) -> dict[str, Any]:
    w = table.workload
    p = table.partitioning
    return {
        "key": key,
        "name": table.name,
        "schema": table.schema,
        "engine": table.engine,
        "temporary": table.temporary,
        "partition_of": table.partition_of,
        "location": table.defined_at.file if table.defined_at else None,
        "columns": [
            {"name": c.name, "type": c.type, "nullable": c.nullable, "default": c.default} for c in table.columns.values()
        ],
        "primary_key": _index(table.primary_key) if table.primary_key else None,
        "indexes": [_index(i) for i in table.indexes],
        "partitioning": None
        if p is None
        else {"method": p.method, "columns": list(p.columns), "expression": p.expression, "uses_primary_key": p.uses_primary_key},
        "workload": None
        if w is None
        else {
            "inserts": w.inserts,
            "reads": w.reads,
            "updates": w.updates,
            "deletes": w.deletes,
            "rows": w.rows,
            "since": w.since,
            "sampled_at": w.sampled_at,
            "source": w.source,
        },
    }


def snapshot_dict(schema: Schema, target: str | None = None) -> dict[str, Any]:
    sampled = sorted({t.workload.sampled_at for t in schema.tables.values() if t.workload and t.workload.sampled_at})
    sampled_at = sampled[-1] if sampled else datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {
        "version": VERSION,
        "dialect": schema.dialect,
        "target": target,
        "origin": schema.origin,
        "sampled_at": sampled_at,
        "tables": [_table(k, t) for k, t in sorted(schema.tables.items())],
        "views": [
            {"key": k, "name": v.name, "schema": v.schema, "materialized": v.materialized}
            for k, v in sorted(schema.views.items())
        ],
    }


def save_snapshot(schema: Schema, path: str | os.PathLike, target: str | None = None) -> None:
    """Write `schema` to `path` as a version-1 snapshot (atomically: a temporary file, then rename)."""
    path = os.fspath(path)
    text = json.dumps(snapshot_dict(schema, target), indent=1, sort_keys=False) + "\n"
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SnapshotError(f"{path}: cannot write: {e.strerror}") from None


# ---------------------------------------------------------------- reading


_KIND_NAMES = {str: "string", int: "whole number", bool: "boolean", list: "list", dict: "object"}


class _Bad(Exception):
    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)


def _get(obj: dict, key: str, where: str, kinds: tuple[type, ...], required: bool = True, default: Any = None) -> Any:
    if key not in obj:
        if required:
            raise _Bad(where, f"missing {key!r}")
        return default
    value = obj[key]
    if value is None and not required:
        return default
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise _Bad(where, f"{key!r} must be a {names}")
    return value


def _object(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise _Bad(where, "must be an object")
    return value


def _strings(obj: dict, key: str, where: str) -> tuple[str, ...]:
    values = _get(obj, key, where, (list,))
    if not all(isinstance(v, str) for v in values):
        raise _Bad(where, f"{key!r} must be a list of strings")
    return tuple(values)


def _load_index(raw: Any, where: str, location: Location | None, primary: bool) -> Index:
    raw = _object(raw, where)
    scans = _get(raw, "scans", where, (int,), required=False)
    return Index(
        name=_get(raw, "name", where, (str,), required=False),
        columns=_strings(raw, "columns", where),
        unique=primary or _get(raw, "unique", where, (bool,), required=False, default=False),
        primary=primary,
        kind=_get(raw, "kind", where, (str,), required=False, default="btree"),
        partial=_get(raw, "partial", where, (bool,), required=False, default=False),
        defined_at=location,
        scans=scans,
    )


def _load_table(raw: Any, where: str, origin: str) -> tuple[str, Table]:
    raw = _object(raw, where)
    name = _get(raw, "name", where, (str,))
    schema_name = _get(raw, "schema", where, (str,), required=False)
    key = _get(raw, "key", where, (str,), required=False) or name
    file = _get(raw, "location", where, (str,), required=False) or (
        f"{origin}/{schema_name}" if schema_name else origin
    )
    location = Location(file)
    table = Table(
        name=name,
        schema=schema_name,
        engine=_get(raw, "engine", where, (str,), required=False),
        temporary=_get(raw, "temporary", where, (bool,), required=False, default=False),
        partition_of=_get(raw, "partition_of", where, (str,), required=False),
        defined_at=location,
    )
    for i, col in enumerate(_get(raw, "columns", where, (list,), required=False, default=[])):
        at = f"{where}.columns[{i}]"
        col = _object(col, at)
        cname = _get(col, "name", at, (str,))
        table.columns[cname] = Column(
            name=cname,
            type=_get(col, "type", at, (str,), required=False, default=""),
            nullable=_get(col, "nullable", at, (bool,), required=False, default=True),
            default=_get(col, "default", at, (str,), required=False),
        )
    if raw.get("primary_key") is not None:
        table.primary_key = _load_index(raw["primary_key"], f"{where}.primary_key", location, primary=True)
    for i, idx in enumerate(_get(raw, "indexes", where, (list,), required=False, default=[])):
        table.indexes.append(_load_index(idx, f"{where}.indexes[{i}]", location, primary=False))
    if raw.get("partitioning") is not None:
        at = f"{where}.partitioning"
        p = _object(raw["partitioning"], at)
        table.partitioning = Partitioning(
            method=_get(p, "method", at, (str,)),
            columns=_strings(p, "columns", at),
            expression=_get(p, "expression", at, (str,), required=False, default=""),
            uses_primary_key=_get(p, "uses_primary_key", at, (bool,), required=False, default=False),
            defined_at=location,
        )
    if raw.get("workload") is not None:
        at = f"{where}.workload"
        w = _object(raw["workload"], at)
        table.workload = Workload(
            inserts=_get(w, "inserts", at, (int,), required=False, default=0),
            reads=_get(w, "reads", at, (int,), required=False, default=0),
            updates=_get(w, "updates", at, (int,), required=False, default=0),
            deletes=_get(w, "deletes", at, (int,), required=False, default=0),
            rows=_get(w, "rows", at, (int,), required=False),
            since=_get(w, "since", at, (str,), required=False),
            sampled_at=_get(w, "sampled_at", at, (str,), required=False),
            source=_get(w, "source", at, (str,), required=False, default=""),
        )
    return key, table


def schema_from_dict(doc: Any) -> Schema:
    """Build a Schema from a parsed snapshot; raises ValueError with the offending field."""
    try:
        doc = _object(doc, "snapshot")
        if "version" not in doc:
            raise _Bad("", "not a schemacite snapshot (no \"version\")")
        if doc["version"] != VERSION:
            raise _Bad("", f"snapshot version {doc['version']!r} is not supported (this schemacite reads version {VERSION})")
        dialect = _get(doc, "dialect", "", (str,))
        if dialect not in ("mysql", "mariadb", "postgres"):
            raise _Bad("", f"unknown dialect {dialect!r}")
        origin = _get(doc, "origin", "", (str,), required=False, default="snapshot")
        schema = Schema(dialect=dialect, origin=origin)
        for i, raw in enumerate(_get(doc, "tables", "", (list,))):
            key, table = _load_table(raw, f"tables[{i}]", origin)
            if key in schema.tables:
                raise _Bad(f"tables[{i}]", f"duplicate key {key!r}")
            schema.tables[key] = table
        for i, raw in enumerate(_get(doc, "views", "", (list,), required=False, default=[])):
            at = f"views[{i}]"
            raw = _object(raw, at)
            name = _get(raw, "name", at, (str,))
            vschema = _get(raw, "schema", at, (str,), required=False)
            schema.views[_get(raw, "key", at, (str,), required=False) or name] = View(
                name=name,
                schema=vschema,
                materialized=_get(raw, "materialized", at, (bool,), required=False, default=False),
                defined_at=Location(f"{origin}/{vschema}" if vschema else origin),
            )
    except _Bad as e:
        raise ValueError(str(e)) from None
    return schema


def load_snapshot(path: str | os.PathLike) -> Schema:
    """Read a snapshot file; SnapshotError("path: what is wrong") when it cannot be used."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise SnapshotError(f"{path}: no such snapshot file") from None
    except IsADirectoryError:
        raise SnapshotError(f"{path}: is a directory, not a snapshot file") from None
    except OSError as e:
        raise SnapshotError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError:
        raise SnapshotError(f"{path}: not a schemacite snapshot (not UTF-8 text)") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise SnapshotError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    try:
        return schema_from_dict(doc)
    except ValueError as e:
        raise SnapshotError(f"{path}: {e}") from None


def snapshot_target(path: str | os.PathLike) -> str | None:
    """The server version a snapshot recorded (`mariadb-10.11`), if any."""
    try:
        with open(path, encoding="utf-8") as f:
            target = json.load(f).get("target")
    except (OSError, ValueError, AttributeError):
        return None
    return target if isinstance(target, str) else None
