"""Options for one streaming request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .abort import AbortSignal

if TYPE_CHECKING:
    import httpx


@dataclass
class StreamOptions:
    api_key: str | None = None
    """Overrides credential resolution for this request."""
    signal: AbortSignal | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    reasoning: str | None = None
    """Thinking level: off, minimal, low, medium, high, xhigh (mapped per provider)."""
    headers: dict[str, str] = field(default_factory=dict)
    session_id: str | None = None
    """Used as a prompt-cache key by providers that support one."""
    client: httpx.AsyncClient | None = None
    """Injectable HTTP client (tests, proxies). A shared default is used otherwise."""
    timeout: float = 600.0
    """Seconds without any bytes from the server before the request fails."""
    connect_timeout: float = 30.0
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
