"""A tool's declared parameter schema (``agent.tool_schema``): Pi's compact form, sharing nothing
with the model's own schema (its defaults are the model's values)."""

from pi_runtime.agent.tool_schema import declared_schema
from pi_runtime.jsonmodel import Field, JsonModel
from pi_runtime.tools import create_all_tools


class Node(JsonModel):
    """A tree, to keep its definitions."""

    label: str
    tags: list[str] = Field(default=["x"], description="Labels.")
    children: list["Node"] = Field(default_factory=list)  # it refers to itself
    note: str | None = None


def _containers(value: object, found: dict[int, object]) -> dict[int, object]:
    if isinstance(value, dict):
        found[id(value)] = value
        for item in value.values():
            _containers(item, found)
    elif isinstance(value, list):
        found[id(value)] = value
        for item in value:
            _containers(item, found)
    return found


def test_the_declared_schema_is_pis_compact_form_and_shares_nothing() -> None:
    source = Node.model_json_schema()
    declared = declared_schema(source)
    assert declared["properties"]["note"] == {"type": "string"}  # no anyOf null, default or title
    assert declared["properties"]["tags"] == {"default": ["x"], "description": "Labels.", "items": {"type": "string"},
                                              "type": "array"}
    assert "$defs" in declared and declared["required"] == ["label"]  # recursive: its definitions stay
    assert set(_containers(declared, {})).isdisjoint(_containers(source, {}))
    declared["properties"]["tags"]["default"].append("changed")
    assert Node.model_fields["tags"].default == ["x"]


def test_every_built_in_tool_schema_is_a_fresh_object() -> None:
    for tool in create_all_tools("/"):
        first, second = tool.parameters_schema(), tool.parameters_schema()
        assert first == second and first["type"] == "object"
        assert set(_containers(first, {})).isdisjoint(_containers(second, {})), tool.name
