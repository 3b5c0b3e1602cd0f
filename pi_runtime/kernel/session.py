"""``AgentSession``: the one object every front end talks to.

It is composed of parts that each own their state and reach the others only through the narrow
ports they were given (emit, persist, agent, the extension gate):

- ``EventOutbox``: ordered delivery of every agent and kernel event to subscribers;
- ``SessionRecord``: the session file (persist, context edits, context reload, session swaps);
- ``UsageLedger``: tokens, cost and context fill with Pi's footer semantics;
- ``Compactor``: manual, threshold and overflow compaction, branch summaries;
- ``Recovery``: retry with backoff and overflow recovery after a failed run;
- ``RunDriver``: a prompt from acceptance to ``agent_settled`` (budget, deferred messages);
- ``BashRunner``: the user's own ``!`` commands;
- ``TreeNavigator``: navigate, fork, clone, new and switch.

This class holds the parts, answers front ends' questions and routes their commands. Text a user
sends goes through :meth:`prompt` whatever the state, so extension commands and ``input`` hooks
always apply; while a run streams, ``streaming_behavior`` says whether it steers or follows up.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..agent.agent import Agent, QueueKind, QueueMode, StreamingBehavior
from ..agent.events import AgentEndEvent, MessageEndEvent, MessageStartEvent, TurnEndEvent
from ..agent.listeners import Listener
from ..ai.types import AssistantMessage, Model
from ..settings_model import Settings
from .bash_runner import BashRunner
from .budget import Budget
from .compactor import Compactor
from .events import SessionInfoChangedEvent
from .extension_port import ExtensionGate, ExtensionHooks
from .input_router import InputRouter, PromptDisposition
from .message_queue import QueuedMessage
from .model_control import ModelControl
from .navigator import TreeNavigator
from .outbox import EventOutbox
from .record import SessionRecord
from .recovery import Recovery
from .retry import RetryPolicy, request_limits
from .routing import RequestRouter
from .run_driver import RunDriver
from .session_actions import KernelActions
from .system_prompt import SystemPromptSource
from .usage_ledger import UsageLedger
from .views import entries_since, last_assistant_text, session_state, session_stats, tree_to_wire

# The result types are annotations only here: ``results`` loads where a result is made (see navigator.py).
if TYPE_CHECKING:
    from ..ai.models import ModelRegistry
    from ..ai.virtual import RoutedModel
    from ..extensions.runner import ExtensionRunner
    from ..resources.port import ResourceLoaderPort
    from ..session.manager import SessionManager
    from ..settings import SettingsManager
    from .results import (
        BashResult,
        CompactionResult,
        ContextUsage,
        CycleModelResult,
        ForkResult,
        NavigateResult,
        SessionStats,
        SwitchResult,
        UsageTotals,
    )

_DEFAULT_SETTINGS: Settings | None = None


def typed_settings(settings: Any) -> Settings:
    """The typed ``Settings`` behind a ``SettingsManager`` (defaults when there is none)."""
    global _DEFAULT_SETTINGS
    typed = getattr(settings, "settings", None)
    if isinstance(typed, Settings):
        return typed
    if _DEFAULT_SETTINGS is None:
        _DEFAULT_SETTINGS = Settings()
    return _DEFAULT_SETTINGS


class AgentSession:
    """A session: an agent, its session file and everything Pi runs around a prompt.

    Args:
        agent: The agent (model, tools, transcript, queues).
        session_manager: The session file.
        settings: The ``SettingsManager``.
        model_registry: Models and credentials (None: the agent's model, no key checks).
        resources: The ``ResourceLoader`` (skills, templates, context files).
        cwd: The working folder.
        system_prompt_builder: Builds the system prompt for this session (a string or sections).
        scoped_models: Models for cycling (``--models``), with optional thinking levels.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry | None = None,
        resources: ResourceLoaderPort | None = None,
        cwd: str,
        system_prompt_builder: Callable[[AgentSession], Any] | None = None,
        scoped_models: list[tuple[Model, str | None]] | None = None,
    ) -> None:
        self.agent = agent
        self.settings = settings
        self.startup_warnings: list[str] = []
        """One-line warnings from start-up for the front end to show (a scope pattern matching nothing)."""
        self.model_registry = model_registry
        self.resources = resources
        self.cwd = cwd
        self._disposed = False
        self._notices: list[str] = []
        typed = typed_settings(settings)

        self._outbox = EventOutbox()
        self._gate = ExtensionGate()
        self._record = SessionRecord(session_manager, agent, model_registry)
        self.ledger = UsageLedger(lambda: self._record.manager)
        """Tokens, cost and context fill (what the footer, ``get_session_stats`` and RPC show)."""
        self._system_prompt = SystemPromptSource(
            agent, (lambda: system_prompt_builder(self)) if system_prompt_builder is not None else None
        )
        agent.declare_loadout = self._system_prompt.declare_changes
        self._compactor = Compactor(
            agent=agent, record=self._record, emit=self._outbox.emit, gate=self._gate,
            settings=lambda: typed_settings(self.settings), request_auth=self._request_auth,
            limits_model=lambda: self._router.limits_model(),
        )
        self._router = RequestRouter(agent=agent, record=self._record, registry=model_registry,
                                     emit=self._outbox.emit, compact_for=self._compactor.compact_for)
        agent.prepare_request = self._router.prepare
        agent.prepare_next_turn = self._compactor.compact_before_next_response
        self.retry_policy = RetryPolicy.from_settings(typed)
        self._driver: RunDriver

        def aborting() -> bool:
            return self._driver.aborting

        recovery = self._recovery = Recovery(
            agent=agent, record=self._record, compactor=self._compactor, emit=self._outbox.emit,
            policy=self.retry_policy, aborting=aborting,
            on_retry=self._router.retrying, model_for_message=self._router.model_for_message,
        )
        self._driver = RunDriver(
            agent=agent, record=self._record, emit=self._outbox.emit, gate=self._gate, compactor=self._compactor,
            recovery=recovery, system_prompt=self._system_prompt,
            budget=Budget(max_turns=typed.budget.max_turns, max_tokens=typed.budget.max_tokens,
                          max_cost=typed.budget.max_cost),
            before_run=self._router.starting_run,
        )
        self._bash = BashRunner(
            cwd=cwd, emit=self._outbox.emit, record=self._record_outside_run, gate=self._gate,
            env=lambda: {"PI_SESSION_ID": self.session_id}, shell_path=lambda: typed_settings(self.settings).shell_path,
            command_prefix=lambda: typed_settings(self.settings).shell_command_prefix,
        )
        self._navigator = TreeNavigator(
            cwd=cwd, agent=agent, record=self._record, emit=self._outbox.emit, gate=self._gate,
            compactor=self._compactor, is_running=lambda: self._driver.is_running, abort=self.abort,
        )
        self._models = ModelControl(
            agent=agent, record=self._record, emit=self._outbox.emit, registry=model_registry,
            scoped_models=scoped_models or [],
            save_default=getattr(settings, "set_default_model", None),
        )
        self.actions = KernelActions(
            agent=agent, driver=self._driver, record=self._record, outbox=self._outbox,
            check_ready=lambda: self._input.check_ready(), refresh_system_prompt=self.refresh_system_prompt,
        )
        """The port an extension runner acts through."""
        self._input = InputRouter(
            agent=agent, driver=self._driver, compactor=self._compactor, gate=self._gate, outbox=self._outbox,
            resources=lambda: getattr(self.resources, "resources", self.resources), registry=model_registry,
            skill_commands=lambda: typed_settings(self.settings).enable_skill_commands,
        )
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)
        if model_registry is not None:
            # The run's signal reaches an OAuth provider's refresh_token (abort/shutdown cancels it).
            agent.get_request_auth = lambda model: model_registry.request_auth_async(model, agent.signal)
            # A signed-in credential refused before its time (401) is renewed once (oauth_logins.py).
            agent.reauthorize = lambda model, key: model_registry.reauthorize(model.provider, key, agent.signal)
        agent.request_limits = lambda: request_limits(typed_settings(self.settings))

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every agent and kernel event (sync or async listener). Returns an unsubscriber."""
        return self._outbox.subscribe(listener)

    async def _on_agent_event(self, event: Any) -> None:
        if isinstance(event, (MessageStartEvent, AgentEndEvent)):
            update = self._input.announce_taken()
            if update is not None:
                await self._outbox.emit(update)
        if isinstance(event, MessageEndEvent):
            self._record.persist(event.message)
        elif isinstance(event, AgentEndEvent):
            event.will_retry = self._recovery.plan() is not None
        await self._outbox.emit(event)
        if isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            await self._recovery.answered(event.message)
        if isinstance(event, (TurnEndEvent, AgentEndEvent)):
            # Extension messages held for the turn's end go in after its tool results.
            self.actions.flush_turn_end()
        if isinstance(event, TurnEndEvent):
            await self._driver.on_turn_end(event.message)

    # ------------------------------------------------------------------ extensions

    @property
    def extension_runner(self) -> ExtensionRunner | None:
        """The attached ``ExtensionRunner`` (None without extensions)."""
        return self._gate.runner  # type: ignore[return-value]  # the gate holds it by the kernel's narrower port

    @extension_runner.setter
    def extension_runner(self, runner: ExtensionHooks | None) -> None:
        self._gate.runner = runner

    @property
    def system_prompt_sections(self) -> Any:
        """The named sections of the last built system prompt (None for a plain string prompt)."""
        return self._system_prompt.sections

    def refresh_system_prompt(self) -> None:
        """Rebuild the system prompt (tools or resources changed)."""
        self._system_prompt.refresh()

    def keep_section_edits(self, edits: dict[str, str | None]) -> None:
        """Sections this run's ``before_agent_start`` handlers set (text) or took out (None), kept
        through the run's later rebuilds of the prompt (see ``SystemPromptSource.run_edits``)."""
        self._system_prompt.run_edits = dict(edits)

    def reload_settings(self) -> None:
        """Read settings.json again (``/reload``, as Pi's ``reload``) and apply what the session
        keeps from it: the queue modes, automatic compaction and retry, the budget. Values read at
        each use (compaction sizes, shell, images) follow by themselves."""
        reload = getattr(self.settings, "reload", None)
        if callable(reload):
            reload()
        typed = typed_settings(self.settings)
        self.agent.steering_mode = typed.steering_mode
        self.agent.follow_up_mode = typed.follow_up_mode
        self._compactor.auto_enabled = bool(typed.compaction.enabled)
        fresh = RetryPolicy.from_settings(typed)
        for name in ("enabled", "max_retries", "base_delay_ms", "max_delay_ms", "max_server_delay_ms"):
            setattr(self.retry_policy, name, getattr(fresh, name))  # Recovery holds this object
        self._driver.budget = Budget(max_turns=typed.budget.max_turns, max_tokens=typed.budget.max_tokens,
                                     max_cost=typed.budget.max_cost)

    # ------------------------------------------------------------------ state

    @property
    def session_manager(self) -> Any:
        return self._record.manager

    def take_session_notices(self) -> list[str]:
        """One-line reports not shown yet (lines skipped on load, saves that failed or work again,
        start-up warnings such as a stale ``enabledModels`` pattern); each is given once, for a
        front end to show."""
        take = getattr(self._record.manager, "take_notices", None)
        notices, self._notices = self._notices, []
        return notices + (list(take()) if take is not None else [])

    def add_notice(self, text: str) -> None:
        """Queue a one-line report for the front end (``take_session_notices``)."""
        self._notices.append(text)

    @property
    def model(self) -> Model:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def routed_model(self) -> RoutedModel | None:
        """Under a virtual selection, the physical model and level of the latest successful response
        (what the footer shows after the arrow); None otherwise."""
        return self._router.routed()

    @property
    def messages(self) -> list[Any]:
        return self.agent.state.messages

    @property
    def is_streaming(self) -> bool:
        return self._driver.is_running

    @property
    def is_settling(self) -> bool:
        """``agent_settled`` is being delivered: the agent counts as idle, new runs wait for its handlers."""
        return self._driver.settling

    @property
    def is_compacting(self) -> bool:
        return self._compactor.is_compacting

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def session_id(self) -> str:
        return str(self._record.manager.session_id)

    @property
    def session_file(self) -> str | None:
        return self._record.session_file

    @property
    def session_name(self) -> str | None:
        return self._record.manager.session_name

    @property
    def budget(self) -> Budget:
        return self._driver.budget

    @property
    def auto_compaction_enabled(self) -> bool:
        return self._compactor.auto_enabled

    @property
    def steering_texts(self) -> list[str]:
        """What the user queued as steering (read from the agent's queue; extension messages left out)."""
        return self._input.steering_texts

    @property
    def follow_up_texts(self) -> list[str]:
        """What the user queued as follow-ups."""
        return self._input.follow_up_texts

    # ------------------------------------------------------------------ model and thinking

    @property
    def scoped_models(self) -> list[tuple[Model, str | None]]:
        """Models for cycling (``--models``, ``/scoped-models``), with optional thinking levels."""
        return self._models.scoped_models

    @scoped_models.setter
    def scoped_models(self, models: list[tuple[Model, str | None]]) -> None:
        self._models.scoped_models = models

    def available_thinking_levels(self, model: Model | None = None) -> list[str]:
        return self._models.available_levels(model)

    async def set_model(self, model: Model, *, persist_default: bool = False) -> None:
        """Switch model (recorded as a model_change entry); the thinking level is re-clamped."""
        await self._models.set_model(model, persist_default=persist_default)

    async def cycle_model(self, direction: int = 1) -> CycleModelResult | None:
        """Next model in the scoped list (or all models with credentials). None if only one."""
        return await self._models.cycle_model(direction)

    async def set_thinking_level(self, level: str) -> str:
        """Set (clamped to what the model supports); recorded as a thinking_level_change entry."""
        return await self._models.set_thinking_level(level)

    async def cycle_thinking_level(self) -> str | None:
        return await self._models.cycle_thinking_level()

    def set_steering_mode(self, mode: QueueMode) -> None:
        self.agent.steering_mode = mode

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self.agent.follow_up_mode = mode

    def set_auto_compaction(self, enabled: bool) -> None:
        self._compactor.auto_enabled = enabled

    def set_auto_retry(self, enabled: bool) -> None:
        self.retry_policy.enabled = enabled

    # ------------------------------------------------------------------ input

    def expand_input(self, text: str) -> str:
        """Expand ``/skill:name args`` and ``/template args`` the way Pi does before sending."""
        return self._input.expand(text)

    def check_ready(self) -> None:
        """Raise PromptError when a prompt could not be sent (no model, no credentials)."""
        self._input.check_ready()

    async def prompt(
        self,
        text: str,
        images: list[Any] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        *,
        wait: bool = True,
    ) -> PromptDisposition:
        """Send what the user typed. Returns ``started``, ``queued`` or ``handled``.

        Extension commands and ``input`` hooks see the text first, in every state. While a
        run is in progress ``streaming_behavior`` (``steer`` or ``followUp``) says where the
        text goes. With ``wait`` the call returns once everything has settled; without it,
        once the prompt was accepted.

        Raises:
            PromptError: Busy without a streaming behaviour, compacting, no model or key.
        """
        disposition = await self._input.prompt(text, images, streaming_behavior)
        if disposition == "started" and wait:
            await self.wait_for_idle()
        return disposition

    async def steer(self, text: str, images: list[Any] | None = None) -> PromptDisposition:
        """Queue a message for after the current tool calls."""
        return await self._input.steer(text, images)

    async def follow_up(self, text: str, images: list[Any] | None = None) -> PromptDisposition:
        """Queue a message for when the agent would otherwise stop."""
        return await self._input.follow_up(text, images)

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop queued steering and follow-up messages; returns their texts (for the editor)."""
        return self._input.clear_queue()

    # ------------------------------------------------------------------ the queue as a list (pi's addition)

    def queued_messages(self) -> list[QueuedMessage]:
        """The user's queued messages with their ids: steering first, then follow-ups, in delivery order."""
        return self._input.queue.items()

    def edit_queued(self, message_id: str, text: str) -> list[QueuedMessage]:
        """Replace a queued message's text in place. Returns the queue after the edit.

        Raises:
            QueueEditError: The message was already sent, was removed, or never was queued.
        """
        return self._input.changed(self._input.queue.edit(message_id, text))

    def remove_queued(self, message_id: str) -> list[QueuedMessage]:
        """Delete a queued message. Returns the queue after it.

        Raises:
            QueueEditError: As for :meth:`edit_queued`.
        """
        return self._input.changed(self._input.queue.remove(message_id))

    def move_queued(self, message_id: str, index: int, kind: QueueKind | None = None) -> list[QueuedMessage]:
        """Move a queued message to ``index`` among the messages of ``kind`` (its own kind when None);
        a different ``kind`` turns a steer into a follow-up or back. Returns the queue after the move.

        Raises:
            QueueEditError: As for :meth:`edit_queued`.
        """
        return self._input.changed(self._input.queue.move(message_id, index, kind))

    # ------------------------------------------------------------------ lifecycle

    async def wait_for_idle(self) -> None:
        """Wait until nothing more will run on its own (the ``agent_settled`` point)."""
        await self._driver.wait_for_idle()

    async def abort(self) -> None:
        """Cancel everything in flight (run, retry wait, compaction, summaries, extension handlers) and wait for idle."""
        self._gate.abort()
        await self._driver.abort()

    def abort_retry(self) -> None:
        """Cancel a pending retry wait (the run then settles with the error)."""
        self._recovery.cancel_wait()

    async def dispose(self, reason: str = "quit") -> None:
        """End the session: abort what runs, tell extensions (``session_shutdown``, once), close the file.

        Every front end calls this when it ends (app quit, print end, RPC EOF, signals); a second
        call does nothing.
        """
        if self._disposed:
            return
        self._disposed = True
        await self.abort()
        await self._gate.shutdown(reason)
        await self._outbox.settle()
        self._unsubscribe_agent()
        self._outbox.close()
        self._record.manager.close()

    # ------------------------------------------------------------------ compaction

    async def compact(self, instructions: str | None = None) -> CompactionResult:
        """Compact now (``/compact``, RPC ``compact``, ``ctx.compact()``); a running agent is
        aborted first, as Pi's ``compact()`` does (its trigger-compact example compacts from a
        ``turn_end`` handler, mid-run).

        Raises:
            CompactionError: Nothing to compact, the summary request failed, aborted or vetoed.
        """
        if self.is_streaming:
            await self.abort()
        async with self._driver.exclusive():
            result = await self._compactor.run("manual", instructions=instructions, raise_errors=True)
        assert result is not None  # raise_errors: every failure raised
        return result

    # ------------------------------------------------------------------ the user's shell commands

    async def execute_bash(
        self,
        command: str,
        exclude_from_context: bool = False,
        *,
        request_id: str | None = None,
        on_delta: Callable[[str], None] | None = None,
    ) -> BashResult:
        """Run ``command`` in the session's folder and record it as a ``bashExecution`` message."""
        return await self._bash.run(command, exclude_from_context, request_id=request_id, on_delta=on_delta)

    def abort_bash(self) -> None:
        self._bash.abort()

    def _record_outside_run(self, message: Any) -> None:
        self.actions.defer_message(message)

    # ------------------------------------------------------------------ tree and sessions

    def load_context(self) -> None:
        """Make the agent's transcript, model and thinking level match the active path."""
        self._record.load_context()

    async def navigate_tree(self, entry_id: str, summarize: bool | str = False) -> NavigateResult:
        return await self._navigator.navigate(entry_id, summarize)

    def get_fork_messages(self) -> list[dict[str, str]]:
        return self._navigator.fork_points()

    async def fork(self, entry_id: str) -> ForkResult:
        return await self._navigator.fork(entry_id)

    async def clone(self, entry_id: str | None = None) -> SwitchResult:
        """Duplicate the path root → ``entry_id`` (default: the current leaf) into a new session."""
        return await self._navigator.clone(entry_id)

    def branch_messages(self, entry_id: str, last: int | None = None) -> list[Any]:
        """The messages of the path root → ``entry_id`` as the transcript shows them, typed.

        Nothing changes: this is what navigating there would show (a tree pane's preview).
        ``last`` keeps only the newest messages (a preview shows a screenful, and validating
        a 20,000-message path costs 0.1 s).

        Raises:
            KeyError: No such entry.
        """
        from ..session.entries import parse_messages

        manager = self._record.manager
        if manager.get_entry(entry_id) is None:
            raise KeyError(f"Entry {entry_id} not found")
        dicts = manager.context_at(entry_id).message_dicts
        return parse_messages(dicts[-last:] if last else list(dicts))

    async def new_session(self, parent_session: str | None = None, *,
                          setup: Callable[[Any], Any] | None = None) -> SwitchResult:
        """Start a fresh session; ``setup(session_manager)`` (sync or async) may fill it before it is loaded."""
        return await self._navigator.new_session(parent_session, setup=setup)

    async def sibling_allowed(self, kind: str, entry_id: str | None = None) -> bool:
        """Whether extensions let a fork or clone into a new session beside this one go ahead
        (``session_before_fork``, asked as ``/fork`` and ``/clone`` ask it); other kinds always may."""
        if kind == "fork":
            return await self._navigator.branch_allowed(entry_id, "before")
        if kind == "clone":
            return await self._navigator.branch_allowed(self.session_manager.leaf_id, "at")
        return True

    async def switch_session(self, path: str) -> SwitchResult:
        return await self._navigator.switch(path)

    async def switch_allowed(self, path: str) -> bool:
        """Whether extensions let ``/resume`` replace this session with the file ``path`` when the
        front end builds that file a session of its own (it runs in another folder): Pi asks
        ``session_before_switch`` (reason ``resume``) before it does the same."""
        return await self._navigator.switch_allowed(path)

    async def set_session_name(self, name: str) -> None:
        self._record.manager.append_session_info(name)
        await self._outbox.emit(SessionInfoChangedEvent(name.strip() or None))

    def set_label(self, entry_id: str, label: str | None) -> str:
        """Label an entry (None or empty clears it)."""
        return str(self._record.manager.append_label(entry_id, label))

    # ------------------------------------------------------------------ views

    def usage_totals(self) -> UsageTotals:
        """Tokens and cost over every entry of the session file (what the footer shows)."""
        return self.ledger.totals()

    def context_usage(self) -> ContextUsage | None:
        """Context fill against the window of the model in use now (under a virtual selection, of the
        physical model that gave the latest response; before any, the virtual model's own, if declared)."""
        return self.ledger.context(self.agent.state.messages, self._router.limits_model())

    def get_session_stats(self) -> SessionStats:
        """Message counts, tokens and cost over the whole file (every branch, summaries too)."""
        return session_stats(self, self.ledger)

    def get_state(self) -> dict[str, Any]:
        """Pi's RPC ``get_state`` data."""
        return session_state(self)

    def get_messages(self) -> list[dict[str, Any]]:
        return [m.to_wire() for m in self.agent.state.messages]

    def get_entries(self, since: str | None = None) -> dict[str, Any]:
        """Entries in append order, optionally strictly after the entry ``since`` (KeyError if unknown)."""
        manager = self._record.manager
        return {"entries": entries_since(manager.raw_entries(), since), "leafId": manager.leaf_id}

    def get_tree(self) -> dict[str, Any]:
        manager = self._record.manager
        return {"tree": tree_to_wire(manager.get_tree()), "leafId": manager.leaf_id}

    def get_last_assistant_text(self) -> str | None:
        return last_assistant_text(self.agent.state.messages)

    def export_html(self, path: str | None = None) -> str:
        """Write a standalone HTML transcript of the session; returns its path."""
        from .export_html import export_session_html

        return export_session_html(self, path)

    def export_jsonl(self, path: str | None = None) -> str:
        """Write the active branch as a session file of its own (Pi's ``exportToJsonl``); returns its path."""
        from ..session.transfer import export_branch_jsonl

        return export_branch_jsonl(self.session_manager, path, os.getcwd())

    # ------------------------------------------------------------------ plumbing

    async def _request_auth(self, model: Any, signal: Any = None) -> tuple[Any, str | None, dict[str, str | None]]:
        """``(model to send to, key, headers)``: the model carries the endpoint a credential names."""
        if self.model_registry is None:
            return model, None, {}
        model, _level = await self._router.route_direct(model, signal)  # a virtual selection: routed first
        auth = await self.model_registry.request_auth_async(model, signal)
        if auth.base_url:
            model = model.model_copy(update={"base_url": auth.base_url})
        return model, auth.api_key, dict(auth.headers or {})
