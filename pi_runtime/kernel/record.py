"""``SessionRecord``: the kernel's persist port.

It owns the current ``SessionManager`` (replaced on new, switch and fork) and the map from live
message objects to their entry ids. Every other part writes to the session file through it, and
it keeps the agent's transcript equal to the file's active path when asked (``load_context``).
"""

from __future__ import annotations

from typing import Any, cast

from ..agent.agent import Agent
from ..agent.transcript import Transcript
from ..ai.types import is_virtual
from ..session.entries import parse_messages
from .thinking import clamp_thinking


class SessionRecord:
    """Where finished messages go, and where the agent's context comes from.

    Args:
        manager: The session's ``SessionManager``.
        agent: The agent whose transcript mirrors the active path.
        model_registry: Resolves a model recorded in the file (None: keep the agent's).
    """

    def __init__(self, manager: Any, agent: Agent, model_registry: Any = None) -> None:
        self.manager = manager
        self._agent = agent
        self._registry = model_registry
        self._entry_ids: dict[int, str] = {}
        """id(message) -> entry id, so a failed attempt can be taken out of the context."""
        self._stored_ids: list[str] = []

    def persist(self, message: Any) -> str:
        """Append a finished message (an extension's ``custom`` one as Pi's custom_message entry)."""
        if getattr(message, "role", None) == "custom":
            entry_id = self.manager.append_custom_message(
                message.custom_type, message.content, message.display, message.details
            )
        else:
            entry_id = self.manager.append_message(message)
        self._entry_ids[id(message)] = entry_id
        return str(entry_id)

    def add(self, message: Any) -> None:
        """Put ``message`` at the end of the agent's transcript and persist it."""
        self._agent.state.messages.append(message)
        self.persist(message)

    def omit_from_context(self, message: Any) -> Any:
        """Drop a failed attempt from what the model sees next; the file keeps it.

        Returns:
            The ``context_edit`` entry written (None when the message was never stored).
        """
        entry_id = self._entry_ids.get(id(message))
        edit = None
        if entry_id is not None:
            edit = self.manager.get_entry(self.manager.append_context_edit(entry_id, None))
        messages = self._agent.state.messages
        for i in range(len(messages) - 1, -1, -1):
            if messages[i] is message:
                del messages[i]
                break
        return edit

    def ensure_history_start(self) -> None:
        """Like Pi, a session's history starts with the model and thinking level in force."""
        if not self.manager.raw_entries():
            state = self._agent.state
            self.manager.append_model_change(state.model.provider, state.model.id)
            self.manager.append_thinking_level_change(state.thinking_level)

    def load_context(self) -> None:
        """Make the agent's transcript, model and thinking level match the active path.

        The path's messages stay wire dicts until something needs them as objects
        (``Transcript``): a request is built from the dicts directly.
        """
        ctx = self.manager.build_session_context()
        state = self._agent.state
        self._entry_ids = {}
        self._stored_ids = list(ctx.entry_ids)

        stored_ids = self._stored_ids

        def materialize(stored: list[dict[str, Any]], known: dict[int, Any]) -> list[Any]:
            messages = parse_messages(stored)
            for index, message in known.items():
                messages[index] = message  # a window already showed these objects: keep them
            self._entry_ids.update({id(m): eid for m, eid in zip(messages, stored_ids)})
            return messages

        def materialize_one(index: int) -> Any:
            # A front end's window over a long history (the app shows the last screenful).
            message = parse_messages([ctx.message_dicts[index]])[0]
            self._entry_ids[id(message)] = stored_ids[index]
            return message

        # A Transcript is a MutableSequence that behaves as the list it stands for; it is typed
        # as that list so every reader of ``state.messages`` keeps its type.
        state.messages = cast("list[Any]", Transcript(ctx.message_dicts, materialize, materialize_one))
        if ctx.model and self._registry is not None:
            model = self._registry.find(ctx.model.get("provider", ""), ctx.model.get("modelId", ""))
            change = ctx.model_change
            if change is not None and change != ctx.model:
                # A virtual selection holds past the responses it routed, while it is registered;
                # otherwise the physical model that answered last is the selection (as Pi).
                selected = self._registry.find(change.get("provider", ""), change.get("modelId", ""))
                if selected is not None and is_virtual(selected):
                    model = selected
            if model is not None:
                state.model = model
        state.thinking_level = clamp_thinking(ctx.thinking_level or state.thinking_level, state.model)

    def replace(self, manager: Any) -> None:
        """Work on another session file from now on (the old one is closed)."""
        old, self.manager = self.manager, manager
        if old is not manager:
            old.close()

    @property
    def session_file(self) -> str | None:
        path = self.manager.session_file
        return str(path) if path else None
