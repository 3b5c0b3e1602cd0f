"""The event object extension handlers receive, and the names they can subscribe to.

Handlers get ``(event, ctx)``. ``event`` is an :class:`Event`: its fields are attributes in
snake_case (``event.tool_name``) and also readable by Pi's camelCase key
(``event["toolName"]``), so code ported from Pi's docs reads naturally either way. Fields a
handler may change in place (``tool_call``'s ``input``, ``before_agent_start``'s
``sections`` and ``selected_tools``) are plain mutable Python objects.
"""

from __future__ import annotations

import re
from typing import Any

EVENT_NAMES = frozenset({
    # session lifecycle
    "session_start", "session_shutdown", "session_info_changed",
    "session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree",
    "session_compact", "session_tree",
    # input and runs
    "input", "before_agent_start", "context",
    "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end",
    "message_start", "message_update", "message_end",
    # tools
    "tool_call", "tool_result", "tool_execution_start", "tool_execution_update", "tool_execution_end",
    # models
    "model_select", "thinking_level_select",
})
"""Every event name ``pi.on`` accepts."""

CANCELLABLE = frozenset({"session_before_switch", "session_before_fork", "session_before_compact",
                         "session_before_tree"})
"""Events whose handlers may return ``{"cancel": True}``."""

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """``toolCallId`` -> ``tool_call_id`` (snake names pass through)."""
    return _CAMEL.sub("_", name).lower()


def camel(name: str) -> str:
    """``tool_call_id`` -> ``toolCallId``."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


class Event:
    """One event: a ``type`` plus named fields (attribute or camelCase key access)."""

    def __init__(self, type: str, **fields: Any) -> None:
        self.type = type
        for key, value in fields.items():
            setattr(self, snake(key), value)

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, snake(key))
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        """A field by snake or camel name, or ``default``."""
        return getattr(self, snake(key), default)

    def __contains__(self, key: str) -> bool:
        return hasattr(self, snake(key))

    def fields(self) -> dict[str, Any]:
        """All fields except ``type`` (snake_case names)."""
        return {k: v for k, v in vars(self).items() if k != "type"}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields().items())
        return f"Event({self.type!r}{', ' + inner if inner else ''})"


def from_agent_event(event: Any, **extra: Any) -> Event:
    """Wrap a kernel/agent dataclass event (slots) as an :class:`Event`."""
    names = getattr(type(event), "__slots__", None) or list(getattr(event, "__dict__", {}))
    fields = {n: getattr(event, n) for n in names if n != "type" and hasattr(event, n)}
    fields.update(extra)
    return Event(event.type, **fields)


def result_field(result: Any, name: str, default: Any = None) -> Any:
    """Read ``name`` (snake) from a handler's result dict, accepting Pi's camelCase too."""
    if not isinstance(result, dict):
        return getattr(result, name, default) if result is not None else default
    if name in result:
        return result[name]
    return result.get(camel(name), default)
