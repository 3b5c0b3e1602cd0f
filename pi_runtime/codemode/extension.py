"""``builtin:codemode``: the ``codemode`` tool as a built-in extension, registered inactive (as Pi).

Turn it on with ``--tools +codemode``, ``"defaultTools": ["+codemode"]`` or ``set_active_tools``;
the MCP support turns it on when a server's tools have ``codemode`` exposure. ``"-builtin:codemode"``
in the ``extensions`` setting leaves it out, and an extension that registers a tool named
``codemode`` replaces it.
"""

from __future__ import annotations

import re
from typing import Any

from ..agent.tool import ToolParams, ToolResult
from ..jsonmodel import Field
from .tool import (
    CODE_DESCRIPTION,
    DEFAULT_INLINE_BUDGET,
    PROMPT_GUIDELINES,
    PROMPT_SNIPPET,
    STORE_ENTRY_TYPE,
    TOOL_NAME,
    describe,
    prepare_loadout,
)

EXTENSION_PATH = "builtin:codemode"
BUILTIN_GUIDELINES: dict[str, tuple[str, ...]] = {
    "read": ("Use read to examine files instead of cat or sed.",),
    "bash": ("You can inspect PI_* environment variables for current model and session details.",),
    "edit": ("Use edit for targeted changes. Batch changes to one file in a single call.",
             "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and "
             "non-overlapping; merge nearby changes without including large unchanged regions."),
    "write": ("Use write only for new files or complete rewrites.",),
}
"""Pi's prompt guidelines of its built-in tools, which listed declarations carry (``only`` mode)."""


class CodemodeParams(ToolParams):
    code: str = Field(description=CODE_DESCRIPTION)


def _settings(pi: Any) -> tuple[str, int | None]:
    codemode = pi.get_settings().get("codemode") or {}
    mode = "only" if codemode.get("mode") == "only" else "on"
    budget = codemode.get("inlineBudget", DEFAULT_INLINE_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget < 0:
        budget = DEFAULT_INLINE_BUDGET
    return mode, int(budget)


_DISCOVERY = re.compile(r"\b(searchTools|describeNamespace|describeTool|ALL_TOOLS)\b")


async def wait_for_mcp(runner: Any, code: str | None) -> None:
    """Wait (at most 10 s) for the MCP servers a script can reach before it runs: every server when
    ``code`` is None (``tool_search``) or uses a discovery global, else the servers it names
    (``mcp__<server>``), so their tools are callable (Pi waits the same way)."""
    from ..mcp.manager import FIRST_PROMPT_WAIT, mcp_manager_for

    session = getattr(runner, "session", None)
    manager = mcp_manager_for(session) if session is not None else None
    if manager is None:
        return
    if code is None or _DISCOVERY.search(code):
        await manager.wait_connected(FIRST_PROMPT_WAIT)
        return
    words = set(re.findall(r"\w+", code))
    from ..mcp.config import namespace

    if any(namespace(entry.name) in word for entry in manager.entries for word in words):
        await manager.wait_connected(FIRST_PROMPT_WAIT)


def extension(pi: Any) -> None:
    """Register the ``codemode`` tool (inactive)."""
    from ..extensions.toolset import exposure_of

    def guidelines(name: str) -> tuple[str, ...]:
        tool = pi._runner.tools.all.get(name)
        own = tuple(getattr(tool, "prompt_guidelines", None) or ())
        return own or BUILTIN_GUIDELINES.get(name, ())

    def loadout(declared: list[Any], callable_: list[Any]) -> Any:
        mode, budget = _settings(pi)
        return prepare_loadout(declared, callable_, mode=mode, inline_budget=budget, models=True,
                               guidelines=guidelines)

    async def execute(call_id: str, params: CodemodeParams, signal: Any, on_update: Any, ctx: Any) -> ToolResult:
        from .run import execute_codemode

        runner = pi._runner
        await wait_for_mcp(runner, params.code)
        callable_ = [t for t in runner.tools.callable_tools() if exposure_of(t) not in ("model-only", "hidden")]
        session_manager = ctx.session_manager
        return await execute_codemode(
            call_id, params.code, signal=signal, on_update=on_update, callable_=callable_, guidelines=guidelines,
            execute_tool=lambda name, args, signal: ctx.execute_tool(name, args, signal=signal),
            branch=session_manager.get_branch() if session_manager is not None else [],
            append_store=lambda data: pi.append_entry(STORE_ENTRY_TYPE, data),
            registry=ctx.model_registry,
        )

    if any(t.name == TOOL_NAME for t in pi._runner.registry.tools()):
        return  # an extension's codemode tool replaces the built-in one (Pi's replaceable built-ins)
    tool = pi.register_tool(
        name=TOOL_NAME, label=TOOL_NAME, description=describe([], models=True), params=CodemodeParams,
        execute=execute, prompt_snippet=PROMPT_SNIPPET, prompt_guidelines=list(PROMPT_GUIDELINES),
        default_active=False,
    )
    tool.exposure = "model-only"  # scripts do not start scripts
    tool.prepare_loadout = loadout
    tool.reaches_tools = lambda args: "all"
