"""The user's own shell commands (``!cmd`` / ``!!cmd`` / RPC ``bash``), saved as bashExecution.

Unlike the model's ``bash`` tool, the output is not a tool result: it becomes a
``bashExecution`` message that reaches the model with the next prompt (unless excluded).
It runs while the agent works too, and is cancelled with ``abort_bash``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..ai.abort import AbortController
from ..ai.types import BashExecutionMessage
from .events import BashExecutionUpdateEvent

if TYPE_CHECKING:
    from .session import AgentSession


class BashOpsMixin:
    _bash_controller: AbortController | None = None
    _deferred_messages: list[Any]

    async def execute_bash(
        self: "AgentSession",
        command: str,
        exclude_from_context: bool = False,
        *,
        request_id: str | None = None,
        on_delta: Callable[[str], None] | None = None,
    ) -> dict[str, Any]:
        """Run ``command`` in the session's cwd and record it.

        Returns:
            Pi's BashResult: ``output`` (tail-truncated), ``exitCode``, ``cancelled``,
            ``truncated`` and ``fullOutputPath`` when truncated.
        """
        from ..tools.output import OutputCollector
        from ..tools.shell import LocalShellOperations

        collector = OutputCollector(temp_prefix="pi-bash-")
        controller = self._bash_controller = AbortController()
        pending: list[str] = []
        decoder = _Utf8Stream()

        def on_data(chunk: bytes) -> None:
            collector.add(chunk)
            text = decoder.feed(chunk)
            if text:
                if on_delta is not None:
                    on_delta(text)
                pending.append(text)

        shell = LocalShellOperations(getattr(self.settings, "shell_path", None) or None)
        env = dict(os.environ)
        env["PI_SESSION_ID"] = self.session_id
        import asyncio

        async def pump_events() -> None:
            while True:
                await asyncio.sleep(0.05)
                await flush()

        async def flush() -> None:
            while pending:
                await self._emit(BashExecutionUpdateEvent(pending.pop(0), request_id))

        pumper = asyncio.ensure_future(pump_events())
        try:
            outcome = await shell.exec(command, self.cwd, on_data=on_data, signal=controller.signal, timeout=None, env=env)
        except Exception as exc:  # noqa: BLE001 - report like a shell would
            collector.add(f"{exc}\n".encode())
            outcome = None
        finally:
            pumper.cancel()
            self._bash_controller = None
        tail_text = decoder.feed(b"", final=True)
        if tail_text:
            pending.append(tail_text)
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
        self._record_bash(message)
        result: dict[str, Any] = {
            "output": message.output,
            "exitCode": message.exit_code,
            "cancelled": cancelled,
            "truncated": message.truncated,
        }
        if message.full_output_path:
            result["fullOutputPath"] = message.full_output_path
        return result

    def _record_bash(self: "AgentSession", message: BashExecutionMessage) -> None:
        # While a run streams, appending now could land between a tool call and its
        # result, which providers reject on replay; queueing it as a steer would cost a
        # model call. Keep it until the run settles (as Pi defers custom messages).
        if self.is_streaming:
            self._deferred_messages.append(message)
            return
        self.agent.state.messages.append(message)
        self._persist_message(message)

    def _flush_deferred(self: "AgentSession") -> None:
        while self._deferred_messages:
            message = self._deferred_messages.pop(0)
            self.agent.state.messages.append(message)
            self._persist_message(message)

    def abort_bash(self: "AgentSession") -> None:
        if self._bash_controller is not None:
            self._bash_controller.abort()


class _Utf8Stream:
    """Decode a byte stream without splitting multi-byte characters."""

    def __init__(self) -> None:
        import codecs

        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, chunk: bytes, final: bool = False) -> str:
        return self._decoder.decode(chunk, final=final)
