"""`@record` keeps what the code relies on from a dataclass, as a msgspec Struct: each case builds
the same class both ways, or checks a record's own additions (fields left out of equality, hash,
ordering and repr; a field's name in stored data; field lists and defaults read without
`dataclasses`)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass, field

import msgspec
import pytest

from schemacite.model.record import MISSING, default, fields, is_record, record, replace


def _twins(**options):
    def build(decorate):
        ns: dict = {"__module__": __name__, "__qualname__": "Thing"}
        ns["__annotations__"] = {"a": "int", "b": "str", "seq": "int"}
        ns.update(b="x", seq=field(default=0, compare=False, repr=False))
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
def test_record_behaves_as_the_same_dataclass(options):
    plain, rec = _twins(**options)
    make = (lambda cls, **kw: cls(a=1, **kw)) if options.get("kw_only") else (lambda cls, **kw: cls(1, **kw))
    assert issubclass(rec, msgspec.Struct) and is_record(rec) and is_record(plain)
    for cls in (plain, rec):
        one, same, other = make(cls), make(cls, seq=9), make(cls, b="y")
        assert one == same and one != other
    assert replace(make(rec), b="y") == make(rec, b="y") and make(rec) != make(plain)
    assert repr(make(rec)) == repr(make(plain)) == "Thing(a=1, b='x')"
    if options.get("frozen"):
        assert hash(make(rec)) == hash(make(rec, seq=3)) and hash(make(rec)) != hash(make(rec, b="y"))
        with pytest.raises(AttributeError):
            make(rec).a = 2
    else:
        assert rec.__hash__ is None is plain.__hash__  # unhashable, as a mutable dataclass
    copied = copy.deepcopy(make(rec, seq=7))  # copies keep every field, the uncompared one too
    assert copied == make(rec) and copied.seq == 7 and copy.copy(copied).seq == 7
    if options.get("order"):
        for cls in (plain, rec):
            assert make(cls) < make(cls, b="y") <= make(cls, b="y", seq=1) and make(cls, b="y") > make(cls)
            assert sorted([make(cls, b="z"), make(cls, b="a")]) == [make(cls, b="a"), make(cls, b="z")]
        with pytest.raises(TypeError):
            make(rec) < make(plain)  # noqa: B015 - only objects of the same class compare
    else:
        with pytest.raises(TypeError):
            make(rec) < make(rec)  # noqa: B015


def test_a_struct_without_fields_left_out_compares_and_hashes_in_c():
    @record(frozen=True)
    class Place:
        file: str
        line: int = 0

    # msgspec's own methods: nothing of Python's is called to compare or hash a place
    assert Place.__eq__ is msgspec.Struct.__eq__ and Place.__hash__ is msgspec.Struct.__hash__
    assert Place("a", 1) == Place("a", 1) != Place("a", 2) and hash(Place("a", 1)) == hash(Place("a", 1))


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


def test_subclass_compares_its_own_fields_and_keeps_its_defaults():
    @record
    class Base:
        a: int
        tags: list = field(default_factory=list, compare=False)

    @record
    class Child(Base):
        b: int = 0
        seen: list = field(default_factory=list)

    assert (
        Child(1, [], 2) != Child(1, [], 3)
        and Base(1) != Child(1)
        and repr(Child(1)) == "Child(a=1, tags=[], b=0, seen=[])"
    )
    assert Child(1, [5]) == Child(1, [6])  # the base's field left out is left out in the subclass too
    assert Child(1).seen is not Child(1).seen and Child(1).seen == []


def test_init_keeps_defaults_factories_post_init_and_keywords():
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

    child = Child(1, b=5)
    assert (child.a, child.tags, child.b, child.seen) == (1, [], 5, [6])
    assert Base(3).tags is not Base(3).tags  # a new list each time, as default_factory says
    assert replace(child, b=1).seen == [6, 2]  # replace runs __post_init__ again, as dataclasses.replace does
    with pytest.raises(TypeError):
        Child(1, [], 5)  # b is keyword-only
    with pytest.raises(TypeError):
        Base()  # a is required


def test_a_field_outside_init_is_refused():
    with pytest.raises(TypeError, match="init=False"):

        @record
        class Thing:
            a: int = field(default=0, init=False)


def test_frozen_record_refuses_assignment_deletion_and_new_attributes():
    @record(frozen=True)
    class Base:
        a: int

    @record(frozen=True)
    class Child(Base):
        b: int = 0

    child = Child(1, 2)
    for target in (child, Base(1)):
        with pytest.raises(AttributeError):
            target.a = 5
        with pytest.raises(AttributeError):
            del target.a
        with pytest.raises(AttributeError):
            target.other = 1
    assert replace(child, b=3) == Child(1, 3) and child.b == 2


def test_a_mutable_record_takes_an_attribute_of_its_own_unless_slotted():
    @record
    class Loose:
        a: int

    @record(slots=True)
    class Tight:
        a: int

    loose = Loose(1)
    loose.note = "kept"
    assert loose.note == "kept" and loose == Loose(1)
    with pytest.raises(AttributeError):
        Tight(1).note = "x"


def test_an_ordered_record_refuses_ordering_methods_of_its_own_as_dataclass_does():
    for decorate in (dataclass(order=True), record(order=True)):
        with pytest.raises(TypeError, match="__lt__"):

            @decorate
            class Ranked:
                n: int

                def __lt__(self, other):
                    return True


def test_fields_and_defaults_are_read_without_dataclasses():
    @record
    class Quoted:
        text: str
        tags: list = field(default_factory=list)
        count: int = 3
        quotes: tuple = field(default=(), metadata={"key": "quote"})

    got = fields(Quoted)
    assert [(f.name, f.key) for f in got] == [
        ("text", "text"),
        ("tags", "tags"),
        ("count", "count"),
        ("quotes", "quote"),
    ]
    assert got[0].default is MISSING is got[0].default_factory and got[1].default_factory is list
    assert (default(Quoted, "count"), default(Quoted, "tags"), default(Quoted, "quotes")) == (3, [], ())
    with pytest.raises(AttributeError):
        default(Quoted, "text")
    assert fields(Quoted("x")) == got  # from an object as from its class


def test_records_pickle_back_to_the_same_class():
    restored = pickle.loads(pickle.dumps(Sample("a", (1, 2), 5)))
    assert type(restored) is Sample and restored == Sample("a", (1, 2)) and restored.seq == 5


@record(frozen=True, slots=True)
class Sample:
    name: str
    values: tuple = ()
    seq: int = field(default=0, compare=False)
