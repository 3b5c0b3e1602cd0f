"""The interactive MCP sign-in behind ``pi mcp login`` and ``/mcp login`` (mcp.md, "Authenticate with OAuth").

:func:`mcp_sign_in` listens for the redirect on 127.0.0.1 (``oauth.callbackPort``, the port of
``oauth.callbackUrl``, the port of the stored registration, or a free one; path ``/callback`` unless
``callbackUrl`` names another), then connects to the server with the SDK's OAuth provider. On the
401 the SDK discovers the authorization server and registers; pi then shows the authorization URL,
opens it with :mod:`webbrowser` (which honours ``BROWSER``), and waits for the browser to come back
to the callback *or* for the redirected URL to be pasted (over SSH the browser is elsewhere).
``state`` is checked before the code is used; a denied authorization, a wrong ``state`` or the time
limit end the sign-in with a :class:`~.oauth.McpSignInError` and nothing is stored: the client
registration is only written together with the tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import os
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from .config import McpServerEntry
from .oauth import McpSignInError, build_provider, oauth_applies, stored_redirect_uri
from .oauth_store import McpAuthStore

DEFAULT_TIMEOUT = 300.0
"""Seconds the whole sign-in may take (``pi mcp login --timeout``)."""

_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>pi</title></head>
<body style="font-family: sans-serif; margin: 3em"><h2>{title}</h2><p>{text}</p></body></html>"""


class SignIn:
    """One sign-in in progress: the callback listener and the answer it waits for.

    Args:
        entry: The server to sign in to.
        show: Called with lines for the user (the authorization URL, what to do).
        open_browser: Open the URL with :mod:`webbrowser` (False: only show it).
    """

    def __init__(self, entry: McpServerEntry, show: Callable[[str], None], *, open_browser: bool = True) -> None:
        self.entry = entry
        self.show = show
        self.open_browser = open_browser
        self.authorization_url: str | None = None
        """Set once the authorization server is known (the app shows it)."""
        self.redirect_uri = ""
        self._path = "/callback"
        self._state: str | None = None
        self._answer: asyncio.Future[Any] | None = None
        self._server: asyncio.Server | None = None

    # ------------------------------------------------------------------ the callback listener

    async def listen(self, preferred_port: int | None) -> None:
        """Bind the callback listener and work out the redirect URI."""
        oauth = self.entry.config.get("oauth") or {}
        callback = oauth.get("callbackUrl")
        parts = urlsplit(callback) if callback else None
        fixed = oauth.get("callbackPort") or (parts.port if parts is not None else None)
        host = (parts.hostname if parts is not None else None) or "127.0.0.1"
        bind = "::1" if host in ("::1", "[::1]") else ("127.0.0.1" if host == "localhost" else host)
        self._path = (parts.path if parts is not None and parts.path else "") or "/callback"
        self._answer = asyncio.get_running_loop().create_future()
        ports = [fixed] if fixed else [p for p in (preferred_port, 0) if p is not None]
        for port in ports:
            try:
                self._server = await asyncio.start_server(self._handle, bind, port)
                break
            except OSError as exc:
                if fixed or port == 0:
                    raise McpSignInError(f"Cannot listen for the sign-in callback on {bind}:{port}: {exc.strerror or exc}") from None
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        if parts is not None:
            # Sent exactly as written; a missing port is added (RFC 8252 loopback redirects).
            netloc = parts.netloc if parts.port else f"{parts.netloc}:{port}"
            self.redirect_uri = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        else:
            self.redirect_uri = f"http://127.0.0.1:{port}/callback"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            target = head.split(b"\r\n", 1)[0].split(b" ")[1].decode("ascii", "replace")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError):
            writer.close()
            return
        if urlsplit(target).path != self._path:
            status, title, text = "404 Not Found", "Not found", "This is pi's sign-in callback."
        else:
            problem = self.deliver(target)
            if problem is None:
                status, title, text = "200 OK", f'Signed in to "{self.entry.name}"', "You may close this tab and return to pi."
            else:
                status, title, text = "400 Bad Request", "Sign-in failed", problem
        body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        with contextlib.suppress(Exception):
            await writer.drain()
        writer.close()

    # ------------------------------------------------------------------ answers

    def deliver(self, url: str) -> str | None:
        """Take a redirect (from the callback or pasted): resolves the wait with the code or an error.

        Returns:
            None when it was taken, else why not (the user may paste again).
        """
        query = parse_qs(urlsplit(url.strip()).query)
        if not query.get("code") and not query.get("error"):
            return "That is not the redirected URL: it has neither code nor error in its query."
        answer = self._answer
        if answer is None or answer.done() or self._state is None:
            return "No sign-in is waiting for this redirect."
        if query.get("error"):
            description = next(iter(query.get("error_description", [])), "")
            answer.set_exception(McpSignInError(
                f'MCP server "{self.entry.name}": authorization failed: {query["error"][0]}'
                + (f" ({description})" if description else "")))
            return f"The authorization server refused: {query['error'][0]}"
        if next(iter(query.get("state", [])), "") != self._state:
            answer.set_exception(McpSignInError(
                f'MCP server "{self.entry.name}": the redirect carried the wrong state; sign-in aborted (nothing stored)'))
            return "The redirect carried the wrong state."
        from mcp.shared.auth import AuthorizationCodeResult

        answer.set_result(AuthorizationCodeResult(code=query["code"][0], state=self._state,
                                                  iss=next(iter(query.get("iss", [])), None)))
        return None

    async def _redirect(self, url: str) -> None:
        self._state = next(iter(parse_qs(urlsplit(url).query).get("state", [])), None)
        self.authorization_url = url
        self.show(f"Open this URL to sign in to \"{self.entry.name}\":\n{url}")
        self.show("Waiting for the browser. If it runs on another machine, paste the URL it was redirected to.")
        if self.open_browser:
            # webbrowser may wait for the browser command ($BROWSER) to exit: not on the loop.
            opened = await asyncio.to_thread(_open, url)
            if not opened:
                self.show("No browser could be opened here: open the URL above on a machine with one.")

    async def _callback(self) -> Any:
        assert self._answer is not None
        return await self._answer

    # ------------------------------------------------------------------ the flow

    async def run(self, agent_dir: Path) -> bool:
        """Connect with OAuth until signed in.

        Returns:
            True when a sign-in happened, False when the server let pi in without one.

        Raises:
            McpSignInError: Denied, wrong state, refused by the authorization server, or unusable answers.
        """
        from .sdk_parts import sdk

        store = McpAuthStore(agent_dir)
        stored = stored_redirect_uri(store, self.entry)
        await self.listen(urlsplit(stored).port if stored else None)
        parts = await sdk()
        provider = build_provider(self.entry, store, self.redirect_uri, redirect_handler=self._redirect,
                                  callback_handler=self._callback, defer=True)
        try:
            async with contextlib.AsyncExitStack() as stack:
                http = parts["http_client"](auth=provider)
                stack.push_async_callback(http.aclose)
                client = parts["Client"](parts["streamable_http_client"](str(self.entry.config["url"]), http_client=http),
                                         mode="legacy", read_timeout_seconds=60)
                await stack.enter_async_context(client)
        except Exception as exc:  # noqa: BLE001 - the SDK's task groups wrap everything; _explain picks the cause
            raise _explain(exc, self.entry.name) from None
        finally:
            await self.close()
        return self._state is not None


def _open(url: str) -> bool:
    # Without a display (SSH) webbrowser falls back to console browsers (lynx, w3m), which would
    # take over the terminal pi draws in; the user pastes the redirected URL instead.
    graphical = sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    if not (os.environ.get("BROWSER") or graphical):
        return False
    try:
        return bool(webbrowser.open(url))
    except Exception:  # noqa: BLE001 - no browser is not an error: the URL is shown
        return False


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in _leaves(e)]
    return [exc]


def _explain(exc: BaseException, name: str) -> McpSignInError:
    """The one error worth showing from what the SDK's task groups raised."""
    leaves = _leaves(exc)
    ours = next((e for e in leaves if isinstance(e, McpSignInError)), None)
    if ours is not None:
        return ours
    from mcp.client.auth.exceptions import OAuthFlowError

    oauth = next((e for e in leaves if isinstance(e, OAuthFlowError)), None)
    leaf = oauth or leaves[0]
    text = str(leaf).strip() or type(leaf).__name__
    try:
        # A network error names no host by itself: say which request (discovery may go anywhere).
        target = leaf.request.url  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):
        target = None
    if target is not None:
        text = f"{text} ({target})"
    return McpSignInError(f'MCP server "{name}": sign-in failed: {text}')


async def mcp_sign_in(entry: McpServerEntry, agent_dir: Path, show: Callable[[str], None], *,
                  timeout: float = DEFAULT_TIMEOUT, open_browser: bool = True,
                  started: Callable[[SignIn], None] | None = None) -> bool:
    """Sign in to ``entry`` and store the credentials (see :class:`SignIn`).

    Args:
        started: Called with the sign-in before it waits (the caller can feed pasted URLs to
            :meth:`SignIn.deliver`).

    Returns:
        True when signed in, False when the server needed no sign-in.

    Raises:
        McpSignInError: The sign-in failed or took longer than ``timeout`` seconds.
    """
    if not oauth_applies(entry):
        why = "it sends its own Authorization header" if entry.transport == "http" else "it is not an HTTP server"
        raise McpSignInError(f'MCP server "{entry.name}" does not use OAuth: {why}')
    attempt = SignIn(entry, show, open_browser=open_browser)
    if started is not None:
        started(attempt)
    try:
        return await asyncio.wait_for(attempt.run(agent_dir), timeout)
    except TimeoutError:
        raise McpSignInError(f'MCP server "{entry.name}": sign-in timed out after {timeout:g} seconds') from None
    finally:
        await attempt.close()
