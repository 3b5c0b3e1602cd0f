"""Server tools as agent tools named ``mcp__<server>__<tool>`` (mcp.md, "Control tool exposure").

A tool's parameters are the server's JSON schema as it is (made an object schema with
``properties``, as providers require); the server validates the arguments. Every call goes through
the agent's tool pipeline, so extension ``tool_call``/``tool_result`` hooks and permission gates
apply. An ``isError`` result is an error result for the model; progress notifications become
tool updates; aborting the run cancels the request.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable
from typing import Any

from ..agent.tool import AgentTool, ToolError, ToolResult
from ..ai.abort import AbortSignal
from ..ai.types import TextContent
from ..jsonmodel import ConfigDict, JsonModel
from ..text_safety import terminal_safe
from .connection import McpConnection
from .content import result_content

MAX_TOOL_NAME = 64
"""Providers accept tool names of at most 64 characters of ``[A-Za-z0-9_-]``."""
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


class McpArguments(JsonModel):
    """Whatever object the model sends; the server checks it against its own schema."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str, taken: Callable[[str], bool] = lambda _name: False) -> str:
    """``mcp__<server>__<tool>`` with every character but ``[A-Za-z0-9_]`` as ``_``; a name that
    is too long or ``taken`` by another tool gets an 8-character hash suffix."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME and not taken(name):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[:MAX_TOOL_NAME - len(digest) - 1]}_{digest}"


def input_schema(schema: Any) -> dict[str, Any]:
    """The tool's input schema as an object schema with ``properties`` (other keywords kept)."""
    out = dict(schema) if isinstance(schema, dict) else {}
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    return out


def validation_summary(exc: Exception, shown: int = 3) -> str:
    """The first problems of a pydantic ``ValidationError`` on one line each (else its first line)."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc).split("\n", 1)[0]
    problems = errors()
    lines = [f"{'.'.join(str(p) for p in e.get('loc', ())) or 'result'}: {e.get('msg')}" for e in problems[:shown]]
    more = f" (and {len(problems) - shown} more)" if len(problems) > shown else ""
    return "; ".join(lines) + more


async def cancellable(work: Any, signal: AbortSignal | None) -> Any:
    """Await ``work``; an abort of ``signal`` cancels it (the server gets a cancellation)."""
    task = asyncio.ensure_future(work)
    remove = signal.add_listener(task.cancel) if signal is not None else None
    try:
        return await task
    except asyncio.CancelledError:
        if signal is not None and signal.aborted:
            raise ToolError("Aborted") from None
        raise
    finally:
        if remove is not None:
            remove()


class McpTool(AgentTool):
    """One server tool.

    Args:
        connection: The server.
        definition: The tool as the server listed it (wire form).
        name: Its agent name (:func:`tool_name`).
        exposure: ``direct``, ``codemode``, ``deferred`` or ``hidden`` (its effective exposure).
        readable_resources: Whether resource links can be read with ``read_mcp_resource``.
    """

    Params = McpArguments
    withdrawn = False
    """Set when the server stopped offering the tool (a call then fails)."""
    default_active = True
    """Registered active (declared to the model) unless its exposure or ``--tools`` say otherwise."""

    def __init__(self, connection: McpConnection, definition: dict[str, Any], name: str, exposure: str,
                 readable_resources: Callable[[], bool] = lambda: False) -> None:
        server, tool = connection.name, str(definition["name"])
        annotations = definition.get("annotations") or {}
        title = definition.get("title") or annotations.get("title")
        self.name = name  # type: ignore[misc]
        self.label = terminal_safe(f"{server}/{tool}")  # type: ignore[misc]  # shown in tool blocks
        self.description = (  # type: ignore[misc]
            str(definition.get("description") or "").strip() or title or f"MCP tool {tool} from server {server}"
        )
        self.server = server
        """The server's name."""
        self.tool = tool
        """The tool's name on its server."""
        self.exposure = exposure
        """How the tool reaches the model."""
        self.annotations = {h: annotations[h] for h in ANNOTATION_HINTS if isinstance(annotations.get(h), bool)}
        """The server's boolean hints (``readOnlyHint``...), for permission extensions."""
        self._schema = input_schema(definition.get("inputSchema"))
        self._connection = connection
        self._readable = readable_resources
        self.output_schema = result_schema(definition.get("outputSchema"))

    @property
    def namespace(self) -> Any:
        """The server as codemode's ``describeNamespace()`` and search see it (a ``Namespace``)."""
        from ..codemode.search import Namespace
        from .config import namespace

        description = str(self._connection.entry.config.get("description") or "").strip() or None
        return Namespace(namespace(self.server), description, self._connection.instructions, (self.server,))

    def parameters_schema(self) -> dict[str, Any]:
        return self._schema

    async def execute(self, call_id: str, params: Any, signal: AbortSignal | None, on_update: Any) -> ToolResult:
        if self.withdrawn:
            raise ToolError(f'MCP server "{self.server}" no longer offers the tool {self.tool}')
        arguments = params.model_dump() if isinstance(params, JsonModel) else dict(params or {})
        details: dict[str, Any] = {"server": self.server, "tool": self.tool}

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if on_update is not None:
                text = message or f"Progress {value:g}" + (f"/{total:g}" if total is not None else "")
                on_update(ToolResult(content=[TextContent(text=text)], details=dict(details)))

        async def call(client: Any) -> Any:
            return await client.call_tool(self.tool, arguments, progress_callback=progress)

        try:
            result = await cancellable(self._connection.request(call), signal)
        except ValueError as exc:  # pydantic's ValidationError: the result is not an MCP CallToolResult
            raise ToolError(f'MCP server "{self.server}" sent a result for {self.tool} that is not valid MCP: '
                            f"{validation_summary(exc)}") from None
        wire = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        if "result_type" not in result.model_fields_set:
            # The SDK's default ("complete"), not something the server said: Pi's result lacks it.
            wire.pop("resultType", None)
        content, full_path = result_content(self.server, self.tool, wire, readable_resources=self._readable())
        if full_path:
            details["fullOutputPath"] = full_path
        script_value = {k: v for k, v in wire.items() if k != "_meta"}  # a script's CallToolResult (Pi drops _meta)
        # An isError result is an error for the model that keeps its content (as Pi returns it).
        return ToolResult(content=content, details=details, is_error=bool(wire.get("isError")),
                          structured_content=script_value)


_CONTENT_BLOCK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"enum": ["text", "image", "audio", "resource_link", "resource"]},
        "text": {"type": "string"},
        "data": {"type": "string"},
        "mimeType": {"type": "string"},
    },
    "required": ["type"],
    "additionalProperties": True,
}
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"})


def _relocate(schema: Any, pointer: str) -> Any:
    """``schema`` moved below the JSON pointer ``pointer``: its local ``$ref``s rewritten to match."""
    if isinstance(schema, list):
        return [_relocate(item, pointer) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and (value == "#" or value.startswith("#/")):
            out[key] = pointer + value[1:]
        elif key in _DATA_KEYWORDS:
            out[key] = value
        elif key in _MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {name: _relocate(sub, pointer) for name, sub in value.items()}
        else:
            out[key] = _relocate(value, pointer)
    return out


def result_schema(structured: Any) -> dict[str, Any]:
    """The output schema of every MCP tool for scripts: the ``CallToolResult`` they receive, with the
    tool's own output schema as ``structuredContent`` (Pi's shape)."""
    return {
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": _CONTENT_BLOCK_SCHEMA},
            "structuredContent": _relocate(structured, "#/properties/structuredContent") if structured else {},
            "isError": {"type": "boolean"},
        },
        "required": ["content"],
        "additionalProperties": True,
    }
