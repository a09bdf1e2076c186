"""`@record`: the model's classes, written as dataclasses are and made msgspec Structs.

A record's body is a dataclass's: annotated fields, defaults, `field(default_factory=...,
compare=False, repr=False)` from `dataclasses`, options `frozen`, `order`, `kw_only` and `slots`,
and `__post_init__`. The class made is a `msgspec.Struct`, whose `__init__`, equality, hash, repr,
copying and pickling are written in C: defining the model's classes costs a third of what
dataclass's generated source did, and no `__init__` is compiled when a run first builds an object
(bench/msgspec_model.py measures both). What a dataclass has and a Struct does not, a record adds:
fields left out of equality, hash, ordering or repr (`compare=False`, `repr=False`), a field's
name in stored data (`metadata={"key": ...}`, for the codec), and a `__dict__` for an object of a
class neither frozen nor `slots=True` (code may keep an attribute of its own on one). A record has
no `init=False` field: every field is given to `__init__` or takes its default.

A subclass of a record is a Struct from its class statement on (the base's metaclass makes it),
before `@record` sees it: `@record` makes it again with its options, and a subclass whose own
required fields follow fields with defaults says `kw_only=True` in its class statement as well.

The model reads field lists through `fields` and copies with changes through `replace` below,
never through `dataclasses`, which does not know a Struct.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, dataclass_transform, overload

import msgspec

T = TypeVar("T")

if TYPE_CHECKING:

    def replace(obj: T, /, **changes: Any) -> T:
        """A copy of the record `obj` with `changes` made (its `__post_init__` run again)."""
        ...

else:
    from msgspec.structs import replace

MISSING = dataclasses.MISSING  # a field with no default (or no default factory)
_UNCOMPARED = "__record_uncompared__"  # the class attribute naming the fields equality leaves out
_HIDDEN = "__record_hidden__"  # and those repr leaves out

__all__ = ["MISSING", "Field", "default", "fields", "is_record", "record", "replace"]


class Field(NamedTuple):
    """What the codec and the model's walks read of one field of a record or dataclass."""

    name: str
    default: Any = MISSING
    default_factory: Any = MISSING
    key: str = ""  # its name in the data the codec reads and writes (`field(metadata={"key": ...})`)

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is MISSING


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(**options: bool) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: type[T] | None = None, /, **options: Any) -> Any:
    """Make `cls` a record (as `@dataclass` or `@dataclass(frozen=True, ...)` would make it a
    dataclass)."""

    def make(cls: type[T]) -> type[T]:
        return _struct(cls, **options)

    return make if cls is None else make(cls)


def _struct(
    cls: type[T], *, frozen: bool = False, order: bool = False, kw_only: bool = False, slots: bool = False
) -> type[T]:
    ns: dict[str, Any] = {}
    uncompared: list[str] = list(getattr(cls, _UNCOMPARED, ()))
    hidden: list[str] = list(getattr(cls, _HIDDEN, ()))
    for key, value in _body(cls).items():
        if isinstance(value, dataclasses.Field):
            if not value.init:
                raise TypeError(f"{cls.__name__}.{key}: a record takes every field in __init__ (init=False)")
            if not value.compare:
                uncompared.append(key)
            if not value.repr:
                hidden.append(key)
            renamed = value.metadata.get("key")  # the field's name in the data, when not its own
            if value.default_factory is not MISSING:
                value = msgspec.field(default_factory=value.default_factory, name=renamed)
            elif value.default is not MISSING:
                value = msgspec.field(default=value.default, name=renamed) if renamed else value.default
            elif renamed:
                value = msgspec.field(name=renamed)
            else:
                continue
        ns[key] = value
    if order and (own := {"__lt__", "__le__", "__gt__", "__ge__"} & ns.keys()):
        raise TypeError(f"{cls.__name__} defines {', '.join(sorted(own))} and asks for order=True")
    bases = tuple(b for b in cls.__bases__ if b is not object)
    if not any(issubclass(b, msgspec.Struct) for b in bases):
        bases = (msgspec.Struct, *bases)
    if uncompared:
        ns[_UNCOMPARED] = tuple(uncompared)
    if hidden:
        ns[_HIDDEN] = tuple(hidden)
    if not cls.__doc__:
        ns["__doc__"] = cls.__name__
    made: type[T] = msgspec.StructMeta(  # type: ignore[assignment]  # a class, as `cls` is
        cls.__name__, bases, ns, frozen=frozen, order=order, kw_only=kw_only, dict=not (slots or frozen)
    )
    if uncompared:
        _compare_without(made, ns, frozen=frozen, order=order)
    if hidden and "__repr__" not in ns:
        _repr_without(made)
    return made


def _body(cls: type) -> dict[str, Any]:
    """The class body as written. A subclass of a record is a Struct already (the class statement
    runs its base's metaclass), which has taken the defaults of its fields out of the body."""
    body = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__", "__slots__")}
    if not issubclass(cls, msgspec.Struct):
        return body
    own = cls.__dict__.get("__annotations__", {})  # a ClassVar among them is no field
    for f in _struct_fields(cls):
        if f.name in own:
            body.pop(f.name, None)  # the slot of the Struct made by the class statement
            if f.default_factory is not MISSING:
                body[f.name] = msgspec.field(default_factory=f.default_factory)
            elif f.default is not MISSING:
                body[f.name] = f.default
    return body


def _compare_without(cls: type, body: dict[str, Any], *, frozen: bool, order: bool) -> None:
    """Equality, hash and ordering over the fields compared (a Struct's compare them all)."""
    left_out = set(getattr(cls, _UNCOMPARED))
    compared = tuple(name for name in cls.__struct_fields__ if name not in left_out)  # type: ignore[attr-defined]
    key: Callable[[Any], Any] = attrgetter(*compared) if compared else (lambda _: ())
    if "__eq__" not in body:

        def __eq__(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return key(self) == key(other)
            return NotImplemented

        cls.__eq__ = __eq__  # type: ignore[method-assign,assignment]
    if "__hash__" not in body:
        cls.__hash__ = _hash_by(key) if frozen else None  # type: ignore[assignment,method-assign]
    if order:
        for name, compare in (
            ("__lt__", operator.lt),
            ("__le__", operator.le),
            ("__gt__", operator.gt),
            ("__ge__", operator.ge),
        ):
            setattr(cls, name, _compare_by(key, compare, name))


def _hash_by(key: Callable[[Any], Any]) -> Callable[[Any], int]:
    return lambda self: hash(key(self))


def _compare_by(key: Callable[[Any], Any], compare: Callable[[Any, Any], Any], name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(key(self), key(other))
        return NotImplemented

    method.__name__ = name
    return method


def _repr_without(cls: type) -> None:
    left_out = set(getattr(cls, _HIDDEN))
    shown = tuple(name for name in cls.__struct_fields__ if name not in left_out)  # type: ignore[attr-defined]

    def __repr__(self: Any) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({values})"

    cls.__repr__ = __repr__  # type: ignore[method-assign,assignment]


def is_record(obj: Any) -> bool:
    """Whether `obj` is a record or a dataclass, or an object of one."""
    cls = obj if isinstance(obj, type) else type(obj)
    return issubclass(cls, msgspec.Struct) or dataclasses.is_dataclass(cls)


_FIELDS: dict[type, tuple[Field, ...]] = {}


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record or dataclass (or of an object of one), in order."""
    cls = obj if isinstance(obj, type) else type(obj)
    known = _FIELDS.get(cls)
    if known is not None:
        return known
    if issubclass(cls, msgspec.Struct):
        known = _struct_fields(cls)
    else:
        known = tuple(
            Field(f.name, f.default, f.default_factory, f.metadata.get("key", f.name))
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        )
    _FIELDS[cls] = known
    return known


def _struct_fields(cls: type) -> tuple[Field, ...]:
    """A Struct's fields, read from what msgspec keeps of them: the defaults of the trailing fields
    (a factory wrapped, a keyword-only field with none marked NODEFAULT)."""
    names: tuple[str, ...] = cls.__struct_fields__  # type: ignore[attr-defined]
    keys: tuple[str, ...] = cls.__struct_encode_fields__  # type: ignore[attr-defined]
    defaults: tuple[Any, ...] = cls.__struct_defaults__  # type: ignore[attr-defined]
    first = len(names) - len(defaults)
    out = []
    for n, name in enumerate(names):
        default = defaults[n - first] if n >= first else msgspec.NODEFAULT
        if default is msgspec.NODEFAULT:
            out.append(Field(name, key=keys[n]))
        elif type(default).__name__ == "Factory":  # msgspec's wrapper of a default_factory
            out.append(Field(name, default_factory=default.factory, key=keys[n]))
        else:
            out.append(Field(name, default, key=keys[n]))
    return tuple(out)


def default(cls: type, name: str) -> Any:
    """The default of field `name` of the record `cls` (a Struct's class attribute is the field's
    slot, not its default, as a dataclass's is)."""
    for f in fields(cls):
        if f.name == name and not f.required:
            return f.default_factory() if f.default_factory is not MISSING else f.default
    raise AttributeError(f"{cls.__name__}.{name} has no default")
