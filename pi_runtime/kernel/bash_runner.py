"""``BashRunner``: the user's own shell commands (``!cmd`` / ``!!cmd`` / RPC ``bash``).

Unlike the model's ``bash`` tool, the output is not a tool result: it becomes a
``bashExecution`` message that reaches the model with the next prompt (unless excluded).
It runs while the agent works too (the message is then kept until the run settles), and is
cancelled with ``abort``.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..ai.abort import AbortController
from ..ai.types import BashExecutionMessage
from .events import BashExecutionUpdateEvent
from .extension_port import ExtensionGate

# ``results`` (ten frozen records, ~6 ms to define) is imported where a result is made: a plain prompt
# (``pi -p``) makes none.
if TYPE_CHECKING:
    from .results import BashResult

UPDATE_INTERVAL_S = 0.05
"""Output is forwarded as ``bash_execution_update`` events at most this often."""


class BashRunner:
    """Runs one user command at a time in the session's folder.

    Args:
        cwd: Where commands run.
        emit: The kernel's event outlet.
        record: Stores the finished ``bashExecution`` message (deferred while a run streams).
        env: Extra environment for each command (read when it starts).
        shell_path: The user's ``shellPath`` setting (None: the default shell).
        command_prefix: The ``shellCommandPrefix`` setting, run before each command.
        gate: Extensions' ``user_bash`` handlers may run the command elsewhere, answer it or block it.
    """

    def __init__(
        self,
        *,
        cwd: str,
        emit: Callable[[Any], Awaitable[None]],
        record: Callable[[BashExecutionMessage], None],
        env: Callable[[], dict[str, str]],
        shell_path: Callable[[], str | None],
        gate: ExtensionGate | None = None,
        command_prefix: Callable[[], str | None] = lambda: None,
    ) -> None:
        self._cwd = cwd
        self._emit = emit
        self._record = record
        self._env = env
        self._shell_path = shell_path
        self._command_prefix = command_prefix
        self._gate = gate
        self._controller: AbortController | None = None

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    async def run(
        self,
        command: str,
        exclude_from_context: bool = False,
        *,
        request_id: str | None = None,
        on_delta: Callable[[str], None] | None = None,
    ) -> BashResult:
        """Run ``command``, stream its output as events, record it, and return Pi's BashResult."""
        from ..tools.output import OutputCollector
        from ..tools.shell import LocalShellOperations
        from .results import BashResult

        decision = await self._gate.user_bash(command, exclude_from_context, self._cwd) if self._gate else None
        if decision is not None and (decision.result is not None or decision.blocked is not None):
            return self._answered(command, exclude_from_context, decision.result, decision.blocked)
        collector = OutputCollector(temp_prefix="pi-bash-")
        controller = self._controller = AbortController()
        pending: list[str] = []
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

        def on_data(chunk: bytes) -> None:
            collector.add(chunk)
            text = decoder.decode(chunk)
            if text:
                if on_delta is not None:
                    on_delta(text)
                pending.append(text)

        async def flush() -> None:
            # One event for what arrived since the last: a command that floods its output
            # (``yes``) sent thousands of events a second, and a front end drowned in them.
            if pending:
                text = "".join(pending)
                pending.clear()
                await self._emit(BashExecutionUpdateEvent(text, request_id))

        async def pump() -> None:
            while True:
                await asyncio.sleep(UPDATE_INTERVAL_S)
                await flush()

        shell = decision.operations if decision is not None else LocalShellOperations(self._shell_path() or None)
        env = {**os.environ, **self._env()}
        prefix = self._command_prefix()
        # shellCommandPrefix (Pi's alias recipe) runs before the command; the command is recorded as typed.
        to_run = f"{prefix}\n{command}" if prefix else command
        pumper = asyncio.get_running_loop().create_task(pump())
        try:
            outcome = await shell.exec(to_run, self._cwd, on_data=on_data, signal=controller.signal, timeout=None, env=env)
        except Exception as exc:  # noqa: BLE001 - report like a shell would
            collector.add(f"{exc}\n".encode())
            outcome = None
        finally:
            pumper.cancel()
            self._controller = None
        rest = decoder.decode(b"", final=True)
        if rest:
            pending.append(rest)
        await flush()
        collector.close()
        tail = collector.tail()
        cancelled = bool(outcome and outcome.aborted)
        exit_code = outcome.exit_code if outcome is not None else 1
        message = BashExecutionMessage(
            command=command,
            output=tail.content,
            exit_code=None if cancelled else exit_code,
            cancelled=cancelled,
            truncated=tail.truncated,
            full_output_path=collector.full_output_path if tail.truncated else None,
            exclude_from_context=exclude_from_context or None,
        )
        if not tail.truncated:
            collector.discard_file()
        self._record(message)
        return BashResult(
            output=message.output,
            exit_code=message.exit_code,
            cancelled=cancelled,
            truncated=message.truncated,
            full_output_path=message.full_output_path,
        )

    def _answered(self, command: str, exclude: bool, result: dict[str, Any] | None, blocked: str | None) -> BashResult:
        """Record a command an extension answered (``{"result": ...}``) or blocked, without running it."""
        from .results import BashResult

        data = result or {}
        cancelled = bool(data.get("cancelled", False))
        code = data.get("exitCode", data.get("exit_code", 0 if blocked is None else 1))
        message = BashExecutionMessage(
            command=command,
            output=blocked if blocked is not None else str(data.get("output", "")),
            exit_code=None if cancelled else (code if isinstance(code, int) else 1),
            cancelled=cancelled,
            truncated=bool(data.get("truncated", False)),
            exclude_from_context=exclude or None,
        )
        self._record(message)
        return BashResult(output=message.output, exit_code=message.exit_code, cancelled=cancelled,
                          truncated=message.truncated, full_output_path=None)
