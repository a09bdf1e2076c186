"""Records to and from JSON-like data, checked against their annotations, with errors that name
the path to the bad value (`tables[3].columns[2].nullable: expected a boolean, got "yes"`).

Three inputs use it: the parse cache, snapshots and the evidence catalogue. Reading never runs
anything the data names: only the classes given to a `Codec` are built, every key must be a field
the class declares (missing ones take the field's default), and every value is checked against
the field's annotation before the instance is made. Anything else raises `DecodeError`.

What the annotations say (read with `typing.get_type_hints`): str, int (never a bool), float (an
int too), bool, None, Literal, Enum (by value), Optional and other unions, list, tuple (of one type
or fixed), set, frozenset, dict (string keys), records (model/record.py) and TypedDicts. `Annotated[T, check]`
runs `check(value)` after T is read; it returns the value to keep (or raises ValueError with what
is wrong). A field's `metadata={"key": "quote"}` names it in the data.

Two forms, as the formats differ:

- plain (snapshots, evidence): JSON's own lists and objects; a record is an object of its
  fields; a field's declared class is the class read.
- tagged (the parse cache, whose fields hold subclasses and `Any`): a tuple, frozenset or set is
  `{"@": "tuple", "v": [...]}`, a dict `{"@": "dict", "v": {...}}` (or, keyed by anything but
  strings, `{"@": "dict", "i": [[key, value], ...]}`), a record
  `{"@": "ClassName", "f": {field: value}}` without the fields that hold their default, or, for the
  classes named `positional`, `{"@": "ClassName", "v": [every field's value, in order]}` (small
  records stored by the thousand: a place in a file), and one equal to one written before in the
  same document `{"@": "ClassName", "r": n}`, the n-th written (a table's columns share the place of
  their statement); the tag picks among the given classes.

Readers are built once per annotation and check and rebuild in one pass; the path is put
together only when something is wrong, as an error travels back up, so a warm cache pays
nothing for it.
"""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any

from schemacite.model.record import MISSING, Field, fields, is_record, record

_SCALARS = (str, int, float, bool, type(None))
_COLLECTIONS: dict[str, type] = {"tuple": tuple, "frozenset": frozenset, "set": set}
_KINDS = {str: "a string", int: "a whole number", float: "a number", bool: "a boolean", type(None): "null"}

Read = Callable[[Any], Any]  # stored data -> the rebuilt, checked value, or DecodeError


class DecodeError(ValueError):
    """Data that does not have the shape the declared classes give it; `str()` is `path: problem`."""

    def __init__(self, problem: str):
        super().__init__(problem)
        self.problem = problem
        self.mismatch = False  # only the kind of value was wrong (a union tries its next option)
        self._segments: list[str | int] = []  # innermost first, added as the error travels up

    def at(self, segment: str | int) -> DecodeError:
        """The error one level up: inside field `segment` (a name) or item `segment` (an index)."""
        self._segments.append(segment)
        return self

    @property
    def path(self) -> str:
        out = ""
        for segment in reversed(self._segments):
            out += f"[{segment}]" if isinstance(segment, int) else f".{segment}" if out else segment
        return out

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}" if self._segments else self.problem


@record(frozen=True)
class Stored:
    """How one format stores one field unlike its annotation: read as `annotation`, then `read`
    makes the field's value (and `write` the stored one)."""

    annotation: Any
    read: Callable[[Any], Any]
    write: Callable[[Any], Any]


def shown(raw: Any) -> str:
    """A value as an error message quotes it."""
    if isinstance(raw, list):
        return "a list"
    if isinstance(raw, dict):
        return "an object"
    text = json.dumps(raw, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def expected(what: str, raw: Any) -> DecodeError:
    error = DecodeError(f"expected {what}, got {shown(raw)}")
    error.mismatch = True
    return error


# the positional objects read so far in the document `decode` is reading, in the order written:
# `{"@": "Location", "r": n}` is the n-th of them again
_SEEN: ContextVar[list[Any]] = ContextVar("_SEEN")


class Codec:
    def __init__(
        self,
        classes: Iterable[type] = (),
        *,
        tagged: bool = False,
        skip: Iterable[str] = (),
        stored: Mapping[tuple[type, str], Stored] | None = None,
        positional: Iterable[type] = (),
    ):
        self.classes: dict[str, type] = {}
        for cls in classes:
            if not is_record(cls):
                raise TypeError(f"{cls!r} is not a record")
            self.classes[cls.__name__] = cls
        self.tagged = tagged
        self.skip = frozenset(skip)  # fields the format neither writes nor reads (ignored when present)
        self.stored = dict(stored or {})
        self.positional = frozenset(positional)
        self._readers: dict[Any, Read] = {}

    # ---------------------------------------------------------------- writing

    def encode(self, obj: Any) -> Any:
        return self._encode(obj, {})

    def _encode(self, obj: Any, written: dict[Any, int]) -> Any:
        """`written`: the positional objects this document holds so far, by class and values."""
        if isinstance(obj, enum.Enum):
            return obj.value
        if isinstance(obj, _SCALARS):
            return obj
        if isinstance(obj, list):
            return [self._encode(v, written) for v in obj]
        if isinstance(obj, (tuple, frozenset, set)):
            items = [self._encode(v, written) for v in obj]
            return {"@": type(obj).__name__, "v": items} if self.tagged else items
        if isinstance(obj, dict):
            if not all(isinstance(k, str) for k in obj):
                if self.tagged:  # keys of other kinds (pairs of names) as a list of [key, value]
                    return {
                        "@": "dict",
                        "i": [[self._encode(k, written), self._encode(v, written)] for k, v in obj.items()],
                    }
                raise DecodeError("only dicts with string keys can be stored")
            values = {k: self._encode(v, written) for k, v in obj.items()}
            return {"@": "dict", "v": values} if self.tagged else values
        cls = type(obj)
        if not is_record(obj) or self.tagged and self.classes.get(cls.__name__) is not cls:
            raise DecodeError(f"{cls.__name__} is not a storable class")
        if cls in self.positional:
            row = [self._encode(getattr(obj, f.name), written) for f in fields(obj)]
            try:
                key: object = (cls, *row)
                before = written.get(key)
            except TypeError:  # a value that is a list: written out each time, counted all the same
                key, before = object(), None
            if before is not None:  # the same place again (a table's columns share their statement's)
                return {"@": cls.__name__, "r": before}
            written[key] = len(written)  # the reader counts every one written out, in this order
            return {"@": cls.__name__, "v": row}
        out = {}
        for f in fields(obj):
            if f.name in self.skip:
                continue
            value = getattr(obj, f.name)
            if self.tagged and _is_default(f, value):
                continue  # read back as the default: most fields of a parsed statement hold theirs
            view = self.stored.get((cls, f.name))
            out[f.key] = self._encode(view.write(value) if view else value, written)
        return {"@": cls.__name__, "f": out} if self.tagged else out

    # ---------------------------------------------------------------- reading

    def decode(self, data: Any, annotation: Any = Any) -> Any:
        """Rebuild what `encode` wrote (or what a person wrote in the same shape), checking it
        against `annotation`."""
        token = _SEEN.set([])
        try:
            return self.reader(annotation)(data)
        finally:
            _SEEN.reset(token)

    def reader(self, annotation: Any) -> Read:
        read = self._readers.get(annotation)
        if read is None:
            read = self._readers[annotation] = self._build(annotation)
        return read

    def _build(self, annotation: Any) -> Read:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if annotation is Any or annotation is object:
            return self._any if self.tagged else _as_given
        if origin is typing.Annotated:
            return _checked(self.reader(args[0]), annotation.__metadata__)
        if origin in (typing.Union, types.UnionType):
            return self._union(args)
        if origin is typing.Literal:
            return _literal(args)
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            return _enum(annotation)
        base = origin or annotation
        if base in _KINDS:
            return _scalar(base)
        if base in (list, tuple, set, frozenset):
            return self._sequence(base, args)
        if base is dict:
            return self._dict(args)
        if typing.is_typeddict(base):
            return self._typeddict(base)
        if isinstance(base, type) and is_record(base):
            return self._instance(base) if self.tagged else self._fields(base)
        raise TypeError(f"cannot read a value of type {annotation!r}")

    def _union(self, options: tuple[Any, ...]) -> Read:
        nullable = type(None) in options
        readers = [self.reader(o) for o in options if o is not type(None)]
        if len(readers) == 1:  # Optional: the one type's own error says more than "one of"
            (only,) = readers
            return (lambda raw: None if raw is None else only(raw)) if nullable else only
        names = " or ".join(_name(o) for o in options)

        def union(raw: Any) -> Any:
            if raw is None and nullable:
                return None
            closest = None  # an option of the right kind whose value was wrong says most
            seen = _SEEN.get(None)
            count = len(seen) if seen is not None else 0
            for read in readers:
                try:
                    return read(raw)
                except DecodeError as e:
                    if seen is not None:
                        del seen[count:]  # what a failed try read is not part of the document
                    if closest is None and (e.path or not e.mismatch):
                        closest = e
            raise closest or expected(names, raw)

        return union

    def _sequence(self, base: type, args: tuple[Any, ...]) -> Read:
        fixed = base is tuple and args and not (len(args) == 2 and args[1] is Ellipsis)
        readers = [self.reader(a) for a in args] if fixed else [self.reader(args[0] if args else Any)]
        item = readers[0]
        tag = base.__name__

        def items(values: list[Any]) -> Any:
            try:
                if fixed:
                    if len(values) != len(readers):
                        raise DecodeError(f"expected {len(readers)} items, got {len(values)}")
                    return tuple(read(v) for read, v in zip(readers, values))
                return base(item(v) for v in values) if base is not list else [item(v) for v in values]
            except DecodeError:
                raise _where(readers, values) from None
            except TypeError:  # an unhashable member of a set
                raise DecodeError(f"malformed {tag}") from None

        if self.tagged and base is not list:

            def tagged(raw: Any) -> Any:
                if type(raw) is not dict or raw.get("@") != tag:
                    raise expected(f"a {tag}", raw)
                values = raw.get("v")
                if type(values) is not list or len(raw) != 2:
                    raise DecodeError(f"malformed {tag}")
                return items(values)

            return tagged

        def a_list(raw: Any) -> Any:
            if type(raw) is not list:
                raise expected("a list", raw)
            return items(raw)

        return a_list

    def _dict(self, args: tuple[Any, ...]) -> Read:
        key = self.reader(args[0] if args else str)
        value = self.reader(args[1] if args else Any)

        def entries(items: dict[str, Any]) -> Any:
            out = {}
            for k, v in items.items():
                try:
                    out[key(k)] = value(v)
                except DecodeError as e:
                    raise e.at(k) from None
            return out

        if not self.tagged:

            def an_object(raw: Any) -> Any:
                if type(raw) is not dict:
                    raise expected("an object", raw)
                return entries(raw)

            return an_object

        def a_dict(raw: Any) -> Any:
            if type(raw) is not dict or raw.get("@") != "dict":
                raise expected("a dict", raw)
            if "i" in raw and len(raw) == 2:
                return pairs(raw["i"])
            items = raw.get("v")
            if type(items) is not dict or len(raw) != 2:
                raise DecodeError("malformed dict")
            return entries(items)

        def pairs(items: Any) -> Any:
            if type(items) is not list or not all(type(p) is list and len(p) == 2 for p in items):
                raise DecodeError("malformed dict")
            out = {}
            for n, (k, v) in enumerate(items):
                try:
                    out[key(k)] = value(v)
                except DecodeError as e:
                    raise e.at(n) from None
                except TypeError:  # a key that cannot be one (a list)
                    raise DecodeError("malformed dict").at(n) from None
            return out

        return a_dict

    def _typeddict(self, cls: type) -> Read:
        hints = typing.get_type_hints(cls, include_extras=True)
        readers = {name: self.reader(_required(hint)) for name, hint in hints.items()}
        return _object(cls.__name__, readers, _required_keys(cls, hints), dict)

    def _fields(self, cls: type) -> Read:
        """A reader of `cls`'s fields from an object of them (plain form)."""
        hints = typing.get_type_hints(cls, include_extras=True)
        readers: dict[str, Read] = {}
        required: set[str] = set()
        names: dict[str, str] = {}  # key in the data -> field
        for f in fields(cls):
            if f.name in self.skip:
                continue
            view = self.stored.get((cls, f.name))
            read = self.reader(view.annotation if view else hints[f.name])
            readers[f.key] = (lambda r, convert: lambda raw: convert(r(raw)))(read, view.read) if view else read
            names[f.key] = f.name
            if f.required:
                required.add(f.key)
        make = _maker(cls, names)
        return _object(cls.__name__, readers, frozenset(required), make, ignored=self.skip)

    def _instance(self, declared: type) -> Read:
        """A reader for a field declared as `declared` (tagged form): any given class that is one."""
        built: dict[str, Read] = {}  # by tag, once the tag is known to name one of them

        def instance(raw: Any) -> Any:
            tag = raw.get("@") if type(raw) is dict else None
            read = built.get(tag) if type(tag) is str else None
            if read is None:
                cls = self.classes.get(tag) if isinstance(tag, str) else None
                if cls is None:
                    raise expected(declared.__name__, raw if tag is None else tag)
                if not issubclass(cls, declared):
                    raise expected(declared.__name__, tag)
                read = built[cls.__name__] = self._tagged_fields(cls)
            return read(raw)

        return instance

    def _tagged_fields(self, cls: type) -> Read:
        hints = typing.get_type_hints(cls)
        kept = [f for f in fields(cls) if f.name not in self.skip]
        readers = {f.name: (self.reader(hints[f.name]), _as_is(hints[f.name])) for f in kept}
        if cls in self.positional:
            return self._positional(cls, [(f.name, *readers[f.name]) for f in kept])
        make = _maker(cls, {f.name: f.name for f in kept})
        tag = cls.__name__
        required = {f.name for f in kept if f.required}

        def tagged(raw: dict[str, Any]) -> Any:
            values = raw.get("f")
            if type(values) is not dict or len(raw) != 2:
                raise DecodeError(f"malformed {tag}")
            keys = values.keys()
            if not (keys <= readers.keys() and required <= keys):  # a field left out holds its default
                raise DecodeError(f"{tag}: fields do not match")
            decoded = {}
            for name, v in values.items():
                read, as_is = readers[name]
                if type(v) in as_is:
                    decoded[name] = v
                    continue
                try:
                    decoded[name] = read(v)
                except DecodeError as e:
                    raise e.at(name) from None
            return make(decoded)

        return tagged

    @staticmethod
    def _positional(cls: type, fields: list[tuple[str, Read, frozenset[type]]]) -> Read:
        """A reader of a `positional` class: every field's value, in order (all given to __init__)."""
        tag = cls.__name__

        def positional(raw: dict[str, Any]) -> Any:
            values = raw.get("v")
            seen = _SEEN.get(None)  # None: a reader called on its own, not by `decode`
            if values is None and len(raw) == 2:  # {"@": tag, "r": n}: the n-th one written before
                n = raw.get("r")
                if seen is not None and type(n) is int and 0 <= n < len(seen) and type(seen[n]) is cls:
                    return seen[n]
                raise DecodeError(f"{tag}: a reference to none written before")
            if type(values) is not list or len(raw) != 2 or len(values) != len(fields):
                raise DecodeError(f"malformed {tag}")
            decoded = []
            for (name, read, as_is), v in zip(fields, values):
                if type(v) in as_is:
                    decoded.append(v)
                    continue
                try:
                    decoded.append(read(v))
                except DecodeError as e:
                    raise e.at(name) from None
            try:
                made = cls(*decoded)
            except ValueError as e:
                raise DecodeError(str(e)) from None
            if seen is not None:
                seen.append(made)
            return made

        return positional

    def _any(self, data: Any) -> Any:
        """A value of no declared type (tagged form): what its tags say, checked only for shape."""
        if isinstance(data, _SCALARS):
            return data
        if type(data) is list:
            return [self._any(v) for v in data]
        tag = data.get("@") if type(data) is dict else None
        if not isinstance(tag, str):
            raise expected("a tagged value", data)
        if tag in _COLLECTIONS or tag == "dict":
            return self.reader(dict if tag == "dict" else _COLLECTIONS[tag])(data)
        cls = self.classes.get(tag)
        if cls is None:
            raise DecodeError(f"{tag!r} is not a storable class")
        return self.reader(cls)(data)


# ---------------------------------------------------------------- describing


def describe(cls: type) -> str:
    """A record's or TypedDict's keys as a Markdown list: name, type, whether required, and what
    it holds (the text given in `Annotated[type, ..., "what it holds"]`)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    if is_record(cls):
        keys = {f.name: f.key for f in fields(cls)}
        required = {f.name for f in fields(cls) if f.required}
    else:
        keys = {name: name for name in hints}
        required = set(_required_keys(cls, hints))
    lines = []
    for name, key in keys.items():
        hint = _required(hints[name])
        texts = [m for m in _metadata(hint) if isinstance(m, str)]
        need = "required" if name in required else "optional"
        lines.append(f"- `{key}` ({_spelled(hint)}, {need})" + (f": {'; '.join(texts)}" if texts else ""))
    return "\n".join(lines)


def _metadata(hint: Any) -> list[Any]:
    """Every `Annotated` extra of `hint`, outer and inner (`Annotated[Annotated[str, a], b]`)."""
    out: list[Any] = []
    while typing.get_origin(hint) is typing.Annotated:
        out[:0] = hint.__metadata__
        hint = typing.get_args(hint)[0]
    return out


def _spelled(hint: Any) -> str:
    """A type as the docs spell it for someone writing the file."""
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_spelled(a) for a in args if a is not type(None))
    if origin is typing.Literal:
        return " | ".join(map(shown, args))
    if origin in (list, tuple, set, frozenset):
        return f"list of {_spelled(args[0])}s" if args else "list"
    if origin is dict:
        return f"table of {_spelled(args[1])}s"
    if typing.is_typeddict(hint) or is_record(hint):
        return "table"
    return {str: "string", int: "whole number", float: "number", bool: "boolean"}.get(hint, str(hint))


# ---------------------------------------------------------------- readers that need no codec


def _as_given(raw: Any) -> Any:
    return raw


def _object(
    name: str,
    readers: dict[str, Read],
    required: frozenset[str],
    make: Callable[[dict[str, Any]], Any],
    ignored: frozenset[str] = frozenset(),
) -> Read:
    allowed = readers.keys() | ignored

    def an_object(raw: Any) -> Any:
        if type(raw) is not dict:
            raise expected(f"an object ({name})", raw)
        unknown = raw.keys() - allowed
        if unknown:
            raise DecodeError(
                f"unknown key(s) {', '.join(map(repr, sorted(unknown)))} (allowed: {', '.join(sorted(readers))})"
            )
        missing = required - raw.keys()
        if missing:
            raise DecodeError(f"missing {', '.join(map(repr, sorted(missing)))}")
        decoded = {}
        for key, v in raw.items():
            read = readers.get(key)
            if read is None:
                continue  # ignored
            try:
                decoded[key] = read(v)
            except DecodeError as e:
                raise e.at(key) from None
        return make(decoded)

    return an_object


def _maker(cls: type, names: dict[str, str]) -> Callable[[dict[str, Any]], Any]:
    """Build `cls` from decoded values keyed as in the data (`names`: key -> field); a ValueError
    the class raises (its own checks) is a DecodeError at the object."""
    renamed = any(k != v for k, v in names.items())

    def make(decoded: dict[str, Any]) -> Any:
        if renamed:
            decoded = {names[k]: v for k, v in decoded.items()}
        try:
            return cls(**decoded)
        except DecodeError:
            raise
        except ValueError as e:
            raise DecodeError(str(e)) from None

    return make


def _where(readers: list[Read], values: list[Any]) -> DecodeError:
    """The error of the first bad item, at its index (found again: errors are rare, loops hot)."""
    for i, v in enumerate(values):
        try:
            (readers[i] if len(readers) > 1 else readers[0])(v)
        except DecodeError as e:
            return e.at(i)
    return DecodeError("unexpected items")


def _checked(read: Read, metadata: tuple[Any, ...]) -> Read:
    checks = [m for m in metadata if callable(m)]  # text is what the value holds, for `describe`
    if not checks:
        return read

    def checked(raw: Any) -> Any:
        value = read(raw)
        for check in checks:
            try:
                value = check(value)
            except DecodeError:
                raise
            except ValueError as e:
                raise DecodeError(str(e)) from None
        return value

    return checked


def _literal(allowed: tuple[Any, ...]) -> Read:
    def literal(raw: Any) -> Any:
        if not isinstance(raw, _SCALARS) or raw not in allowed or type(raw) is bool and True not in allowed:
            raise expected(f"one of {', '.join(map(shown, allowed))}", raw)
        return raw

    return literal


def _enum(cls: type[enum.Enum]) -> Read:
    by_value = {m.value: m for m in cls}

    def an_enum(raw: Any) -> Any:
        try:
            return by_value[raw]
        except (KeyError, TypeError):
            raise expected(f"one of {', '.join(map(shown, by_value))}", raw) from None

    return an_enum


def _scalar(base: type) -> Read:
    what = _KINDS[base]
    if base is float:

        def a_float(raw: Any) -> Any:
            if type(raw) is float:
                return raw
            if type(raw) is int:
                return float(raw)
            raise expected(what, raw)

        return a_float

    def scalar(raw: Any) -> Any:
        if type(raw) is base:  # exact: a bool is not a whole number
            return raw
        raise expected(what, raw)

    return scalar


def _name(annotation: Any) -> str:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation in _KINDS:
        return _KINDS[annotation]
    base = typing.get_origin(annotation) or annotation
    if base in (list, tuple, set, frozenset):
        return "a list"
    if base is dict:
        return "an object"
    return getattr(base, "__name__", str(annotation))


def _required(hint: Any) -> Any:
    """A TypedDict key's type without its Required/NotRequired mark."""
    if typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        return typing.get_args(hint)[0]
    return hint


def _required_keys(cls: type, hints: dict[str, Any]) -> frozenset[str]:
    """A TypedDict's required keys, read from the hints (`__required_keys__` cannot see a
    NotRequired written under `from __future__ import annotations`)."""
    total = getattr(cls, "__total__", True)
    marks = {name: typing.get_origin(hint) for name, hint in hints.items()}
    return frozenset(n for n, m in marks.items() if m is typing.Required or (total and m is not typing.NotRequired))


def _is_default(f: Field, value: Any) -> bool:
    """Whether `value` is what field `f` holds when not given (of the same type: 0 is not False)."""
    if f.default is not MISSING:
        default = f.default
    elif f.default_factory is not MISSING:
        default = f.default_factory()
    else:
        return False
    return type(value) is type(default) and value == default


def _as_is(annotation: Any) -> frozenset[type]:
    """The exact types of stored values that are already what a field of type `annotation` holds
    (`str` for `str | None`), so most fields of a cache entry skip their reader."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    out: set[type] = set()
    for option in typing.get_args(annotation) if union else (annotation,):
        if option is type(None) or option in (str, int, bool, float):
            out.add(option)
    return frozenset(out)
