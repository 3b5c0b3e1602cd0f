"""``pi_runtime.jsonmodel`` against pydantic: the same declarations must validate, dump and
describe themselves alike, since pi's wire types, settings and tool parameters moved from one
to the other (and extensions may still bring pydantic models)."""

# No ``from __future__ import annotations``: the classes below are built in functions, so
# their annotations must be real objects, not strings to resolve later.

import copy
import pickle
from typing import Annotated, Any, Literal

import pydantic
import pydantic.alias_generators
import pytest

from pi_runtime import jsonmodel
from pi_runtime.jsonmodel import JsonModel, ValidationError

INPUTS = [True, False, 0, 1, 2, 3.0, 3.5, "3", " 4 ", "1.5", "true", "no", "x", "", None, [], {}, b"ab"]


def outcome(validate, value):
    try:
        return ("ok", validate(value))
    except (ValidationError, pydantic.ValidationError) as exc:
        return ("error", [(e["type"], tuple(e["loc"])) for e in exc.errors()])


def both(annotation_for, strict: bool):
    """One model with field ``v`` declared with each library."""

    def build(lib_base, lib_config):
        namespace = {"__annotations__": {"v": annotation_for}, "model_config": lib_config(strict=strict)}
        return type("M", (lib_base,), namespace)

    return build(JsonModel, jsonmodel.ConfigDict), build(pydantic.BaseModel, pydantic.ConfigDict)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("annotation", [str, int, float, bool, int | float, str | None, bool | Literal["auto"],
                                        Literal["a", "b"], list[str], dict[str, int], Any])
def test_scalars_and_containers_validate_as_pydantic_does(annotation, strict):
    ours, theirs = both(annotation, strict)
    for value in INPUTS:
        mine = outcome(lambda v: ours.model_validate({"v": v}).v, value)
        reference = outcome(lambda v: theirs.model_validate({"v": v}).v, value)
        assert mine[0] == reference[0], (annotation, strict, value, mine, reference)
        if mine[0] == "ok":
            assert mine[1] == reference[1] and type(mine[1]) is type(reference[1]), (annotation, value)
        else:
            assert mine[1][0][1][0] == "v"  # located at the field


class Inner(JsonModel):
    model_config = jsonmodel.ConfigDict(alias_generator=jsonmodel.to_camel, extra="allow")
    cache_read: int = 0
    note: str | None = None


class Outer(JsonModel):
    model_config = jsonmodel.ConfigDict(alias_generator=jsonmodel.to_camel, extra="allow")
    entry_id: str
    inner: Inner = jsonmodel.Field(default_factory=Inner)
    tags: list[str] = jsonmodel.Field(default_factory=list)
    size: Annotated[int, jsonmodel.Field(ge=0)] = 0


class PInner(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=pydantic.alias_generators.to_camel, populate_by_name=True,
                                       extra="allow")
    cache_read: int = 0
    note: str | None = None


class POuter(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=pydantic.alias_generators.to_camel, populate_by_name=True,
                                       extra="allow")
    entry_id: str
    inner: PInner = pydantic.Field(default_factory=PInner)
    tags: list[str] = pydantic.Field(default_factory=list)
    size: Annotated[int, pydantic.Field(ge=0)] = 0


@pytest.mark.parametrize("data", [
    {"entryId": "a"},
    {"entry_id": "a", "inner": {"cacheRead": 3, "newer": {"x": None}}, "extra": None},
    {"entryId": "a", "inner": {"cache_read": "7"}, "tags": ["x", "y"], "size": 4},
])
def test_dumps_match_pydantic(data):
    ours, theirs = Outer.model_validate(data), POuter.model_validate(data)
    for options in ({}, {"by_alias": True}, {"by_alias": True, "exclude_none": True},
                    {"by_alias": True, "exclude_unset": True}):
        assert ours.model_dump(**options) == theirs.model_dump(**options), options
    assert ours.model_fields_set == theirs.model_fields_set
    assert ours.model_extra == theirs.model_extra


@pytest.mark.parametrize("data", [
    {}, {"entryId": 5}, {"entryId": "a", "inner": 3}, {"entryId": "a", "tags": ["x", 2]}, {"entryId": "a", "size": -1},
])
def test_errors_are_located_like_pydantics(data):
    with pytest.raises(ValidationError) as ours:
        Outer.model_validate(data)
    with pytest.raises(pydantic.ValidationError) as theirs:
        POuter.model_validate(data)
    assert [(e["type"], e["loc"], e["msg"]) for e in ours.value.errors()] == \
        [(e["type"], e["loc"], e["msg"].replace("PInner", "Inner")) for e in theirs.value.errors()]


def test_defaults_are_not_shared_and_copies_are_independent():
    a, b = Outer(entry_id="a"), Outer(entry_id="b")
    a.tags.append("x")
    a.inner.cache_read = 9
    assert b.tags == [] and b.inner.cache_read == 0
    shallow, deep = a.model_copy(update={"entry_id": "c"}), a.model_copy(deep=True)
    deep.inner.cache_read = 1
    assert (shallow.entry_id, a.entry_id, a.inner.cache_read) == ("c", "a", 9)
    assert copy.deepcopy(a) == a and pickle.loads(pickle.dumps(a)) == a
    assert shallow != a and Outer(entry_id="a") == Outer(entryId="a")


def test_extra_forbid_and_unknown_attribute():
    class Strict(JsonModel):
        model_config = jsonmodel.ConfigDict(extra="forbid")
        path: str

    with pytest.raises(ValidationError) as exc:
        Strict.model_validate({"path": "x", "pth": "y"})
    assert [(e["type"], e["loc"]) for e in exc.value.errors()] == [("extra_forbidden", ("pth",))]
    kept = Outer.model_validate({"entryId": "a", "later": 1})
    assert kept.later == 1
    with pytest.raises(AttributeError):
        _ = kept.missing


def test_tool_parameter_schema_matches_pydantics():
    class Item(JsonModel):
        """One item."""
        old_text: str = jsonmodel.Field(alias="oldText", description="old")

    class Params(JsonModel):
        model_config = jsonmodel.ConfigDict(extra="forbid")
        path: str = jsonmodel.Field(description="where")
        timeout: float | None = jsonmodel.Field(default=None, gt=0, le=10, description="seconds")
        mode: Literal["a", "b"] = "a"
        items: list[Item] = jsonmodel.Field(min_length=1, description="edits")

    class PItem(pydantic.BaseModel):
        """One item."""
        old_text: str = pydantic.Field(alias="oldText", description="old")

    class PParams(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="forbid")
        path: str = pydantic.Field(description="where")
        timeout: float | None = pydantic.Field(default=None, gt=0, le=10, description="seconds")
        mode: Literal["a", "b"] = "a"
        items: list[PItem] = pydantic.Field(min_length=1, description="edits")

    ours, theirs = Params.model_json_schema(), PParams.model_json_schema()
    theirs["$defs"]["Item"] = {**theirs["$defs"].pop("PItem"), "title": "Item"}
    theirs["properties"]["items"]["items"]["$ref"] = "#/$defs/Item"
    theirs["title"] = "Params"
    assert ours == theirs


def test_a_subclass_that_declares_a_base_field_again_keeps_its_place_and_gives_its_default():
    # As pydantic: the field stays where the base put it; the most derived declaration decides.
    def declare(base, model_field):
        class Base(base):
            first: int = 1
            second: str = model_field(default="base", alias="secondBase")
            third: bool = True

        class Child(Base):
            second: str = model_field(default="child", alias="secondChild")
            fourth: int = 4

        return Child

    ours, theirs = declare(JsonModel, jsonmodel.Field), declare(pydantic.BaseModel, pydantic.Field)
    assert list(ours.model_fields) == list(theirs.model_fields) == ["first", "second", "third", "fourth"]
    assert ours.model_fields["second"].alias == theirs.model_fields["second"].alias == "secondChild"
    assert ours().model_dump() == theirs().model_dump() == {"first": 1, "second": "child", "third": True, "fourth": 4}
