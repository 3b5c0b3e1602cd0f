"""``InputRouter``: where text a user sends goes — a new run, the steering or follow-up queue, or an
extension that handles it. One entry point for every front end and every state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..agent.agent import Agent
from ..ai.types import ImageContent, TextContent, UserMessage
from .compactor import Compactor
from .errors import PromptError, no_credentials_message
from .events import QueueUpdateEvent
from .extension_port import ExtensionGate
from .message_queue import MessageQueue, QueuedMessage
from .outbox import EventOutbox
from .run_driver import RunDriver

PromptDisposition = Literal["started", "queued", "handled"]
"""What became of text sent with ``prompt``: a run started, it was queued (steer or follow-up), or an
extension command or ``input`` hook handled it (no run)."""


class InputRouter:
    """Routes prompts, steers and follow-ups of one session.

    Args:
        agent: Its queues take steering and follow-up messages.
        driver: Starts runs and says whether one is in progress.
        compactor: No prompt starts while it compacts.
        gate: Extension commands and ``input`` hooks.
        outbox: Announces queue changes.
        resources: Returns the current resources (templates and skills expand ``/name`` input).
        registry: Says whether the model has credentials (None: not checked).
        skill_commands: Whether ``/skill:name`` is a command now (``enableSkillCommands``).
    """

    def __init__(
        self,
        *,
        agent: Agent,
        driver: RunDriver,
        compactor: Compactor,
        gate: ExtensionGate,
        outbox: EventOutbox,
        resources: Callable[[], Any],
        registry: Any,
        skill_commands: Callable[[], bool] = lambda: True,
    ) -> None:
        self._agent = agent
        self._driver = driver
        self._compactor = compactor
        self._gate = gate
        self._outbox = outbox
        self._resources = resources
        self._registry = registry
        self._skill_commands = skill_commands
        self.queue = MessageQueue(agent)
        """The user's queued messages, with ids, as an editable list."""
        agent.on_queue_taken = self._on_queue_taken

    # ------------------------------------------------------------------ queues

    def _on_queue_taken(self, kind: str, messages: list[Any]) -> None:
        self.queue.mark_sent(messages)
        self._taken_unannounced = True

    _taken_unannounced = False

    def announce_taken(self) -> QueueUpdateEvent | None:
        """The ``queue_update`` owed since the agent took queued messages, once.

        Pi announces the shorter queue when the taken message's ``message_start`` comes (after the
        new turn's ``turn_start``), so the kernel asks here before passing that event on.
        """
        if not self._taken_unannounced:
            return None
        self._taken_unannounced = False
        return self.queue_event()

    @property
    def steering_texts(self) -> list[str]:
        """What the user queued as steering (extension messages left out)."""
        return self.queue.texts("steer")

    @property
    def follow_up_texts(self) -> list[str]:
        return self.queue.texts("follow_up")

    def queue_event(self, items: list[QueuedMessage] | None = None) -> QueueUpdateEvent:
        items = self.queue.items() if items is None else items
        return QueueUpdateEvent([i.text for i in items if i.kind == "steer"],
                                [i.text for i in items if i.kind == "follow_up"], items)

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop queued steering and follow-up messages; returns their texts (for the editor)."""
        cleared = self.queue.clear()
        self._outbox.emit_soon(self.queue_event([]))
        return ([i.text for i in cleared if i.kind == "steer"], [i.text for i in cleared if i.kind == "follow_up"])

    def changed(self, items: list[QueuedMessage]) -> list[QueuedMessage]:
        """Announce the queue after an edit (``queue_update``); returns ``items``."""
        self._outbox.emit_soon(self.queue_event(items))
        return items

    # ------------------------------------------------------------------ messages

    def expand(self, text: str) -> str:
        """Expand ``/skill:name args`` and ``/template args`` the way Pi does before sending."""
        resources = self._resources()
        if resources is None or not text.startswith("/"):
            return text
        if text.startswith("/skill:") and not self._skill_commands():
            return text  # sent as typed: skill commands are turned off
        expand = getattr(resources, "expand_input", None)
        return expand(text) if expand is not None else text

    def check_ready(self) -> None:
        """Raise PromptError when a prompt could not be sent (no model, no credentials)."""
        model = self._agent.state.model
        if model is None:
            raise PromptError("No model selected. Use --model, /model, or configure a provider.")
        if self._registry is not None and not self._registry.has_credentials(model):
            auth_errors = getattr(getattr(self._registry, "auth", None), "errors", None)
            raise PromptError(no_credentials_message(model.provider, auth_errors))

    @staticmethod
    def user_message(text: str, images: list[Any] | None = None) -> UserMessage:
        # Pi stores every user message as blocks: one text block, then the images.
        blocks: list[Any] = [TextContent(text=text)]
        blocks += [i if isinstance(i, ImageContent) else ImageContent.model_validate(i) for i in images or ()]
        return UserMessage(content=blocks)

    # ------------------------------------------------------------------ routing

    async def prompt(self, text: str, images: list[Any] | None, streaming_behavior: str | None) -> PromptDisposition:
        """``started``, ``queued`` or ``handled`` (see ``AgentSession.prompt``)."""
        if self._driver.is_running and self._driver.aborting:
            # Sent once the run was told to stop (Esc, then a new message at once): it only
            # unwinds, so this is the next run's prompt. Queued as a steer it sat in a queue no
            # run would read, and came back into the editor at the next Esc.
            await self._driver.wait_for_idle()
        running = self._driver.is_running
        handled = await self._gate.handle_input(text, images, streaming_behavior if running else None)
        if handled is None:
            return "handled"
        if self._driver.is_running:
            if streaming_behavior == "steer":
                return await self.steer(handled, images)
            if streaming_behavior in ("followUp", "follow_up"):
                return await self.follow_up(handled, images)
            raise PromptError(
                "The agent is busy. Send it as a steer or a follow-up (streamingBehavior 'steer' or 'followUp')."
            )
        if self._compactor.is_compacting:
            raise PromptError("Cannot submit a prompt while compaction is in progress")
        self.check_ready()
        text = self.expand(handled) if self._gate.expand_templates() else handled
        self._driver.start([self.user_message(text, images)])
        return "started"

    async def steer(self, text: str, images: list[Any] | None = None) -> PromptDisposition:
        """Queue a message for after the current tool calls."""
        text = self.expand(text) if self._gate.expand_templates() else text
        self.queue.add(self.user_message(text, images), "steer")
        await self._outbox.emit(self.queue_event())
        return "queued"

    async def follow_up(self, text: str, images: list[Any] | None = None) -> PromptDisposition:
        """Queue a message for when the agent would otherwise stop."""
        text = self.expand(text) if self._gate.expand_templates() else text
        self.queue.add(self.user_message(text, images), "follow_up")
        await self._outbox.emit(self.queue_event())
        return "queued"
