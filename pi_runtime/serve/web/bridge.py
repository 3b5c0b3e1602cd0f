"""One browser connection: the app in a child process, drawn by Textual's web driver.

The child is started with ``TEXTUAL_DRIVER`` naming Textual's ``WebDriver``: it writes a line
``__GANGLION__`` and then packets (one type byte, a 4-byte big-endian length, the payload):
``D`` screen output, ``M`` a JSON meta message (``exit``, ``open_url``), ``P`` file downloads
(not offered here). It reads the same framing on stdin: ``D`` keys and mouse as a terminal
sends them, ``M`` ``resize``/``focus``/``blur``/``quit``. The browser's ``textual.js`` sends JSON
arrays (``["stdin", text]``, ``["resize", {width, height}]``, ``["ping", t]``, ``["focus"]``,
``["blur"]``) and receives screen output as binary frames and ``["pong", t]`` as text.

Closing the page ends only the child (``quit``, then SIGTERM, then SIGKILL): the sessions it
showed are the server's and go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Sequence
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

READY_LINE = b"__GANGLION__\n"
PRELUDE_LINES = 50
"""Lines the child may print before the app starts (an error says why it did not)."""
QUIT_GRACE = 5.0
"""Seconds the app gets to leave after ``quit`` before it is terminated."""
STDERR_KEEP = 8192


def packet(kind: bytes, payload: bytes) -> bytes:
    """One packet of the web driver's framing."""
    return kind + len(payload).to_bytes(4, "big") + payload


def child_environment(width: int, height: int) -> dict[str, str]:
    """The child's environment: the web driver, the page's size, full colour.

    The frame rate is left to the app (pi_tui asks for 120): at textual-serve's 60 a typed key
    took 16.6 ms to come back as a frame (median, bench/serve_web.py), at 120 it takes 11.7 ms.
    """
    env = dict(os.environ)
    env.update({
        "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
        "TEXTUAL_COLOR_SYSTEM": "truecolor",
        "COLUMNS": str(width),
        "ROWS": str(height),
    })
    return env


class BrowserBridge:
    """Copies between one browser websocket and one app process until either ends."""

    def __init__(self, websocket: ServerConnection, argv: Sequence[str], cwd: str, width: int, height: int) -> None:
        self.websocket = websocket
        self.argv = list(argv)
        self.cwd = cwd
        self.size = (width, height)
        self._stderr = bytearray()
        self._stderr_read = asyncio.Event()
        self.exit_status: int | None = None
        """The app's exit status once :meth:`run` returned (negative: ended by that signal)."""

    async def run(self) -> None:
        """Start the app, copy both ways, and always leave the child ended."""
        width, height = self.size
        proc = await asyncio.create_subprocess_exec(
            *self.argv, cwd=self.cwd, env=child_environment(width, height), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )
        tasks = [asyncio.ensure_future(self._from_app(proc)), asyncio.ensure_future(self._to_app(proc)),
                 asyncio.ensure_future(self._keep_stderr(proc))]
        try:
            await asyncio.wait(tasks[:2], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks[:2]:
                task.cancel()
            await self._end(proc)
            self.exit_status = proc.returncode
            tasks[2].cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(ConnectionClosed):
                await self.websocket.close()

    async def _from_app(self, proc: asyncio.subprocess.Process) -> None:
        stdout = proc.stdout
        assert stdout is not None
        prelude: list[bytes] = []
        line = b""
        try:
            for _ in range(PRELUDE_LINES):
                line = await stdout.readline()
                if not line or line == READY_LINE:
                    break
                prelude.append(line)
        except ValueError:  # a line past the reader's limit: this is no Textual app starting
            line = b""
        if line != READY_LINE:
            await self._show_failure(proc, b"".join(prelude))
            return
        try:
            while True:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                if kind == b"D":
                    await self.websocket.send(payload)
                elif kind == b"M" and not await self._on_meta(payload):
                    return
        except (asyncio.IncompleteReadError, ConnectionClosed):
            return

    async def _on_meta(self, payload: bytes) -> bool:
        """Handle a meta packet; False when the app said it is leaving."""
        try:
            meta = json.loads(payload)
        except ValueError:
            return True
        kind = meta.get("type") if isinstance(meta, dict) else None
        if kind == "exit":
            return False
        url = meta.get("url") if kind == "open_url" else None
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            await self.websocket.send(json.dumps(["open_url", {"url": url, "new_tab": bool(meta.get("new_tab", True))}]))
        return True

    async def _show_failure(self, proc: asyncio.subprocess.Process, prelude: bytes) -> None:
        """The app never started: show the browser what the child said, in place of the screen."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stderr_read.wait(), QUIT_GRACE)
        said = (prelude + bytes(self._stderr)).decode("utf-8", "replace").strip() or "the app did not start"
        text = "pi could not open the app here:\r\n\r\n" + said.replace("\r\n", "\n").replace("\n", "\r\n")
        with contextlib.suppress(ConnectionClosed):
            await self.websocket.send(text.encode("utf-8"))

    async def _to_app(self, proc: asyncio.subprocess.Process) -> None:
        stdin = proc.stdin
        assert stdin is not None
        try:
            async for message in self.websocket:
                if isinstance(message, bytes):
                    continue
                data = self._from_browser(message)
                if data is not None:
                    stdin.write(data)
                    await stdin.drain()
        except (ConnectionClosed, ConnectionError):
            return

    def _from_browser(self, message: str) -> bytes | None:
        """A browser message as the packet for the app's stdin (a ping is answered here)."""
        try:
            envelope: Any = json.loads(message)
        except ValueError:
            return None
        if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
            return None
        kind, body = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(body, str):
            return packet(b"D", body.encode("utf-8"))
        if kind == "resize" and isinstance(body, dict):
            width, height = body.get("width"), body.get("height")
            if isinstance(width, int) and isinstance(height, int) and 0 < width <= 1000 and 0 < height <= 1000:
                return packet(b"M", json.dumps({"type": "resize", "width": width, "height": height}).encode())
            return None
        if kind in ("focus", "blur"):
            return packet(b"M", json.dumps({"type": kind}).encode())
        if kind == "ping":
            task = asyncio.ensure_future(self._pong(body))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)
        return None

    async def _pong(self, body: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.websocket.send(json.dumps(["pong", body]))

    async def _keep_stderr(self, proc: asyncio.subprocess.Process) -> None:
        stderr = proc.stderr
        assert stderr is not None
        try:
            while chunk := await stderr.read(4096):
                self._stderr += chunk
                del self._stderr[:-STDERR_KEEP]
        finally:
            self._stderr_read.set()

    async def _end(self, proc: asyncio.subprocess.Process) -> None:
        """Ask the app to quit; terminate it if it does not, kill it if that fails too."""
        if proc.returncode is None and proc.stdin is not None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                proc.stdin.write(packet(b"M", b'{"type": "quit"}'))
                await proc.stdin.drain()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)  # its own session: whatever it started goes too
            try:
                await asyncio.wait_for(proc.wait(), QUIT_GRACE)
                return
            except TimeoutError:
                continue
