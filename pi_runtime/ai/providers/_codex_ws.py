"""The Codex endpoint over WebSocket, as Pi 1.6 uses it: one socket per session, kept between turns.

A request is one text frame, ``{"type": "response.create", ...body}``; the answer is the same
events as the SSE stream, one JSON object per frame, until ``response.completed`` (or
``response.done`` / ``response.incomplete``). What Pi does and pi does too:

- a session's socket is kept for the next request (per session and account), closed after five
  idle minutes, and not reused once 45 minutes old (the server ends sockets at 60);
- with the ``auto`` or ``websocket-cached`` transport, a request that only adds to the last one
  sends just the new input items with ``previous_response_id`` (the socket remembers the rest);
- a socket that is busy (two requests of one session at once) is not shared: the second
  request opens a socket of its own and closes it after.

The library is ``websockets`` (imported in a thread on the first Codex request over WebSocket);
frames larger than ``MAX_MESSAGE`` are refused. Failures are raised to the caller
(``openai_codex_responses``), which decides between retrying, falling back to SSE and failing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import field
from typing import Any

from ...records import record
from ..abort import AbortSignal
from ._http import Aborted

BETA_HEADER = "responses_websockets=2026-02-06"
IDLE_CLOSE_SECONDS = 5 * 60
MAX_AGE_SECONDS = 45 * 60
CONNECT_TIMEOUT = 15.0
MAX_MESSAGE = 64 * 1024 * 1024
_TERMINAL = ("response.completed", "response.done", "response.incomplete")


class CodexProtocolError(Exception):
    """The server sent something that is not the protocol (not a transport failure)."""


class WebSocketClosed(Exception):
    """The socket closed (or failed) before the response completed; a transport failure."""


@record
class Continuation:
    """What the socket's server remembers of the last exchange: its request and answer."""

    body: dict[str, Any]
    response_id: str
    response_items: list[dict[str, Any]]


@record
class SessionSocket:
    connection: Any
    loop: asyncio.AbstractEventLoop
    created: float = field(default_factory=time.monotonic)
    busy: bool = False
    continuation: Continuation | None = None
    idle_timer: asyncio.TimerHandle | None = None


_sockets: dict[tuple[str, str], SessionSocket] = {}
_closing: set[asyncio.Future[Any]] = set()
"""Closes under way (held so they are not collected before they ran)."""
_keepers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
sse_only_sessions: set[str] = set()
"""Sessions whose WebSocket failed before its stream started: they use SSE from then on (as Pi)."""


def _close_soon(entry: SessionSocket, abort: bool = False) -> None:
    """Close the socket: gracefully (idle, too old), or at once after a failure or an abort."""
    if entry.idle_timer is not None:
        entry.idle_timer.cancel()
        entry.idle_timer = None
    if abort:
        entry.connection.transport.abort()
    elif not entry.loop.is_closed():
        _close_later(entry.connection, entry.loop)


def _close_later(connection: Any, loop: asyncio.AbstractEventLoop | None = None) -> None:
    task = asyncio.ensure_future(connection.close(), loop=loop)
    _closing.add(task)
    task.add_done_callback(_closing.discard)


def _forget(key: tuple[str, str], entry: SessionSocket, abort: bool = False) -> None:
    if _sockets.get(key) is entry:
        del _sockets[key]
    _close_soon(entry, abort)


async def _close_at_shutdown(loop: asyncio.AbstractEventLoop) -> None:
    """Parked until the loop shuts down; then the loop's sockets are closed (``pi -p`` must exit)."""
    try:
        await loop.create_future()
    finally:
        _keepers.pop(loop, None)
        for key, entry in list(_sockets.items()):
            if entry.loop is loop:
                del _sockets[key]
                entry.connection.transport.abort()


def close_sessions(session_id: str | None = None) -> None:
    """Close the cached sockets of ``session_id`` (all of them when None)."""
    for key, entry in list(_sockets.items()):
        if session_id is None or key[0] == session_id:
            _forget(key, entry)


async def _client() -> Any:
    """``websockets.asyncio.client``, imported in a worker thread the first time (30-80 ms that would
    otherwise freeze the app's screen as the first Codex request goes out)."""
    import importlib
    import sys

    module = sys.modules.get("websockets.asyncio.client")
    if module is None:
        module = await asyncio.to_thread(importlib.import_module, "websockets.asyncio.client")
    return module


async def _connect(url: str, headers: dict[str, str], signal: AbortSignal | None, timeout: float) -> Any:
    connect = (await _client()).connect

    ssl_context = None
    if url.startswith("wss:"):
        from ...http import trust_store

        ssl_context = await asyncio.to_thread(trust_store)
    opening = asyncio.ensure_future(connect(
        url, additional_headers=headers, user_agent_header=None, open_timeout=None, ping_interval=None,
        close_timeout=1, max_size=MAX_MESSAGE, ssl=ssl_context))
    stop = asyncio.ensure_future(signal.wait()) if signal is not None else None
    try:
        done, _ = await asyncio.wait({opening, *([stop] if stop else [])}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        if stop is not None:
            stop.cancel()
    if opening in done:
        return opening.result()
    opening.cancel()
    if signal is not None and signal.aborted:
        raise Aborted()
    raise WebSocketClosed(f"WebSocket connect timeout after {round(timeout * 1000)}ms")


class Lease:
    """A socket for one request; ``release(keep)`` returns it to the session (or closes it)."""

    def __init__(self, connection: Any, entry: SessionSocket | None, key: tuple[str, str] | None) -> None:
        self.connection = connection
        self.entry = entry
        self.key = key

    def release(self, keep: bool) -> None:
        entry, key = self.entry, self.key
        if entry is None or key is None:  # a socket of its own: closed after its one request
            if keep:
                _close_later(self.connection)
            else:
                self.connection.transport.abort()
            return
        if not keep or self.connection.state.name != "OPEN":
            entry.continuation = None
            _forget(key, entry, abort=True)
            return
        entry.busy = False
        entry.idle_timer = entry.loop.call_later(IDLE_CLOSE_SECONDS, _forget, key, entry)


async def acquire(url: str, headers: dict[str, str], session_id: str | None, account_id: str,
                  signal: AbortSignal | None, timeout: float = CONNECT_TIMEOUT) -> Lease:
    """A socket for one request: the session's cached one when it is free and fresh, else a new one."""
    loop = asyncio.get_running_loop()
    if not session_id:
        return Lease(await _connect(url, headers, signal, timeout), None, None)
    key = (session_id, account_id)
    cached = _sockets.get(key)
    if cached is not None:
        if cached.idle_timer is not None:
            cached.idle_timer.cancel()
            cached.idle_timer = None
        usable = cached.loop is loop and cached.connection.state.name == "OPEN"
        if not cached.busy and usable and time.monotonic() - cached.created < MAX_AGE_SECONDS:
            cached.busy = True
            return Lease(cached.connection, cached, key)
        if cached.busy and usable:
            return Lease(await _connect(url, headers, signal, timeout), None, None)
        _forget(key, cached)
    connection = await _connect(url, headers, signal, timeout)
    entry = _sockets[key] = SessionSocket(connection=connection, loop=loop, busy=True)
    if loop not in _keepers:
        _keepers[loop] = loop.create_task(_close_at_shutdown(loop), name="pi-codex-websockets")
    return Lease(connection, entry, key)


def _without_input(body: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in body.items() if k not in ("input", "previous_response_id")},
                      separators=(",", ":"))


def request_body(entry: SessionSocket | None, body: dict[str, Any]) -> dict[str, Any]:
    """``body``, or only its new input items with ``previous_response_id`` when it continues the
    socket's last exchange (same settings, the last input and answer as its prefix)."""
    last = entry.continuation if entry is not None else None
    if last is None:
        return body
    items = body.get("input") or []
    baseline = [*(last.body.get("input") or []), *last.response_items]
    same_prefix = len(items) >= len(baseline) and json.dumps(items[:len(baseline)]) == json.dumps(baseline)
    if _without_input(body) != _without_input(last.body) or not same_prefix or not last.response_id:
        assert entry is not None
        entry.continuation = None
        return body
    continued = dict(body)
    continued["previous_response_id"] = last.response_id
    continued["input"] = items[len(baseline):]
    return continued


async def exchange(connection: Any, message: dict[str, Any], signal: AbortSignal | None,
                   idle_timeout: float | None) -> AsyncIterator[dict[str, Any]]:
    """Send ``message`` and yield the answer's events up to (and with) the terminal one.

    Raises:
        Aborted: the signal fired.
        CodexProtocolError: a frame is not a JSON object.
        WebSocketClosed: the socket closed or went silent before the response completed.
    """
    from websockets.exceptions import ConnectionClosed

    await connection.send(json.dumps(message, separators=(",", ":"), ensure_ascii=False))
    stop = asyncio.ensure_future(signal.wait()) if signal is not None else None
    try:
        while True:
            receiving = asyncio.ensure_future(connection.recv())
            done, _ = await asyncio.wait({receiving, *([stop] if stop else [])}, timeout=idle_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
            if receiving not in done:
                receiving.cancel()
                if signal is not None and signal.aborted:
                    raise Aborted()
                raise WebSocketClosed(f"WebSocket idle timeout after {round((idle_timeout or 0) * 1000)}ms")
            try:
                frame = receiving.result()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else 1006
                reason = exc.rcvd.reason if exc.rcvd is not None else ""
                if not reason and code == 1009:
                    reason = "message too big"
                raise WebSocketClosed(f"WebSocket closed {code} {reason}".strip()) from None
            text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
            try:
                event = json.loads(text)
            except ValueError as exc:
                raise CodexProtocolError(f"Invalid Codex WebSocket JSON: {exc}") from None
            if not isinstance(event, dict):
                raise CodexProtocolError("Invalid Codex WebSocket JSON: not an object")
            yield event
            if event.get("type") in _TERMINAL:
                return
    finally:
        if stop is not None:
            stop.cancel()
