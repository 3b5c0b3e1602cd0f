"""The ``mcp`` SDK's parts pi uses, imported off the event loop on the first connect, and how its
failures read: a message from an exception group, whether a failure is worth another attempt."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

SDK: dict[str, Any] = {}


def load_sdk() -> dict[str, Any]:
    """Import the SDK's client parts (run in a thread: it takes about half a second)."""
    if not SDK:
        import httpx2
        import mcp_types
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client
        from mcp.shared.exceptions import MCPError

        from .http_transport import budgeted
        from .stdio import stdio_transport, stop_process

        # The SDK logs what it cannot parse with a traceback (logger.exception); with no handler
        # configured, Python's last resort printed those on stderr, through the app's screen
        # and into RPC clients' logs. The failure still reaches the caller as the error of the
        # request it answered (a tool call's error, a connection's state).
        sdk_log = logging.getLogger("mcp")
        if not any(isinstance(h, logging.NullHandler) for h in sdk_log.handlers):
            sdk_log.addHandler(logging.NullHandler())
        sdk_log.propagate = False
        SDK.update(Client=Client, types=mcp_types, streamable_http_client=streamable_http_client, budgeted=budgeted,
                    stdio_transport=stdio_transport, stop_process=stop_process, http_client=create_mcp_http_client,
                    MCPError=MCPError, httpx=httpx2)
    return SDK


async def sdk() -> dict[str, Any]:
    """The SDK's parts, imported off the event loop the first time."""
    return SDK if SDK else await asyncio.to_thread(load_sdk)


class McpConnectionError(Exception):
    """A server could not be reached, or a call found the connection gone."""


def failure_text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(failure_text(e) for e in exc.exceptions)
    text = str(exc).strip()
    return text or type(exc).__name__


def contains(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc``, an exception group member or a cause is a ``kind``."""
    if isinstance(exc, kind):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(contains(e, kind) for e in exc.exceptions)
    return exc.__cause__ is not None and contains(exc.__cause__, kind)


def transient(exc: BaseException) -> bool:
    """Network errors and 408/429/5xx answers, worth another attempt."""
    if isinstance(exc, BaseExceptionGroup):
        return any(transient(e) for e in exc.exceptions)
    httpx = SDK.get("httpx")
    if httpx is not None and isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
        return status in (408, 429) or (status >= 500 and status != 501)
    return isinstance(exc, (ConnectionError, OSError)) or (httpx is not None and isinstance(exc, httpx.TransportError))
