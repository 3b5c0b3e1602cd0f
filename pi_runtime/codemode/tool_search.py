"""``builtin:tool-search``: the ``tool_search`` tool, registered inactive (as Pi).

It ranks the tools that are not declared yet (``deferred`` exposure, which includes MCP tools of
``codemode`` servers) with BM25 and activates the matches, so the next model call declares them.
Activation goes through the active tool set, so the transcript records it like any tool change
(``toolsAdded``). The loaded tools stay loaded across ``/reload`` and resume: at ``session_start``
and before each prompt the extension activates again the searchable tools the branch's transcript
declares, including MCP tools whose server connected after the session started.
"""

from __future__ import annotations

from typing import Any

from ..agent.tool import ToolError, ToolParams, ToolResult
from ..jsonmodel import Field
from .search import DEFAULT_LIMIT, rank, search_document

TOOL_NAME = "tool_search"
DESCRIPTION = (
    "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next "
    "model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and "
    f"you should use this tool (`{TOOL_NAME}`) to search for the required tools. For MCP tool discovery, always use "
    f"`{TOOL_NAME}`."
)
PROMPT_SNIPPET = "Search for tools that are not loaded yet and load the matches"


class ToolSearchParams(ToolParams):
    query: str = Field(description="Search query for deferred tools.")
    limit: float | None = Field(default=None, description=f"Maximum number of tools to return. Defaults to {DEFAULT_LIMIT}.")


def declared_in_transcript(messages: list[Any]) -> list[str]:
    """Names of the tools the transcript's system messages leave declared (``toolsAdded``/``toolsRemoved``)."""
    declared: dict[str, None] = {}
    for message in messages:
        wire = message if isinstance(message, dict) else (
            message.to_wire() if getattr(message, "role", None) == "system" and hasattr(message, "to_wire") else None)
        if not isinstance(wire, dict) or wire.get("role") != "system":
            continue
        for tool in wire.get("toolsRemoved") or ():
            declared.pop(str(tool.get("name")), None)
        for tool in wire.get("toolsAdded") or ():
            declared[str(tool.get("name"))] = None
    return list(declared)


def extension(pi: Any) -> None:
    """Register ``tool_search`` (inactive) and keep its loads across resume and ``/reload``."""
    from ..extensions.toolset import exposure_of

    def searchable() -> list[Any]:
        active = set(pi.get_active_tools())
        return [t for t in pi._runner.tools.all.values() if exposure_of(t) == "deferred" and t.name not in active]

    async def execute(call_id: str, params: ToolSearchParams, signal: Any, on_update: Any) -> ToolResult:
        from .extension import wait_for_mcp

        if params.query.strip() == "":
            raise ToolError("query must not be empty")
        await wait_for_mcp(pi._runner, None)
        limit = DEFAULT_LIMIT if params.limit is None else params.limit
        if limit != int(limit) or limit <= 0:
            raise ToolError("limit must be a positive integer")
        candidates = searchable()
        documents = [search_document(t.name, t.description or "", t.parameters_schema(), getattr(t, "namespace", None))
                     for t in candidates]
        names = rank(params.query, documents, int(limit))
        if names:
            pi.set_active_tools([*pi.get_active_tools(), *names])
        by_name = {t.name: t for t in candidates}
        if not names:
            text = "No matching tools found."
        else:
            lines = [f"- {n}: {(by_name[n].description or '').strip().splitlines()[0] if by_name[n].description.strip() else ''}"
                     for n in names]
            text = f"Loaded {len(names)} tool{'' if len(names) == 1 else 's'}. They are available from your next call:\n" \
                + "\n".join(lines)
        return ToolResult.text(text, details={"loaded": names})

    if any(t.name == TOOL_NAME for t in pi._runner.registry.tools()):
        return  # an extension's tool_search replaces the built-in one

    tool = pi.register_tool(name=TOOL_NAME, label=TOOL_NAME, description=DESCRIPTION, params=ToolSearchParams,
                            execute=execute, prompt_snippet=PROMPT_SNIPPET, default_active=False)
    tool.exposure = "model-only"
    tool.reaches_tools = lambda args: "all"

    def restore(_event: Any, ctx: Any) -> None:
        """Activate again the searchable tools the transcript declares (resume, ``/reload``, late MCP servers)."""
        session = pi._runner.require_session()
        wanted = set(declared_in_transcript(list(session.messages)))
        missing = [t.name for t in searchable() if t.name in wanted]
        if missing:
            pi.set_active_tools([*pi.get_active_tools(), *missing])

    pi.on("session_start", restore)
    pi.on("before_agent_start", restore)
