"""JSON schemas of ``JsonModel`` classes, in the shape pydantic gave them.

Tool parameters reach the model as these schemas, so the shape is kept exactly as it was
when they were pydantic models (nested models under ``$defs``, optional fields as
``anyOf [..., null]`` with ``default``, bounds inside the non-null branch).
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any

from .fields import MISSING, FieldInfo

_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_BOUNDS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}


def model_schema(cls: Any) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    schema = _object(cls, defs)
    return {"$defs": defs, **schema} if defs else schema


def _object(cls: Any, defs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if cls.model_config.get("extra") == "forbid":
        out["additionalProperties"] = False
    doc = cls.__dict__.get("__doc__")
    if doc:
        out["description"] = inspect.cleandoc(doc)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, info in cls.model_fields.items():
        key = info.alias or name
        properties[key] = _field(info, key, defs)
        if info.is_required():
            required.append(key)
    out["properties"] = properties
    if required:
        out["required"] = required
    out["title"] = cls.__name__
    out["type"] = "object"
    return out


def _field(info: FieldInfo, key: str, defs: dict[str, Any]) -> dict[str, Any]:
    schema = _type(info.annotation, defs, info.constraints)
    if info.default is not MISSING and info.default_factory is None:
        schema["default"] = info.default
    if info.description:
        schema["description"] = info.description
    schema["title"] = key.title().replace("_", " ")
    return schema


def _type(tp: Any, defs: dict[str, Any], bounds: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        inner, *metadata = typing.get_args(tp)
        merged = dict(bounds)
        for meta in metadata:
            if isinstance(meta, FieldInfo):
                merged.update(meta.constraints)
        return _type(inner, defs, merged)
    if origin is typing.Union or origin is types.UnionType:
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        branches = [_type(m, defs, bounds) for m in members]
        if len(members) < len(typing.get_args(tp)):
            branches.append({"type": "null"})
        return {"anyOf": branches} if len(branches) > 1 else branches[0]
    if origin is typing.Literal:
        values = list(typing.get_args(tp))
        out: dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": values}
        kinds = {_TYPES.get(type(v)) for v in values}
        if len(kinds) == 1 and None not in kinds:
            out["type"] = kinds.pop()
        return out
    if origin is list or tp is list:
        args = typing.get_args(tp)
        out = {"items": _type(args[0], defs, {})} if args else {}
        if "min_length" in bounds:
            out["minItems"] = bounds["min_length"]
        out["type"] = "array"
        return out
    if origin is dict or tp is dict:
        args = typing.get_args(tp)
        out = {"additionalProperties": _type(args[1], defs, {})} if args and args[1] is not Any else {}
        out["type"] = "object"
        return out
    if tp in _TYPES:
        out = {k: bounds[b] for b, k in _BOUNDS.items() if b in bounds}
        if tp is str and "min_length" in bounds:
            out["minLength"] = bounds["min_length"]
        out["type"] = _TYPES[tp]
        return out
    if hasattr(tp, "_jm_spec"):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # placeholder first: a model may refer to itself
            defs[tp.__name__] = _object(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    return {}
