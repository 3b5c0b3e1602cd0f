"""``JsonModel`` reads its fields' annotations as ``typing.get_type_hints`` does, without resolving
what is not a field (its string annotations here: this module has postponed annotations)."""

from __future__ import annotations

import subprocess
import sys
import typing
from typing import Annotated, Literal

import pytest

from pi_runtime.jsonmodel import Field, JsonModel, field_names


class Later(JsonModel):
    name: str = ""


class Plain(JsonModel):
    text: str = ""
    count: int | None = None
    nothing: None = None
    kind: Literal["a", "b"] = "a"
    limited: Annotated[int, Field(ge=0), "a note"] = 0
    later: Later | None = None
    laters: list[Later] = Field(default_factory=list)
    nested: dict[str, list["Later"]] = Field(default_factory=dict)  # noqa: UP037 - a string in the string, on purpose


class WithClassNames(Plain):
    Choice = Literal["x", "y"]
    """A name the class itself defines: ``get_type_hints`` finds it in the class namespace."""
    choice: Choice = "x"
    text: str = "again"  # a base field declared again


def _pi_models() -> list[type]:
    import pi_runtime.agent.tool
    import pi_runtime.ai.models_json
    import pi_runtime.ai.types
    import pi_runtime.settings_model
    import pi_runtime.tools  # noqa: F401 - the built-in tools' parameter classes

    found, todo = [], list(JsonModel.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return [cls for cls in found if cls.__module__.startswith(("pi_runtime", __name__))]


def _same(ours: object, theirs: object) -> bool:
    """Equal annotations; ``Annotated`` metadata made by a call (``Field(ge=0)``) is a new object at
    each evaluation, so it is compared by its type and constraints."""
    if typing.get_origin(ours) is Annotated and typing.get_origin(theirs) is Annotated:
        mine, other = typing.get_args(ours), typing.get_args(theirs)
        return len(mine) == len(other) and _same(mine[0], other[0]) and all(
            type(a) is type(b) and getattr(a, "constraints", a) == getattr(b, "constraints", b)
            for a, b in zip(mine[1:], other[1:]))
    return ours == theirs


@pytest.mark.parametrize("cls", _pi_models(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_field_annotations_are_what_get_type_hints_gives(cls: type) -> None:
    expected = typing.get_type_hints(cls, include_extras=True)
    fields = cls.model_fields  # type: ignore[attr-defined]
    different = [name for name, info in fields.items() if not _same(info.annotation, expected[name])]
    assert different == []
    assert field_names(cls) == list(fields)  # the names alone, read without compiling the class


def test_the_test_classes_cover_each_way_of_reading() -> None:
    fields = WithClassNames.model_fields  # type: ignore[attr-defined]
    assert fields["nothing"].annotation is type(None)
    assert fields["choice"].annotation == Literal["x", "y"]
    assert fields["nested"].annotation == dict[str, list[Later]]
    assert list(fields)[:2] == ["text", "count"] and fields["text"].default == "again"


def test_settings_classes_compile_nothing_when_first_used() -> None:
    # The base class's ``model_config: ClassVar[...]`` string was compiled for every class (21 per
    # ``pi -p``); the settings' own annotations are objects.
    script = (
        "import sys\n"
        "from pi_runtime.settings_model import Settings\n"
        "seen = []\n"
        "sys.addaudithook(lambda event, args: seen.append(args[0]) if event == 'compile' else None)\n"
        "Settings()\n"
        "print(len(seen), seen[:3])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0 []"
