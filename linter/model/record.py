"""`@record`: a dataclass that costs less to define.

A record is a dataclass in every way the code relies on (`fields`, `replace`, `asdict`,
`is_dataclass`, the generated `__init__`, field options, `frozen`, `slots`), with the same
equality, hash and repr. The one difference is how those three are made: `dataclass` writes and
compiles them as source for every class, while a record gets shared functions built from an
`operator.attrgetter` over the compared fields. With some 150 classes, that compiling was about a
third of a cold start (`lint` on one small file); the `__init__` is still `dataclass`'s own, as
its speed matters once per object built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(**options: bool) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: type[T] | None = None, /, **options: Any) -> Any:
    """Make `cls` a dataclass (as `@dataclass` or `@dataclass(frozen=True, ...)` would)."""

    def make(cls: type[T]) -> type[T]:
        if options.get("order"):  # ordering methods come with dataclass's own __eq__
            return dataclasses.dataclass(cls, **options)
        body = dict(cls.__dict__)
        made: type[T] = dataclasses.dataclass(cls, repr=False, eq=False, **options)
        _share_methods(made, body, frozen=options.get("frozen", False))
        return made

    return make if cls is None else make(cls)


def _share_methods(cls: type, body: dict[str, Any], *, frozen: bool) -> None:
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
    if "__repr__" not in body:

        def __repr__(self: Any) -> str:
            values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
            return f"{self.__class__.__qualname__}({values})"

        cls.__repr__ = __repr__  # type: ignore[method-assign,assignment]


def _hash_by(key: Callable[[Any], Any]) -> Callable[[Any], int]:
    return lambda self: hash(key(self))
