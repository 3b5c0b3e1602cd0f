"""Compaction and branch summaries as the kernel runs them: manual, threshold, overflow.

The summarising itself lives in ``pi_runtime.compaction``; this module decides when to
run it, emits ``compaction_start``/``compaction_end``, makes it abortable, appends the
entry and reloads the agent's context from the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ai.abort import AbortController
from .events import CompactionEndEvent, CompactionStartEvent

if TYPE_CHECKING:
    from .session import AgentSession


class CompactionError(Exception):
    pass


class CompactionOpsMixin:
    def _compaction_settings(self: "AgentSession") -> dict[str, Any]:
        from .session import _setting

        return {
            "enabled": bool(_setting(self.settings, "compaction.enabled", True)),
            "reserveTokens": int(_setting(self.settings, "compaction.reserveTokens", 16_384)),
            "keepRecentTokens": int(_setting(self.settings, "compaction.keepRecentTokens", 20_000)),
        }

    async def compact(self: "AgentSession", instructions: str | None = None) -> dict[str, Any]:
        """Compact now (``/compact``). Returns the result (Pi's CompactionResult shape).

        Raises:
            CompactionError: nothing to compact, the summary request failed, or aborted.
        """
        if self.is_streaming:
            raise CompactionError("Cannot compact while the agent is working")
        self._settled.clear()
        try:
            result = await self._run_compaction("manual", instructions=instructions, raise_errors=True)
        finally:
            self._settled.set()
        return result  # type: ignore[return-value]

    async def _maybe_compact_threshold(self: "AgentSession") -> None:
        from ..compaction.estimate import estimate_context_tokens, should_compact

        model = self.agent.state.model
        if model is None or self._usage_stale:
            return
        tokens = estimate_context_tokens(self.agent.state.messages)
        if tokens is not None and should_compact(tokens, model.context_window, self._compaction_settings()):
            await self._run_compaction("threshold")

    async def _run_compaction(
        self: "AgentSession",
        reason: str,
        *,
        will_retry: bool = False,
        instructions: str | None = None,
        raise_errors: bool = False,
    ) -> Any:
        from ..compaction.compaction import NothingToCompact, run_compaction

        if await self._extension_cancels(
            "session_before_compact", reason=reason, custom_instructions=instructions, will_retry=will_retry
        ):
            if raise_errors:
                raise CompactionError("Compaction cancelled by an extension")
            return False
        await self._emit(CompactionStartEvent(reason))
        controller = self._compaction_controller = AbortController()
        self.is_compacting = True
        try:
            auth = await self._summary_auth()
            result = await run_compaction(
                self.session_manager,
                self.agent.state.model,
                settings=self._compaction_settings(),
                api_key=auth[0],
                headers=auth[1],
                instructions=instructions,
                signal=controller.signal,
            )
        except NothingToCompact as exc:
            await self._emit(CompactionEndEvent(reason, error_message=str(exc)))
            if raise_errors:
                raise CompactionError(str(exc)) from exc
            return False
        except Exception as exc:  # noqa: BLE001 - reported through the event
            aborted = controller.signal.aborted
            message = "Compaction aborted" if aborted else f"Compaction failed: {exc}"
            await self._emit(CompactionEndEvent(reason, aborted=aborted, error_message=None if aborted else message))
            if raise_errors:
                raise CompactionError(message) from exc
            return False
        finally:
            self.is_compacting = False
            self._compaction_controller = None
        self.load_context()
        from ..compaction.estimate import estimate_message_tokens

        result.setdefault(
            "estimatedTokensAfter", sum(estimate_message_tokens(m) for m in self.agent.state.messages)
        )
        # Usage reported before the compaction no longer describes the context.
        self._usage_stale = True
        await self._emit(CompactionEndEvent(reason, result=result, will_retry=will_retry))
        await self._extension_notify("session_compact", reason=reason, result=result, will_retry=will_retry)
        return result if raise_errors else True

    async def _summary_auth(self: "AgentSession") -> tuple[str | None, dict[str, str]]:
        registry = self.model_registry
        if registry is None:
            return None, {}
        auth = await registry.request_auth_async(self.agent.state.model)
        return auth.api_key, dict(auth.headers or {})

    async def _summarize_branch(
        self: "AgentSession", old_leaf: str, target: str | None, instructions: str | None
    ) -> dict[str, Any] | None:
        """Summary of the entries from ``old_leaf`` back to the common ancestor with ``target``."""
        from ..compaction.branch_summary import summarize_branch

        controller = self._compaction_controller = AbortController()
        try:
            auth = await self._summary_auth()
            return await summarize_branch(
                self.session_manager,
                old_leaf,
                target,
                self.agent.state.model,
                api_key=auth[0],
                headers=auth[1],
                instructions=instructions,
                signal=controller.signal,
            )
        finally:
            self._compaction_controller = None
