"""TypeScript declarations of tools for the model, from their JSON schemas (as Pi renders them).

``render_tool_sample`` is what the ``codemode`` description, ``describeTool()`` and ``ALL_TOOLS``
show for a tool: its description, then ``declare const tools: { name(args: T): Promise<R>; };``.
Objects render on one line (``{ a: string; b?: number; }``) with properties sorted by name, or one
property per line with ``//`` comments when a property has a description or constraints a type
cannot express (``// @integer @minimum 1 @default 20``). Local ``$ref``s are expanded; recursive and
remote ones render as ``unknown``. An input type over 16,000 characters is rendered again without
the constraint tags, and as ``unknown`` if it is still too long.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import unquote

INDENT = "  "
INPUT_MAX_CHARS = 16_000
MAX_REF_EXPANSIONS = 32
MAX_TAG_CHARS = 80
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_TAG_KEYWORDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength",
                 "maxLength", "pattern", "format", "minItems", "maxItems")
_LOWER = {"minimum", "exclusiveMinimum", "minLength", "minItems"}
_UPPER = {"maximum", "exclusiveMaximum", "maxLength", "maxItems"}
_LINE_BREAKS = re.compile("[\r\n\u2028\u2029]")


def to_identifier(name: str) -> str:
    """The name scripts use for a tool: characters not valid in a JS identifier become ``_``."""
    out: list[str] = []
    for char in name:
        valid = re.fullmatch(r"[A-Za-z_$]" if not out else r"[A-Za-z0-9_$]", char) is not None
        out.append(char if valid else "_")
    return "".join(out) or "_"


def js_number(value: float | int) -> str:
    """A number as JavaScript's ``String(n)`` writes it (``1``, not ``1.0``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa.removesuffix('.0')}e{sign}{int(exponent.lstrip('+-'))}"
    return text


def js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, numbers as JavaScript writes them."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{js_json(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)


def resolve_ref(ref: str, root: Any) -> Any:
    """The subschema a local ``$ref`` (``#``, ``#/$defs/Item``) names in ``root``, else None."""
    if ref != "#" and not ref.startswith("#/"):
        return None
    current = root
    for segment in (s for s in ref[2:].split("/") if s):
        try:
            key = unquote(segment, errors="strict").replace("~1", "/").replace("~0", "~")
        except UnicodeDecodeError:  # a malformed escape names nothing
            return None
        if not isinstance(current, dict) or key not in current:
            return None
        current = current[key]
    return current if isinstance(current, (dict, bool)) else None


def render_tool_signature(name: str, input_schema: Any, output_schema: Any) -> str:
    """``name(args: T): Promise<R>;`` with the name as scripts write it."""
    args = "unknown" if input_schema is None else schema_to_type(input_schema, INPUT_MAX_CHARS)
    return f"{to_identifier(name)}(args: {args}): Promise<{output_type(output_schema)}>;"


def render_tool_sample(name: str, description: str, input_schema: Any, output_schema: Any) -> str:
    """The tool's description, then its declaration in a ``ts`` fence."""
    declaration = f"declare const tools: {{ {render_tool_signature(name, input_schema, output_schema)} }};"
    return f"{(description or '').strip()}\n\ncodemode tool declaration:\n```ts\n{declaration}\n```"


def output_type(schema: Any) -> str:
    """The type a call resolves to (``unknown`` without a schema)."""
    return "unknown" if schema is None else schema_to_type(schema)


def schema_to_type(schema: Any, max_chars: int | None = None) -> str:
    """A JSON schema as a TypeScript type (see the module docstring)."""
    def render(tags: bool) -> str:
        return _Renderer(schema, tags).type(schema)

    text = render(True)
    if max_chars is None or len(text) <= max_chars:
        return text
    text = render(False)
    return text if len(text) <= max_chars else "unknown"


def _union(types: list[str]) -> str:
    unique = list(dict.fromkeys(types))
    if "unknown" in unique:
        return "unknown"
    return "never" if not unique else " | ".join(unique)


class _Renderer:
    def __init__(self, root: Any, tags: bool) -> None:
        self.root = root
        self.tags = tags
        self.resolving: set[str] = set()
        self.expansions = 0

    def type(self, schema: Any) -> str:
        if schema is True:
            return "unknown"
        if schema is False:
            return "never"
        if not isinstance(schema, dict):
            return "unknown"
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in self.resolving or self.expansions >= MAX_REF_EXPANSIONS:
                return "unknown"
            target = resolve_ref(ref, self.root)
            if target is None:
                return "unknown"
            self.expansions += 1
            self.resolving.add(ref)
            try:
                return self.type(target)
            finally:
                self.resolving.discard(ref)
        if "const" in schema:
            return js_json(schema["const"])
        if isinstance(schema.get("enum"), list):
            return _union([js_json(v) for v in schema["enum"]])
        variants = schema.get("anyOf") if isinstance(schema.get("anyOf"), list) else schema.get("oneOf")
        if isinstance(variants, list):
            return _union([self.type(v) for v in variants])
        if isinstance(schema.get("allOf"), list):
            parts = [p for p in (self.type(part) for part in schema["allOf"]) if p != "unknown"]
            return "unknown" if not parts else " & ".join(f"({p})" if " | " in p else p for p in parts)
        kind = schema.get("type")
        if isinstance(kind, list):
            return _union([self.type({**schema, "type": k}) for k in kind])
        if kind == "string":
            return "string"
        if kind in ("number", "integer"):
            return "number"
        if kind == "boolean":
            return "boolean"
        if kind == "null":
            return "null"
        if kind == "array":
            return self.array(schema)
        if kind == "object":
            return self.object(schema)
        if kind is None:
            if "properties" in schema or "additionalProperties" in schema or "required" in schema:
                return self.object(schema)
            if "items" in schema or "prefixItems" in schema:
                return self.array(schema)
        return "unknown"

    def array(self, schema: dict[str, Any]) -> str:
        items = schema.get("items")
        if items is not None and not isinstance(items, list):
            return f"Array<{self.type(items)}>"
        tuple_ = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else items
        if isinstance(tuple_, list) and tuple_:
            return "[" + ", ".join(self.type(item) for item in tuple_) + "]"
        return "unknown[]"

    def object(self, schema: dict[str, Any]) -> str:
        raw = schema.get("properties")
        properties: dict[str, Any] = raw if isinstance(raw, dict) else {}
        listed = schema.get("required")
        required = set(listed) if isinstance(listed, list) else set()
        names = sorted(properties)
        members = [f"{_key(n)}{'' if n in required else '?'}: {self.type(properties[n])};" for n in names]
        additional = schema.get("additionalProperties")
        has_additional = "additionalProperties" in schema
        if has_additional and additional is not False:
            members.append(f"[key: string]: {'unknown' if additional is True else self.type(additional)};")
        elif not has_additional and not names:
            members.append("[key: string]: unknown;")
        if not members:
            return "{}"
        comments = []
        for name in names:
            lines = [line.strip() for line in _LINE_BREAKS.split(_description(properties[name]))]
            lines = [line for line in lines if line]
            tags = _constraint_tags(properties[name]) if self.tags else ""
            comments.append([*lines, tags] if tags else lines)
        if not any(comments):
            return "{ " + " ".join(members) + " }"
        out = ["{"]
        for index, comment in enumerate(comments):
            out.extend(f"{INDENT}// {line}" for line in comment)
            out.append(INDENT + members[index].replace("\n", "\n" + INDENT))
        out.extend(INDENT + member for member in members[len(names):])
        out.append("}")
        return "\n".join(out)


def _key(name: str) -> str:
    return name if _IDENTIFIER.match(name) else json.dumps(name, ensure_ascii=False)


def _description(schema: Any) -> str:
    text = schema.get("description") if isinstance(schema, dict) else None
    return text.strip() if isinstance(text, str) else ""


def _constraint_tags(schema: Any) -> str:
    """``@integer @minimum 1 @default 20``: what a property's type cannot say."""
    if not isinstance(schema, dict):
        return ""
    variants = schema.get("anyOf") if isinstance(schema.get("anyOf"), list) else schema.get("oneOf")
    non_null = [v for v in variants if not (isinstance(v, dict) and v.get("type") == "null")] \
        if isinstance(variants, list) else []
    branches = [schema, non_null[0]] if len(non_null) == 1 and isinstance(non_null[0], dict) else [schema]
    schemas = []
    for branch in branches:
        copy = dict(branch)
        if copy.get("exclusiveMinimum") is True:
            copy["exclusiveMinimum"], copy["minimum"] = copy.get("minimum"), None
        if copy.get("exclusiveMaximum") is True:
            copy["exclusiveMaximum"], copy["maximum"] = copy.get("maximum"), None
        schemas.append(copy)
    tags = []

    def is_integer(kind: Any) -> bool:
        return kind == "integer" or (isinstance(kind, list) and "integer" in kind)

    if any(is_integer(s.get("type")) for s in schemas):
        tags.append("@integer")
    for keyword in _TAG_KEYWORDS:
        values = [s.get(keyword) for s in schemas]
        if keyword in _LOWER or keyword in _UPPER:
            numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if numbers:
                tags.append(f"@{keyword} {js_number(max(numbers) if keyword in _LOWER else min(numbers))}")
            continue
        for value in dict.fromkeys(v for v in values if isinstance(v, (str, int, float)) and not isinstance(v, bool)):
            tags.append(f"@{keyword} {js_number(value) if not isinstance(value, str) else value}")
    if any(s.get("uniqueItems") is True for s in schemas):
        tags.append("@uniqueItems")
    if schema.get("default") is not None:
        tags.append(f"@default {js_json(schema['default'])}")
    if schema.get("deprecated") is True:
        tags.append("@deprecated")
    return " ".join(_LINE_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", tag) for tag in tags if len(tag) <= MAX_TAG_CHARS)
