"""What a transcript has declared to the model (tools, prompt sections), and the system message
that declares a change.

Pi 1.6 records the prompt and the tool loadout in the transcript: the leading system message
holds the sections and lists the tools (``toolsAdded``); whenever the executable tools or the
prompt's sections differ from what the transcript declares (an extension registered a tool,
``set_active_tools``, a reload), the next run starts with a system message carrying only the
difference (changed sections, ``None`` for a removed one; ``toolsAdded``/``toolsRemoved``). A reader of the session file (Pi itself, on
resume) replays these messages to know which tools the model was offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..agent.transcript import Transcript


def _system_dicts(messages: Iterable[Any]) -> list[dict[str, Any]]:
    if isinstance(messages, Transcript):
        views: Iterable[Any] = messages.wire_view()  # no need to validate a long stored part
    else:
        views = messages
    out = []
    for message in views:
        wire = message if isinstance(message, dict) else message.to_wire() if hasattr(message, "to_wire") else {}
        if wire.get("role") == "system":
            out.append(wire)
    return out


def declared_tools(messages: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Replay the system messages: name -> declaration the model currently knows."""
    tools: dict[str, dict[str, Any]] = {}
    for message in _system_dicts(messages):
        for tool in message.get("toolsRemoved") or ():
            tools.pop(tool.get("name"), None)
        for tool in message.get("toolsAdded") or ():
            tools[tool.get("name")] = tool
    return tools


def declared_sections(messages: Iterable[Any]) -> dict[str, str]:
    """Replay the system messages: the prompt sections the model currently has, by name."""
    sections: dict[str, str] = {}
    for message in _system_dicts(messages):
        for name, text in (message.get("sections") or {}).items():
            if text is None:
                sections.pop(name, None)
            else:
                sections[name] = text
    return sections


def loadout_change_message(
    messages: Iterable[Any], tools: list[dict[str, Any]], sections: dict[str, str] | None
) -> Any | None:
    """A system message declaring how ``tools`` and ``sections`` differ from what ``messages``
    declared, or None when nothing changed.

    Args:
        messages: The transcript so far (and the prompts about to be sent).
        tools: The executable tools' declarations.
        sections: The prompt's sections as the model sees them; None for a prompt that is one
            string (nothing to diff).
    """
    from ..ai.types import SystemMessage

    system = _system_dicts(messages)
    before = declared_tools(system)
    now = {tool["name"]: tool for tool in tools}
    # A tool whose declaration changed is removed and added again, as Pi records it.
    added = [tool for name, tool in now.items() if before.get(name) != tool]
    removed = [{"name": name} for name, tool in before.items() if now.get(name) != tool]
    patch: dict[str, str | None] = {}
    if sections is not None:
        had = declared_sections(system)
        patch = {name: text for name, text in sections.items() if had.get(name) != text}
        patch.update({name: None for name in had if name not in sections})
    if not added and not removed and not patch:
        return None
    return SystemMessage(content="", sections=patch or None, tools_added=added or None,
                         tools_removed=removed or None)
