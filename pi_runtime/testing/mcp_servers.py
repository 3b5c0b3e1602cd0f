"""Real MCP servers for tests and benchmarks, no mocks.

- :func:`server_executable` finds the PyPI stdio servers' scripts (``mcp-server-time``,
  ``mcp-server-git``; the ``test`` extra installs them);
- :class:`HttpMcpServer` is a streamable-HTTP server (the ``mcp`` SDK's ``MCPServer``) with a tool,
  a failing tool, a resource and a resource template, run by uvicorn in a thread on 127.0.0.1;
- :func:`processes_with_env` scans ``/proc`` for live processes carrying a marker variable, to
  prove that no server outlives pi.

Example:
    with HttpMcpServer() as server:
        ... {"mcpServers": {"web": {"url": server.url}}} ...
        assert server.headers[0]["authorization"] == "Bearer t"
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from pi_runtime.testing.waiting import wait_until

__all__ = ["HttpMcpServer", "processes_with_env", "server_executable", "wait_until"]


def server_executable(name: str) -> str | None:
    """A console script installed next to the running Python, else on ``PATH``; None when missing."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def processes_with_env(key: str, value: str) -> list[int]:
    """Pids of live processes whose environment has ``key=value``."""
    needle = f"{key}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if needle in environ.split(b"\0") and "State:\tZ" not in status:
            found.append(int(entry))
    return found


class HttpMcpServer:
    """A streamable-HTTP MCP server on 127.0.0.1 with a tool, a resource and a template.

    ``headers`` records the headers of every request it received.
    """

    def __init__(self) -> None:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError

        server = MCPServer("web-test", instructions="Arithmetic and notes for tests.")

        @server.tool(description="Add two numbers")
        def add(a: int, b: int) -> str:
            return str(a + b)

        @server.tool(description="Always fails")
        def explode() -> str:
            raise ToolError("kaboom")

        @server.resource("note://hello", name="hello", mime_type="text/plain", description="A greeting")
        def hello() -> str:
            return "Hello from a resource"

        @server.resource("note://{name}/shout", name="shout")
        def shout(name: str) -> str:
            return name.upper()

        self.headers: list[dict[str, str]] = []
        self._app = server.streamable_http_app()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._server: Any = None
        self._thread: threading.Thread | None = None

    async def _recording(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            self.headers.append({k.decode().lower(): v.decode() for k, v in scope.get("headers", [])})
        await self._app(scope, receive, send)

    def __enter__(self) -> HttpMcpServer:
        import uvicorn

        config = uvicorn.Config(self._recording, log_level="warning", lifespan="on", interface="asgi3")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(self._server.serve(sockets=[self._sock])), daemon=True)
        self._thread.start()
        assert wait_until(lambda: self._server.started, 10), "the HTTP MCP server did not start"
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self._sock.close()
