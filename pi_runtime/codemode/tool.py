"""The ``codemode`` tool's declaration: its description, and how it changes the other declarations.

While ``codemode`` is active, ``codemode.mode`` decides how the tools scripts can call are shown:

- ``on`` (default): declared tools stay declared, their descriptions end with how a script calls
  them (``Codemode: `tools.read(args)` resolves to ...``), and the ``codemode`` description lists
  only callable tools that are not ``direct``;
- ``only``: the ``codemode`` description lists every callable tool, and active ``direct`` tools are
  left out of the model's declarations (still callable from scripts).

``deferred`` tools (MCP's default) are never listed, so the description does not change as MCP
servers connect; listed tools share ``codemode.inlineBudget`` estimated tokens (3000).
The texts are Pi 1.6's, word for word, so a model sees the same tool in pi and in Pi.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .declarations import output_type, render_tool_sample, resolve_ref, to_identifier
from .search import Namespace

TOOL_NAME = "codemode"
STORE_ENTRY_TYPE = "codemode-store"
DEFAULT_INLINE_BUDGET = 3000
CHARS_PER_TOKEN = 4
PROMPT_SNIPPET = "Run JavaScript that calls other tools"
PROMPT_GUIDELINES = (
    "Use codemode to batch independent tool calls (Promise.allSettled), chain them, or filter large output, "
    "instead of many separate calls.",
)
CODE_DESCRIPTION = "Raw JavaScript source."
TEXT_OUTPUT_SCHEMA: dict[str, Any] = {"type": "string"}

_INTRO = """Run JavaScript that calls other tools. The input is raw JavaScript (not JSON, no code fence), run as an async function body in a QuickJS sandbox: top-level `await` and `return` work. No Node, file system, network, or timers.
- `await tools.<name>({ ...args })` resolves to a string, or an object if the tool's declaration says so, and rejects with an Error on failure. A tool whose declaration returns an object resolves on failure too when it returned that object; check its fields. Calls still running when the script ends are cancelled.
- Optional first line: `// @options: {"max_output_tokens": 10000, "timeout_ms": 60000}`"""


def docs_path() -> str:
    """Where pi's codemode reference lives (named in the description, as Pi names its own)."""
    from ..resources.own_docs import find_own_docs

    docs = find_own_docs()
    return str(docs.docs / "codemode.md") if docs is not None else "docs/codemode.md"


def globals_text(models: bool) -> str:
    lines = [
        "Globals:",
        "- `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)`, and top-level `return` add output; "
        "`exit()` ends the script. With several text items, each starts with a `==> text N/M <==` line, and "
        "`console` lines follow the other output in one `<console_output>` block. `image()` also saves the image "
        "to a temp file and the result names its path.",
        "- `store(key, value)` and `load(key)` keep JSON values across codemode calls.",
        "- `ALL_TOOLS`, `await searchTools(query, { limit?, namespace? })`, `await describeTool(name)`, "
        "`await describeNamespace(name)`: find unlisted tools, such as MCP tools.",
    ]
    if models:
        lines.append(f"- `models`: classifiers and image generation. Read {docs_path()} first.")
    return "\n".join(lines)


@dataclass
class ToolInfo:
    """What the description needs of one callable tool."""

    name: str
    description: str
    parameters: Any
    output_schema: Any = None
    exposure: str = "direct"
    namespace: Namespace | None = None
    guidelines: Sequence[str] = field(default_factory=tuple)

    @classmethod
    def of(cls, tool: Any, guidelines: Sequence[str] = ()) -> ToolInfo:
        from ..extensions.toolset import exposure_of

        return cls(tool.name, tool.description or "", tool.parameters_schema(), getattr(tool, "output_schema", None),
                   exposure_of(tool), getattr(tool, "namespace", None), tuple(guidelines))

    def script_description(self) -> str:
        """The description followed by the prompt guidelines (scripts do not see the system prompt's)."""
        bullets = [f"- {g.strip()}" for g in self.guidelines if g.strip()]
        return f"{self.description.strip()}\n\n" + "\n".join(bullets) if bullets else self.description

    def sample(self) -> str:
        """Description and TypeScript declaration: ``ALL_TOOLS``, ``describeTool()``, the listing."""
        return render_tool_sample(self.name, self.script_description(), self.parameters,
                                  self.output_schema or TEXT_OUTPUT_SCHEMA)


def _section(tool: ToolInfo) -> str:
    ident = to_identifier(tool.name)
    heading = f"### `{ident}`" if ident == tool.name else f"### `{ident}` (`{tool.name}`)"
    return f"{heading}\n{tool.sample().strip()}"


def describe(tools: Sequence[ToolInfo], *, models: bool = False, inline_budget: int | None = None) -> str:
    """The ``codemode`` description listing ``tools`` (deferred ones left out), grouped by namespace."""
    listed = [t for t in tools if t.name != TOOL_NAME and t.exposure != "deferred"]
    sections = [_INTRO, globals_text(models)]
    if not listed:
        return "\n\n".join(sections)
    groups: dict[str, tuple[Namespace | None, list[tuple[str, str, int]]]] = {"": (None, [])}
    for tool in listed:
        key = f"ns:{tool.namespace.name}" if tool.namespace else ""
        group = groups.setdefault(key, (tool.namespace, []))
        text = _section(tool)
        group[1].append((tool.name, text, math.ceil(len(text) / CHARS_PER_TOKEN)))
    ordered = sorted(groups.values(), key=lambda g: (g[0] is not None, g[0].name if g[0] else ""))
    shown = _fit(ordered, inline_budget)
    out = ["Nested tools:"]
    for namespace, entries in ordered:
        visible = [e for e in entries if e[0] in shown]
        if namespace is not None:
            listing = "" if len(visible) == len(entries) else \
                " (tools not listed)" if not visible else " (some tools not listed)"
            note = (namespace.description or "").strip()
            out.append(f"## {namespace.name}{listing}" + (f"\n{note}" if note else ""))
        out.extend(e[1] for e in visible)
    sections.append("\n\n".join(out))
    return "\n\n".join(sections)


def _fit(groups: list[tuple[Namespace | None, list[tuple[str, str, int]]]], budget: int | None) -> set[str]:
    """Which sections fit: each round every group places its cheapest remaining tool, and a group whose
    next tool does not fit drops out, so every namespace shows before any is complete."""
    if budget is None:
        return {e[0] for _, entries in groups for e in entries}
    queues = [sorted(entries, key=lambda e: e[2]) for _, entries in groups]
    shown: set[str] = set()
    remaining = budget
    active = [q for q in queues if q]
    while active:
        still = []
        for queue in active:
            name, _text, cost = queue[0]
            if cost > remaining:
                continue
            remaining -= cost
            shown.add(name)
            queue.pop(0)
            if queue:
                still.append(queue)
        active = still
    return shown


# ----------------------------------------------------------------------------- declared tools' notes


def _follow(schema: Any, root: Any) -> Any:
    seen: list[Any] = []
    current = schema
    while isinstance(current, dict) and not any(current is s for s in seen) and isinstance(current.get("$ref"), str):
        target = resolve_ref(current["$ref"], root)
        if target is None:
            break
        seen.append(current)
        current = target
    return current


def _fields(schema: Any, root: Any, depth: int) -> str | None:
    """``{ output, exit_code, full_output_path? }`` with object fields ``depth`` levels deep and const values."""
    from .declarations import js_json

    resolved = _follow(schema, root)
    if not isinstance(resolved, dict) or resolved.get("type") != "object" or not isinstance(resolved.get("properties"), dict):
        return None
    required = set(resolved["required"]) if isinstance(resolved.get("required"), list) else set()
    parts = []
    for name, prop in resolved["properties"].items():
        target = _follow(prop, root)
        if isinstance(target, dict) and "const" in target:
            nested: str | None = js_json(target["const"])
        else:
            nested = _fields(prop, root, depth - 1) if depth > 0 else None
        parts.append(f"{name}{'' if name in required else '?'}{': ' + nested if nested else ''}")
    return "{ " + ", ".join(parts) + " }"


def _union_fields(schema: Any, root: Any) -> str | None:
    resolved = _follow(schema, root)
    if not isinstance(resolved, dict):
        return None
    variants = resolved.get("anyOf") if resolved.get("anyOf") is not None else resolved.get("oneOf")
    if not isinstance(variants, list) or not variants:
        return None
    described = [_fields(v, root, 0) for v in variants]
    return None if any(d is None for d in described) else " | ".join(d for d in described if d)


def describe_output(name: str, schema: Any) -> str:
    """What a script call resolves to, in a few words."""
    rendered = output_type(schema)
    if rendered == "string":
        return "a string"
    fields = None if schema is None else (_fields(schema, schema, 1) or _union_fields(schema, schema))
    if fields:
        return f"`{fields}`"
    if "\n" not in rendered:
        return f"`{rendered}`"
    return f'a value; `await describeTool("{name}")` shows its type'


def script_call_note(tool: ToolInfo) -> str:
    """A declared tool's description followed by how a script calls it (``on`` mode)."""
    resolves = describe_output(tool.name, tool.output_schema or TEXT_OUTPUT_SCHEMA)
    return f"{tool.description.strip()}\n\nCodemode: `tools.{to_identifier(tool.name)}(args)` resolves to {resolves}."


@dataclass
class Loadout:
    """How the active ``codemode`` changes the declarations: new descriptions, and hidden tools."""

    descriptions: dict[str, str]
    hidden: list[str]


def prepare_loadout(declared: Sequence[Any], callable_: Sequence[Any], *, mode: str, inline_budget: int | None,
                    models: bool, guidelines: Callable[[str], Sequence[str]]) -> Loadout:
    """Pi's ``prepareLoadout`` for the codemode tool (see the module docstring).

    Args:
        declared: The active tools (declared to the model).
        callable_: The tools scripts can call (active ``direct`` ones and every ``deferred`` one).
        mode: ``codemode.mode``.
        inline_budget: ``codemode.inlineBudget``.
        models: Whether ``models`` is offered to scripts.
        guidelines: A tool's prompt guidelines.
    """
    infos = [ToolInfo.of(t, guidelines(t.name)) for t in callable_ if t.name != TOOL_NAME]
    names = {i.name for i in infos}
    descriptions: dict[str, str] = {}
    if mode != "only":
        for tool in declared:
            if tool.name in names:
                descriptions[tool.name] = script_call_note(ToolInfo.of(tool))
    listed = infos if mode == "only" else [i for i in infos if i.exposure != "direct"]
    descriptions[TOOL_NAME] = describe(listed, models=models, inline_budget=inline_budget)
    declared_names = {t.name for t in declared}
    hidden = [i.name for i in infos if mode == "only" and i.exposure == "direct" and i.name in declared_names]
    return Loadout(descriptions, hidden)
