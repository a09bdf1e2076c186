"""Dataclasses to and from JSON-ready data, for data schemacite reads back later (the parse cache).

Reading back never runs anything the data names: only the classes given to `Codec` can be
rebuilt, every field must be one the class declares, and every value is checked against the
field's annotation before the instance is made. Anything else raises `PlainError`, which a
reader treats as "no usable data".

Encoding: JSON scalars stay as they are; a list stays a list; a tuple, frozenset or set becomes
`{"@": "tuple" | "frozenset" | "set", "v": [...]}`; a dict `{"@": "dict", "v": {...}}` (string
keys only); a dataclass `{"@": "ClassName", "f": {field: value}}`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_COLLECTIONS = {"tuple": tuple, "frozenset": frozenset, "set": set}


class PlainError(ValueError):
    """Data that does not have the shape the declared classes give it."""


class Codec:
    def __init__(self, classes: Iterable[type]):
        self.classes: dict[str, type] = {}
        for cls in classes:
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{cls!r} is not a dataclass")
            self.classes[cls.__name__] = cls
        self._hints: dict[type, dict[str, Any]] = {}

    # ---------------------------------------------------------------- writing

    def encode(self, obj: Any) -> Any:
        if isinstance(obj, _SCALARS):
            return obj
        if isinstance(obj, list):
            return [self.encode(v) for v in obj]
        if isinstance(obj, (tuple, frozenset, set)):
            return {"@": type(obj).__name__, "v": [self.encode(v) for v in obj]}
        if isinstance(obj, dict):
            if not all(isinstance(k, str) for k in obj):
                raise PlainError("only dicts with string keys can be stored")
            return {"@": "dict", "v": {k: self.encode(v) for k, v in obj.items()}}
        cls = type(obj)
        if self.classes.get(cls.__name__) is not cls:
            raise PlainError(f"{cls.__name__} is not a storable class")
        return {"@": cls.__name__, "f": {f.name: self.encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}

    # ---------------------------------------------------------------- reading

    def decode(self, data: Any, expected: Any = Any) -> Any:
        """Rebuild what `encode` wrote, checking it against the annotation `expected`."""
        value = self._decode(data)
        self._check(value, expected, "value")
        return value

    def _decode(self, data: Any) -> Any:
        if isinstance(data, _SCALARS):
            return data
        if isinstance(data, list):
            return [self._decode(v) for v in data]
        if not isinstance(data, dict) or not isinstance(data.get("@"), str):
            raise PlainError("unexpected value")
        tag = data["@"]
        if tag in _COLLECTIONS:
            items = data.get("v")
            if not isinstance(items, list) or set(data) != {"@", "v"}:
                raise PlainError(f"malformed {tag}")
            try:
                return _COLLECTIONS[tag](self._decode(v) for v in items)
            except TypeError:  # an unhashable member of a set
                raise PlainError(f"malformed {tag}") from None
        if tag == "dict":
            items = data.get("v")
            if not isinstance(items, dict) or set(data) != {"@", "v"}:
                raise PlainError("malformed dict")
            return {k: self._decode(v) for k, v in items.items()}
        cls = self.classes.get(tag)
        fields = data.get("f")
        if cls is None:
            raise PlainError(f"{tag!r} is not a storable class")
        if not isinstance(fields, dict) or set(data) != {"@", "f"}:
            raise PlainError(f"malformed {tag}")
        hints = self._field_hints(cls)
        init = {f.name for f in dataclasses.fields(cls) if f.init}
        if set(fields) != set(hints):
            raise PlainError(f"{tag} fields do not match")
        values = {}
        for name, raw in fields.items():
            value = self._decode(raw)
            self._check(value, hints[name], f"{tag}.{name}")
            values[name] = value
        obj = cls(**{k: v for k, v in values.items() if k in init})
        for name in set(values) - init:
            object.__setattr__(obj, name, values[name])
        return obj

    def _field_hints(self, cls: type) -> dict[str, Any]:
        hints = self._hints.get(cls)
        if hints is None:
            every = typing.get_type_hints(cls)
            hints = self._hints[cls] = {f.name: every[f.name] for f in dataclasses.fields(cls)}
        return hints

    def _check(self, value: Any, expected: Any, where: str) -> None:
        if expected is Any or expected is object:
            return
        origin = typing.get_origin(expected)
        args = typing.get_args(expected)
        if origin in (typing.Union, types.UnionType):
            for option in args:
                try:
                    self._check(value, option, where)
                    return
                except PlainError:
                    continue
            raise PlainError(f"{where}: unexpected {type(value).__name__}")
        if origin is typing.Literal:
            if value not in args:
                raise PlainError(f"{where}: unexpected value")
            return
        if expected is type(None):
            if value is not None:
                raise PlainError(f"{where}: expected null")
            return
        base = origin or expected
        if base is float and isinstance(value, int) and not isinstance(value, bool):
            return
        if not isinstance(base, type) or not isinstance(value, base) or (base is int and isinstance(value, bool)):
            raise PlainError(f"{where}: expected {getattr(base, '__name__', base)}, got {type(value).__name__}")
        value = typing.cast(Any, value)  # checked above to be an instance of `base`
        if base in (list, set, frozenset) and args:
            for item in value:
                self._check(item, args[0], where)
        elif base is tuple and args:
            if len(args) == 2 and args[1] is Ellipsis:
                for item in value:
                    self._check(item, args[0], where)
            elif len(args) != len(value):
                raise PlainError(f"{where}: expected {len(args)} items")
            else:
                for item, arg in zip(value, args):
                    self._check(item, arg, where)
        elif base is dict and args:
            for k, v in value.items():
                self._check(k, args[0], where)
                self._check(v, args[1], where)
