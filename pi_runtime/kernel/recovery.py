"""``Recovery``: what the kernel does after a low-level run ends in an error.

Order as in Pi: a context overflow is handled before retry (one compact-and-retry attempt);
transient errors (429, 5xx, overloaded, dropped connections) are retried with exponential
backoff and jitter; quota and billing errors are not retried, nor is a server that asks to
wait longer than ``retry.provider.maxRetryDelayMs`` (``RetryPolicy``). Each failed attempt is taken
out of the model's context with a ``context_edit`` (it stays in the file and the UI).

The part owns its attempt counters and the pending wait; it reaches the rest of the kernel
only through the ports it was given.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..agent.agent import Agent
from ..ai.abort import AbortController, sleep_or_abort
from ..ai.types import AssistantMessage
from .compactor import Compactor
from .events import AutoRetryEndEvent, AutoRetryStartEvent, CompactionEndEvent, EntryAppendedEvent
from .record import SessionRecord
from .retry import RetryPolicy

OVERFLOW_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Use /compact with instructions or start a new session."
)


def last_assistant(messages: list[Any]) -> Any:
    for message in reversed(messages):
        if getattr(message, "role", None) == "assistant":
            return message
    return None


class Recovery:
    """Retry and overflow recovery for one prompt at a time.

    Args:
        agent: The agent to continue after a failed attempt.
        record: Takes failed attempts out of the context.
        compactor: Compacts once on overflow.
        emit: The kernel's event outlet.
        policy: Backoff settings (``enabled`` may change at run time).
        aborting: Whether the user is aborting (no recovery then).
        on_retry: Told of the failed message a retry repeats (a virtual model's router gets it).
        model_for_message: The model whose window applies to a message (None: another model's,
            which the overflow check then leaves alone); the model in use when not given.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        record: SessionRecord,
        compactor: Compactor,
        emit: Callable[[Any], Awaitable[None]],
        policy: RetryPolicy,
        aborting: Callable[[], bool],
        on_retry: Callable[[Any], None] | None = None,
        model_for_message: Callable[[Any], Any] | None = None,
    ) -> None:
        self._agent = agent
        self._record = record
        self._compactor = compactor
        self._emit = emit
        self.policy = policy
        self._aborting = aborting
        self._on_retry = on_retry
        self._model_for_message = model_for_message
        self._attempt = 0
        self._overflow_tried = False
        self._wait: AbortController | None = None

    def reset(self) -> None:
        """A new prompt starts with fresh counters."""
        self._attempt = 0
        self._overflow_tried = False

    def plan(self) -> str | None:
        """``overflow``, ``retry`` or None for the run that just ended."""
        if self._aborting():
            return None
        last = last_assistant(self._agent.state.messages)
        if last is None or last.stop_reason != "error":
            return None
        # Only a failed run needs the error patterns (their regexes cost ~4 ms to compile).
        from ..ai.errors import is_retryable

        if self._overflowed(last):
            return None if self._overflow_tried else "overflow"
        policy = self.policy
        if not policy.enabled or self._attempt >= policy.max_retries or not is_retryable(last):
            return None
        return "retry"

    def cancel_wait(self) -> None:
        """Cancel a pending retry wait (the run then settles with the error)."""
        if self._wait is not None:
            self._wait.abort()

    async def recover(self) -> None:
        """Retry or compact-and-retry until the run ends well or recovery gives up."""
        while True:
            plan = self.plan()
            last = last_assistant(self._agent.state.messages)
            if plan is None:
                await self._finish(last)
                return
            if plan == "retry":
                if not await self._wait_for_retry(last):
                    return
            else:
                self._overflow_tried = True
                await self._omit(last)
                result = await self._compactor.run("overflow", will_retry=True)
                if result is None or self._aborting():
                    return
            if self._on_retry is not None:
                self._on_retry(last)
            await self._agent.continue_()

    async def _wait_for_retry(self, last: Any) -> bool:
        from ..ai.errors import parse_retry_after

        self._attempt += 1
        hint = parse_retry_after(last.error_message)
        if self.policy.server_delay_too_long(hint):
            hint = None  # as Pi: a delay above retry.provider.maxRetryDelayMs is not waited for; plain backoff is
        delay = self.policy.delay_ms(self._attempt, hint)
        await self._emit(AutoRetryStartEvent(
            attempt=self._attempt,
            max_attempts=self.policy.max_retries,
            delay_ms=delay,
            error_message=last.error_message or "",
        ))
        self._wait = AbortController()
        try:
            cut = await sleep_or_abort(delay / 1000, self._wait.signal)
        finally:
            self._wait = None
        if cut or self._aborting():
            await self._emit(AutoRetryEndEvent(success=False, attempt=self._attempt, final_error="Retry cancelled"))
            self._attempt = 0
            return False
        await self._omit(last)
        return True

    async def _omit(self, failed: Any) -> None:
        """Take the failed attempt out of the context and announce the ``context_edit`` (Pi)."""
        edit = self._record.omit_from_context(failed)
        if edit is not None:
            await self._emit(EntryAppendedEvent(edit))

    async def answered(self, message: AssistantMessage) -> None:
        """An assistant message ended: one without an error ends the retries as a success (Pi's
        rule, stopped answers included), announced right after its ``message_end`` as Pi does."""
        if self._attempt > 0 and message.stop_reason != "error":
            attempt, self._attempt = self._attempt, 0
            await self._emit(AutoRetryEndEvent(success=True, attempt=attempt))

    async def _finish(self, last: Any) -> None:
        if self._attempt > 0:
            ok = last is not None and last.stop_reason != "error"
            await self._emit(AutoRetryEndEvent(
                success=ok,
                attempt=self._attempt,
                final_error=None if ok else (last.error_message if last else None) or "Retry failed",
            ))
            self._attempt = 0
        if (
            last is not None
            and last.stop_reason == "error"
            and self._overflow_tried
            and self._overflowed(last)
        ):
            await self._emit(CompactionEndEvent(reason="overflow", error_message=OVERFLOW_FAILED))

    def _overflowed(self, last: Any) -> bool:
        from ..ai.errors import is_context_overflow

        model = self._agent.state.model if self._model_for_message is None else self._model_for_message(last)
        return model is not None and is_context_overflow(last, model.context_window)
