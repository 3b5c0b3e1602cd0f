"""One MCP server, kept connected through the ``mcp`` SDK (stdio or streamable HTTP).

The SDK's client is an anyio context manager: it must be entered and left in the same task. So a
connection runs a task of its own that opens the client, lists the tools and then waits until it
is told to stop; calls from the agent's tool tasks go through the open client. Leaving the client
is what stops a stdio server, as the MCP spec and Pi say: close stdin, wait,
then SIGTERM and SIGKILL to the server's process group (:mod:`.stdio`: it is started in a new
session, so ``npx``/``uvx`` wrappers and their children go too).

States (Pi's): ``connecting``, ``connected``, ``failed``, ``disconnected`` (the transport dropped;
the next call reconnects), ``closed``, and ``needs-auth``: an HTTP server without an
``Authorization`` header answered 401 and no stored sign-in could satisfy it (a session never opens
a browser by itself; :mod:`.oauth_login` does, for ``pi mcp login`` and ``/mcp login``). With a
stored sign-in the SDK's OAuth provider (:mod:`.oauth`) is the HTTP client's auth and refreshes
tokens. The SDK is imported on the first connect, in a worker thread, so the event loop (and the
app's frame) keeps running meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .config import McpServerEntry
from .sdk_parts import SDK, McpConnectionError, contains, failure_text, sdk, transient
from .spawn import kill_group, spawn
from .stderr_tail import StderrTail
from .values import expand_home, resolve_value

log = logging.getLogger("pi.mcp")

State = Literal["connecting", "connected", "failed", "disconnected", "closed", "needs-auth"]
_CONNECT_RETRY_DELAYS = (0.25, 1.0)
"""Waits before the second and third attempt to reach an HTTP server that failed transiently."""
class McpConnection:
    """A configured server and, while connected, its client, tools and capabilities.

    Args:
        entry: The server's validated configuration.
        cwd: The session folder (relative ``cwd`` values and the ``roots`` the server sees).
        on_change: Called after every state or tool-list change (the manager re-registers tools).
        log_line: Writes one server logging notification to ``mcp.log``.
        version: pi's version, sent as ``clientInfo``.
    """

    def __init__(
        self,
        entry: McpServerEntry,
        cwd: str,
        *,
        on_change: Callable[[McpConnection], None] | None = None,
        log_line: Callable[[str, Any], None] | None = None,
        version: str = "0",
        agent_dir: str | Path | None = None,
    ) -> None:
        self.entry = entry
        self.agent_dir = Path(agent_dir) if agent_dir is not None else None
        """Where ``mcp-auth.json`` is (the default agent dir when None)."""
        self._unauthorized = False
        self.cwd = cwd
        self.state: State = "connecting"
        self.error: str | None = None
        """Why the last connect failed or the connection dropped (with the stderr tail)."""
        self.tools: list[dict[str, Any]] = []
        """The server's tools in wire form (``name``, ``description``, ``inputSchema``, ``annotations``...)."""
        self.skipped_tools: list[str] = []
        """Malformed tool definitions of the last listing, skipped (what was wrong with each)."""
        self._skipping: list[str] = []
        self.has_resources = False
        """Whether the server declared the resources capability."""
        self.instructions: str | None = None
        """The server's ``instructions`` from ``initialize``."""
        self.connected_at: float | None = None
        self._on_change = on_change
        self._log_line = log_line
        self._version = version
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._opening: asyncio.Future[Any] | None = None
        self._closed = False
        self._stderr: StderrTail | None = None

    @property
    def name(self) -> str:
        """The server's name."""
        return self.entry.name

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    def _changed(self) -> None:
        if self._on_change is not None:
            try:
                self._on_change(self)
            except Exception:
                log.exception("MCP change listener failed")

    # ------------------------------------------------------------------ connecting

    async def client(self) -> Any:
        """The connected client, connecting (or reconnecting) first when needed.

        Raises:
            McpConnectionError: The server cannot be reached (the message says why).
        """
        if self._closed:
            raise McpConnectionError(f'MCP server "{self.name}" is shut down')
        if self._client is not None and self.state == "connected":
            return self._client
        if self._opening is None or self._opening.done():
            self._opening = asyncio.ensure_future(self._open())
        opening = self._opening
        try:
            # Shielded: one caller giving up (an aborted tool call) must not cancel the connect others wait for.
            return await asyncio.shield(opening)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._closed and opening.cancelled() and (task is None or not task.cancelling()):
                # close() stopped the connect: for this caller that is a closed server, not its own cancel.
                raise McpConnectionError(f'MCP server "{self.name}" is shut down') from None
            raise

    async def _open(self) -> Any:
        self.state = "connecting"
        self._changed()
        delays = _CONNECT_RETRY_DELAYS if self.entry.transport == "http" else ()
        attempt = 0
        while True:
            try:
                return await self._connect_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._closed or attempt >= len(delays) or not transient(exc):
                    raise self._failed(exc) from exc
                await asyncio.sleep(delays[attempt])
                attempt += 1
                if self._closed:
                    raise self._failed(exc) from exc

    def _failed(self, exc: BaseException) -> McpConnectionError:
        from .oauth import SignInRequired, oauth_applies, sign_in_hint

        if not self._closed and oauth_applies(self.entry) and (self._unauthorized or contains(exc, SignInRequired)):
            self.state = "needs-auth"
            self.error = sign_in_hint(self.name)
            self._changed()
            return McpConnectionError(f'MCP server "{self.name}" {self.error}')
        self.state = "closed" if self._closed else "failed"
        tail = self._stderr_tail()
        self.error = f"{failure_text(exc)}\n{tail}" if tail else failure_text(exc)
        self._changed()
        return McpConnectionError(f'MCP server "{self.name}" failed to connect: {self.error}')

    async def _connect_once(self) -> Any:
        # The SDK loads in a thread while a stdio server boots: both take about half a second.
        loading = asyncio.ensure_future(sdk())
        ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        if self._stderr is not None:
            self._stderr.close()
        stderr = self._stderr = StderrTail() if self.entry.transport == "stdio" else None
        process = await self._spawn(stderr) if stderr is not None else None
        try:
            parts = await loading
        except BaseException:
            if process is not None:
                kill_group(process)
            raise
        task = asyncio.ensure_future(self._serve(parts, ready, stop, process))
        try:
            client = await ready
        except BaseException:
            stop.set()
            task.cancel()  # a handshake still under way (close() cancelled us) is not waited for
            with contextlib.suppress(BaseException):
                await task
            raise
        if stderr is not None:
            stderr.release_write_end()  # the server holds its own copy; ours would hide its EOF
        if self._closed:
            stop.set()
            await task
            raise McpConnectionError("shut down while connecting")
        self._task, self._stop, self._client = task, stop, client
        self.state = "connected"
        self.error = None
        self.connected_at = time.time()
        self._changed()
        return client

    async def _spawn(self, stderr: StderrTail) -> Any:
        config = self.entry.config
        env = dict(os.environ)
        for key, value in (config.get("env") or {}).items():
            env[key] = resolve_value(value, f'MCP server "{self.name}" env "{key}"')
        return await spawn(
            expand_home(config["command"]), [expand_home(a) for a in config.get("args") or []], env,
            str((Path(self.cwd) / expand_home(config.get("cwd") or ".")).resolve()), stderr.write_end,
        )

    def _transport(self, parts: dict[str, Any], stack: contextlib.AsyncExitStack, process: Any) -> Any:
        """The SDK transport for this entry (an async context manager yielding the streams)."""
        if process is not None:
            # Also stopped if the client fails before it takes the process over (a second stop is a no-op).
            stack.push_async_callback(parts["stop_process"], process)
            return parts["stdio_transport"](process, on_skipped_tools=self._skipped)
        config = self.entry.config
        headers = {k: resolve_value(v, f'MCP server "{self.name}" header "{k}"')
                   for k, v in (config.get("headers") or {}).items()}
        http = parts["http_client"](headers=headers or None, auth=self._oauth())
        self._unauthorized = False
        http.event_hooks["response"].append(self._saw_response)
        stack.push_async_callback(http.aclose)
        return parts["budgeted"](parts["streamable_http_client"](str(config["url"]), http_client=http))

    def _oauth(self) -> Any:
        """The SDK's OAuth provider when a sign-in is stored for this server, else None (see
        :func:`.oauth.session_auth`: without one, a 401 means ``needs-auth``)."""
        from ..paths import agent_dir
        from .oauth import session_auth

        return session_auth(self.entry, self.agent_dir or agent_dir())

    async def _saw_response(self, response: Any) -> None:
        if response.status_code == 401:
            self._unauthorized = True

    async def _serve(self, parts: dict[str, Any], ready: asyncio.Future[Any], stop: asyncio.Event,
                     process: Any) -> None:
        """The connection's own task: open the client, publish it, hold it until ``stop``."""
        types = parts["types"]
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = parts["Client"](
                    self._transport(parts, stack, process),
                    mode="legacy",  # the initialize handshake every MCP server speaks (Pi: 2025-11-25)
                    read_timeout_seconds=self.entry.timeout,
                    client_info=types.Implementation(name="pi", version=self._version),
                    list_roots_callback=self._roots,
                    logging_callback=self._logged,
                    message_handler=self._notified,
                    cache=None,
                )
                await stack.enter_async_context(client)
                capabilities = client.server_capabilities
                # Servers without the tools capability (prompts or resources only) do not answer tools/list.
                self.tools = await self._list_tools(client) if capabilities.tools is not None else []
                self.has_resources = capabilities.resources is not None
                self.instructions = (client.instructions or "").strip() or None
                ready.set_result(client)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else McpConnectionError(failure_text(exc)))
            elif not isinstance(exc, asyncio.CancelledError) and not self._closed:
                self._dropped(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise

    async def _list_tools(self, client: Any) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        skipped: list[str] = []
        self._skipping = skipped
        cursor = None
        for _ in range(100):  # a server whose cursor never ends cannot hang the connect
            page = await client.list_tools(cursor=cursor)
            tools.extend(t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self.skipped_tools = skipped
        return tools

    def _skipped(self, problems: list[str]) -> None:
        """The transport left malformed tool definitions out of a listing (see :mod:`.reader`)."""
        self._skipping.extend(problems)

    def _stderr_tail(self) -> str:
        return self._stderr.tail() if self._stderr is not None else ""

    async def _roots(self, _context: Any) -> Any:
        types = SDK["types"]
        folder = Path(self.cwd)
        return types.ListRootsResult(roots=[types.Root(uri=folder.resolve().as_uri(), name=folder.name or "/")])

    async def _logged(self, params: Any) -> None:
        if self._log_line is not None:
            self._log_line(self.name, params)

    async def _notified(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            client = self._client
            if client is None:
                return
            try:
                self.tools = await self._list_tools(client)
            except Exception as exc:  # noqa: BLE001 - keep the old list and say why
                self.error = f"Failed to refresh tools: {failure_text(exc)}"
            self._changed()

    def _dropped(self, exc: BaseException | None) -> None:
        """The transport went away under a live client: show it; the next call reconnects."""
        self._client = None
        self.state = "disconnected"
        reason = "Connection closed" if exc is None else f"Connection closed: {failure_text(exc)}"
        self.error = reason
        self._changed()

    # ------------------------------------------------------------------ requests

    async def request(self, run: Callable[[Any], Any], *, read_only: bool = False) -> Any:
        """Run ``await run(client)``, connecting first; a dropped connection is reconnected once.

        ``read_only`` requests (listing, reading resources) are also retried once after a
        transient HTTP error; tool calls are not, since the server may already have run them.

        Raises:
            McpConnectionError: Cannot connect, or the connection dropped during the request.
            Exception: An MCP error from the server (``MCPError``) passes through.
        """
        for attempt in (1, 2):
            client = await self.client()
            try:
                return await run(client)
            except Exception as exc:
                mcp_error = SDK["MCPError"]
                closed = isinstance(exc, mcp_error) and exc.code == SDK["types"].CONNECTION_CLOSED
                closed = closed or type(exc).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream")
                if closed:
                    await self._drop_client()
                    if attempt == 1 and read_only:
                        continue
                    raise McpConnectionError(f'MCP server "{self.name}": {self.error or "connection closed"}') from exc
                if read_only and attempt == 1 and transient(exc):
                    await asyncio.sleep(_CONNECT_RETRY_DELAYS[0])
                    continue
                raise
        raise McpConnectionError(f'MCP server "{self.name}": request failed')  # pragma: no cover - loop returns or raises

    async def reopen(self) -> Any:
        """Drop the connection and open a new one (credentials or config are read afresh).

        A connect already under way (the session's start-up one) is let finish and then dropped:
        joining it instead would return a client opened with what was true before the call, such as
        the credentials ``/mcp logout`` has just deleted.

        Raises:
            McpConnectionError: The server cannot be reached.
        """
        opening = self._opening
        if opening is not None and not opening.done():
            await asyncio.wait([opening])  # its outcome does not matter: it is dropped next
        await self._drop_client()
        return await self.client()

    async def _drop_client(self) -> None:
        task, stop = self._task, self._stop
        self._task = self._stop = None
        if self._client is not None:
            self._dropped(None)
        if self._stderr is not None:
            tail = self._stderr_tail()
            if tail:
                self.error = f"{self.error or 'Connection closed'}\n{tail}"
        if stop is not None:
            stop.set()
        if task is not None:
            with contextlib.suppress(BaseException):
                await task

    async def close(self) -> None:
        """Disconnect and stop the server (waits until its process is gone).

        A connect still under way is cancelled, not waited for: it may be importing the SDK or in
        the middle of a slow handshake, and pi's shutdown gives this only a few seconds; cancelled,
        it stops the server's process group itself (see :meth:`_connect_once`).
        """
        self._closed = True
        self.state = "closed"
        self._changed()
        opening = self._opening
        if opening is not None and not opening.done():
            opening.cancel()
            await asyncio.wait([opening])
        task, stop = self._task, self._stop
        self._client = self._task = self._stop = None
        if stop is not None:
            stop.set()
        if task is not None:
            with contextlib.suppress(BaseException):
                await task
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
