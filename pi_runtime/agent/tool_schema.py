"""A tool's parameter schema as declared to the model: Pi's compact form of the same constraints.

Parameter models generate JSON schemas with what the model does not need to be told: titles,
``additionalProperties: false`` (arguments are validated here anyway), optional fields as
``anyOf [T, null]`` with ``default: null``, and nested models behind ``$defs`` references. Pi's
declarations have none of these; dropping them keeps every request as small as Pi's (an optional
field is simply not ``required``).
"""

from __future__ import annotations

import copy
from typing import Any


def declared_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without titles, ``additionalProperties: false``, nullable optionals and local ``$defs``.

    The result shares no dict or list with ``schema`` (a default value in it is the model's own):
    ``_compact`` builds every container anew, so only what it passes through is copied (a deep copy
    of the whole schema first was half the cost, twice per tool and run)."""
    defs = schema.get("$defs")
    out = _compact({k: v for k, v in schema.items() if k != "$defs"}, defs if isinstance(defs, dict) else {}, set())
    if isinstance(defs, dict) and _refers(out):
        out["$defs"] = copy.deepcopy(defs)  # a recursive model keeps its definitions
    return out


def _refers(value: Any) -> bool:
    if isinstance(value, dict):
        return isinstance(value.get("$ref"), str) or any(_refers(v) for v in value.values())
    if isinstance(value, list):
        return any(_refers(v) for v in value)
    return False


def _compact(node: Any, defs: dict[str, Any], resolving: set[str]) -> Any:
    if isinstance(node, list):
        return [_compact(item, defs, resolving) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/"):]
        if name in defs and name not in resolving:
            inlined = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return _compact(inlined, defs, resolving | {name})
        return copy.deepcopy(node)  # a reference left as it is (to a recursive model): a copy too
    node = {k: v for k, v in node.items() if k != "title" and not (k == "additionalProperties" and v is False)}
    variants = node.get("anyOf")
    if (isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants
            and "default" in node and node["default"] is None):
        other = next(v for v in variants if v != {"type": "null"})
        node = {**{k: v for k, v in node.items() if k not in ("anyOf", "default")}, **_compact(other, defs, resolving)}
    return {k: (_compact(v, defs, resolving) if k != "properties" else
                {name: _compact(p, defs, resolving) for name, p in v.items()} if isinstance(v, dict)
                else copy.deepcopy(v))
            for k, v in node.items()}
