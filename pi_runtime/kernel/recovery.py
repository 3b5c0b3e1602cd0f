"""What the kernel does after a low-level run ends in an error: retry or compact-and-retry.

Order as in Pi: a context overflow is handled before retry (one compact-and-retry attempt);
transient errors (429, 5xx, overloaded, dropped connections) are retried with exponential
backoff and jitter; quota and billing errors are not retried. Each failed attempt is taken
out of the model's context with a ``context_edit`` (it stays in the file and the UI).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ai.abort import AbortController, sleep_or_abort
from ..ai.errors import is_context_overflow, is_retryable, parse_retry_after
from .events import AutoRetryEndEvent, AutoRetryStartEvent, CompactionEndEvent

if TYPE_CHECKING:
    from .session import AgentSession

OVERFLOW_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Use /compact with instructions or start a new session."
)


class RecoveryMixin:
    _retry_attempt: int = 0
    _overflow_tried: bool = False

    def _plan_recovery(self: "AgentSession") -> str | None:
        """``overflow``, ``retry`` or None for the run that just ended."""
        if self._aborting:
            return None
        last = self._last_assistant()
        if last is None or last.stop_reason != "error":
            return None
        model = self.agent.state.model
        if is_context_overflow(last, model.context_window):
            return None if self._overflow_tried else "overflow"
        policy = self.retry_policy
        if policy.enabled and is_retryable(last) and self._retry_attempt < policy.max_retries:
            return "retry"
        return None

    def _omit_from_context(self: "AgentSession", message: Any) -> None:
        """Drop a failed attempt from what the model sees next; the file keeps it."""
        entry_id = self._entry_ids.get(id(message))
        if entry_id is not None:
            self.session_manager.append_context_edit(entry_id, None)
        messages = self.agent.state.messages
        for i in range(len(messages) - 1, -1, -1):
            if messages[i] is message:
                del messages[i]
                break

    async def _recover_after_run(self: "AgentSession") -> None:
        while True:
            plan = self._plan_recovery()
            last = self._last_assistant()
            if plan is None:
                if self._retry_attempt > 0:
                    ok = last is not None and last.stop_reason not in ("error", "aborted")
                    await self._emit(AutoRetryEndEvent(
                        success=ok,
                        attempt=self._retry_attempt,
                        final_error=None if ok else (last.error_message if last else None) or "Retry failed",
                    ))
                    self._retry_attempt = 0
                if (
                    last is not None
                    and last.stop_reason == "error"
                    and self._overflow_tried
                    and is_context_overflow(last, self.agent.state.model.context_window)
                ):
                    await self._emit(CompactionEndEvent(reason="overflow", error_message=OVERFLOW_FAILED))
                return
            if plan == "retry":
                self._retry_attempt += 1
                policy = self.retry_policy
                delay = policy.delay_ms(self._retry_attempt, parse_retry_after(last.error_message))
                await self._emit(AutoRetryStartEvent(
                    attempt=self._retry_attempt,
                    max_attempts=policy.max_retries,
                    delay_ms=delay,
                    error_message=last.error_message or "",
                ))
                self._retry_controller = AbortController()
                try:
                    cut = await sleep_or_abort(delay / 1000, self._retry_controller.signal)
                finally:
                    self._retry_controller = None
                if cut or self._aborting:
                    await self._emit(AutoRetryEndEvent(
                        success=False, attempt=self._retry_attempt, final_error="Retry cancelled"
                    ))
                    self._retry_attempt = 0
                    return
                self._omit_from_context(last)
                await self.agent.continue_()
            else:
                self._overflow_tried = True
                self._omit_from_context(last)
                ok = await self._run_compaction("overflow", will_retry=True)
                if not ok or self._aborting:
                    return
                await self.agent.continue_()

    def abort_retry(self: "AgentSession") -> None:
        """Cancel a pending retry wait (the run then settles with the error)."""
        if self._retry_controller is not None:
            self._retry_controller.abort()
