"""`@record`: a dataclass that costs less to define.

A record is a dataclass in every way the code relies on (`fields`, `replace`, `asdict`,
`is_dataclass`, field options, `frozen`, `slots`, `__post_init__`), with the same `__init__`,
equality, hash and repr. The difference is when and how those are made: `dataclass` writes and
compiles each as source when the class is defined, and with some 150 classes that compiling was
about a third of a cold start (`lint` on one small file), though a run builds objects of only a
few of them. A record's equality, hash and repr are shared functions built from an
`operator.attrgetter` over the compared fields, and its `__init__`, the same parameters and
assignments dataclass writes, is compiled the first time the class is called (its speed counts once
per object built). That `__init__` is made from the fields, so an `InitVar` pseudo-field would be
lost: none is used, and a record should not.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")
_FACTORY = object()  # a field with a default factory was not given


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(**options: bool) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: type[T] | None = None, /, **options: Any) -> Any:
    """Make `cls` a dataclass (as `@dataclass` or `@dataclass(frozen=True, ...)` would)."""

    def make(cls: type[T]) -> type[T]:
        body = dict(cls.__dict__)
        if not cls.__doc__:  # dataclass would write one from inspect.signature, slow for each class
            cls.__doc__ = cls.__name__
        frozen = options.get("frozen", False)
        # dataclass compiles a __setattr__ and a __delattr__ for each frozen class, and the four
        # ordering methods of an ordered one: shared ones instead
        unfrozen = {**options, "frozen": False, "order": False}
        made: type[T] = dataclasses.dataclass(cls, init=False, repr=False, eq=False, **unfrozen)
        if frozen:
            _freeze(made, body)
        if "__init__" not in body:
            _init_when_first_called(made, frozen=frozen)
        _share_methods(made, body, frozen=frozen, order=options.get("order", False))
        return made

    return make if cls is None else make(cls)


def _share_methods(cls: type, body: dict[str, Any], *, frozen: bool, order: bool) -> None:
    fields = dataclasses.fields(cls)
    compared = tuple(f.name for f in fields if f.compare)
    shown = tuple(f.name for f in fields if f.repr)
    key: Callable[[Any], Any] = attrgetter(*compared) if compared else (lambda _: ())

    # as dataclass: a method the class body defines is kept
    if "__eq__" not in body:

        def __eq__(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return key(self) == key(other)
            return NotImplemented

        cls.__eq__ = __eq__  # type: ignore[method-assign,assignment]
    # a body defining __eq__ gets __hash__ = None from Python, which dataclass does not count as set
    if "__hash__" not in body or body["__hash__"] is None and "__eq__" in body:
        # dataclass(eq=True): hashable by value when frozen, not hashable otherwise
        cls.__hash__ = _hash_by(key) if frozen else None  # type: ignore[assignment,method-assign]
    if order:
        _order(cls, body, key)
    if "__repr__" not in body:

        def __repr__(self: Any) -> str:
            values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
            return f"{self.__class__.__qualname__}({values})"

        cls.__repr__ = __repr__  # type: ignore[method-assign,assignment]


def _order(cls: type, body: dict[str, Any], key: Callable[[Any], Any]) -> None:
    """dataclass's `order=True`: two objects of the very same class compare as the tuples of their
    compared fields."""
    for name, compare in (
        ("__lt__", operator.lt),
        ("__le__", operator.le),
        ("__gt__", operator.gt),
        ("__ge__", operator.ge),
    ):
        if name in body:
            raise TypeError(
                f"Cannot overwrite attribute {name} in class {cls.__name__}. Consider using functools.total_ordering"
            )
        setattr(cls, name, _compare_by(key, compare, name))


def _compare_by(key: Callable[[Any], Any], compare: Callable[[Any, Any], Any], name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(key(self), key(other))
        return NotImplemented

    method.__name__ = name
    return method


def _freeze(cls: type, body: dict[str, Any]) -> None:
    """dataclass's frozen behaviour: a field of the class, or any attribute of an object of this
    very class, cannot be assigned or deleted. (Frozen records are made as dataclasses that are not,
    so dataclass's check that frozen and unfrozen classes do not inherit from each other is not made.)"""
    names = frozenset(f.name for f in dataclasses.fields(cls))
    owner: type = cls
    if "__setattr__" in body or "__delattr__" in body:
        raise TypeError(f"cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    cls.__setattr__ = __setattr__  # type: ignore[method-assign,assignment]
    cls.__delattr__ = __delattr__  # type: ignore[method-assign,assignment]
    if "__slots__" in cls.__dict__:  # copy and pickle set a slotted object's state by setattr
        order = [f.name for f in dataclasses.fields(cls)]

        def __getstate__(self: Any) -> list[Any]:
            return [getattr(self, name) for name in order]

        def __setstate__(self: Any, state: list[Any]) -> None:
            for name, value in zip(order, state):
                object.__setattr__(self, name, value)

        cls.__getstate__ = __getstate__  # type: ignore[method-assign,assignment]
        cls.__setstate__ = __setstate__  # type: ignore[attr-defined]


def _init_when_first_called(cls: type, *, frozen: bool) -> None:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made = _dataclass_init(cls, frozen=frozen)
        cls.__init__ = made  # type: ignore[misc]
        made(self, *args, **kwargs)

    cls.__init__ = __init__  # type: ignore[misc]


def _dataclass_init(cls: type, *, frozen: bool) -> Callable[..., None]:
    """The `__init__` dataclass would have given `cls` (its fields, bases' included, in order;
    defaults, factories, keyword-only fields, `init=False` fields, `__post_init__`), written here:
    dataclass makes it by building a twin class, which also compiles `__setattr__` and `__delattr__`
    for a frozen one and asks `inspect` for a signature, three times the cost of this one function."""
    fields = dataclasses.fields(cls)
    scope: dict[str, Any] = {"__set": object.__setattr__, "__factory": _FACTORY}
    positional: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for f in fields:
        has_default = f.default is not dataclasses.MISSING
        has_factory = f.default_factory is not dataclasses.MISSING
        if has_default:
            scope[f"__default_{f.name}"] = f.default
        if has_factory:
            scope[f"__default_{f.name}"] = f.default_factory
        if f.init:
            param = f.name + (f"=__default_{f.name}" if has_default else "=__factory" if has_factory else "")
            (keywords if f.kw_only else positional).append(param)
            value = f"__default_{f.name}() if {f.name} is __factory else {f.name}" if has_factory else f.name
        elif has_default:
            value = f"__default_{f.name}"
        elif has_factory:
            value = f"__default_{f.name}()"
        else:
            continue  # as dataclass: a field outside __init__ with no default is left unset
        body.append(f"__set(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keywords] if keywords else [])])
    source = f"def __init__({params}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), scope)
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _hash_by(key: Callable[[Any], Any]) -> Callable[[Any], int]:
    return lambda self: hash(key(self))
