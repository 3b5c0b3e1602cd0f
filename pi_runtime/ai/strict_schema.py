"""Strict tool schemas: the subset of JSON Schema that OpenAI's constrained sampling accepts.

A tool that declares ``constrainedSampling: {"type": "json_schema", "strict": "prefer"}`` (Pi's
built-in tools do) is sent with ``strict: true`` by the providers that have a strict mode, its
schema rewritten as that mode requires: every property listed in ``required`` (an optional one
then also accepts null), ``additionalProperties: false`` on every object. A schema that cannot
be made strict (``$ref``, ``oneOf``, untyped nodes, ...) is sent as it is, not strict, unless
the tool says ``"require"``; then the request fails with the reason, as in Pi 1.6.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from .types import Tool

_UNSUPPORTED_KEYS = (
    "$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties", "dependentSchemas",
    "dependencies", "unevaluatedProperties", "propertyNames", "contains", "prefixItems", "not",
    "if", "then", "else",
)


class NotStrictable(ValueError):
    """The schema uses something strict mode does not accept; ``str()`` says what."""


def _types(node: dict[str, Any]) -> list[Any]:
    kind = node.get("type")
    return [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list) else []


def _structured(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kinds = _types(node)
    return "object" in kinds or "array" in kinds or "properties" in node or "items" in node


def _allows_null(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    if node.get("type") == "null" or "null" in _types(node):
        return True
    if "const" in node and node["const"] is None:
        return True
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        return True
    return isinstance(node.get("anyOf"), list) and any(_allows_null(v) for v in node["anyOf"])


Refuses = Callable[[str, Any], bool]
"""A provider's extra test: whether its strict mode refuses a keyword with this value."""


def _make_strict(node: Any, refuses: Refuses | None = None) -> None:
    """Rewrite ``node`` in place, or raise ``NotStrictable``."""
    if not isinstance(node, dict):
        raise NotStrictable("boolean schemas are unsupported")
    for key in _UNSUPPORTED_KEYS:
        if node.get(key) is not None:
            raise NotStrictable(f"{key} schemas are unsupported")
    if refuses is not None:
        for key, value in node.items():
            if refuses(key, value):
                raise NotStrictable(f"{key}: {json.dumps(value)} is unsupported")
    if "type" not in node and "anyOf" not in node and "enum" not in node:
        raise NotStrictable("schemas without a type are unsupported")
    if "anyOf" in node:
        variants = node["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise NotStrictable("anyOf must contain at least one schema")
        for variant in variants:
            if _structured(variant):
                raise NotStrictable("object and array unions are unsupported")
            _make_strict(variant, refuses)
    if "items" in node:
        if isinstance(node["items"], list):
            raise NotStrictable("tuple schemas are unsupported")
        _make_strict(node["items"], refuses)
    is_object = node.get("type") == "object"
    if "properties" in node and not is_object:
        raise NotStrictable("properties require type object")
    if not is_object:
        return
    if node.get("additionalProperties", False) is not False:
        raise NotStrictable("schema-valued or true additionalProperties is unsupported")
    properties = node.get("properties", {})
    if not isinstance(properties, dict):
        raise NotStrictable("object properties must be a schema map")
    required = node.get("required", [])
    if not isinstance(required, list) or any(not isinstance(k, str) for k in required):
        raise NotStrictable("object required must be a string array")
    if any(k not in properties for k in required):
        raise NotStrictable("required contains an unknown property")
    for name, prop in list(properties.items()):
        _make_strict(prop, refuses)
        if name not in required and not _allows_null(prop):
            properties[name] = {"anyOf": [prop, {"type": "null"}]}
    node["required"] = list(properties)
    node["additionalProperties"] = False


def strict_schema(schema: dict[str, Any], refuses: Refuses | None = None) -> dict[str, Any]:
    """A strict copy of ``schema`` (the original is left alone).

    Raises:
        NotStrictable: the schema cannot be expressed in strict mode (or uses what ``refuses`` refuses).
    """
    copied = copy.deepcopy(schema)
    if not isinstance(copied, dict):
        raise NotStrictable("root schema must have type object")
    _make_strict(copied, refuses)
    if copied.get("type") != "object":
        raise NotStrictable("root schema must have type object")
    return copied


def strict_choice(tool: Tool, supports_strict: bool, refuses: Refuses | None = None) -> bool | None:
    """Whether ``tool`` goes strict: True, or None when its declaration does not decide (``refuses``:
    keywords the provider's strict mode refuses besides the common ones, e.g. Anthropic's ``maximum``).

    Raises:
        ValueError: the tool requires strict sampling and cannot have it (the request fails).
    """
    config = tool.constrained_sampling
    if not isinstance(config, dict) or config.get("type") != "json_schema":
        return None
    if supports_strict:
        try:
            strict_schema(tool.parameters, refuses)
            return True
        except NotStrictable as exc:
            if config.get("strict") != "require":
                return None
            raise ValueError(f'Tool "{tool.name}" requires JSON-schema constrained sampling, but {exc}.') from None
    if config.get("strict") == "require":
        raise ValueError(f'Tool "{tool.name}" requires JSON-schema constrained sampling, but strict tools are unsupported.')
    return None


def tool_parameters(tool: Tool, strict: bool | None) -> dict[str, Any]:
    """The parameters to send: the strict rewrite when ``strict`` is True."""
    return strict_schema(tool.parameters) if strict is True else tool.parameters
