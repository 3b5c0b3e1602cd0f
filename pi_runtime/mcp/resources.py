"""MCP resources through the tools Codex and OpenCode use (mcp.md, "Use resources").

``list_mcp_resources`` and ``list_mcp_resource_templates`` answer JSON
``{server?, resources|resourceTemplates: [{server, ...}], nextCursor?, errors?}``: one page of one
server with ``server`` (``cursor`` continues it), else every page of every server. MCP App
resources (``ui://`` URIs, ``profile=mcp-app`` HTML) and icons are left out. ``read_mcp_resource``
returns the contents as text and images (binary ones are saved to temporary files). Listing and
reading are retried once after a transient error.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from ..agent.tool import AgentTool, ToolError, ToolResult
from ..ai.abort import AbortSignal
from ..ai.types import TextContent
from ..jsonmodel import ConfigDict, Field, JsonModel
from .connection import McpConnection
from .content import block_content, limit_content
from .tools import cancellable

LIST_RESOURCES_TOOL = "list_mcp_resources"
LIST_TEMPLATES_TOOL = "list_mcp_resource_templates"
READ_RESOURCE_TOOL = "read_mcp_resource"
RESOURCE_TOOLS = (LIST_RESOURCES_TOOL, LIST_TEMPLATES_TOOL, READ_RESOURCE_TOOL)
_APP_MIME = re.compile(r';\s*profile\s*=\s*"?mcp-app"?', re.IGNORECASE)
_PAGE_CAP = 100

Servers = Callable[[], list[McpConnection]]


class ListParams(JsonModel):
    model_config = ConfigDict(extra="forbid")
    server: str | None = Field(None, description="MCP server name. Omit to list every server with resources.")
    cursor: str | None = Field(
        None, description="Opaque cursor from a previous call with the same server; omit for the first page.")


class ReadParams(JsonModel):
    model_config = ConfigDict(extra="forbid")
    server: str = Field(description=(
        "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."))
    uri: str = Field(description="Resource URI to read. Must be one of the URIs returned by list_mcp_resources.")


def _visible(item: dict[str, Any]) -> bool:
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return not uri.startswith("ui://") and not _APP_MIME.search(str(item.get("mimeType") or ""))


def _listed(server: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"server": server, **{k: v for k, v in item.items() if k not in ("_meta", "icons")}}


def _json_result(tool: str, server: str | None, payload: dict[str, Any]) -> ToolResult:
    content, path = limit_content([TextContent(text=json.dumps(payload, ensure_ascii=False, separators=(",", ":")))])
    details: dict[str, Any] = {"server": server or "", "tool": tool}
    if path:
        details["fullOutputPath"] = path
    return ToolResult(content=content, details=details)


def _find(servers: Servers, name: str) -> McpConnection:
    found = servers()
    for connection in found:
        if connection.name == name:
            return connection
    names = ", ".join(c.name for c in found)
    raise ToolError(f'MCP server "{name}" has no resources' + (f". Servers with resources: {names}" if names else ""))


class _ListTool(AgentTool):
    Params = ListParams
    key = "resources"
    method = "list_resources"
    attribute = "resources"
    default_active = True

    def __init__(self, servers: Servers, exposure: str) -> None:
        self._servers = servers
        self.exposure = exposure
        """The widest exposure among the servers with resources."""
        self.annotations = {"readOnlyHint": True}

    async def _page(self, connection: McpConnection, cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
        async def run(client: Any) -> Any:
            return await getattr(client, self.method)(cursor=cursor)

        try:
            result = await connection.request(run, read_only=True)
        except Exception as exc:
            # Servers that do not implement resources/templates/list have no templates.
            if self.key == "resourceTemplates" and getattr(exc, "code", None) == -32601:
                return [], None
            raise
        items = [i.model_dump(by_alias=True, exclude_none=True, mode="json") for i in getattr(result, self.attribute)]
        return items, result.next_cursor

    async def _all(self, connection: McpConnection) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor = None
        for _ in range(_PAGE_CAP):
            page, cursor = await self._page(connection, cursor)
            items.extend(page)
            if not cursor:
                break
        return items

    async def execute(self, call_id: str, params: Any, signal: AbortSignal | None, on_update: Any) -> ToolResult:
        server = (params.server or "").strip() or None
        cursor = (params.cursor or "").strip() or None
        payload: dict[str, Any]
        if server is not None:
            connection = _find(self._servers, server)
            items, following = await cancellable(self._page(connection, cursor), signal)
            payload = {"server": connection.name, self.key: [_listed(connection.name, i) for i in items if _visible(i)]}
            if following:
                payload["nextCursor"] = following
            return _json_result(self.name, server, payload)
        if cursor:
            raise ToolError("cursor can only be used when a server is specified")
        connections = sorted(self._servers(), key=lambda c: c.name)
        results = await cancellable(asyncio.gather(*(self._all(c) for c in connections), return_exceptions=True), signal)
        listed: list[dict[str, Any]] = []
        errors: list[dict[str, str]] = []
        for connection, result in zip(connections, results):
            if isinstance(result, BaseException):
                errors.append({"server": connection.name, "error": str(result) or type(result).__name__})
            else:
                listed.extend(_listed(connection.name, i) for i in result if _visible(i))
        payload = {self.key: listed}
        if errors:
            payload["errors"] = errors
        return _json_result(self.name, None, payload)


class ListResourcesTool(_ListTool):
    name = LIST_RESOURCES_TOOL
    label = LIST_RESOURCES_TOOL
    description = (
        "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to "
        "language models, such as files, database schemas, or application-specific information. Prefer resources "
        "over web search when possible."
    )


class ListTemplatesTool(_ListTool):
    name = LIST_TEMPLATES_TOOL
    label = LIST_TEMPLATES_TOOL
    description = (
        "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share "
        "data that takes parameters and provides context to language models, such as files, database schemas, or "
        "application-specific information. Prefer resource templates over web search when possible."
    )
    key = "resourceTemplates"
    method = "list_resource_templates"
    attribute = "resource_templates"


class ReadResourceTool(AgentTool):
    name = READ_RESOURCE_TOOL
    label = READ_RESOURCE_TOOL
    description = "Read a specific resource from an MCP server given the server name and resource URI."
    Params = ReadParams
    default_active = True

    def __init__(self, servers: Servers, exposure: str) -> None:
        self._servers = servers
        self.exposure = exposure
        """The widest exposure among the servers with resources."""
        self.annotations = {"readOnlyHint": True}

    async def execute(self, call_id: str, params: Any, signal: AbortSignal | None, on_update: Any) -> ToolResult:
        server, uri = params.server.strip(), params.uri.strip()
        if not server:
            raise ToolError("server must be provided")
        if not uri:
            raise ToolError("uri must be provided")
        connection = _find(self._servers, server)

        async def run(client: Any) -> Any:
            return await client.read_resource(uri)

        result = await cancellable(connection.request(run, read_only=True), signal)
        contents = [c.model_dump(by_alias=True, exclude_none=True, mode="json") for c in result.contents]
        blocks: list[Any] = []
        for item in contents:
            if len(contents) > 1:
                blocks.append(TextContent(text=f"{item.get('uri')}:"))
            blocks.append(block_content(connection.name, {"type": "resource", "resource": item}, readable_resources=True))
        content, path = limit_content(blocks or [TextContent(text=f"Resource {uri} is empty.")])
        details: dict[str, Any] = {"server": connection.name, "tool": READ_RESOURCE_TOOL}
        if path:
            details["fullOutputPath"] = path
        return ToolResult(content=content, details=details)
