"""``pi.on`` with one signature per event name, so a type checker matches the handler to its event.

Pi's ``ExtensionAPI`` declares an ``on(...)`` overload per event; these are the same in Python
terms: ``pi.on("tool_call", handler)`` expects ``handler(event: ToolCallEvent, ctx)``, and mypy
or pyright flag a handler written for another event (or a misspelt event name). At run time
there is one ``on``; the overloads exist for type checkers only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

if TYPE_CHECKING:
    from .context import ExtensionContext
    from .events import (
        AfterProviderResponseEvent,
        AgentEndEvent,
        AgentSettledEvent,
        AgentStartEvent,
        BeforeAgentStartEvent,
        BeforeProviderHeadersEvent,
        BeforeProviderRequestEvent,
        ContextEvent,
        InputEvent,
        McpServersChangeEvent,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        ModelSelectEvent,
        ProviderStreamEventEvent,
        ResourcesDiscoverEvent,
        SessionBeforeCompactEvent,
        SessionBeforeForkEvent,
        SessionBeforeSwitchEvent,
        SessionBeforeTreeEvent,
        SessionCompactEvent,
        SessionCompactFailedEvent,
        SessionInfoChangedEvent,
        SessionShutdownEvent,
        SessionStartEvent,
        SessionTreeEvent,
        ThinkingLevelSelectEvent,
        ToolCallEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolExecutionUpdateEvent,
        ToolResultEvent,
        TurnEndEvent,
        TurnStartEvent,
        UserBashEvent,
    )

E = TypeVar("E")

Handler = Callable[[E, "ExtensionContext"], object] | Callable[[E], object]
"""A handler of events of type ``E``: ``handler(event, ctx)``, or ``handler(event)`` (ctx left out,
as a JavaScript handler may); sync or async."""

Unsubscribe = Callable[[], None]
"""Removes the registration it came from."""


class EventSubscriptions:
    """Where ``pi.on`` lives: the typed overloads, and the one implementation behind them."""

    if TYPE_CHECKING:
        @overload
        def on(self, event: Literal["session_start"], handler: Handler[SessionStartEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_shutdown"], handler: Handler[SessionShutdownEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_info_changed"], handler: Handler[SessionInfoChangedEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_before_switch"], handler: Handler[SessionBeforeSwitchEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_before_fork"], handler: Handler[SessionBeforeForkEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_before_compact"], handler: Handler[SessionBeforeCompactEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_compact"], handler: Handler[SessionCompactEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_compact_failed"], handler: Handler[SessionCompactFailedEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_before_tree"], handler: Handler[SessionBeforeTreeEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["session_tree"], handler: Handler[SessionTreeEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["input"], handler: Handler[InputEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["before_agent_start"], handler: Handler[BeforeAgentStartEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["context"], handler: Handler[ContextEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["agent_start"], handler: Handler[AgentStartEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["agent_end"], handler: Handler[AgentEndEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["agent_settled"], handler: Handler[AgentSettledEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["turn_start"], handler: Handler[TurnStartEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["turn_end"], handler: Handler[TurnEndEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["message_start"], handler: Handler[MessageStartEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["message_update"], handler: Handler[MessageUpdateEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["message_end"], handler: Handler[MessageEndEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["tool_call"], handler: Handler[ToolCallEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["tool_result"], handler: Handler[ToolResultEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["tool_execution_start"], handler: Handler[ToolExecutionStartEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["tool_execution_update"], handler: Handler[ToolExecutionUpdateEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["tool_execution_end"], handler: Handler[ToolExecutionEndEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["user_bash"], handler: Handler[UserBashEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["model_select"], handler: Handler[ModelSelectEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["thinking_level_select"], handler: Handler[ThinkingLevelSelectEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["before_provider_headers"], handler: Handler[BeforeProviderHeadersEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["before_provider_request"], handler: Handler[BeforeProviderRequestEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["after_provider_response"], handler: Handler[AfterProviderResponseEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["provider_stream_event"], handler: Handler[ProviderStreamEventEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["mcp_servers_change"], handler: Handler[McpServersChangeEvent]) -> Unsubscribe: ...

        @overload
        def on(self, event: Literal["resources_discover"], handler: Handler[ResourcesDiscoverEvent]) -> Unsubscribe: ...

    def on(self, event: str, handler: Callable[..., Any]) -> Unsubscribe:
        """Handle ``event`` with ``handler(event, ctx)`` (sync or async).

        Returns:
            A function removing this registration.

        Raises:
            ValueError: Unknown event name (see ``pi_runtime.extensions.events.EVENT_NAMES``).
        """
        return self._subscribe(event, handler)

    def _subscribe(self, event: str, handler: Callable[..., Any]) -> Unsubscribe:
        raise NotImplementedError
