"""``RunDriver``: runs one prompt from acceptance to the ``agent_settled`` point.

Around the agent's own loop it runs what Pi runs: ``before_agent_start`` hooks, threshold
compaction before and after, recovery after each low-level run (retry, overflow), delivery of
messages queued while nothing was looking, the optional per-prompt budget, and the deferred
messages (a user shell command or an extension message that arrived mid-run) once the run is
over. It owns the settled flag, the running task and the abort flag.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ..agent.agent import Agent
from ..agent.transcript import has_role
from .budget import Budget, BudgetMeter
from .compactor import Compactor
from .events import AgentSettledEvent, BudgetExceededEvent
from .extension_port import ExtensionGate
from .record import SessionRecord
from .recovery import Recovery, last_assistant
from .system_prompt import SystemPromptSource

log = logging.getLogger("pi")


class RunDriver:
    """Drives runs of one session, one at a time."""

    def __init__(
        self,
        *,
        agent: Agent,
        record: SessionRecord,
        emit: Callable[[Any], Awaitable[None]],
        gate: ExtensionGate,
        compactor: Compactor,
        recovery: Recovery,
        system_prompt: SystemPromptSource,
        budget: Budget,
        before_run: Callable[[], None] | None = None,
    ) -> None:
        self._agent = agent
        self._record = record
        self._emit = emit
        self._gate = gate
        self._compactor = compactor
        self._recovery = recovery
        self._system_prompt = system_prompt
        self.budget = budget
        self._before_run = before_run
        """Called as a prompt (not a continuation) starts a run, after the history's start is recorded."""
        self._settled = asyncio.Event()
        self._settled.set()
        self._task: asyncio.Task[None] | None = None
        self.aborting = False
        self._deferred: list[Any] = []
        self._meter: BudgetMeter | None = None
        self._budget_stop: str | None = None
        self._settling = False
        self._after_settle: list[Any] = []

    # ------------------------------------------------------------------ state

    @property
    def is_running(self) -> bool:
        """A run (or a manual compaction) is in progress: nothing new may start.

        False while ``agent_settled`` is being delivered: its handlers see an idle agent (Pi).
        """
        return not self._settled.is_set() and not self._settling

    @property
    def settling(self) -> bool:
        """``agent_settled`` is being delivered; a run asked for now starts once it has been."""
        return self._settling

    async def wait_for_idle(self) -> None:
        await self._settled.wait()

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold the session busy for an operation that is not a run (``/compact``)."""
        self._settled.clear()
        try:
            yield
        finally:
            self._settled.set()

    # ------------------------------------------------------------------ messages outside the run

    def defer(self, message: Any) -> bool:
        """Keep ``message`` until the run settles; False (not kept) when idle.

        While a run streams, appending now could land between a tool call and its result, which
        providers reject on replay; queueing it as a steer would cost a model call.
        """
        if not self.is_running:
            return False
        self._deferred.append(message)
        return True

    def _flush_deferred(self) -> None:
        while self._deferred:
            self._record.add(self._deferred.pop(0))

    # ------------------------------------------------------------------ budget

    async def on_turn_end(self, message: Any) -> None:
        """Count a finished turn against the budget; stop at this boundary when it is spent."""
        if self._meter is None or self._budget_stop is not None:
            return
        hit = self._meter.add_turn(message)
        if hit is not None:
            # The loop ends at this turn boundary, so nothing is cut off mid-stream.
            self._budget_stop = hit[1]
            self._agent.end_after_turn()
            await self._emit(BudgetExceededEvent(limit=hit[0], message=hit[1]))

    # ------------------------------------------------------------------ runs

    def start(self, prompts: list[Any], *, continue_run: bool = False) -> None:
        """Begin a run in the background (the caller checked that the session is idle and ready)."""
        if self._settling:
            # An agent_settled handler asked for it: Pi starts it after every handler has run.
            self._after_settle.extend(prompts)
            return
        self._record.ensure_history_start()
        if self._before_run is not None and not continue_run:
            self._before_run()
        self._settled.clear()
        self._meter = BudgetMeter(self.budget) if self.budget.active else None
        self._budget_stop = None
        self._recovery.reset()
        self._task = asyncio.get_running_loop().create_task(self._drive(prompts, continue_run))

    async def abort(self) -> None:
        """Cancel the run (retry wait and compaction included) and wait until it has settled."""
        self.aborting = True
        try:
            self._recovery.cancel_wait()
            self._compactor.abort()
            self._agent.abort()
            await self.wait_for_idle()
        finally:
            self.aborting = False

    async def _drive(self, prompts: list[Any], continue_run: bool) -> None:
        aborted = False
        try:
            if continue_run:
                self._system_prompt.refresh()
            else:
                self._system_prompt.start_run()
            if not continue_run:
                # As Pi's _prepareRun: compact first (a previous answer may have filled the window),
                # then before_agent_start sees the context the prompt will be sent with.
                await self._compactor.maybe_compact_for_threshold(before_prompt=True)
                prompts = await self._gate.before_agent_start(prompts)
            if continue_run:
                await self._agent.continue_()
            else:
                if not has_role(self._agent.state.messages, "system"):
                    prompts = [self._system_prompt.leading_message(), *prompts]
                # Otherwise the agent loop declares what changed, before this request and each later one.
                # An abort while hooks ran (the first prompt waiting for MCP servers) or compaction ran
                # found no agent run to cancel: the prompt is recorded, the turn ends aborted, no request.
                await self._agent.prompt(prompts, aborted=self.aborting)
            await self._recovery.recover()
            # Messages queued after the loop last looked (during a retry wait or a
            # compaction) would otherwise sit in the queue until the next prompt.
            while (
                (self._agent.steering_queue or self._agent.follow_up_queue)
                and not self.aborting
                and self._budget_stop is None
            ):
                await self._agent.continue_()
                await self._recovery.recover()
            if not self.aborting:
                await self._compactor.maybe_compact_for_threshold()
        except asyncio.CancelledError:
            aborted = True
        except Exception as exc:
            log.exception("run failed")
            self._agent.state.error_message = f"{type(exc).__name__}: {exc}"
        finally:
            last = last_assistant(self._agent.state.messages)
            aborted = aborted or self.aborting or (last is not None and last.stop_reason == "aborted")
            if self._budget_stop is not None:
                aborted = self.aborting  # the budget stop is a clean end, not a user abort
            self._flush_deferred()
            self._settling = True
            try:
                await self._emit(AgentSettledEvent(aborted=aborted))
            finally:
                self._settling = False
            if self._after_settle:
                # Not settled in between: whoever waits for idle (print mode) waits for this run too.
                prompts, self._after_settle = self._after_settle, []
                self.start(prompts)
            else:
                self._settled.set()
