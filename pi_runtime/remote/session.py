"""``RemoteSession``: a session ``pi serve`` runs, held through ``SessionPort`` like a local one.

State is read from the viewer's copy (``SessionView``): the transcript, the tree (a replica of
the server's entries), the queue, model and thinking level, usage. Events arrive typed, in order,
to every subscriber (awaited one after the other, in a task of their own, so a subscriber may
itself call the session). Calls go to the server and are awaited; a refusal raises the kernel's
own error (``PromptError``, ``QueueEditError``, ``SessionBusyError``, ``CompactionError``).

Where ``SessionPort`` has a synchronous method that changes the session (queue edits, modes,
labels), the command is sent without waiting and the answer is the one the view predicts; the
server's next event corrects it if it refused. :meth:`call` is the awaited way to send any command.
Closing (``dispose``) detaches this viewer: the run goes on on the server.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..frontend.events import AgentSettledEvent, BashExecutionUpdateEvent, SessionChangedEvent
from . import queue_prediction
from .delivery import EventDelivery
from .local_folder import LocalFolder
from .remote_ui import RemoteUIBinding
from .view import SessionView

if TYPE_CHECKING:
    from ..agent.agent import QueueKind, QueueMode, StreamingBehavior
    from ..ai.models import ModelRegistry
    from ..ai.types import ImageContent, Model
    from ..ai.virtual import RoutedModel
    from ..extensions.host import ExtensionHost
    from ..frontend.events import SessionEvent
    from ..kernel.input_router import PromptDisposition
    from ..kernel.message_queue import QueuedMessage
    from ..kernel.results import (
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
    from ..resources.port import ResourceLoaderPort
    from ..session.manager import SessionManager
    from ..settings import SettingsManager
    from .client import ServeClient

log = logging.getLogger("pi.remote")


class RemoteSession:
    """A served session (see the module docstring). Made by ``ServeClient.attach``."""

    def __init__(self, client: ServeClient, attach_data: dict[str, Any]) -> None:
        from ..kernel.usage_ledger import UsageLedger

        self._client = client
        self.handle: str = attach_data["session"]
        """The session's id on the server."""
        snapshot = attach_data["snapshot"]
        self._view = SessionView(snapshot)
        self.cwd: str = self._view.cwd or os.getcwd()
        self._folder = LocalFolder(self.cwd, bool(snapshot.get("projectTrusted", False)))
        self.scoped_models: list[tuple[Model, str | None]] = []
        self._ledger = UsageLedger(lambda: self._view.manager)
        self._delivery = EventDelivery()
        self._started_at: int | None = None
        """The count of settled runs when a prompt of ours started one whose ``agent_settled`` has not come yet."""
        self._bash_deltas: dict[str, Callable[[str], None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.ui = RemoteUIBinding(self)
        """Shows the session's extension dialogs in a front end's UI (``ui.bind(...)``)."""
        self.connected = True

    # ------------------------------------------------------------------ records and events

    @property
    def cursor(self) -> int:
        """The last record applied (what a reconnect asks to continue from)."""
        return self._view.cursor

    @property
    def view(self) -> SessionView:
        """The viewer's copy of the session (open dialogs, statuses, widgets, the listing status)."""
        return self._view

    def receive(self, record: dict[str, Any]) -> None:
        """Apply one record of the session's stream (called by the client, in order)."""
        try:
            event = self._view.apply(record)
        except ValueError as exc:
            log.warning("pi serve sent a record this client cannot read: %s", exc)
            return
        self.ui.on_record(record)
        if event is None:
            if self._view.closed:
                self._delivery.wake()
            return
        if isinstance(event, AgentSettledEvent):
            self._started_at = None
        elif isinstance(event, BashExecutionUpdateEvent) and event.id in self._bash_deltas:
            self._bash_deltas[event.id](event.delta)
        self._delivery.put(event)

    def subscribe(self, listener: Callable[[SessionEvent], Any]) -> Callable[[], None]:
        """Receive every event of the session, typed (sync or async listener). Returns an unsubscriber."""
        return self._delivery.subscribe(listener)

    def resume_from(self, attach_data: dict[str, Any]) -> None:
        """After a reconnect: replayed records follow; or, past the replay buffer, start again from the
        snapshot and tell subscribers to rebuild (``session_changed`` with reason ``resync``)."""
        self.connected = True
        snapshot = attach_data.get("snapshot")
        if snapshot is not None:
            self._view.reset(snapshot)
            self._delivery.put(SessionChangedEvent("resync", self.session_file))

    def connection_lost(self) -> None:
        self.connected = False
        self._delivery.wake()

    async def reconnect(self) -> dict[str, Any]:
        """Connect again and continue from :attr:`cursor`: the records missed meanwhile are replayed
        (or a snapshot taken, see :meth:`resume_from`). Returns the ``attach`` answer's data."""
        from .client import ServeClient

        self._client = await ServeClient.connect(self._client.path)
        return await self._client.reattach(self)

    # ------------------------------------------------------------------ state

    @property
    def settings(self) -> SettingsManager:
        """The folder's settings, read here (the server reads the same files)."""
        return self._folder.settings

    @settings.setter
    def settings(self, value: SettingsManager) -> None:
        self._folder.settings = value

    @property
    def model_registry(self) -> ModelRegistry | None:
        """Models and credentials as this machine's agent dir has them (for pickers; the server
        resolves the model it is told to use in its own registry)."""
        return self._folder.model_registry

    @model_registry.setter
    def model_registry(self, value: ModelRegistry | None) -> None:
        self._folder.model_registry = value

    @property
    def resources(self) -> ResourceLoaderPort | None:
        """Skills, prompt templates and context files of the folder, loaded here."""
        return self._folder.resources

    @resources.setter
    def resources(self, value: ResourceLoaderPort | None) -> None:
        self._folder.resources = value

    @property
    def model(self) -> Model:
        from ..ai.types import Model

        return Model.model_validate(self._view.state["model"])

    @property
    def thinking_level(self) -> str:
        return str(self._view.state.get("thinkingLevel", "off"))

    @property
    def routed_model(self) -> RoutedModel | None:
        """Under a virtual selection, the physical model and level of the latest successful answer,
        looked up in this folder's registry (the router itself runs in the server)."""
        from ..ai.types import is_virtual

        registry = self.model_registry
        if registry is None or not is_virtual(self._view.state.get("model") or {}):
            return None
        from ..ai.virtual import RoutedModel, latest_response

        latest = latest_response(self.messages)
        model = registry.physical(latest.provider, latest.model) if latest is not None else None
        return RoutedModel(model, latest.thinking_level) if model is not None else None

    @property
    def messages(self) -> list[Any]:
        return self._view.messages

    @property
    def streaming_message(self) -> Any:
        """The assistant message being streamed, as far as it got (None between messages)."""
        return self._view.streaming

    @property
    def is_streaming(self) -> bool:
        return bool(self._view.state.get("isStreaming")) or (
            self._started_at is not None and self._delivery.received_settles == self._started_at)

    @property
    def is_compacting(self) -> bool:
        return bool(self._view.state.get("isCompacting"))

    @property
    def session_id(self) -> str:
        return str(self._view.state.get("sessionId") or self._view.manager.session_id)

    @property
    def session_file(self) -> str | None:
        return self._view.state.get("sessionFile")

    @property
    def session_name(self) -> str | None:
        return self._view.state.get("sessionName")

    @property
    def session_manager(self) -> SessionManager:
        """A read-only replica of the server's session tree."""
        return self._view.manager

    def take_session_notices(self) -> list[str]:
        return []  # the server reports its file problems itself

    @property
    def extension_runner(self) -> ExtensionHost | None:
        return None  # extensions run in the server; their commands: ``await session.call("get_commands")``

    @property
    def steering_texts(self) -> list[str]:
        return [item.text for item in self._view.queue if item.kind == "steer"]

    @property
    def follow_up_texts(self) -> list[str]:
        return [item.text for item in self._view.queue if item.kind == "follow_up"]

    @property
    def auto_compaction_enabled(self) -> bool:
        return bool(self._view.state.get("autoCompactionEnabled", True))

    # ------------------------------------------------------------------ calls

    async def call(self, command: str, **fields: Any) -> Any:
        """Send a command of the protocol to this session and return its ``data``.

        Raises:
            The kernel's error type the server named, else ``RemoteError``.
        """
        return await self._client.request({"type": command, "session": self.handle, **fields})

    def send_ui_response(self, record: dict[str, Any]) -> None:
        """Answer an extension dialog (an ``extension_ui_response``; the first answer wins)."""
        self._client.send_nowait({**record, "session": self.handle})

    def _send_soon(self, command: str, **fields: Any) -> None:
        """A command ``SessionPort`` does not await: a refusal is logged (the next event corrects the view)."""
        async def send() -> None:
            try:
                await self.call(command, **fields)
            except Exception as exc:  # noqa: BLE001 - nobody awaits this call
                log.warning("pi serve refused %s: %s", command, exc)

        task = asyncio.ensure_future(send())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def prompt(self, text: str, images: list[ImageContent] | None = None,
                     streaming_behavior: StreamingBehavior | None = None, *, wait: bool = True) -> PromptDisposition:
        """Send what the user typed (see ``AgentSession.prompt``)."""
        fields: dict[str, Any] = {"message": text}
        if images:
            fields["images"] = [image.to_wire() for image in images]
        if streaming_behavior is not None:
            fields["streamingBehavior"] = streaming_behavior
        mark = self._delivery.received_settles
        data = await self.call("prompt", **fields)
        disposition: PromptDisposition = data["disposition"]
        if disposition == "started" and self._delivery.received_settles == mark:
            self._started_at = mark
            if wait:
                await self.wait_for_idle()
        return disposition

    async def wait_for_idle(self) -> None:
        """Until the run in progress settles and subscribers have had its ``agent_settled`` (at once
        when idle, closed or disconnected)."""
        while (self.is_streaming or self._delivery.behind) and self.connected and not self._view.closed:
            await self._delivery.changed()

    async def abort(self) -> None:
        await self.call("abort")

    def abort_bash(self) -> None:
        self._send_soon("abort_bash")

    def abort_retry(self) -> None:
        self._send_soon("abort_retry")

    async def dispose(self, reason: str = "quit") -> None:
        """Detach this viewer (the session goes on running on the server)."""
        await self._client.detach(self.handle)
        self._delivery.close()

    def clear_queue(self) -> tuple[list[str], list[str]]:
        taken = (self.steering_texts, self.follow_up_texts)
        self._send_soon("clear_queue")
        return taken

    # -- the queue as a list: sent without waiting; the answer is the view's prediction

    def queued_messages(self) -> list[QueuedMessage]:
        return list(self._view.queue)

    def edit_queued(self, message_id: str, text: str) -> list[QueuedMessage]:
        queue = self.queued_messages()
        queue_prediction.require(queue, message_id)
        self._send_soon("edit_queued", messageId=message_id, message=text)
        return queue_prediction.edited(queue, message_id, text)

    def remove_queued(self, message_id: str) -> list[QueuedMessage]:
        queue = self.queued_messages()
        queue_prediction.require(queue, message_id)
        self._send_soon("remove_queued", messageId=message_id)
        return queue_prediction.removed(queue, message_id)

    def move_queued(self, message_id: str, index: int, kind: QueueKind | None = None) -> list[QueuedMessage]:
        queue = self.queued_messages()
        queue_prediction.require(queue, message_id)
        fields: dict[str, Any] = {"messageId": message_id, "index": index}
        if kind is not None:
            fields["kind"] = "followUp" if kind == "follow_up" else "steer"
        self._send_soon("move_queued", **fields)
        return queue_prediction.moved(queue, message_id, index, kind)

    # ------------------------------------------------------------------ model, thinking, modes

    def available_thinking_levels(self, model: Model | None = None) -> list[str]:
        from ..kernel.thinking import available_thinking_levels

        return available_thinking_levels(model or self.model)

    async def set_model(self, model: Model, *, persist_default: bool = False) -> None:
        await self.call("set_model", provider=model.provider, modelId=model.id, persistDefault=persist_default)

    async def cycle_model(self, direction: int = 1) -> CycleModelResult | None:
        from ..kernel.results import CycleModelResult

        data = await self.call("cycle_model", direction=direction)
        return None if data is None else CycleModelResult.from_wire(data)

    async def set_thinking_level(self, level: str) -> str:
        await self.call("set_thinking_level", level=level)
        return self.thinking_level  # its thinking_level_changed came before the answer

    async def cycle_thinking_level(self) -> str | None:
        data = await self.call("cycle_thinking_level")
        return None if data is None else str(data["level"])

    def set_steering_mode(self, mode: QueueMode) -> None:
        self._send_soon("set_steering_mode", mode=mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self._send_soon("set_follow_up_mode", mode=mode)

    def set_auto_compaction(self, enabled: bool) -> None:
        self._send_soon("set_auto_compaction", enabled=enabled)

    def set_auto_retry(self, enabled: bool) -> None:
        self._send_soon("set_auto_retry", enabled=enabled)

    def refresh_system_prompt(self) -> None:
        """Nothing to do here: the server rebuilds its prompt when its tools or resources change."""

    # ------------------------------------------------------------------ commands

    async def compact(self, instructions: str | None = None) -> CompactionResult:
        from ..kernel.results import CompactionResult

        fields = {"customInstructions": instructions} if instructions else {}
        return CompactionResult.from_wire(await self.call("compact", **fields))

    async def execute_bash(self, command: str, exclude_from_context: bool = False, *, request_id: str | None = None,
                           on_delta: Callable[[str], None] | None = None) -> BashResult:
        import uuid

        from ..kernel.results import BashResult

        rid = request_id or f"bash-{uuid.uuid4().hex[:12]}"
        if on_delta is not None:
            self._bash_deltas[rid] = on_delta
        try:
            data = await self._client.request({"type": "bash", "session": self.handle, "id": rid, "command": command,
                                               "excludeFromContext": exclude_from_context})
        finally:
            self._bash_deltas.pop(rid, None)
        return BashResult.from_wire(data)

    async def navigate_tree(self, entry_id: str, summarize: bool | str = False) -> NavigateResult:
        from ..kernel.results import NavigateResult

        return NavigateResult.from_wire(await self.call("navigate_tree", entryId=entry_id, summarize=summarize))

    def get_fork_messages(self) -> list[dict[str, str]]:
        from ..kernel.navigator import fork_points

        return fork_points(self._view.manager)

    async def fork(self, entry_id: str) -> ForkResult:
        from ..kernel.results import ForkResult

        return ForkResult.from_wire(await self.call("fork", entryId=entry_id))

    async def clone(self, entry_id: str | None = None) -> SwitchResult:
        from ..kernel.results import SwitchResult

        return SwitchResult.from_wire(await self.call("clone", **({"entryId": entry_id} if entry_id else {})))

    async def new_session(self, parent_session: str | None = None) -> SwitchResult:
        from ..kernel.results import SwitchResult

        fields = {"parentSession": parent_session} if parent_session else {}
        return SwitchResult.from_wire(await self.call("new_session", **fields))

    async def sibling_allowed(self, kind: str, entry_id: str | None = None) -> bool:
        fields = {"entryId": entry_id} if entry_id else {}
        return bool((await self.call("sibling_allowed", kind=kind, **fields))["allowed"])

    async def switch_session(self, path: str) -> SwitchResult:
        from ..kernel.results import SwitchResult

        return SwitchResult.from_wire(await self.call("switch_session", sessionPath=path))

    async def switch_allowed(self, path: str) -> bool:
        return bool((await self.call("switch_allowed", sessionPath=path))["allowed"])

    async def set_session_name(self, name: str) -> None:
        await self.call("set_session_name", name=name)

    def set_label(self, entry_id: str, label: str | None) -> str:
        """Label an entry (sent without waiting): returns ``""``, the label entry's id not being known yet."""
        self._send_soon("set_label", entryId=entry_id, label=label)
        return ""

    # ------------------------------------------------------------------ views (read from the replica)

    def usage_totals(self) -> UsageTotals:
        return self._ledger.totals()

    def context_usage(self) -> ContextUsage | None:
        routed = self.routed_model  # a virtual selection: the window of the model that answered last
        return self._ledger.context(self.messages, routed.model if routed is not None else self.model)

    def get_session_stats(self) -> SessionStats:
        from ..kernel.views import session_stats

        return session_stats(self, self._ledger)

    def get_last_assistant_text(self) -> str | None:
        from ..serve.live import last_answer

        return last_answer(self.messages)

    def branch_messages(self, entry_id: str, last: int | None = None) -> list[Any]:
        from ..session.entries import parse_messages

        manager = self._view.manager
        if manager.get_entry(entry_id) is None:
            raise KeyError(f"Entry {entry_id} not found")
        dicts = manager.context_at(entry_id).message_dicts
        return parse_messages(dicts[-last:] if last else list(dicts))

    def export_html(self, path: str | None = None) -> str:
        """Not available synchronously over the socket: ``await session.call("export_html", outputPath=...)``."""
        from .errors import RemoteError

        raise RemoteError("export_html", "export_html is asynchronous on a served session: "
                                         "await session.call('export_html', outputPath=path)")
