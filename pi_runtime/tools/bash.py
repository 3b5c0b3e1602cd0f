"""The ``bash`` tool: run a shell command in the working directory and report its output.

Output (stdout and stderr merged) streams to ``on_update`` while the command runs, at most
every ``update_interval`` seconds (an empty update first, as Pi sends). The model gets the
output as the command wrote it (a final newline kept), or, past 2,000 lines / 50 KB, the
last whole lines and a note naming the temp file holding everything. A non-zero exit is an
error result the tool returns (its details kept, as Pi's ``isError``); abort, timeout and a
missing exit code raise ``ToolError``. Either way the text ends in Pi's wording ("Command
exited with code N", "Command aborted", "Command timed out after N seconds").
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..agent.tool import PREFER_STRICT_SCHEMA, AgentTool, ToolError, ToolFailed, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..ai.types import TextContent, js_number
from ..jsonmodel import Field
from ..records import record
from .operations import ShellExit, ShellOperations
from .output import OutputCollector, truncation_notice
from .shell import LocalShellOperations
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

MAX_TIMEOUT_SECONDS = 2_147_483.647
"""Largest accepted timeout (about 24.8 days; Pi's timer limit, 2**31 - 1 ms)."""
STRUCTURED_OUTPUT_MAX_BYTES = 1024 * 1024
"""Output a codemode script gets from ``tools.bash()``: past it, the first and last halves."""
BASH_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["output", "truncated", "exit_code", "wall_time_seconds"],
    "properties": {
        "output": {"type": "string", "description": "Combined stdout and stderr, possibly truncated"},
        "truncated": {"type": "boolean"},
        "full_output_path": {"type": "string", "description": "Full output, when truncated"},
        "exit_code": {"type": "number"},
        "wall_time_seconds": {"type": "number"},
    },
}
"""What a codemode script's ``tools.bash()`` resolves to, also for a non-zero exit code (Pi's schema)."""

EnvSource = Mapping[str, str] | Callable[[], Mapping[str, str]] | None
"""Extra environment for commands: a mapping, or a callable read when each command starts
(so ``PI_MODEL`` and friends follow model switches)."""


class BashParams(ToolParams):
    # Pi 1.6's schema: the timeout is a plain number, checked when the command runs (a bounded schema
    # would not pass Anthropic's strict tool mode, so the tool would lose its strict sampling there).
    command: str = Field(description="Shell command to execute")
    timeout: float | None = Field(default=None, description="Timeout in seconds (optional, no default timeout)")


def checked_timeout(timeout: float | None) -> float | None:
    """``timeout`` when it is usable, else Pi's error (raised into the tool's error result)."""
    if timeout is None:
        return None
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError("Invalid timeout: must be a finite number of seconds")
    if timeout > MAX_TIMEOUT_SECONDS:
        raise ValueError(f"Invalid timeout: maximum is {MAX_TIMEOUT_SECONDS} seconds")
    return timeout


@record(slots=True)
class SpawnContext:
    """What a spawn hook may rewrite before the command starts."""

    command: str
    cwd: str
    env: dict[str, str]


SpawnHook = Callable[[SpawnContext], SpawnContext]


def _fmt_seconds(value: float) -> str:
    return f"{value:g}"


class BashTool(AgentTool):
    name = "bash"
    label = "bash"
    constrained_sampling = PREFER_STRICT_SCHEMA
    description = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. "
        f"Output is truncated to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB "
        "(whichever is hit first). If truncated, full output is saved to a temp file. "
        "Optionally provide a timeout in seconds."
    )
    Params = BashParams

    def __init__(
        self,
        cwd: str,
        *,
        shell_ops: ShellOperations | None = None,
        env: EnvSource = None,
        command_prefix: str | None = None,
        spawn_hook: SpawnHook | None = None,
        update_interval: float = 0.1,
    ) -> None:
        """Args:
        cwd: Working directory for commands.
        shell_ops: Command runner; defaults to the local shell.
        env: Extra environment on top of the inherited one.
        command_prefix: Prepended to every command (the ``shellCommandPrefix`` setting).
        spawn_hook: Last chance to rewrite command, cwd and env.
        update_interval: Minimum seconds between partial-output updates.
        """
        self.cwd = cwd
        self.shell_ops: ShellOperations = shell_ops or LocalShellOperations()
        self.env = env
        self.command_prefix = command_prefix
        self.spawn_hook = spawn_hook
        self.update_interval = update_interval

    def _spawn_context(self, command: str) -> SpawnContext:
        env = dict(os.environ)
        extra = self.env() if callable(self.env) else self.env
        if extra:
            env.update({k: str(v) for k, v in extra.items() if v is not None})
        if self.command_prefix:
            command = f"{self.command_prefix}\n{command}"
        ctx = SpawnContext(command, self.cwd, env)
        return self.spawn_hook(ctx) if self.spawn_hook else ctx

    async def execute(
        self,
        call_id: str,
        params: BashParams,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        checked_timeout(params.timeout)
        ctx = self._spawn_context(params.command)
        collector = OutputCollector()
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        last_emit = -1e9
        pending: asyncio.TimerHandle | None = None

        def emit() -> None:
            nonlocal pending, last_emit
            pending = None
            last_emit = loop.time()
            if on_update is not None:
                on_update(self._partial(collector))

        def on_data(chunk: bytes) -> None:
            nonlocal pending
            collector.add(chunk)
            if on_update is None or pending is not None:
                return
            wait = self.update_interval - (loop.time() - last_emit)
            if wait <= 0:
                emit()
            else:
                pending = loop.call_later(wait, emit)

        if on_update is not None:
            on_update(ToolResult(content=[]))  # the command started (Pi's first, empty update)
        try:
            outcome = await self.shell_ops.exec(
                ctx.command, ctx.cwd, on_data=on_data, signal=signal,
                timeout=params.timeout, env=ctx.env,
            )
        finally:
            if pending is not None:  # output not shown yet: one last update with it, as Pi sends
                pending.cancel()
                emit()
            collector.close()
        result = self._finish(collector, outcome, params.timeout)
        if outcome.exit_code is not None:
            output, truncated = _full_output(collector)
            structured: dict[str, Any] = {"output": output, "truncated": truncated}
            if truncated and collector.full_output_path:
                structured["full_output_path"] = collector.full_output_path
            structured["exit_code"] = outcome.exit_code
            # A whole number as Pi writes it (0, not 0.0): scripts and RPC clients read the same JSON.
            structured["wall_time_seconds"] = js_number(round((time.monotonic() - started) * 10) / 10)
            result.structured_content = structured
        if result.is_error:
            # A non-zero exit: raised (Pi's tests expect execute to reject) and recorded whole by the loop.
            raise ToolFailed(result)
        return result

    output_schema = BASH_OUTPUT_SCHEMA

    @staticmethod
    def _partial(collector: OutputCollector) -> ToolResult:
        tail = collector.tail()
        details: dict[str, Any] = {}
        if tail.truncated:
            details["truncation"] = tail.to_dict()
            collector.ensure_file()  # as Pi: cut output is saved as soon as an update shows it cut
        if collector.full_output_path:
            details["fullOutputPath"] = collector.full_output_path
        return ToolResult(content=[TextContent(text=tail.content)], details=details)

    @staticmethod
    def _finish(collector: OutputCollector, outcome: ShellExit, timeout: float | None) -> ToolResult:
        tail = collector.tail()
        details: dict[str, Any] | None = None
        text = tail.content
        if tail.truncated:
            collector.ensure_file()
            details = {"truncation": tail.to_dict(), "fullOutputPath": collector.full_output_path}
            text += truncation_notice(tail, collector.full_output_path, collector.last_line_bytes)
        else:
            collector.discard_file()

        failure: str | None = None
        if outcome.aborted:
            failure = "Command aborted"
        elif outcome.timed_out:
            failure = f"Command timed out after {_fmt_seconds(timeout or 0)} seconds"
            if outcome.exited_after is not None:
                # Pi's wording and rounding (tenths of a second).
                after = _fmt_seconds(round(outcome.exited_after * 10) / 10)
                failure += (
                    f". The shell exited with code {outcome.exit_code} after {after} seconds, but background "
                    "processes it started kept writing output until the timeout."
                )
        elif outcome.exit_code is None:
            failure = "Command terminated without an exit code"
            text = text or "(no output)"  # as Pi: only an abort or timeout says nothing of the output
        elif outcome.exit_code != 0:
            # The command ran: an error result with the output and details, as Pi 1.6 returns it
            # (``execute`` raises it whole once its structured content is added).
            text = f"{text or '(no output)'}\n\nCommand exited with code {outcome.exit_code}"
            return ToolResult(content=[TextContent(text=text)], details=details, is_error=True)

        if failure is None:
            return ToolResult(content=[TextContent(text=text or "(no output)")], details=details)
        message = f"{text}\n\n{failure}" if text else failure
        error = ToolError(message)
        # Front ends may show the truncation and the saved-output path of a failed command.
        error.details = details  # type: ignore[attr-defined]
        error.exit_code = outcome.exit_code  # type: ignore[attr-defined]
        raise error


def _full_output(collector: OutputCollector) -> tuple[str, bool]:
    """The whole output for a script, or past 1 MiB its first and last 512 KiB around an omission line."""
    path = collector.full_output_path
    if path is None or collector.total_bytes <= collector.buffered_bytes:
        return collector.text(), False
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= STRUCTURED_OUTPUT_MAX_BYTES:
            return handle.read().decode("utf-8", errors="replace"), False
        head_bytes = STRUCTURED_OUTPUT_MAX_BYTES // 2
        tail_bytes = STRUCTURED_OUTPUT_MAX_BYTES - head_bytes
        head = handle.read(head_bytes)
        handle.seek(size - tail_bytes)
        tail = handle.read(tail_bytes)
    head = head[: len(head) - _incomplete_suffix(head)]
    start = 0
    while start < len(tail) and tail[start] & 0xC0 == 0x80:  # skip a character cut at the start
        start += 1
    omitted = size - head_bytes - tail_bytes
    text = f"{head.decode('utf-8', errors='replace')}\n\n[... {omitted} bytes omitted ...]\n\n"
    return text + tail[start:].decode("utf-8", errors="replace"), True


def _incomplete_suffix(data: bytes) -> int:
    """Bytes of a UTF-8 character cut off at the end of ``data``."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue
        needed = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 1
        return back if needed > back else 0
    return 0
