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
from collections.abc import Callable, Iterable
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_COLLECTIONS = {"tuple": tuple, "frozenset": frozenset, "set": set}


_Read = Callable[[Any, str], Any]  # (stored data, where it is) -> the rebuilt, checked value


class PlainError(ValueError):
    """Data that does not have the shape the declared classes give it."""


class Codec:
    def __init__(self, classes: Iterable[type]):
        self.classes: dict[str, type] = {}
        for cls in classes:
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{cls!r} is not a dataclass")
            self.classes[cls.__name__] = cls
        self._readers: dict[Any, _Read] = {}

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
        return self._reader(expected)(data, "value")

    # Each annotation gets one reader, built once, that checks and rebuilds in a single pass: a
    # warm cache reads thousands of statements, and walking the annotations anew for every value
    # cost more than parsing the SQL again.

    def _reader(self, expected: Any) -> _Read:
        read = self._readers.get(expected)
        if read is None:
            read = self._readers[expected] = self._build(expected)
        return read

    def _build(self, expected: Any) -> _Read:
        if expected is Any or expected is object:
            return lambda raw, where: self._decode(raw)
        origin = typing.get_origin(expected)
        args = typing.get_args(expected)
        if origin in (typing.Union, types.UnionType):
            return self._union(args)
        if origin is typing.Literal:
            allowed = args

            def literal(raw: Any, where: str) -> Any:
                if not isinstance(raw, _SCALARS) or raw not in allowed:
                    raise PlainError(f"{where}: unexpected value")
                return raw

            return literal
        if expected is type(None):

            def none(raw: Any, where: str) -> Any:
                if raw is not None:
                    raise PlainError(f"{where}: expected null")
                return None

            return none
        base = origin or expected
        if base in (str, int, float, bool):
            return _scalar(base)
        if base is list:
            item = self._reader(args[0] if args else Any)

            def a_list(raw: Any, where: str) -> Any:
                if not isinstance(raw, list):
                    raise PlainError(f"{where}: expected list, got {type(raw).__name__}")
                return [item(v, where) for v in raw]

            return a_list
        if base in (tuple, set, frozenset):
            return self._collection(base, args)
        if base is dict:
            return self._dict(args)
        if isinstance(base, type) and dataclasses.is_dataclass(base):
            return self._instance(base)

        raise TypeError(f"the parse cache cannot store a field of type {expected!r}")

    def _union(self, options: tuple[Any, ...]) -> _Read:
        nullable = type(None) in options
        readers = [self._reader(o) for o in options if o is not type(None)]

        def union(raw: Any, where: str) -> Any:
            if raw is None and nullable:
                return None
            for read in readers:
                try:
                    return read(raw, where)
                except PlainError:
                    continue
            raise PlainError(f"{where}: unexpected {type(raw).__name__}")

        return union

    def _collection(self, base: type, args: tuple[Any, ...]) -> _Read:
        tag = base.__name__
        if base is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            fixed = [self._reader(a) for a in args]

            def items(raw: list[Any], where: str) -> Any:
                if len(raw) != len(fixed):
                    raise PlainError(f"{where}: expected {len(fixed)} items")
                return tuple(read(v, where) for read, v in zip(fixed, raw))
        else:
            item = self._reader(args[0] if args else Any)

            def items(raw: list[Any], where: str) -> Any:
                try:
                    return base(item(v, where) for v in raw)
                except TypeError:  # an unhashable member of a set
                    raise PlainError(f"malformed {tag}") from None

        def collection(raw: Any, where: str) -> Any:
            if not isinstance(raw, dict) or raw.get("@") != tag:
                raise PlainError(f"{where}: expected {tag}")
            values = raw.get("v")
            if not isinstance(values, list) or len(raw) != 2:
                raise PlainError(f"malformed {tag}")
            return items(values, where)

        return collection

    def _dict(self, args: tuple[Any, ...]) -> _Read:
        key = self._reader(args[0] if args else Any)
        value = self._reader(args[1] if args else Any)

        def a_dict(raw: Any, where: str) -> Any:
            if not isinstance(raw, dict) or raw.get("@") != "dict":
                raise PlainError(f"{where}: expected dict")
            items = raw.get("v")
            if not isinstance(items, dict) or len(raw) != 2:
                raise PlainError("malformed dict")
            return {key(k, where): value(v, where) for k, v in items.items()}

        return a_dict

    def _instance(self, expected: type) -> _Read:
        """A reader for a field annotated with `expected`: any stored class that is one."""
        built: dict[type, Callable[[dict[str, Any]], Any]] = {}

        def instance(raw: Any, where: str) -> Any:
            tag = raw.get("@") if isinstance(raw, dict) else None
            cls = self.classes.get(tag) if isinstance(tag, str) else None
            if cls is None:
                raise PlainError(f"{where}: expected {expected.__name__}")
            if not issubclass(cls, expected):
                raise PlainError(f"{where}: expected {expected.__name__}, got {tag}")
            read = built.get(cls)
            if read is None:
                read = built[cls] = self._fields(cls)
            return read(raw)

        return instance

    def _fields(self, cls: type) -> Callable[[dict[str, Any]], Any]:
        tag = cls.__name__
        hints = self._field_hints(cls)
        readers = {name: (self._reader(hint), f"{tag}.{name}", _as_is(hint)) for name, hint in hints.items()}
        names = set(hints)
        late = {f.name for f in dataclasses.fields(cls) if not f.init}

        def fields(raw: dict[str, Any]) -> Any:
            values = raw.get("f")
            if not isinstance(values, dict) or len(raw) != 2:
                raise PlainError(f"malformed {tag}")
            if values.keys() != names:
                raise PlainError(f"{tag} fields do not match")
            decoded = {}
            for name, v in values.items():
                read, where, as_is = readers[name]
                decoded[name] = v if type(v) in as_is else read(v, where)
            if not late:
                return cls(**decoded)
            obj = cls(**{k: v for k, v in decoded.items() if k not in late})
            for name in late:
                object.__setattr__(obj, name, decoded[name])
            return obj

        return fields

    def _decode(self, data: Any) -> Any:
        """Rebuild a value of no declared type: what its tags say, checked only for shape."""
        if isinstance(data, _SCALARS):
            return data
        if isinstance(data, list):
            return [self._decode(v) for v in data]
        if not isinstance(data, dict) or not isinstance(data.get("@"), str):
            raise PlainError("unexpected value")
        tag = data["@"]
        if tag in _COLLECTIONS or tag == "dict":
            base = dict if tag == "dict" else _COLLECTIONS[tag]
            return self._reader(base)(data, "value")
        cls = self.classes.get(tag)
        if cls is None:
            raise PlainError(f"{tag!r} is not a storable class")
        return self._reader(cls)(data, "value")

    def _field_hints(self, cls: type) -> dict[str, Any]:
        every = typing.get_type_hints(cls)
        return {f.name: every[f.name] for f in dataclasses.fields(cls)}


def _as_is(expected: Any) -> frozenset[type]:
    """The exact types of stored values that are already what a field of type `expected` holds
    (`str` for `str | None`), so most fields skip their reader."""
    options = (
        typing.get_args(expected) if typing.get_origin(expected) in (typing.Union, types.UnionType) else (expected,)
    )
    out: set[type] = set()
    for option in options:
        if option is type(None) or option in (str, int, bool):
            out.add(option)
        elif option is float:
            out.update((float, int))
    return frozenset(out)


def _scalar(base: type) -> _Read:
    if base is float:

        def a_float(raw: Any, where: str) -> Any:
            if isinstance(raw, float) or (isinstance(raw, int) and not isinstance(raw, bool)):
                return raw
            raise PlainError(f"{where}: expected float, got {type(raw).__name__}")

        return a_float
    if base is int:

        def an_int(raw: Any, where: str) -> Any:
            if isinstance(raw, int) and not isinstance(raw, bool):
                return raw
            raise PlainError(f"{where}: expected int, got {type(raw).__name__}")

        return an_int

    def scalar(raw: Any, where: str) -> Any:
        if isinstance(raw, base):
            return raw
        raise PlainError(f"{where}: expected {base.__name__}, got {type(raw).__name__}")

    return scalar
