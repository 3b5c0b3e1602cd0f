"""Moving in the session tree and between sessions: navigate, fork, clone, new, switch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..session.manager import SessionManager
from .events import SessionChangedEvent

if TYPE_CHECKING:
    from .session import AgentSession


class SessionBusyError(Exception):
    """The operation needs an idle session."""


def message_text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


class TreeOpsMixin:
    def _require_idle(self: "AgentSession") -> None:
        if self.is_streaming:
            raise SessionBusyError("Wait for the agent to finish (or abort it) first")

    def load_context(self: "AgentSession") -> None:
        """Make the agent's transcript, model and thinking level match the active path."""
        ctx = self.session_manager.build_session_context()
        self.agent.state.messages = list(ctx.messages)
        self._entry_ids = {id(m): eid for m, eid in zip(ctx.messages, ctx.entry_ids)}
        if ctx.model and self.model_registry is not None:
            model = self.model_registry.find(ctx.model.get("provider", ""), ctx.model.get("modelId", ""))
            if model is not None:
                self.agent.state.model = model
        self.agent.state.thinking_level = self._clamp_thinking(ctx.thinking_level or self.thinking_level)

    async def _extension_cancels(self: "AgentSession", event: str, **fields: Any) -> bool:
        """Ask extensions whether a ``session_before_*`` operation may go ahead."""
        runner = getattr(self, "extension_runner", None)
        return runner is not None and await runner.emit_cancellable(event, **fields)

    async def _extension_notify(self: "AgentSession", event: str, **fields: Any) -> None:
        runner = getattr(self, "extension_runner", None)
        if runner is not None:
            await runner.emit_named(event, **fields)

    async def _session_changed(self: "AgentSession", reason: str) -> None:
        self.agent.clear_all_queues()
        self.load_context()
        await self._emit(SessionChangedEvent(reason, self.session_file))

    async def navigate_tree(self: "AgentSession", entry_id: str, summarize: bool | str = False) -> dict[str, Any]:
        """Move the leaf to ``entry_id``.

        Selecting a user message moves to its parent and hands its text back for the editor
        (as Pi does); anything else continues after that entry. With ``summarize`` (True or
        custom instructions) the abandoned branch is summarised into a branch_summary entry.

        Returns:
            ``{"cancelled": False, "editorText": str | None, "summaryEntryId": str | None}``
        """
        self._require_idle()
        sm = self.session_manager
        entry = sm.get_entry(entry_id)
        if entry is None:
            raise KeyError(f"Entry {entry_id} not found")
        old_leaf = sm.leaf_id
        editor_text = None
        target: str | None = entry_id
        message = getattr(entry, "message", None)
        if getattr(entry, "type", None) == "message" and getattr(message, "role", None) == "user":
            editor_text = message_text(message)
            target = entry.parent_id
        if await self._extension_cancels(
            "session_before_tree", target_id=entry_id, old_leaf_id=old_leaf, user_wants_summary=bool(summarize)
        ):
            return {"cancelled": True, "editorText": None, "summaryEntryId": None}
        summary_id = None
        if summarize and old_leaf is not None and old_leaf != target:
            instructions = summarize if isinstance(summarize, str) else None
            result = await self._summarize_branch(old_leaf, target, instructions)
            if result is not None:
                summary_id = sm.branch_with_summary(
                    target, result["summary"], details=result.get("details"), usage=result.get("usage")
                )
        if summary_id is None:
            if target is None:
                sm.reset_leaf()
            else:
                sm.branch(target)
        await self._session_changed("navigate")
        await self._extension_notify("session_tree", new_leaf_id=sm.leaf_id, old_leaf_id=old_leaf,
                                     summary_entry_id=summary_id)
        return {"cancelled": False, "editorText": editor_text, "summaryEntryId": summary_id}

    def get_fork_messages(self: "AgentSession") -> list[dict[str, str]]:
        """User messages on the active branch that a fork can start from."""
        out = []
        for entry in self.session_manager.get_branch():
            message = getattr(entry, "message", None)
            if getattr(entry, "type", None) == "message" and getattr(message, "role", None) == "user":
                out.append({"entryId": entry.id, "text": message_text(message)})
        return out

    async def fork(self: "AgentSession", entry_id: str) -> dict[str, Any]:
        """New session holding the history before the user message ``entry_id``.

        Returns:
            ``{"text": <that message's text>, "cancelled": False}`` — the text goes back
            into the editor.
        """
        self._require_idle()
        sm = self.session_manager
        entry = sm.get_entry(entry_id)
        message = getattr(entry, "message", None)
        if entry is None or getattr(message, "role", None) != "user":
            raise KeyError(f"Entry {entry_id} is not a user message")
        text = message_text(message)
        if await self._extension_cancels("session_before_fork", entry_id=entry_id, position="before"):
            return {"text": text, "cancelled": True}
        if entry.parent_id is None:
            parent = str(sm.session_file) if sm.session_file else None
            self.session_manager = SessionManager.create(self.cwd, sm.session_dir, parent_session=parent) \
                if sm.persist else SessionManager.in_memory(self.cwd)
            sm.close()
        else:
            sm.create_branched_session(entry.parent_id)
        await self._session_changed("fork")
        return {"text": text, "cancelled": False}

    async def clone(self: "AgentSession") -> dict[str, Any]:
        """Duplicate the active branch into a new session file and switch to it."""
        self._require_idle()
        leaf = self.session_manager.leaf_id
        if leaf is None:
            raise ValueError("Nothing to clone: the session is empty")
        if await self._extension_cancels("session_before_fork", entry_id=leaf, position="at"):
            return {"cancelled": True}
        self.session_manager.create_branched_session(leaf)
        await self._session_changed("clone")
        return {"cancelled": False}

    async def new_session(self: "AgentSession", parent_session: str | None = None) -> dict[str, Any]:
        """Start a fresh session in the same folder (the old file stays as it is)."""
        if await self._extension_cancels("session_before_switch", reason="new"):
            return {"cancelled": True}
        if self.is_streaming:
            await self.abort()
        old = self.session_manager
        if old.persist:
            self.session_manager = SessionManager.create(self.cwd, old.session_dir, parent_session=parent_session)
        else:
            self.session_manager = SessionManager.in_memory(self.cwd)
        old.close()
        # Keep the current model and thinking level in the new file's history.
        self.session_manager.append_model_change(self.model.provider, self.model.id)
        if self.thinking_level != "off":
            self.session_manager.append_thinking_level_change(self.thinking_level)
        await self._session_changed("new")
        return {"cancelled": False}

    async def switch_session(self: "AgentSession", path: str) -> dict[str, Any]:
        """Open another session file and continue it."""
        if await self._extension_cancels("session_before_switch", reason="resume", target_session_file=str(path)):
            return {"cancelled": True}
        if self.is_streaming:
            await self.abort()
        new = SessionManager.open(path)
        self.session_manager.close()
        self.session_manager = new
        await self._session_changed("switch")
        return {"cancelled": False}

    async def set_session_name(self: "AgentSession", name: str) -> None:
        from .events import SessionInfoChangedEvent

        self.session_manager.append_session_info(name)
        await self._emit(SessionInfoChangedEvent(name.strip() or None))

    def set_label(self: "AgentSession", entry_id: str, label: str | None) -> str:
        """Label an entry (None or empty clears it)."""
        return self.session_manager.append_label(entry_id, label)
