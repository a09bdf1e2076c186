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

Compiling those `__init__`s was still a twentieth of a one-file lint (about 30 classes are built
from), so they are kept as Python keeps a module's bytecode: beside it, in `__pycache__`, in a
file named for the interpreter (`record-inits.cpython-311.bin`, the marshal of the code objects
by class and source, headed by the interpreter's cache tag and version). A run reads it on its first record
`__init__`, compiles what it lacks, and writes the file again, replaced whole, at exit. It is
written only where Python would write bytecode (not with PYTHONDONTWRITEBYTECODE, nor in a folder
it cannot write), and not used with a PYTHONPYCACHEPREFIX; a file it cannot read is compiled around.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import operator
import os
import sys
import typing
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
    exec(_COMPILED.code(source, f"<record {cls.__qualname__}>"), scope)
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


class _Compiled:
    """The `__init__`s' code objects by name and source, read from and kept in `path`."""

    def __init__(self, path: str | None):
        self.path = path
        self.codes: dict[str, Any] | None = None  # read on the first __init__ made
        self.added = False

    def code(self, source: str, name: str, mode: str = "exec") -> Any:
        if self.codes is None:
            self.codes = self._read()
        key = f"{mode} {name}\n{source}"
        found = self.codes.get(key)
        if found is None:
            found = self.codes[key] = compile(source, name, mode)
            if not self.added and self.path is not None and not sys.dont_write_bytecode:
                atexit.register(self.write)
            self.added = True
        return found

    def _read(self) -> dict[str, Any]:
        try:
            with open(self.path or "", "rb") as f:
                data = f.read()
            codes = marshal.loads(data[len(HEADER) :]) if data.startswith(HEADER) else {}
        except (OSError, ValueError, EOFError, TypeError):  # none yet, or one that cannot be read
            return {}
        return codes if type(codes) is dict else {}

    def write(self) -> None:
        """Keeps this run's codes with the file's (another process may have written it since):
        replaced whole, so a reader never sees half a file."""
        if self.path is None or not self.codes:
            return
        kept = {**self._read(), **self.codes}
        if len(kept) > 1000:  # classes changed over many versions: this run's alone
            kept = self.codes
        temporary = f"{self.path}.{os.getpid()}"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as f:
                f.write(HEADER + marshal.dumps(kept))
            os.replace(temporary, self.path)
        except OSError:  # a folder it cannot write: compiled again next run, as without the file
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _code_cache_path() -> str | None:
    """Where the code objects are kept, or None where Python keeps no bytecode beside a module."""
    if sys.pycache_prefix or sys.implementation.cache_tag is None:
        return None
    return os.path.join(os.path.dirname(__file__), "__pycache__", f"record-inits.{sys.implementation.cache_tag}.bin")


# the interpreter the code objects are for, down to its patch release (importlib.util's magic
# number would say as much, and importing it costs a start-up two modules)
HEADER = f"{sys.implementation.cache_tag} {sys.hexversion:x}\n".encode()
_COMPILED = _Compiled(_code_cache_path())


def type_hints(cls: type, *, extras: bool = True) -> dict[str, Any]:
    """`typing.get_type_hints(cls, include_extras=extras)`, each annotation written as a string
    evaluated through the kept code: typing compiles every one, anew in each process (a fiftieth
    of a one-file lint, more when the cache's entries are read)."""
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        annotations = base.__dict__.get("__annotations__", {})
        if not isinstance(annotations, dict):
            continue
        # as typing does for a class: the module's names before the class body's
        scope, names = dict(vars(base)), getattr(sys.modules.get(base.__module__), "__dict__", {})
        for name, value in annotations.items():
            if isinstance(value, str):  # the class's own annotation text, evaluated as typing would
                value = eval(_COMPILED.code(value, "<annotation>", "eval"), scope, names)
            hints[name] = type(None) if value is None else value
    if any(_left_to_typing(v, strip=not extras) for v in hints.values()):
        return typing.get_type_hints(cls, include_extras=extras)
    return hints


def _left_to_typing(hint: Any, *, strip: bool) -> bool:
    """Whether `hint` holds what only typing's own rules settle: a name still written as a string
    inside it (`list["Table"]`), or, when extras are to be stripped, an `Annotated`."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return strip or _left_to_typing(typing.get_args(hint)[0], strip=strip)
    if origin is typing.Literal:
        return False
    if isinstance(hint, str | typing.ForwardRef):
        return True
    return any(_left_to_typing(arg, strip=strip) for arg in typing.get_args(hint))


def _hash_by(key: Callable[[Any], Any]) -> Callable[[Any], int]:
    return lambda self: hash(key(self))
