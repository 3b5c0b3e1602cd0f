"""The events extension handlers receive: one typed class per event name, with Pi's fields.

Handlers get ``(event, ctx)``. ``event`` is an instance of the class registered for its name
(``ToolCallEvent`` for ``tool_call``...): a slotted dataclass whose fields are Pi's names in
snake_case (``event.tool_name``), also readable by Pi's camelCase key (``event["toolName"]``)
so code ported from Pi's docs reads naturally either way. Fields a handler may change in place
(``tool_call``'s ``input``, ``before_agent_start``'s ``sections`` and ``selected_tools``,
``before_provider_headers``' ``headers``) are plain mutable Python objects.

``EVENTS`` maps every name ``pi.on`` accepts to its class; ``ExtensionEventT`` is their union,
so a handler can ``match`` on the classes.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import field
from typing import Any, ClassVar, Literal, TypeGuard

from ..records import record

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """``toolCallId`` -> ``tool_call_id`` (snake names pass through)."""
    return _CAMEL.sub("_", name).lower()


def camel(name: str) -> str:
    """``tool_call_id`` -> ``toolCallId``."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


class ExtensionEvent:
    """Base of every extension event: fields by attribute, or by Pi's camelCase key."""

    __slots__ = ()
    type: ClassVar[str]

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, snake(key))
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        """A field by snake or camel name, or ``default``."""
        return getattr(self, snake(key), default)

    def __contains__(self, key: str) -> bool:
        return snake(key) in self.fields()

    def fields(self) -> dict[str, Any]:
        """All fields (snake_case names), ``type`` left out."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]  # every subclass is a dataclass


# ---------------------------------------------------------------------- session lifecycle

@record(slots=True)
class SessionStartEvent(ExtensionEvent):
    reason: str = "startup"
    """``startup``, ``reload``, ``new``, ``resume`` or ``fork``."""
    previous_session_file: str | None = None
    type: ClassVar[Literal["session_start"]] = "session_start"


@record(slots=True)
class SessionShutdownEvent(ExtensionEvent):
    reason: str = "quit"
    """``quit``, ``reload``, ``new``, ``resume`` or ``fork``."""
    target_session_file: str | None = None
    type: ClassVar[Literal["session_shutdown"]] = "session_shutdown"


@record(slots=True)
class SessionInfoChangedEvent(ExtensionEvent):
    name: str | None = None
    type: ClassVar[Literal["session_info_changed"]] = "session_info_changed"


@record(slots=True)
class SessionBeforeSwitchEvent(ExtensionEvent):
    reason: str
    """``new`` or ``resume``."""
    target_session_file: str | None = None
    type: ClassVar[Literal["session_before_switch"]] = "session_before_switch"


@record(slots=True)
class SessionBeforeForkEvent(ExtensionEvent):
    entry_id: str
    position: str = "before"
    """``before`` (``/fork``) or ``at`` (``/clone``)."""
    type: ClassVar[Literal["session_before_fork"]] = "session_before_fork"


@record(slots=True)
class SessionBeforeCompactEvent(ExtensionEvent):
    reason: str
    """``manual``, ``threshold`` or ``overflow``."""
    custom_instructions: str | None = None
    will_retry: bool = False
    preparation: Any = None
    """The cut worked out (``pi_runtime.compaction.prepare.CompactionPreparation``:
    ``messages_to_summarize``, ``turn_prefix_messages``, ``is_split_turn``, ``previous_summary``,
    ``file_ops``, ``tokens_before``, ``first_kept_entry_id``, ``settings``); None for a manual
    compaction with nothing to summarise."""
    branch_entries: list[Any] | None = None
    signal: Any = None
    """Aborted when the compaction is (Esc, ``/compact`` cancelled): pass it to model calls."""
    type: ClassVar[Literal["session_before_compact"]] = "session_before_compact"


@record(slots=True)
class SessionCompactEvent(ExtensionEvent):
    reason: str
    result: dict[str, Any] | None = None
    """The compaction result in wire form (``summary``, ``firstKeptEntryId``, ``tokensBefore``...)."""
    will_retry: bool = False
    compaction_entry: Any = None
    """The ``CompactionEntry`` saved."""
    from_extension: bool = False
    type: ClassVar[Literal["session_compact"]] = "session_compact"


@record(slots=True)
class SessionCompactFailedEvent(ExtensionEvent):
    reason: str
    error_message: str | None = None
    """Set for a failure, not for an abort."""
    aborted: bool = False
    will_retry: bool = False
    from_extension: bool = False
    type: ClassVar[Literal["session_compact_failed"]] = "session_compact_failed"


@record(slots=True)
class SessionBeforeTreeEvent(ExtensionEvent):
    target_id: str
    old_leaf_id: str | None = None
    user_wants_summary: bool = False
    preparation: Any = None
    """``pi_runtime.kernel.extension_port.TreePreparation``: ``target_id``, ``old_leaf_id``,
    ``common_ancestor_id``, ``entries_to_summarize``, ``user_wants_summary``, ``custom_instructions``."""
    signal: Any = None
    type: ClassVar[Literal["session_before_tree"]] = "session_before_tree"


@record(slots=True)
class SessionTreeEvent(ExtensionEvent):
    new_leaf_id: str | None
    old_leaf_id: str | None = None
    summary_entry_id: str | None = None
    type: ClassVar[Literal["session_tree"]] = "session_tree"


# ---------------------------------------------------------------------- input and runs

@record(slots=True)
class InputEvent(ExtensionEvent):
    text: str
    images: list[Any] | None = None
    source: str = "interactive"
    """``interactive`` (typed), ``rpc`` or ``extension`` (``pi.send_user_message``)."""
    streaming_behavior: str | None = None
    """None when idle, else ``steer`` or ``followUp``."""
    type: ClassVar[Literal["input"]] = "input"


@record(slots=True)
class BeforeAgentStartEvent(ExtensionEvent):
    message_type: str
    """``user`` (a prompt) or ``custom`` (``send_message(..., trigger_turn=True)`` while idle)."""
    prompt: str | None = None
    message: Any = None
    images: list[Any] | None = None
    system_prompt: str = ""
    """The system prompt as chained so far by earlier handlers."""
    sections: Any = None
    """The prompt's named sections (mutable: ``set``, ``remove``); None for a plain-string prompt."""
    selected_tools: list[str] = field(default_factory=list)
    """Active tool names (mutable: editing the list changes the run's tools)."""
    system_prompt_options: dict[str, Any] = field(default_factory=dict)
    """Pi's ``systemPromptOptions``: ``sections`` and ``selectedTools`` (the live collections
    above, editable through either), ``skills``, ``contextFiles``, ``cwd``."""
    type: ClassVar[Literal["before_agent_start"]] = "before_agent_start"


@record(slots=True)
class ContextEvent(ExtensionEvent):
    messages: list[Any]
    """A deep copy of the conversation without system messages; safe to change."""
    type: ClassVar[Literal["context"]] = "context"


@record(slots=True)
class AgentStartEvent(ExtensionEvent):
    type: ClassVar[Literal["agent_start"]] = "agent_start"


@record(slots=True)
class AgentEndEvent(ExtensionEvent):
    messages: list[Any] = field(default_factory=list)
    will_retry: bool = False
    type: ClassVar[Literal["agent_end"]] = "agent_end"


@record(slots=True)
class AgentSettledEvent(ExtensionEvent):
    aborted: bool = False
    type: ClassVar[Literal["agent_settled"]] = "agent_settled"


@record(slots=True)
class TurnStartEvent(ExtensionEvent):
    turn_index: int = 0
    timestamp: int = 0
    """Milliseconds since the epoch."""
    type: ClassVar[Literal["turn_start"]] = "turn_start"


@record(slots=True)
class TurnEndEvent(ExtensionEvent):
    message: Any = None
    tool_results: list[Any] = field(default_factory=list)
    turn_index: int = 0
    timestamp: int = 0
    type: ClassVar[Literal["turn_end"]] = "turn_end"


@record(slots=True)
class MessageStartEvent(ExtensionEvent):
    message: Any
    type: ClassVar[Literal["message_start"]] = "message_start"


@record(slots=True)
class MessageUpdateEvent(ExtensionEvent):
    message: Any
    assistant_message_event: Any = None
    """The stream event (``text_delta``, ``toolcall_end``...)."""
    type: ClassVar[Literal["message_update"]] = "message_update"


@record(slots=True)
class MessageEndEvent(ExtensionEvent):
    message: Any
    type: ClassVar[Literal["message_end"]] = "message_end"


# ---------------------------------------------------------------------- tools

@record(slots=True)
class ToolCallEvent(ExtensionEvent):
    tool_name: str
    tool_call_id: str
    input: dict[str, Any]
    """The arguments; change them in place to change what the tool receives."""
    parent_tool_call_id: str | None = None
    """Set when another tool made the call (``ctx.execute_tool``)."""
    type: ClassVar[Literal["tool_call"]] = "tool_call"


@record(slots=True)
class ToolResultEvent(ExtensionEvent):
    tool_name: str
    tool_call_id: str
    input: dict[str, Any]
    content: list[Any]
    details: Any = None
    is_error: bool = False
    parent_tool_call_id: str | None = None
    type: ClassVar[Literal["tool_result"]] = "tool_result"


@record(slots=True)
class ToolExecutionStartEvent(ExtensionEvent):
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    parent_tool_call_id: str | None = None
    type: ClassVar[Literal["tool_execution_start"]] = "tool_execution_start"


@record(slots=True)
class ToolExecutionUpdateEvent(ExtensionEvent):
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: Any = None
    parent_tool_call_id: str | None = None
    type: ClassVar[Literal["tool_execution_update"]] = "tool_execution_update"


@record(slots=True)
class ToolExecutionEndEvent(ExtensionEvent):
    tool_call_id: str
    tool_name: str
    result: Any = None
    is_error: bool = False
    duration_ms: float | None = None
    parent_tool_call_id: str | None = None
    type: ClassVar[Literal["tool_execution_end"]] = "tool_execution_end"


@record(slots=True)
class UserBashEvent(ExtensionEvent):
    command: str
    exclude_from_context: bool = False
    """True for ``!!`` (the output does not reach the model)."""
    cwd: str = ""
    type: ClassVar[Literal["user_bash"]] = "user_bash"


# ---------------------------------------------------------------------- models and providers

@record(slots=True)
class ModelSelectEvent(ExtensionEvent):
    model: Any
    previous_model: Any = None
    source: str = "set"
    """``set`` or ``cycle``."""
    type: ClassVar[Literal["model_select"]] = "model_select"


@record(slots=True)
class ThinkingLevelSelectEvent(ExtensionEvent):
    level: str
    previous_level: str | None = None
    type: ClassVar[Literal["thinking_level_select"]] = "thinking_level_select"


@record(slots=True)
class BeforeProviderHeadersEvent(ExtensionEvent):
    headers: dict[str, str | None]
    """Mutable: set a key to add or override a header, to None to remove it."""
    model: Any = None
    type: ClassVar[Literal["before_provider_headers"]] = "before_provider_headers"


@record(slots=True)
class BeforeProviderRequestEvent(ExtensionEvent):
    payload: Any
    """The provider-specific request body as chained so far; return a value to replace it."""
    model: Any = None
    type: ClassVar[Literal["before_provider_request"]] = "before_provider_request"


@record(slots=True)
class AfterProviderResponseEvent(ExtensionEvent):
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers, lower-case names."""
    model: Any = None
    type: ClassVar[Literal["after_provider_response"]] = "after_provider_response"


@record(slots=True)
class ProviderStreamEventEvent(ExtensionEvent):
    provider: str
    api: str
    model: str
    data: Any
    """The parsed stream event (``{"event": name, "data": text}`` for SSE); read-only."""
    type: ClassVar[Literal["provider_stream_event"]] = "provider_stream_event"


# ---------------------------------------------------------------------- MCP

@record(slots=True)
class McpServersChangeEvent(ExtensionEvent):
    servers: list[Any] = field(default_factory=list)
    """Every registered server after the change (``RegisteredMcpServer``: ``name``, ``config``,
    ``extension_path``)."""
    type: ClassVar[Literal["mcp_servers_change"]] = "mcp_servers_change"


# ---------------------------------------------------------------------- resources

@record(slots=True)
class ResourcesDiscoverEvent(ExtensionEvent):
    cwd: str = ""
    reason: str = "startup"
    """``startup`` (also a new/resumed/forked session) or ``reload``."""
    type: ClassVar[Literal["resources_discover"]] = "resources_discover"


ExtensionEventT = (
    SessionStartEvent | SessionShutdownEvent | SessionInfoChangedEvent | SessionBeforeSwitchEvent
    | SessionBeforeForkEvent | SessionBeforeCompactEvent | SessionCompactEvent | SessionCompactFailedEvent
    | SessionBeforeTreeEvent
    | SessionTreeEvent | InputEvent | BeforeAgentStartEvent | ContextEvent | AgentStartEvent | AgentEndEvent
    | AgentSettledEvent | TurnStartEvent | TurnEndEvent | MessageStartEvent | MessageUpdateEvent | MessageEndEvent
    | ToolCallEvent | ToolResultEvent | ToolExecutionStartEvent | ToolExecutionUpdateEvent | ToolExecutionEndEvent
    | UserBashEvent | ModelSelectEvent | ThinkingLevelSelectEvent | BeforeProviderHeadersEvent
    | BeforeProviderRequestEvent | AfterProviderResponseEvent | ProviderStreamEventEvent | McpServersChangeEvent
    | ResourcesDiscoverEvent
)
"""The closed union of what a handler can receive."""

EVENTS: dict[str, type[ExtensionEvent]] = {
    cls.type: cls
    for cls in (
        SessionStartEvent, SessionShutdownEvent, SessionInfoChangedEvent, SessionBeforeSwitchEvent,
        SessionBeforeForkEvent, SessionBeforeCompactEvent, SessionCompactEvent, SessionCompactFailedEvent,
        SessionBeforeTreeEvent,
        SessionTreeEvent, InputEvent, BeforeAgentStartEvent, ContextEvent, AgentStartEvent, AgentEndEvent,
        AgentSettledEvent, TurnStartEvent, TurnEndEvent, MessageStartEvent, MessageUpdateEvent, MessageEndEvent,
        ToolCallEvent, ToolResultEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent, ToolExecutionEndEvent,
        UserBashEvent, ModelSelectEvent, ThinkingLevelSelectEvent, BeforeProviderHeadersEvent,
        BeforeProviderRequestEvent, AfterProviderResponseEvent, ProviderStreamEventEvent, McpServersChangeEvent,
        ResourcesDiscoverEvent,
    )
}
"""Event name -> class."""

EVENT_NAMES = frozenset(EVENTS)
"""Every event name ``pi.on`` accepts."""

CANCELLABLE = frozenset({"session_before_switch", "session_before_fork", "session_before_compact",
                         "session_before_tree"})
"""Events whose handlers may return ``{"cancel": True}``."""


def make_event(event_type: str, /, **fields: Any) -> ExtensionEvent:
    """The event ``event_type`` with ``fields`` (unknown fields are dropped: the kernel may know more).
    Positional-only: ``session_info_changed`` has a field called ``name``.

    Raises:
        KeyError: ``event_type`` is not an extension event.
    """
    cls = EVENTS[event_type]
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]  # every event class is a dataclass
    return cls(**{snake(k): v for k, v in fields.items() if snake(k) in known})


def from_agent_event(event: Any, **extra: Any) -> ExtensionEvent:
    """The extension event for a kernel/agent event of the same name."""
    names = getattr(type(event), "__slots__", None) or list(getattr(event, "__dict__", {}))
    fields = {n: getattr(event, n) for n in names if n != "type" and hasattr(event, n)}
    fields.update(extra)
    return make_event(event.type, **fields)


def is_tool_call_event_type(tool_name: str, event: Any) -> TypeGuard[ToolCallEvent]:
    """Whether ``event`` is a ``tool_call`` for ``tool_name`` (Pi's ``isToolCallEventType``)."""
    return isinstance(event, ToolCallEvent) and event.tool_name == tool_name


def result_field(result: Any, name: str, default: Any = None) -> Any:
    """Read ``name`` (snake) from a handler's result dict, accepting Pi's camelCase too."""
    if not isinstance(result, dict):
        return getattr(result, name, default) if result is not None else default
    if name in result:
        return result[name]
    return result.get(camel(name), default)
