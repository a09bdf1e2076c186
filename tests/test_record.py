"""`@record` behaves as `@dataclass` does: each case builds the same class both ways and compares
what the code relies on (equality, hashing, repr, replace, frozen and slots, methods the body
defines)."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import FrozenInstanceError, dataclass, field, replace

import pytest

from schemacite.model.record import record


def _twins(**options):
    def body(ns):
        ns["__annotations__"] = {"a": "int", "b": "str", "seq": "int"}
        ns.update(b="x", seq=field(default=0, compare=False, repr=False))

    def build(decorate):
        ns: dict = {"__module__": __name__, "__qualname__": "Thing"}
        body(ns)
        return decorate(type("Thing", (), ns))

    return build(dataclass(**options)), build(record(**options))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"frozen": True},
        {"slots": True},
        {"kw_only": True},
        {"order": True},
        {"frozen": True, "order": True, "slots": True},
    ],
)
def test_record_is_a_dataclass_with_the_same_behaviour(options):
    plain, rec = _twins(**options)
    make = (lambda cls, **kw: cls(a=1, **kw)) if options.get("kw_only") else (lambda cls, **kw: cls(1, **kw))
    for cls in (plain, rec):
        one, same, other = make(cls), make(cls, seq=9), make(cls, b="y")
        assert dataclasses.is_dataclass(cls)
        assert one == same and one != other and one != make(plain if cls is rec else rec)
        assert replace(one, b="y") == other
    assert repr(make(rec)) == repr(make(plain)) == "Thing(a=1, b='x')"
    if options.get("frozen"):
        assert hash(make(rec)) == hash(make(rec, seq=3)) and hash(make(rec)) != hash(make(rec, b="y"))
        with pytest.raises(FrozenInstanceError):
            make(rec).a = 2
    else:
        assert rec.__hash__ is None is plain.__hash__  # unhashable, as a mutable dataclass
    if options.get("slots"):
        assert rec.__slots__ == plain.__slots__
    for cls in (plain, rec):  # copies keep every field, the uncompared one too
        copied = copy.deepcopy(make(cls, seq=7))
        assert copied == make(cls) and copied.seq == 7 and copy.copy(copied).seq == 7
    if options.get("order"):
        for cls in (plain, rec):
            assert make(cls) < make(cls, b="y") <= make(cls, b="y", seq=1) and make(cls, b="y") > make(cls)
            assert sorted([make(cls, b="z"), make(cls, b="a")]) == [make(cls, b="a"), make(cls, b="z")]
        with pytest.raises(TypeError):
            make(rec) < make(plain)  # noqa: B015 - only objects of the same class compare
    else:
        with pytest.raises(TypeError):
            make(rec) < make(rec)  # noqa: B015


def test_methods_the_body_defines_are_kept():
    @record
    class Named:
        name: str

        def __eq__(self, other):
            return isinstance(other, Named) and self.name.lower() == other.name.lower()

        def __repr__(self):
            return f"<{self.name}>"

    assert Named("A") == Named("a") and repr(Named("A")) == "<A>"
    assert Named.__hash__ is None  # as dataclass leaves it when the body defines __eq__ alone


def test_subclass_compares_its_own_fields():
    @record
    class Base:
        a: int

    @record
    class Child(Base):
        b: int = 0

    assert Child(1, 2) != Child(1, 3) and Base(1) != Child(1) and repr(Child(1)).endswith(".Child(a=1, b=0)")


def test_init_made_on_first_call_keeps_defaults_factories_post_init_and_keywords():
    @record
    class Base:
        a: int
        tags: list = field(default_factory=list)

    @record(kw_only=True)
    class Child(Base):
        b: int = 2
        seen: list = field(default_factory=list)

        def __post_init__(self):
            self.seen.append(self.a + self.b)

    child = Child(1, b=5)  # the subclass first: its parent's __init__ is not made yet
    assert (child.a, child.tags, child.b, child.seen) == (1, [], 5, [6])
    assert Base(3).tags is not Base(3).tags  # a new list each time, as default_factory says
    with pytest.raises(TypeError):
        Child(1, [], 5)  # b is keyword-only
    with pytest.raises(TypeError):
        Base()  # a is required

    @record(frozen=True)
    class Frozen:
        a: int = 0

    assert Frozen().a == 0 and Frozen(4).a == 4
    with pytest.raises(FrozenInstanceError):
        Frozen().a = 1


@pytest.mark.parametrize("frozen", [False, True])
def test_init_matches_dataclasses_for_fields_outside_it(frozen):
    """Fields with `init=False` (a default, a factory, neither) and a given factory value: the
    written `__init__` sets what dataclass's sets and takes the same parameters."""
    import inspect

    def build(decorate):
        ns = {
            "__module__": __name__,
            "__qualname__": "Thing",
            "__annotations__": {"a": "int", "b": "list", "c": "int", "d": "list", "e": "int"},
            "b": field(default_factory=list),
            "c": field(default=7, init=False),
            "d": field(default_factory=lambda: [1], init=False),
            "e": field(init=False),
        }
        return decorate(type("Thing", (), ns))

    plain, rec = build(dataclass(frozen=frozen)), build(record(frozen=frozen))
    given = [9]
    for cls in (plain, rec):
        one = cls(1, given)
        assert (one.a, one.b, one.c, one.d, hasattr(one, "e")) == (1, given, 7, [1], False)
        assert one.b is given and cls(1).b == [] and cls(1).d is not cls(1).d

    def shape(cls):
        return [(p.name, p.kind) for p in inspect.signature(cls.__init__).parameters.values()]

    assert shape(rec) == shape(plain) == [("self", 1), ("a", 1), ("b", 1)]


def test_frozen_record_refuses_assignment_and_deletion_as_dataclass_does():
    @record(frozen=True)
    class Base:
        a: int

    @record(frozen=True)
    class Child(Base):
        b: int = 0

    child = Child(1, 2)
    for target in (child, Base(1)):
        with pytest.raises(FrozenInstanceError, match="cannot assign to field 'a'"):
            target.a = 5
        with pytest.raises(FrozenInstanceError, match="cannot delete field 'a'"):
            del target.a
        with pytest.raises(FrozenInstanceError):
            target.other = 1  # an object of a frozen class takes no new attribute either
    assert replace(child, b=3) == Child(1, 3) and child.b == 2


def test_an_ordered_record_refuses_ordering_methods_of_its_own_as_dataclass_does():
    for decorate in (dataclass(order=True), record(order=True)):
        with pytest.raises(TypeError, match="Cannot overwrite attribute __lt__"):

            @decorate
            class Ranked:
                n: int

                def __lt__(self, other):
                    return True
