"""Options for one streaming request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import field
from typing import Any, Literal

from ..records import record
from .abort import AbortSignal

DEFAULT_IDLE_TIMEOUT = 300.0
"""Pi's ``httpIdleTimeoutMs`` default (300000 ms), in seconds."""
DEFAULT_MAX_RETRY_DELAY = 60.0
"""Pi's ``retry.provider.maxRetryDelayMs`` default (60000 ms), in seconds."""


@record
class StreamOptions:
    api_key: str | None = None
    """Overrides credential resolution for this request."""
    signal: AbortSignal | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    reasoning: str | None = None
    """Thinking level: off, minimal, low, medium, high, xhigh (mapped per provider)."""
    headers: dict[str, str | None] = field(default_factory=dict)
    """Extra request headers; their values count as secrets in error messages. A None value removes
    the header (names compare without case), as ``null`` does in Pi."""
    session_id: str | None = None
    """Used as a prompt-cache key by providers that support one."""
    timeout: float | None = DEFAULT_IDLE_TIMEOUT
    """Seconds the response body may stay silent before the request fails (``httpIdleTimeoutMs``);
    None waits for ever."""
    request_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    """Seconds from sending the request until the response head arrives (``retry.provider.timeoutMs``,
    which defaults to ``httpIdleTimeoutMs``); None waits for ever."""
    connect_timeout: float = 30.0
    """Seconds to open the connection (never longer than ``request_timeout``)."""
    max_retry_delay: float | None = DEFAULT_MAX_RETRY_DELAY
    """Longest retry delay a server may ask for (``retry.provider.maxRetryDelayMs``). A longer one
    is reported as Pi words it ("Server requested 3600s retry delay (max: 60s). ...") and is not
    retried; None or 0: no limit."""
    secrets: tuple[str, ...] = ()
    """Configured secret values besides the key (resolved header values, env and command parts);
    error messages never show them."""
    transport: Literal["auto", "sse", "websocket", "websocket-cached"] = "auto"
    """Pi's ``transport`` setting, for providers that speak more than one (openai-codex-responses:
    WebSocket first, SSE on failure, unless ``sse``)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Provider-specific knobs."""
    on_headers: Callable[[dict[str, str]], Awaitable[dict[str, str]]] | None = None
    """HTTP providers: called with the request headers before sending; returns the headers to send."""
    on_payload: Callable[[Any], Awaitable[Any]] | None = None
    """HTTP providers: called with the request body before sending; returns the body to send."""
    on_response: Callable[[int, dict[str, str]], Awaitable[None]] | None = None
    """HTTP providers: called with the status and headers before the body is read."""
    on_stream_event: Callable[[Any], Awaitable[None]] | None = None
    """HTTP providers: called with each parsed stream event (``{"event", "data"}``) before it is used."""


@record(frozen=True)
class RequestLimits:
    """The settings-driven limits of every request, in seconds (None: no limit), and its transport."""

    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    request_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    max_retry_delay: float | None = DEFAULT_MAX_RETRY_DELAY
    transport: Literal["auto", "sse", "websocket", "websocket-cached"] = "auto"

    @classmethod
    def from_ms(
        cls, idle_ms: float | str | None, request_ms: float | None, max_retry_delay_ms: float | None,
        transport: Literal["auto", "sse", "websocket", "websocket-cached"] = "auto",
    ) -> RequestLimits:
        """Pi's settings: ``httpIdleTimeoutMs`` (0 or ``"disabled"``: none), ``retry.provider.timeoutMs``
        (None: the idle timeout) and ``retry.provider.maxRetryDelayMs`` (0: no limit)."""
        idle = None if isinstance(idle_ms, str) or not idle_ms else float(idle_ms) / 1000
        request = idle if request_ms is None else (float(request_ms) / 1000 or None)
        delay = None if not max_retry_delay_ms else float(max_retry_delay_ms) / 1000
        return cls(idle_timeout=idle, request_timeout=request, max_retry_delay=delay, transport=transport)

    def apply(self, options: StreamOptions) -> StreamOptions:
        """Put these limits on ``options`` (in place) and return it."""
        options.timeout = self.idle_timeout
        options.request_timeout = self.request_timeout
        options.max_retry_delay = self.max_retry_delay
        options.transport = self.transport
        return options
