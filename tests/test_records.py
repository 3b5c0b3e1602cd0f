"""``@record`` behaves like ``@dataclass`` (it only generates less code)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from pi_runtime.records import record


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
