"""The loopback redirect a browser sign-in comes back to, raced against a pasted code.

:func:`start_callback` listens on ``host:port`` (``PI_OAUTH_CALLBACK_HOST`` or 127.0.0.1; port 0
takes a free one) for one ``GET <path>?code=...&state=...``. A request to another path gets 404,
a wrong ``state`` 400 (the sign-in goes on: a stray or forged request must not end it), an
``error=`` ends the sign-in with the provider's description, and a code is handed to ``complete``
(which may exchange it for tokens right away) before the browser is told it can close the page.

:func:`callback_or_pasted` waits for that or for the user to paste the redirect URL or code (the
browser may be on another machine); whichever comes first wins and the other is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import os
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import parse_qs, urlsplit

from ..oauth import LoginCallbacks, OAuthLoginCancelled
from .web import SignInError

T = TypeVar("T")
V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)


class Waitable(Protocol[V_co]):
    """What :func:`callback_or_pasted` needs of a callback server."""

    async def wait(self) -> V_co | None: ...

    def cancel(self) -> None: ...

CALLBACK_HOST_VARIABLE = "PI_OAUTH_CALLBACK_HOST"


def callback_host() -> str:
    """Where callback servers listen: ``PI_OAUTH_CALLBACK_HOST`` (e.g. 0.0.0.0 in a container), else 127.0.0.1."""
    return os.environ.get(CALLBACK_HOST_VARIABLE) or "127.0.0.1"


def page(title: str, message: str, details: str | None = None) -> str:
    """The small page the browser shows after the redirect."""
    extra = f"<pre>{html.escape(details)}</pre>" if details else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>'
        f"{html.escape(title)}</title></head>"
        '<body style="font-family: system-ui, sans-serif; margin: 4em auto; max-width: 36em; text-align: center">'
        f"<h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>{extra}</body></html>"
    )


def success_page(message: str) -> str:
    return page("Signed in", message)


def failure_page(message: str, details: str | None = None) -> str:
    return page("Sign-in failed", message, details)


class CallbackServer(Generic[T]):
    """One listening callback. Use :func:`start_callback` to make one."""

    def __init__(self, provider_name: str, path: str, state: str | None,
                 complete: Callable[[str], Awaitable[T]],
                 read_query: Callable[[dict[str, list[str]]], T] | None = None) -> None:
        self.provider_name = provider_name
        self.path = path
        self.state = state
        self._complete = complete
        self._read_query = read_query
        self.redirect_uri = ""
        self._result: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()
        self._result.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._claimed = False
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[Any]] = set()

    async def wait(self) -> T | None:
        """The completed value; None when :meth:`cancel` was called (the pasted code won)."""
        return await asyncio.shield(self._result)

    def cancel(self) -> None:
        """Stop waiting (unless a callback is already being completed)."""
        if not self._claimed and not self._result.done():
            self._result.set_result(None)

    async def close(self) -> None:
        """Stop listening and drop open connections."""
        if not self._result.done():
            self._result.set_exception(SignInError("OAuth callback server closed"))
        if self._server is not None:
            self._server.close()
            for task in list(self._handlers):
                task.cancel()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            method, target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, ConnectionError):
            writer.close()
            return
        finally:
            if task is not None:
                self._handlers.discard(task)
        status, body = await self._answer(method, target)
        data = body.encode()
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
                     f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
        with contextlib.suppress(Exception):
            await writer.drain()
        writer.close()

    async def _answer(self, method: str, target: str) -> tuple[str, str]:
        parts = urlsplit(target)
        query = parse_qs(parts.query, keep_blank_values=True)

        def first(key: str) -> str | None:
            values = query.get(key)
            return values[0] if values else None

        if method != "GET" or parts.path != self.path:
            return "404 Not Found", failure_page("This is not a sign-in callback.")
        if self._read_query is not None and not first("error"):
            # The flow reads the whole redirect (ChatGPT's carries the issued client id); a redirect it
            # refuses (a wrong state) gets an error page and the sign-in keeps waiting.
            if self._result.done():
                return "409 Conflict", failure_page("This sign-in has already been handled.")
            try:
                self._result.set_result(self._read_query(query))
            except SignInError as exc:
                return "400 Bad Request", failure_page(str(exc))
            return "200 OK", success_page(f"Signed in to {self.provider_name}. You can close this page.")
        if self.state is not None and first("state") != self.state:
            return "400 Bad Request", failure_page("The sign-in state does not match.")
        if self._claimed or self._result.done():
            return "409 Conflict", failure_page("This sign-in has already been handled.")
        error = first("error")
        if error:
            description = first("error_description") or error
            self._result.set_exception(SignInError(f"{self.provider_name} authorization failed: {description}"))
            return "400 Bad Request", failure_page(f"{self.provider_name} refused the sign-in.", description)
        code = first("code")
        if not code:
            return "400 Bad Request", failure_page("The redirect carries no authorization code.")
        self._claimed = True
        try:
            value = await self._complete(code)
        except Exception as exc:  # noqa: BLE001 - reported to the browser and to the flow
            if not self._result.done():
                self._result.set_exception(exc)
            return "502 Bad Gateway", failure_page(f"Signing in to {self.provider_name} failed.", str(exc))
        if not self._result.done():
            self._result.set_result(value)
        return "200 OK", success_page(f"Signed in to {self.provider_name}. You can close this page.")


async def start_callback(provider_name: str, *, port: int, path: str, complete: Callable[[str], Awaitable[T]],
                         state: str | None = None, host: str | None = None, redirect_host: str | None = None,
                         read_query: Callable[[dict[str, list[str]]], T] | None = None) -> CallbackServer[T]:
    """Listen for the browser's redirect.

    Args:
        provider_name: For messages and the page (``Anthropic``).
        port: The port (0: any free one).
        path: The callback path (``/callback``).
        complete: Turns the code into the flow's result (or returns it as is).
        state: The ``state`` a redirect must carry (None: not checked; OpenRouter sends none).
        host: Where to listen; :func:`callback_host` when None.
        redirect_host: The host written into the redirect URI (``localhost`` for Anthropic).
        read_query: Reads a redirect's whole query instead (``state`` and ``complete`` are then unused);
            raises :class:`SignInError` for one to refuse.

    Raises:
        OSError: The port cannot be bound.
    """
    server: CallbackServer[T] = CallbackServer(provider_name, path, state, complete, read_query)
    bind = host or callback_host()
    server._server = await asyncio.start_server(server._handle, bind, port)
    bound = server._server.sockets[0].getsockname()[1]
    shown = redirect_host or bind
    shown = f"[{shown}]" if ":" in shown else shown
    server.redirect_uri = f"http://{shown}:{bound}{path}"
    return server


async def callback_or_pasted(callbacks: LoginCallbacks, callback: Waitable[V] | None, message: str,
                             placeholder: str | None) -> tuple[V | None, str | None]:
    """Wait for the browser's callback or a pasted answer, whichever comes first.

    Returns:
        ``(value, None)`` when the callback completed, ``(None, pasted text)`` otherwise.

    Raises:
        OAuthLoginCancelled: The user cancelled.
        Exception: What the callback's completion raised (a failed token exchange, a refusal).
    """
    pasted = asyncio.ensure_future(callbacks.on_manual_code(message, placeholder=placeholder))
    waits: set[asyncio.Future[Any]] = {pasted}
    called: asyncio.Future[V | None] | None = None
    if callback is not None:
        called = asyncio.ensure_future(callback.wait())
        waits.add(called)
    cancelled = asyncio.ensure_future(callbacks.signal.wait())
    waits.add(cancelled)
    try:
        while True:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if cancelled in done:
                raise OAuthLoginCancelled("Login cancelled")
            if called is not None and called in done:
                value = called.result()
                if value is not None:
                    return value, None
                waits.discard(called)  # cancelled by a paste that is about to arrive
                continue
            if callback is not None:
                callback.cancel()
            return None, pasted.result()
    finally:
        for waiter in (pasted, cancelled, called):
            if waiter is not None and not waiter.done():
                waiter.cancel()
        if not pasted.done():
            await asyncio.wait({pasted})  # the front end takes its question down before the flow goes on
