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

import json
import os
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from schemacite.model import Location, Schema, Table, View
from schemacite.model.codec import Codec, DecodeError, Stored
from schemacite.model.dialects import Dialect
from schemacite.model.record import record
from schemacite.model.schema import Column

VERSION = 2
READS = (1, 2)

# what a snapshot leaves out: where a definition was written (the table's `location` stands for
# it), and what only a replay knows
_SKIP = {"defined_at", "key_changed_at", "new", "complete", "insert_heavy"}


class SnapshotError(Exception):
    """A snapshot file that cannot be read or written; the message starts with its path."""


def _name(text: str) -> str:
    if not text:
        raise ValueError("expected a name, got an empty string")
    return text


# the model's classes as a snapshot spells them: a table's columns as a list (each knows its name)
_CODEC = Codec(
    skip=_SKIP,
    stored={
        (Table, "columns"): Stored(
            list[Column], read=lambda columns: {c.name: c for c in columns}, write=lambda c: list(c.values())
        )
    },
)


@record
class _Placed:
    """What a snapshot adds to a table or view: its key in the model, and where findings point."""

    key: str | None = None
    location: str | None = None


@record
class _Document:
    version: int
    dialect: Literal["mysql", "mariadb", "postgres"]
    tables: list[dict[str, Any]]
    target: str | None = None
    origin: str | None = None
    sampled_at: str | None = None
    views: list[dict[str, Any]] | None = None
    sequences: list[Annotated[str, _name]] | None = None


# ---------------------------------------------------------------- writing


def _placed(key: str, item: Table | View) -> dict[str, Any]:
    return {"key": key, **_CODEC.encode(item), "location": item.defined_at.file if item.defined_at else None}


def snapshot_dict(schema: Schema, target: str | None = None) -> dict[str, Any]:
    sampled = sorted({t.workload.sampled_at for t in schema.tables.values() if t.workload and t.workload.sampled_at})
    sampled_at = sampled[-1] if sampled else datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {
        "version": VERSION,
        "dialect": schema.dialect,
        "target": target,
        "origin": schema.origin,
        "sampled_at": sampled_at,
        "tables": [_placed(k, t) for k, t in sorted(schema.tables.items())],
        "views": [_placed(k, v) for k, v in sorted(schema.views.items())],
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


def _entries(raws: list[dict[str, Any]], name: str, cls: type, version: int) -> list[tuple[_Placed, Any]]:
    out = []
    for i, raw in enumerate(raws):
        try:
            raw = dict(raw)
            placed = _CODEC.decode({k: raw.pop(k) for k in ("key", "location") if k in raw}, _Placed)
            if version == 1 and cls is Table and "temporary" in raw:  # version 1 had a flag
                raw["persistence"] = "temporary" if raw.pop("temporary") is True else "permanent"
            out.append((placed, _CODEC.decode(raw, cls)))
        except DecodeError as e:
            raise e.at(i).at(name) from None
    return out


def _located(table: Table, location: Location) -> Table:
    table.defined_at = location
    for index in ([table.primary_key] if table.primary_key else []) + table.indexes:
        index.defined_at = location
    if table.primary_key is not None:
        table.primary_key.primary = table.primary_key.unique = True
    if table.partitioning is not None:
        table.partitioning.defined_at = location
    return table


def _fill_base_types(table: Table, dialect: str) -> None:
    if dialect == Dialect.POSTGRES:
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
    """Build a Schema from a parsed snapshot; raises ValueError (a DecodeError: `path: problem`)."""
    if not isinstance(doc, dict) or "version" not in doc:
        raise DecodeError('not a schemacite snapshot (no "version")')
    if doc["version"] not in READS or isinstance(doc["version"], bool):
        raise DecodeError(
            f"snapshot version {doc['version']!r} is not supported (this schemacite reads versions "
            f"{', '.join(map(str, READS))})"
        )
    top = _CODEC.decode(doc, _Document)
    origin = top.origin or "snapshot"
    schema = Schema(dialect=top.dialect, origin=origin)

    def where(placed: _Placed, item: Table | View) -> Location:
        return Location(placed.location or (f"{origin}/{item.schema}" if item.schema else origin))

    for i, (placed, table) in enumerate(_entries(top.tables, "tables", Table, top.version)):
        key = placed.key or table.name
        if key in schema.tables:
            raise DecodeError(f"duplicate key {key!r}").at(i).at("tables")
        if top.version == 1:  # version 1 kept column types as text only
            _fill_base_types(table, top.dialect)
        schema.tables[key] = _located(table, where(placed, table))
    for placed, view in _entries(top.views or [], "views", View, top.version):
        view.defined_at = where(placed, view)
        schema.views[placed.key or view.name] = view
    schema.sequences = set(top.sequences or ())
    return schema


def read_snapshot(path: str | os.PathLike) -> tuple[Schema, str | None]:
    """A snapshot file's schema and the server version it recorded (`mariadb-10.11`), if any;
    SnapshotError("path: what is wrong") when it cannot be used."""
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
        schema = schema_from_dict(doc)
    except ValueError as e:
        raise SnapshotError(f"{path}: {e}") from None
    target = doc.get("target")  # a snapshot's top is an object: schema_from_dict read it as one
    return schema, target if isinstance(target, str) else None
