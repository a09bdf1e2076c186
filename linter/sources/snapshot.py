"""A Schema as JSON: what `schemacite snapshot` writes and `lint --snapshot FILE` starts from.

Format version 2 (stdlib json, one object); version 1 files are read too:

    {
      "version": 2,
      "dialect": "mariadb",                    # mysql | mariadb | postgres
      "target": "mariadb-10.11",               # nearest supported target of the server, if known
      "origin": "mariadb://audit@db1:3306",    # where it was read; never a password
      "sampled_at": "2025-01-31T10:00:00Z",    # when the workload figures were read
      "tables": [
        {"key": "events", "name": "events", "schema": "shop", "engine": "InnoDB",
         "location": "mariadb://audit@db1:3306/shop", "charset": "utf8mb4", "rows": 12000000, ...,
         "columns": [{"name": "id", "type": "bigint(20)", "nullable": false, "base_type": "bigint", ...}],
         "primary_key": {"name": "primary", "columns": ["id"], "unique": true, "scans": 1200, ...},
         "indexes": [{"name": "k_kind", "columns": ["kind"], "scans": 0, ...}],
         "checks": [...], "foreign_keys": [{"name": "fk", "columns": ["a"], "references": "accounts", ...}],
         "partitioning": {"method": "range", "columns": ["created"], "expression": "RANGE(...)"},
         "workload": {"inserts": 12400000, "reads": 300000, "since": "...", "source": "performance_schema", ...}}
      ],
      "views": [{"key": "v", "name": "v", "schema": "shop", "materialized": false, "reads": ["events"]}],
      "sequences": ["invoice_numbers"]         # sequences no column owns (optional)
    }

The fields are the model's own (`schemacite.model.schema`: Table, Column, Index, Check,
ForeignKey, Partitioning, Workload, View), written and read by one generic walk over their
declared fields, so a field added to the model is in the snapshot without code here. Reading
checks every value against its field's declared type and refuses fields the model does not
have. `key` is the name the table is known by in the model (and in migrations replayed on top
of it); `location` is where findings about the table point. `scans` null means unknown.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from datetime import UTC, datetime
from typing import Any

from schemacite.model import Location, Schema, Table, View
from schemacite.model.schema import Column

VERSION = 2
READS = (1, 2)

# what a snapshot leaves out: where a definition was written (the table's `location` stands for
# it), and what only a replay knows
_SKIP = {"defined_at", "key_changed_at", "new", "complete", "insert_heavy"}


class SnapshotError(Exception):
    """A snapshot file that cannot be read or written; the message starts with its path."""


# ---------------------------------------------------------------- writing


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        out = {}
        for f in dataclasses.fields(value):
            if f.name in _SKIP:
                continue
            v = getattr(value, f.name)
            out[f.name] = [_plain(c) for c in v.values()] if f.name == "columns" and isinstance(v, dict) else _plain(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _table(key: str, table: Table) -> dict[str, Any]:
    return {"key": key, **_plain(table), "location": table.defined_at.file if table.defined_at else None}


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
            {"key": k, **_plain(v), "location": v.defined_at.file if v.defined_at else None}
            for k, v in sorted(schema.views.items())
        ],
        "sequences": sorted(schema.sequences),
    }


def snapshot_text(schema: Schema, target: str | None = None) -> str:
    """`schema` as a snapshot's JSON text."""
    return json.dumps(snapshot_dict(schema, target), indent=1, sort_keys=False) + "\n"


def save_snapshot(schema: Schema, path: str | os.PathLike, target: str | None = None) -> None:
    """Write `schema` to `path` as a snapshot (atomically: a temporary file, then rename)."""
    path = os.fspath(path)
    text = snapshot_text(schema, target)
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


_KIND_NAMES = {str: "string", int: "whole number", float: "number", bool: "boolean", list: "list", dict: "object"}


class _Bad(Exception):
    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)


def _object(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise _Bad(where, "must be an object")
    return value


def _names(kinds: tuple[Any, ...]) -> str:
    return " or ".join(_KIND_NAMES.get(k, getattr(k, "__name__", str(k))) for k in kinds)


def _value(raw: Any, hint: Any, where: str, key: str) -> Any:
    """`raw` as a value of the declared type `hint` (the model's annotations), or _Bad."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if raw is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _value(raw, options[0], where, key)
        for option in options:
            try:
                return _value(raw, option, where, key)
            except _Bad:
                continue
        raise _Bad(where, f"{key!r} must be a {_names(tuple(options))}")
    if dataclasses.is_dataclass(hint):
        at = f"{where}.{key}" if key else where
        return _build(hint, _object(raw, at), at)
    if origin in (tuple, list):
        if not isinstance(raw, list):
            raise _Bad(where, f"{key!r} must be a list")
        item = args[0] if args else Any
        values = [
            _value(
                v,
                item,
                f"{where}.{key}[{i}]" if dataclasses.is_dataclass(item) else where,
                key if not dataclasses.is_dataclass(item) else "",
            )
            for i, v in enumerate(raw)
        ]
        return tuple(values) if origin is tuple else values
    if hint is Any:
        return raw
    base = origin or hint
    if hint is float and isinstance(raw, int) and not isinstance(raw, bool):
        return float(raw)
    if not isinstance(raw, base) or (isinstance(raw, bool) and base is not bool):
        if origin is tuple or base in (tuple, list):
            raise _Bad(where, f"{key!r} must be a list of strings")
        raise _Bad(where, f"{key!r} must be a {_names((base,))}")
    return raw


def _build(cls: type, raw: dict, where: str, **given: Any) -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    values: dict[str, Any] = dict(given)
    for key, value in raw.items():
        if key in given or key in _SKIP:
            continue
        if key not in fields:
            raise _Bad(where, f"unknown field {key!r}")
        if value is None and fields[key].default is not dataclasses.MISSING and fields[key].default is None:
            values[key] = None
            continue
        values[key] = _value(value, hints[key], where, key)
    for name, f in fields.items():
        if name not in values and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _Bad(where, f"missing {name!r}")
    return cls(**values)


def _load_table(raw: Any, where: str, origin: str, version: int) -> tuple[str, Table]:
    raw = dict(_object(raw, where))
    key = raw.pop("key", None)
    file = raw.pop("location", None)
    if key is not None and not isinstance(key, str) or file is not None and not isinstance(file, str):
        raise _Bad(where, "'key' and 'location' must be strings")
    if version == 1 and "temporary" in raw:
        raw["persistence"] = "temporary" if raw.pop("temporary") is True else "permanent"
    columns = raw.pop("columns", []) or []
    if not isinstance(columns, list):
        raise _Bad(where, "'columns' must be a list")
    table = _build(Table, raw, where)
    key = key or table.name
    location = Location(file or (f"{origin}/{table.schema}" if table.schema else origin))
    table.defined_at = location
    for i, col in enumerate(columns):
        column = _build(Column, _object(col, f"{where}.columns[{i}]"), f"{where}.columns[{i}]")
        table.columns[column.name] = column
    for index in ([table.primary_key] if table.primary_key else []) + table.indexes:
        index.defined_at = location
    if table.primary_key is not None:
        table.primary_key.primary = table.primary_key.unique = True
    if table.partitioning is not None:
        table.partitioning.defined_at = location
    return key, table


def _fill_base_types(table: Table, dialect: str) -> None:
    if dialect == "postgres":
        # start-up: a run loads only its own dialect's reader
        from schemacite.sources.postgres.types import parse_type as pg_type

        for c in table.columns.values():
            c.base_type, c.type_args = pg_type(c.type)
    else:
        # start-up: a run loads only its own dialect's reader
        from schemacite.sources.mysql.types import parse_type as my_type

        for c in table.columns.values():
            c.base_type, c.type_args, c.unsigned, c.zerofill = my_type(c.type)


def schema_from_dict(doc: Any) -> Schema:
    """Build a Schema from a parsed snapshot; raises ValueError with the offending field."""
    try:
        doc = _object(doc, "snapshot")
        if "version" not in doc:
            raise _Bad("", 'not a schemacite snapshot (no "version")')
        version = doc["version"]
        if version not in READS or isinstance(version, bool):
            raise _Bad(
                "",
                f"snapshot version {version!r} is not supported (this schemacite reads versions "
                f"{', '.join(map(str, READS))})",
            )
        dialect = doc.get("dialect")
        if dialect not in ("mysql", "mariadb", "postgres"):
            raise _Bad("", f"unknown dialect {dialect!r}")
        origin = doc.get("origin") if isinstance(doc.get("origin"), str) else "snapshot"
        schema = Schema(dialect=dialect, origin=origin)
        tables = doc.get("tables")
        if not isinstance(tables, list):
            raise _Bad("", "'tables' must be a list")
        for i, raw in enumerate(tables):
            key, table = _load_table(raw, f"tables[{i}]", origin, version)
            if version == 1:  # version 1 kept column types as text only
                _fill_base_types(table, dialect)
            if key in schema.tables:
                raise _Bad(f"tables[{i}]", f"duplicate key {key!r}")
            schema.tables[key] = table
        views = doc.get("views") or []
        if not isinstance(views, list):
            raise _Bad("", "'views' must be a list")
        for i, raw in enumerate(views):
            at = f"views[{i}]"
            raw = dict(_object(raw, at))
            key = raw.pop("key", None)
            file = raw.pop("location", None)
            view = _build(View, raw, at)
            view.defined_at = Location(
                file if isinstance(file, str) and file else f"{origin}/{view.schema}" if view.schema else origin
            )
            schema.views[key if isinstance(key, str) and key else view.name] = view
        sequences = doc.get("sequences") or []
        if not isinstance(sequences, list) or not all(isinstance(n, str) and n for n in sequences):
            raise _Bad("", "'sequences' must be a list of names")
        schema.sequences = set(sequences)
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
