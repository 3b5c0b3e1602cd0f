"""``@record`` behaves like ``@dataclass`` (it only generates less code)."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from typing import ClassVar

import msgspec
import pytest

from pi_runtime.records import complete_all, record


@record(slots=True)
class Point:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list, compare=False, repr=False)


@record(frozen=True, slots=True)
class Key:
    provider: str
    model: str
    note: str = dataclasses.field(default="", compare=False)


@record
class Node:
    name: str
    children: list[Node] = dataclasses.field(default_factory=list)


@record(slots=True)
class Shouty:
    word: str

    def __repr__(self) -> str:
        return self.word.upper()


@dataclasses.dataclass
class StdNode:
    name: str
    children: list = dataclasses.field(default_factory=list)


def test_repr_is_the_dataclass_repr():
    assert repr(Point(1, 2, ["a"])) == "Point(x=1, y=2)"
    assert repr(Key("p", "m")) == "Key(provider='p', model='m', note='')"
    node, std = Node("a"), StdNode("a")
    node.children.append(node)
    std.children.append(std)
    assert repr(node) == repr(std).replace("StdNode", "Node")  # a cycle prints "...", as dataclasses do


def test_equality_by_compared_fields_and_same_class_only():
    assert Point(1, 2, ["a"]) == Point(1, 2, ["b"])
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2) != (1, 2)
    nan = math.nan
    assert Point(nan) == Point(nan)  # the same object, as tuple comparison treats it
    assert Key("p", "m", "x") == Key("p", "m", "y")


def test_hashable_only_when_frozen():
    with pytest.raises(TypeError):
        hash(Point(1))
    assert {Key("p", "m", "a"): 1}[Key("p", "m", "b")] == 1
    assert hash(Key("p", "m")) == hash(("p", "m"))


def test_frozen_slots_fields_and_replace():
    key = Key("p", "m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        key.model = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Point(1).z = 3  # type: ignore[attr-defined]
    assert [f.name for f in dataclasses.fields(Key)] == ["provider", "model", "note"]
    assert dataclasses.replace(key, model="n") == Key("p", "n")
    assert dataclasses.asdict(Point(1, 2)) == {"x": 1, "y": 2, "tags": []}


def test_a_method_the_class_defines_wins():
    assert repr(Shouty("hi")) == "HI"


def test_an_undocumented_record_reads_the_docstring_dataclass_gives():
    @dataclasses.dataclass
    class Plain:
        x: int
        tags: list[str] = dataclasses.field(default_factory=list)

    @record(slots=True)
    class Plain2:
        x: int
        tags: list[str] = dataclasses.field(default_factory=list)

    assert Plain2.__doc__ == Plain.__doc__.replace("Plain", "Plain2")
    assert Plain2.__doc__ == "Plain2(x: 'int', tags: 'list[str]' = <factory>)"  # this module's annotations are strings
    assert Plain2(1).__doc__ == Plain2.__doc__
    assert Key.__doc__ == "Key(provider: 'str', model: 'str', note: 'str' = '')"


def test_a_record_without_slots_is_completed_when_first_used():
    from pi_runtime import records

    @record
    class Base:
        name: str
        tags: list[str] = dataclasses.field(default_factory=list)

    @record(frozen=True)
    class Frozen:
        n: int

    @record
    class Child(Base):
        size: int = 0

    class Plain(Child):
        pass

    assert Base in records._pending and Child in records._pending
    assert [f.name for f in dataclasses.fields(Plain)] == ["name", "tags", "size"]  # completes both
    assert Base not in records._pending and Child not in records._pending
    assert Child("a", ["t"], 2) == Child("a", ["t"], 2) and repr(Plain("b")).endswith("<locals>.Plain(name='b', tags=[], size=0)")
    assert Frozen.__doc__ == "Frozen(n: 'int')" and Frozen not in records._pending
    with pytest.raises(dataclasses.FrozenInstanceError):
        Frozen(1).n = 2  # type: ignore[misc]
    assert hash(Frozen(1)) == hash((1,))

    @record
    class Decoded:
        k: int
        v: str = ""

    assert msgspec.json.decode(b'{"k": 2}', type=Decoded) == Decoded(2)  # msgspec reads the fields first
    with pytest.raises(TypeError):
        Decoded()  # type: ignore[call-arg]


@record(frozen=True, slots=True)
class FrozenPair:
    left: str
    right: tuple[int, ...] = ()


def test_a_slotted_record_gets_its_slots_at_once_and_the_rest_on_first_use():
    from pi_runtime import records

    @record(slots=True)
    class Event:
        kind: ClassVar[str] = "event"
        index: int
        tags: list[str] = dataclasses.field(default_factory=list)
        text: str = "none"

    @record(slots=True)
    class Child(Event):
        size: int = 0
        text: str = "child"

    assert Event.__slots__ == ("index", "tags", "text") and Child.__slots__ == ("size",)
    assert Event in records._pending and Child in records._pending
    assert Event.kind == "event" and not hasattr(Event(1), "__dict__")
    assert Event not in records._pending and Child in records._pending
    assert [f.name for f in dataclasses.fields(Child)] == ["index", "tags", "text", "size"]
    made = Child(1)
    assert (made.index, made.tags, made.text, made.size) == (1, [], "child", 0)
    assert Event(2).text == "none" and Event(2).tags is not Event(2).tags
    assert type(Event.__dict__["text"]).__name__ == "member_descriptor"  # the slot is back after completing
    with pytest.raises(AttributeError):
        made.other = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        Event()  # type: ignore[call-arg]


def test_a_frozen_slotted_record_copies_and_pickles():
    import copy
    import pickle

    pair = FrozenPair("a", (1, 2))
    assert copy.copy(pair) == pair and copy.deepcopy(pair) == pair
    assert pickle.loads(pickle.dumps(pair)) == pair
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.left = "b"  # type: ignore[misc]


def test_what_only_dataclass_handles_is_done_at_once():
    from pi_runtime import records

    class Loose:  # no slots: dataclass gives the subclass slots for the inherited fields too
        pass

    @record(slots=True)
    class OnLoose(Loose):
        a: int

    @record(slots=True)
    class WithInitVar:
        a: int
        b: dataclasses.InitVar[int] = 0

        def __post_init__(self, b: int) -> None:
            self.a += b

    assert OnLoose not in records._pending and WithInitVar not in records._pending
    assert WithInitVar(1, 2).a == 3 and OnLoose(1).a == 1


def test_a_faulty_declaration_is_found_by_complete_all():
    @record
    class Faulty:
        a: int = 0
        b: int  # type: ignore[misc]  # a field without a default after one with a default

    with pytest.raises(TypeError, match="non-default argument 'b'"):
        complete_all()


def test_every_record_pi_declares_completes():
    """All of pi's modules imported, every record they declare completed: a faulty declaration
    shows here, not the first time some rarely used class is made."""
    script = (
        "import importlib, pkgutil, pi_runtime, pi_tui\n"
        "from pi_runtime.records import complete_all\n"
        "for package in (pi_runtime, pi_tui):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if '.testing' not in info.name and not info.name.endswith('__main__'):\n"
        "            importlib.import_module(info.name)\n"
        "print(complete_all())\n"
        # Each slotted record has the slots dataclass(slots=True) would have given it.
        "import dataclasses, sys\n"
        "for module in list(sys.modules.values()):\n"
        "    for cls in list(vars(module).values()) if module.__name__.startswith('pi_') else ():\n"
        "        if isinstance(cls, type) and '__record_repr__' in vars(cls) and '__slots__' in vars(cls):\n"
        "            inherited = {s for base in cls.__mro__[1:] for s in vars(base).get('__slots__', ())}\n"
        "            names = [f.name for f in dataclasses.fields(cls) if f.name not in inherited]\n"
        "            assert list(cls.__slots__) == names, (cls, cls.__slots__, names)\n"
        "            assert all(type(vars(cls)[n]).__name__ == 'member_descriptor' for n in names), cls\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 150
