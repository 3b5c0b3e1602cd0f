"""What a transcript has declared to the model (tools, prompt sections), and the system message
that declares a change.

Pi 1.6 records the prompt and the tool loadout in the transcript: the leading system message
holds the sections and lists the tools (``toolsAdded``); whenever the executable tools or the
prompt's sections differ from what the transcript declares (an extension registered a tool,
``set_active_tools``, a reload), the next model request is preceded by a system message
carrying only the difference (changed sections, ``None`` for a removed one;
``toolsAdded``/``toolsRemoved``). Pi checks before every request, so a tool registered during a
run is declared at the next turn of that run. A reader of the session file (Pi itself, on
resume) replays these messages to know which tools the model was offered.

Checking before every request must not replay a long transcript each time:
:class:`DeclaredLoadout` keeps what has been declared and reads only the messages added since
it last looked (the whole transcript again only when it was replaced or edited).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..agent.transcript import Transcript, message_at, messages_from


def _system_wire(message: Any) -> dict[str, Any] | None:
    """``message`` as a wire dict when it is a system message, else None (cheap for the rest)."""
    if isinstance(message, dict):
        return message if message.get("role") == "system" else None
    if getattr(message, "role", None) != "system":
        return None
    return message.to_wire() if hasattr(message, "to_wire") else None


def _apply(tools: dict[str, dict[str, Any]], sections: dict[str, str], wire: dict[str, Any]) -> None:
    """Replay one system message onto the declared ``tools`` and ``sections``."""
    for tool in wire.get("toolsRemoved") or ():
        tools.pop(tool.get("name"), None)
    for tool in wire.get("toolsAdded") or ():
        tools[tool.get("name")] = tool
    for name, text in (wire.get("sections") or {}).items():
        if text is None:
            sections.pop(name, None)
        else:
            sections[name] = text


class DeclaredLoadout:
    """The tools and prompt sections a transcript has declared, kept up to date as it grows."""

    def __init__(self) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        """Name -> declaration the model currently knows."""
        self.sections: dict[str, str] = {}
        """The prompt sections the model currently has, by name."""
        self._source: Any = None
        self._read = 0
        self._last: Any = None

    def read(self, messages: Any) -> None:
        """Catch up with ``messages``: only the ones added since the last read when it is the same
        list grown at its end, else all of them."""
        start = self._read if self._continues(messages) else 0
        if start == 0:
            self.tools, self.sections = {}, {}
        new = messages_from(messages, start)
        scan = new
        if isinstance(messages, Transcript) and messages.pending and "system" not in messages.stored_roles():
            # A resumed file without system messages (made before Pi 1.6): only what was added declares.
            scan = new[max(0, len(messages.stored_dicts()) - start):]
        for message in scan:
            # A stored message is its wire dict: its role is read here, not through a call for each
            # of a resumed session's 20,000 messages.
            wire = (message if message.get("role") == "system" else None) if type(message) is dict else (
                _system_wire(message))
            if wire is not None:
                _apply(self.tools, self.sections, wire)
        self._source, self._read = messages, len(messages)
        if new:
            self._last = new[-1]
        elif start == 0:
            self._last = None

    def _continues(self, messages: Any) -> bool:
        if messages is not self._source or len(messages) < self._read:
            return False
        # A message removed or replaced in place (rare) shows as another object at the last read position.
        return self._read == 0 or message_at(messages, self._read - 1) is self._last

    def change(
        self, tools: list[dict[str, Any]], sections: dict[str, str] | None, pending: Sequence[Any] = ()
    ) -> Any | None:
        """A system message declaring how ``tools`` and ``sections`` differ from what was read
        (and the system messages among ``pending``, about to be added), or None when nothing changed.

        Args:
            tools: The executable tools' declarations.
            sections: The prompt's sections as the model sees them; None for a prompt that is one
                string (nothing to diff).
            pending: Messages about to be added before the request.
        """
        from ..ai.types import SystemMessage

        before, had = self.tools, self.sections
        extra = [wire for wire in map(_system_wire, pending) if wire is not None]
        if extra:
            before, had = dict(before), dict(had)
            for wire in extra:
                _apply(before, had, wire)
        now = {tool["name"]: tool for tool in tools}
        # A tool whose declaration changed is removed and added again, as Pi records it.
        added = [tool for name, tool in now.items() if before.get(name) != tool]
        removed = [{"name": name} for name, tool in before.items() if now.get(name) != tool]
        patch: dict[str, str | None] = {}
        if sections is not None:
            patch = {name: text for name, text in sections.items() if had.get(name) != text}
            patch.update({name: None for name in had if name not in sections})
        if not added and not removed and not patch:
            return None
        return SystemMessage(content="", sections=patch or None, tools_added=added or None,
                             tools_removed=removed or None)
