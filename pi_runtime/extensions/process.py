"""``pi.exec``: run a program (no shell) and collect its output, abortable and bounded."""

from __future__ import annotations

import asyncio
import os
import signal as _signal
from typing import Any

from ..records import record

DEFAULT_MAX_BUFFER = 256 * 1024 * 1024
KILL_GRACE_SECONDS = 5.0


@record
class ExecResult:
    """What a finished command produced."""

    stdout: str
    stderr: str
    code: int
    """Exit status; 128 + signal number when a signal ended it (as a shell reports)."""
    killed: bool = False
    """True when pi ended it (timeout, abort, output limit)."""
    truncated: bool = False
    """True when output passed ``max_buffer`` and was cut."""


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, _signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        await asyncio.wait_for(proc.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        try:
            os.killpg(proc.pid, _signal.SIGKILL)
        except ProcessLookupError:
            pass
        await proc.wait()


async def run_process(
    command: str,
    args: list[str] | tuple[str, ...] = (),
    *,
    cwd: str | None = None,
    timeout: float | None = None,
    signal: Any = None,
    max_buffer: int = DEFAULT_MAX_BUFFER,
    env: dict[str, str] | None = None,
    input: str | None = None,
) -> ExecResult:
    """Run ``command args...`` without a shell.

    Args:
        command: Program name or path.
        args: Its arguments.
        cwd: Working directory.
        timeout: Seconds before it is terminated (SIGTERM, then SIGKILL after 5 s).
        signal: An ``AbortSignal``; aborting terminates it.
        max_buffer: Combined stdout+stderr bytes kept; more terminates it.
        env: Environment (the process's own when None).
        input: Text written to its stdin.

    Returns:
        The result. A program that cannot start gives code 127 and the reason in stderr.
    """
    try:
        proc = await asyncio.create_subprocess_exec(
            command, *args, cwd=cwd, env=env,
            stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own group, so abort also ends its children
        )
    except OSError as exc:
        return ExecResult("", f"{command}: {exc.strerror or exc}", 127)
    out, err = bytearray(), bytearray()
    state = {"killed": False, "truncated": False}

    async def pump(stream: asyncio.StreamReader, sink: bytearray) -> None:
        while chunk := await stream.read(65536):
            room = max_buffer - len(out) - len(err)
            sink += chunk[:room]
            if len(chunk) > room:
                state["truncated"] = state["killed"] = True
                await _terminate(proc)
                return

    async def feed() -> None:
        if input is not None and proc.stdin is not None:
            try:
                proc.stdin.write(input.encode())
                await proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError):
                pass
            proc.stdin.close()

    async def watch() -> None:
        waiters = []
        if signal is not None:
            waiters.append(asyncio.ensure_future(signal.wait()))
        if timeout is not None:
            waiters.append(asyncio.ensure_future(asyncio.sleep(timeout)))
        if not waiters:
            return
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        state["killed"] = True
        await _terminate(proc)

    watcher = asyncio.ensure_future(watch())
    try:
        await asyncio.gather(pump(proc.stdout, out), pump(proc.stderr, err), feed())  # type: ignore[arg-type]
        code = await proc.wait()
    except asyncio.CancelledError:
        await _terminate(proc)
        raise
    finally:
        watcher.cancel()
    return ExecResult(
        out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
        code if code >= 0 else 128 - code, state["killed"], state["truncated"],
    )
