"""The ``mcp_servers`` section of the system prompt (Pi 1.6): servers whose tools are not declared.

Neither ``codemode`` nor ``tool_search`` lists those servers, so the model learns of them here:
one line per enabled server with ``codemode`` or ``deferred`` tools, saying how its tools are
reached and what it offers (the configured ``description``, else the first line of the
instructions it sent). Descriptions shrink to fit 4096 characters; when the server lines alone do
not fit, the last servers are counted in a closing line. The text and limits are Pi's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .config import namespace

SECTION = "mcp_servers"
MAX_SECTION_CHARS = 4096
MAX_DESCRIPTION_CHARS = 250


def _exposures(entry: Any) -> set[str]:
    return {entry.exposure, *(str(v) for v in (entry.config.get("toolExposure") or {}).values())}


def summary(description: Any, instructions: Any) -> str:
    """The first line of the description, else of the instructions; empty without either."""
    text = (str(description).strip() if description else "") or (str(instructions).strip() if instructions else "")
    return text.split("\n", 1)[0].strip()


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return "" if limit <= 1 else text[: limit - 1].rstrip() + "…"


def render_section(servers: Iterable[tuple[Any, str | None]]) -> str | None:
    """The section for ``(entry, instructions)`` pairs, or None when no server qualifies."""
    listed = sorted(((e, i) for e, i in servers if e.enabled and _exposures(e) & {"codemode", "deferred"}),
                    key=lambda pair: pair[0].name)
    if not listed:
        return None
    reaches = ["codemode" if "codemode" in _exposures(e) else "tool_search" for e, _ in listed]
    intro = "MCP servers whose tools are not declared to you."
    if "codemode" in reaches:
        intro += " Call the tools of `codemode` servers from codemode scripts."
    if "tool_search" in reaches:
        intro += " Load the tools of `tool_search` servers with `tool_search`."
    heads = [f"- {namespace(e.name)} ({reach})" for (e, _), reach in zip(listed, reaches)]

    def omitted(count: int) -> list[str]:
        if count <= 0:
            return []
        return [f"- … {count} more server{'' if count == 1 else 's'}; find their tools with searchTools()"]

    def size(kept: int) -> int:
        return len("\n".join([intro, *heads[:kept], *omitted(len(listed) - kept)]))

    kept = len(listed)
    while kept > 0 and size(kept) > MAX_SECTION_CHARS:
        kept -= 1
    per_server = 0 if kept == 0 else min(MAX_DESCRIPTION_CHARS, (MAX_SECTION_CHARS - size(kept)) // kept - 2)
    lines = []
    for (entry, instructions), head in zip(listed[:kept], heads[:kept]):
        text = _shorten(summary(entry.config.get("description"), instructions), per_server) if per_server > 0 else ""
        lines.append(f"{head}: {text}" if text else head)
    return "\n".join([intro, *lines, *omitted(len(listed) - kept)])
