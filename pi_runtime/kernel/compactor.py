"""``Compactor``: compaction and branch summaries as the kernel runs them (manual, threshold, overflow).

The summarising itself lives in ``pi_runtime.compaction``; this part decides when to run it, emits
``compaction_start``/``compaction_end``, makes it abortable, appends the entry through the session
record and reloads the agent's context. It owns ``is_compacting`` and the running operation's abort
controller; it reads nothing of the other parts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..agent.agent import Agent
from ..ai.abort import AbortController
from ..compaction.settings import CompactionSettings
from .events import CompactionEndEvent, CompactionStartEvent
from .extension_port import ExtensionGate
from .record import SessionRecord

# ``results`` (ten frozen records, ~6 ms to define) is imported where a result is made: a plain prompt
# (``pi -p``) makes none.
if TYPE_CHECKING:
    from .results import CompactionResult


class CompactionError(Exception):
    """A manual compaction could not be done (nothing to compact, the summary failed, aborted, vetoed)."""


class Compactor:
    """Runs compactions and branch summaries for one session.

    Args:
        agent: Whose context is compacted.
        record: The persist port (session manager, context reload).
        emit: The kernel's event outlet.
        gate: Extensions' vetoes and notifications.
        settings: Returns the typed ``Settings`` in force (None: defaults).
        request_auth: ``model -> (model to send to, api_key, headers)`` for the summary calls.
        limits_model: The model whose window the context is measured against (the physical model
            of the latest response under a virtual selection); None: the model in use.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        record: SessionRecord,
        emit: Callable[[Any], Awaitable[None]],
        gate: ExtensionGate,
        settings: Callable[[], Any],
        request_auth: Callable[[Any, Any], Awaitable[tuple[Any, str | None, dict[str, str | None]]]],
        limits_model: Callable[[], Any] | None = None,
    ) -> None:
        self._agent = agent
        self._record = record
        self._emit = emit
        self._gate = gate
        self._settings = settings
        self._request_auth = request_auth
        self._limits_model = limits_model or (lambda: self._agent.state.model)
        self._controller: AbortController | None = None
        self.is_compacting = False
        self.auto_enabled = bool(self.effective_settings().enabled)
        """Automatic (threshold) compaction; ``/compact`` works either way."""
        self._failure: tuple[str, str | None, int] | None = None
        """(session id, model, context tokens) of the last failed threshold attempt."""

    def effective_settings(self) -> CompactionSettings:
        """The ``compaction`` settings resolved for the model in use (per-model overrides applied)."""
        settings = self._settings()
        model = self._agent.state.model
        return CompactionSettings.for_model(
            getattr(settings, "compaction", None), model.ref if model is not None else None
        )

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    def hold_controller(self) -> AbortController:
        """A controller :meth:`abort` reaches, for work around a summary (an extension's gate)."""
        self._controller = AbortController()
        return self._controller

    def release_controller(self, controller: AbortController) -> None:
        if self._controller is controller:
            self._controller = None

    async def maybe_compact_for_threshold(self, *, before_prompt: bool = False) -> None:
        """Compact when the context has crossed ``window - reserveTokens``, checked as Pi checks it
        after a run and before a prompt (``_checkCompaction``).

        The figure is the last answer's own reported usage (Pi's ``calculateContextTokens``); only
        an answer that failed or reported nothing is estimated (the last valid usage plus what
        followed, or everything). An answer from before the latest compaction describes a context
        that no longer exists and is not looked at; nor, after a run, is an aborted one (before a
        prompt it is, as in Pi). As in Pi, a window no larger than the reserve (an 8k local model)
        is always over the threshold, but nothing is attempted, shown or asked of extensions unless
        the branch holds something to summarise beyond ``keepRecentTokens``. A failed attempt is
        not repeated every turn (see ``_suspended_at``).

        Args:
            before_prompt: The check before a prompt starts (aborted answers count).
        """
        model = self._limits_model()
        if not self.auto_enabled or model is None:
            return
        tokens = _tokens_after_answer(self._agent.state.messages, self._record.manager,
                                      include_aborted=before_prompt)
        if tokens is None or not self._over_threshold(tokens, model.context_window):
            return
        if _overflowed_silently(self._agent.state.messages, model.context_window):
            # Pi's "overflow" without a retry: the answer is complete, there is nothing to redo.
            await self.run("overflow")
            return
        if self._suspended_at(tokens):
            return
        await self.run("threshold")

    async def compact_for(self, model: Any) -> bool:
        """Compact before a request routed to ``model`` when the context is over its threshold (a
        virtual model routed to a smaller window than the conversation needs); True when it did."""
        from ..compaction.estimate import estimate_projected_tokens

        if not self.auto_enabled or not model.context_window:
            return False
        tokens = estimate_projected_tokens(self._agent.state.messages, self._usage_outdated)
        if tokens is None or not self._over_threshold(tokens, model.context_window):
            return False
        if self._suspended_at(tokens):
            return False
        return await self.run("threshold") is not None

    async def compact_before_next_response(self) -> None:
        """Between the turns of one run (after tool results, before the next model call), as Pi's
        ``_compactBeforeNextAssistantResponse``: compact when the context as it will be sent (the
        last usage plus the messages since, estimated) is over the threshold, so a run that reads
        large files is compacted before its next request rather than after the run."""
        from ..compaction.estimate import estimate_projected_tokens

        model = self._limits_model()
        if not self.auto_enabled or model is None or model.context_window <= 0:
            return
        tokens = estimate_projected_tokens(self._agent.state.messages, self._usage_outdated)
        if tokens is None or not self._over_threshold(tokens, model.context_window):
            return
        if self._suspended_at(tokens):
            return
        await self.run("threshold")

    def _usage_outdated(self) -> bool:
        from ..compaction.estimate import usage_outdated

        return usage_outdated(self._record.manager.walk_back())

    def _over_threshold(self, tokens: int, context_window: int) -> bool:
        """``tokens > window - reserveTokens``. Whether automatic compaction is on is
        ``auto_enabled`` (the settings' value, or what ``set_auto_compaction`` said since)."""
        from ..compaction.estimate import should_compact

        settings = self.effective_settings()
        on = CompactionSettings(enabled=True, reserve_tokens=settings.reserve_tokens,
                                keep_recent_tokens=settings.keep_recent_tokens)
        return should_compact(tokens, context_window, on)

    def _suspended_at(self, tokens: int) -> bool:
        """Whether automatic attempts wait after a failure (Pi would try again after every turn).

        They resume once the context has grown by a quarter of the window since the failure
        (by then overflow recovery has usually taken over), on another model or session, or
        after any compaction succeeded.
        """
        if self._failure is None:
            return False
        session_id, model_ref, failed_at = self._failure
        model = self._agent.state.model
        if (session_id, model_ref) != (self._record.manager.session_id, model.ref if model else None):
            self._failure = None
            return False
        window = model.context_window if model is not None else 0
        return tokens < failed_at + window // 4

    def _note_auto_failure(self) -> None:
        from ..compaction.estimate import estimate_context_tokens

        model = self._agent.state.model
        tokens = estimate_context_tokens(self._agent.state.messages) or 0
        self._failure = (self._record.manager.session_id, model.ref if model else None, tokens)

    async def run(
        self, reason: str, *, will_retry: bool = False, instructions: str | None = None, raise_errors: bool = False
    ) -> CompactionResult | None:
        """Compact the active branch now.

        ``reason`` is ``manual``, ``threshold`` or ``overflow``. An automatic run with nothing
        to summarise does nothing at all, as in Pi; a manual one reports why.

        Returns:
            The result, or None when it did not happen (reported through ``compaction_end``).

        Raises:
            CompactionError: With ``raise_errors``, whatever stopped it (the bare reason, as
                Pi's RPC ``compact`` reports it; the event carries Pi's prefixed message).
        """
        from ..compaction.estimate import estimate_message_tokens
        from ..compaction.prepare import prepare_compaction
        from .results import CompactionResult

        settings = self.effective_settings()
        manager = self._record.manager
        preparation = prepare_compaction(manager.raw_branch(), settings)
        if preparation is None and reason != "manual":
            return None
        outcome = _Outcome(reason, will_retry)
        if preparation is None:
            # Nothing to compact: as Pi, session_before_compact is not asked (it would get no preparation).
            await self._emit(CompactionStartEvent(reason))
            branch = manager.raw_branch()
            last = branch[-1].get("type") if branch else None
            why = "Already compacted" if last == "compaction" else "Nothing to compact (session too small)"
            await self._emit(CompactionEndEvent(reason, error_message=_failure_message(reason, why)))
            await self._gate.notify("session_compact_failed", **outcome.failed(error=why))
            if raise_errors:
                raise CompactionError(why)
            return None
        # Made before the gate: a handler that summarises with its own model call gets the signal.
        controller = self._controller = AbortController()
        # Busy from here: Esc (abort) reaches a handler that writes a summary of its own, even
        # one that ignores the signal, and no prompt starts meanwhile.
        self.is_compacting = True
        try:
            decision = await unless_aborted(self._gate.decides(
                "session_before_compact", "compaction", reason=reason, custom_instructions=instructions,
                will_retry=will_retry, preparation=preparation, branch_entries=manager.get_branch(),
                signal=controller.signal), controller.signal)
        finally:
            self.is_compacting = False
        if decision is None or decision.cancelled:
            self._controller = None
            await self._gate.notify("session_compact_failed", **outcome.failed(aborted=True))
            if raise_errors:
                raise CompactionError("Compaction cancelled" if decision is None else "Compaction cancelled by an extension")
            return None
        outcome.from_extension = decision.supplied is not None
        await self._emit(CompactionStartEvent(reason))
        self.is_compacting = True
        try:
            raw = await self._summarise(preparation, decision.supplied, settings, instructions, controller)
        except Exception as exc:
            aborted = controller.signal.aborted
            message = None if aborted else _failure_message(reason, str(exc))
            await self._emit(CompactionEndEvent(reason, aborted=aborted, error_message=message))
            await self._gate.notify("session_compact_failed", **outcome.failed(aborted=aborted, error=str(exc)))
            if reason == "threshold" and not aborted:
                self._note_auto_failure()
            if raise_errors:
                raise CompactionError("Compaction cancelled" if aborted else str(exc)) from exc
            return None
        finally:
            self.is_compacting = False
            self._controller = None
        self._failure = None
        self._record.load_context()
        raw.setdefault("estimatedTokensAfter", sum(estimate_message_tokens(m) for m in self._agent.state.messages))
        result = CompactionResult.from_wire(raw)
        await self._emit(CompactionEndEvent(reason, result=result.to_wire(), will_retry=will_retry))
        await self._gate.notify("session_compact", reason=reason, result=result.to_wire(), will_retry=will_retry,
                                compaction_entry=manager.get_entry(raw["entryId"]),
                                from_extension=outcome.from_extension)
        return result

    async def _summarise(self, preparation: Any, supplied: Any, settings: CompactionSettings,
                         instructions: str | None, controller: AbortController) -> dict[str, Any]:
        """Append the compaction entry: the extension's summary when it gave one, else the model's."""
        from ..compaction.compaction import run_compaction
        from ..compaction.supplied import supplied_compaction

        manager = self._record.manager
        if supplied is not None:
            branch_ids = {entry["id"] for entry in manager.raw_branch() if isinstance(entry.get("id"), str)}
            raw = supplied_compaction(supplied, preparation, branch_ids)
            raw["entryId"] = manager.append_compaction(
                raw["summary"], raw["firstKeptEntryId"], raw["tokensBefore"], raw.get("details"), True,
                usage=raw.get("usage"), system_message=preparation.system_message if preparation else None)
            return raw
        model, api_key, headers = await self._request_auth(self._agent.state.model, controller.signal)
        return await run_compaction(manager, model, settings=settings, api_key=api_key,
                                    headers=headers, instructions=instructions, signal=controller.signal,
                                    preparation=preparation)

    async def summarize_branch(self, old_leaf: str, target: str | None, instructions: str | None,
                               controller: AbortController | None = None) -> dict[str, Any] | None:
        """Summary of the entries from ``old_leaf`` back to the common ancestor with ``target``."""
        from ..compaction.branch_summary import summarize_branch

        controller = self._controller = controller or AbortController()
        try:
            model, api_key, headers = await self._request_auth(self._agent.state.model, controller.signal)
            return await summarize_branch(
                self._record.manager,
                old_leaf,
                target,
                model,
                api_key=api_key,
                headers=headers,
                instructions=instructions,
                signal=controller.signal,
            )
        finally:
            self._controller = None


def _failure_message(reason: str, why: str) -> str:
    """``compaction_end.errorMessage`` in Pi's words for each kind of compaction."""
    if reason == "threshold":
        return f"Auto-compaction failed: {why}"
    if reason == "overflow":
        return f"Context overflow recovery failed: {why}"
    return f"Compaction failed: {why}"


def _tokens_after_answer(messages: list[Any], manager: Any, *, include_aborted: bool) -> int | None:
    """The context figure Pi's threshold check reads from the last answer (None: no check).

    Args:
        messages: The agent's context messages.
        manager: The session's manager (its branch says whether failed attempts were taken out).
        include_aborted: Whether an aborted last answer is looked at (before a prompt).
    """
    from ..compaction.estimate import (
        edited_since_compaction,
        estimate_context,
        estimate_projected_tokens,
        usage_outdated,
        usage_tokens,
    )

    last: dict[str, Any] | None = None
    compacted_at: int | None = None
    for wire in _reversed_wire(messages):
        role = wire.get("role")
        if role == "assistant" and last is None:
            last = wire
        elif role == "compactionSummary":
            compacted_at = int(wire.get("timestamp") or 0)
            break
    if last is None or (not include_aborted and last.get("stopReason") == "aborted"):
        return None
    if compacted_at is not None and int(last.get("timestamp") or 0) <= compacted_at:
        return None  # from before the latest compaction: its usage describes a context that is gone
    if edited_since_compaction(manager.walk_back()):
        # A failed attempt was taken out of this context: Pi no longer reads the answer's own
        # report but estimates the context as it now is (the report too, unless it came after).
        return estimate_projected_tokens(messages, lambda: usage_outdated(manager.walk_back()))
    direct = usage_tokens(last.get("usage"))
    if last.get("stopReason") != "error" and direct > 0:
        return direct
    estimate = estimate_context(messages)
    if estimate.last_usage_index < 0 and compacted_at is not None and _has_usage_before(messages, compacted_at):
        return None  # Pi: only a pre-compaction usage to go by, which would trigger it again at once
    return estimate.tokens


def _reversed_wire(messages: list[Any]) -> Iterator[dict[str, Any]]:
    """``messages`` newest first as wire dicts. A Transcript whose stored part is still wire dicts
    is read as it is: the check before each prompt walked it as objects, which validated every
    stored message (a resumed session's whole history; on a new one, the message types' first
    decoding set-up, ~2 ms on the way to the first request) only to turn each back into its dict."""
    from ..agent.transcript import Transcript
    from ..compaction.estimate import as_dict

    if isinstance(messages, Transcript) and messages.pending:
        yield from reversed(messages.wire_view())
        return
    for message in reversed(messages):
        yield as_dict(message)


def _has_usage_before(messages: list[Any], compacted_at: int) -> bool:
    from ..compaction.estimate import usage_tokens

    for wire in _reversed_wire(messages):
        if (wire.get("role") == "assistant" and wire.get("stopReason") not in ("error", "aborted")
                and usage_tokens(wire.get("usage")) > 0 and int(wire.get("timestamp") or 0) <= compacted_at):
            return True
    return False


def _overflowed_silently(messages: list[Any], context_window: int) -> bool:
    """Whether the last answer completed although the server counted more input than the window."""
    from ..ai.errors import is_context_overflow

    for message in reversed(messages):
        if getattr(message, "role", None) == "assistant":
            return message.stop_reason == "stop" and is_context_overflow(message, context_window)
    return False


class _Outcome:
    """The fields of ``session_compact_failed`` for one compaction attempt."""

    def __init__(self, reason: str, will_retry: bool) -> None:
        self.reason = reason
        self.will_retry = will_retry
        self.from_extension = False

    def failed(self, *, aborted: bool = False, error: str | None = None) -> dict[str, Any]:
        return {"reason": self.reason, "error_message": None if aborted else error, "aborted": aborted,
                "will_retry": self.will_retry, "from_extension": self.from_extension}


async def unless_aborted(work: Awaitable[Any], signal: Any) -> Any:
    """``work``'s result, or None when ``signal`` fires first (``work`` is then cancelled)."""
    from ..ai.abort import done_before_abort

    task = asyncio.ensure_future(work)
    if await done_before_abort(task, signal):
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None
