"""The stdio transport pi gives the SDK's client: one server process in a process group of its own.

The SDK ships a stdio transport, but it stops only the server process when that exits on its own
after stdin closes; children a wrapper (``npx``, ``uvx``, a shell script) started would be left
running. Pi stops the whole group, every time: close stdin, give the server a moment, then SIGTERM
and SIGKILL to its process group (mcp.md). This transport does that, sends the server's stderr
where pi keeps its tail, and passes pi's whole environment plus the entry's ``env`` (as Pi does).

Messages are newline-delimited JSON-RPC, parsed and written with the SDK's own models, so the
SDK's client session works on it unchanged. The process itself is started by :func:`spawn`
(anyio only, no SDK), so a server boots while pi is still importing the SDK.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from .lines import LineSplitter
from .reader import MessageReader

log = logging.getLogger("pi.mcp")

EXIT_GRACE = 2.0
"""Seconds a server may take to exit after its stdin closed, before its group gets SIGTERM."""
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL to the group."""


async def _wait_exit(process: Any, timeout: float) -> bool:
    # Polled, not process.wait(): that also waits for the pipes to close, which a child that
    # inherited them can hold open after the server itself exited.
    with anyio.move_on_after(timeout):
        while process.returncode is None:  # noqa: ASYNC110 - nothing to wait on but the exit status
            await anyio.sleep(0.01)
    return process.returncode is not None


async def stop_process(process: Any) -> None:
    """Close the server's stdin, wait a moment, then SIGTERM and SIGKILL its whole process group."""
    with anyio.CancelScope(shield=True):
        if process.stdin is not None:
            with contextlib.suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
                await process.stdin.aclose()
        await _wait_exit(process, EXIT_GRACE)
        # Always the whole group: a wrapper's children survive their parent's exit.
        await terminate_posix_process_tree(process, KILL_GRACE)
        if not await _wait_exit(process, KILL_GRACE):
            log.warning("MCP server process %d is still alive after SIGKILL", process.pid)
        _close_pipes(process)


def _close_pipes(process: Any) -> None:
    # anyio's Process has no close, and its stdout's aclose only feeds EOF: a pipe that flow control
    # paused (a server flooding stdout when pi stopped reading) stayed open until garbage collection,
    # after the loop had closed ("RuntimeError: Event loop is closed" at exit). Closing asyncio's
    # subprocess transport closes every pipe now (and kills a process still alive).
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    if transport is not None:
        transport.close()


@contextlib.asynccontextmanager
async def stdio_transport(process: Any, on_skipped_tools: Callable[[list[str]], None] | None = None,
                          ) -> AsyncIterator[tuple[Any, Any]]:
    """Yield ``(read_stream, write_stream)`` over a started server (see :func:`spawn`) for the
    SDK's client; leaving stops the server's process group. Malformed tool definitions are left
    out of ``tools/list`` answers and reported to ``on_skipped_tools`` (see :mod:`.reader`)."""
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None  # open_process pipes both by default
    read_in, read_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_in, write_out = anyio.create_memory_object_stream[SessionMessage](0)
    reader = MessageReader(on_skipped_tools)

    async def read_stdout() -> None:
        splitter = LineSplitter()
        async with read_in:
            try:
                while True:
                    try:
                        chunk = await stdout.receive()
                    except anyio.EndOfStream:
                        return
                    for line in splitter.feed(chunk):
                        for item in reader.items(line):
                            await read_in.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                pass  # the server or pi went away; the session sees the stream end

    async def write_stdin() -> None:
        async with write_out:
            try:
                async for message in write_out:
                    reader.sent(message.message)
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send((text + "\n").encode("utf-8"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_in.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(write_stdin)
        try:
            yield read_out, write_in
        finally:
            # Stopping must finish even when the caller is being cancelled, or the server outlives pi.
            with anyio.CancelScope(shield=True):
                await write_in.aclose()
                await stop_process(process)
                with contextlib.suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await stdout.aclose()
                await read_out.aclose()
            group.cancel_scope.cancel()
