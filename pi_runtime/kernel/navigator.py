"""``TreeNavigator``: moving in the session tree and between sessions (navigate, fork, clone, new, switch).

Each operation asks extensions first (the ``session_before_*`` vetoes), changes the session record,
reloads the agent's context and emits ``session_changed`` so front ends rebuild their view.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..agent.agent import Agent
from ..session.manager import SessionManager
from .compactor import Compactor, unless_aborted
from .events import SessionChangedEvent
from .extension_port import ExtensionGate, TreePreparation
from .record import SessionRecord

# ``results`` (ten frozen records, ~6 ms to define) is imported where a result is made: a plain prompt
# (``pi -p``) makes none.
if TYPE_CHECKING:
    from .results import ForkResult, NavigateResult, SwitchResult


class SessionBusyError(Exception):
    """The operation needs an idle session."""


def message_text(message: Any) -> str:
    """The text of a message's text blocks (or its string content)."""
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


def fork_points(manager: SessionManager) -> list[dict[str, str]]:
    """User messages a fork can start from (``entryId``, ``text``), in file order: those of the
    whole tree, abandoned branches included, as Pi's ``getUserMessagesForForking`` (``/fork``
    and RPC ``get_fork_messages``); a message without text is left out."""
    out = []
    for entry in manager.get_entries():
        message = getattr(entry, "message", None)
        if getattr(entry, "type", None) == "message" and getattr(message, "role", None) == "user":
            text = message_text(message)
            if text:
                out.append({"entryId": entry.id, "text": text})
    return out


class TreeNavigator:
    """Tree and session moves for one kernel.

    Args:
        cwd: Folder new sessions belong to.
        agent: Its queues are cleared on a move.
        record: The persist port (the session manager is replaced on new/switch/fork).
        emit: The kernel's event outlet.
        gate: Extensions' vetoes and notifications.
        compactor: Summarises an abandoned branch.
        is_running: Whether a run is in progress.
        abort: Aborts the run in progress and waits for it to settle.
    """

    def __init__(
        self,
        *,
        cwd: str,
        agent: Agent,
        record: SessionRecord,
        emit: Callable[[Any], Awaitable[None]],
        gate: ExtensionGate,
        compactor: Compactor,
        is_running: Callable[[], bool],
        abort: Callable[[], Awaitable[None]],
    ) -> None:
        self._cwd = cwd
        self._agent = agent
        self._record = record
        self._emit = emit
        self._gate = gate
        self._compactor = compactor
        self._is_running = is_running
        self._abort = abort

    def _require_idle(self) -> None:
        if self._is_running():
            raise SessionBusyError("Wait for the agent to finish (or abort it) first")

    async def _changed(self, reason: str) -> None:
        self._agent.clear_all_queues()
        self._record.load_context()
        await self._emit(SessionChangedEvent(reason, self._record.session_file))

    async def navigate(self, entry_id: str, summarize: bool | str = False) -> NavigateResult:
        """Move the leaf to ``entry_id``.

        Selecting a user message moves to its parent and hands its text back for the editor
        (as Pi does); anything else continues after that entry. With ``summarize`` (True or
        custom instructions) the abandoned branch is summarised into a branch_summary entry.

        Raises:
            SessionBusyError: A run is in progress.
            KeyError: No such entry.
        """
        from .results import NavigateResult

        self._require_idle()
        sm = self._record.manager
        _require_saved(sm)
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
        from ..compaction.branch_summary import collect_branch_entries
        from ..compaction.supplied import supplied_summary

        instructions = summarize if isinstance(summarize, str) else None
        leaving = old_leaf is not None and old_leaf != target
        # As in Pi, what is left behind is measured from the selected entry, not the new leaf:
        # choosing a user message on the current path summarises what came after it, not it.
        entries, ancestor = collect_branch_entries(sm, old_leaf, entry_id) if leaving and old_leaf else ([], None)
        preparation = TreePreparation(
            target_id=entry_id, old_leaf_id=old_leaf, common_ancestor_id=ancestor,
            entries_to_summarize=[sm.get_entry(e["id"]) or e for e in entries],
            user_wants_summary=bool(summarize), custom_instructions=instructions)
        controller = self._compactor.hold_controller()  # abort() reaches a handler's own model call
        try:
            decision = await unless_aborted(self._gate.decides(
                "session_before_tree", "summary", target_id=entry_id, old_leaf_id=old_leaf,
                user_wants_summary=bool(summarize), preparation=preparation, signal=controller.signal),
                controller.signal)
            if decision is None or decision.cancelled:
                return NavigateResult(cancelled=True)
            summary_id = None
            if summarize and leaving:
                if decision.supplied is not None:  # the extension's own summary (Pi: only when one was wanted)
                    text, details, usage = supplied_summary(decision.supplied)
                    summary_id = sm.branch_with_summary(target, text, details=details, from_hook=True, usage=usage)
                else:
                    result = await self._compactor.summarize_branch(old_leaf, entry_id, instructions, controller)
                    if result is not None:
                        summary_id = sm.branch_with_summary(
                            target, result["summary"], details=result.get("details"), usage=result.get("usage")
                        )
        finally:
            self._compactor.release_controller(controller)
        if summary_id is None:
            if target is None:
                sm.reset_leaf()
            else:
                sm.branch(target)
        await self._changed("navigate")
        await self._gate.notify("session_tree", new_leaf_id=sm.leaf_id, old_leaf_id=old_leaf, summary_entry_id=summary_id)
        return NavigateResult(editor_text=editor_text, summary_entry_id=summary_id)

    def fork_points(self) -> list[dict[str, str]]:
        """See :func:`fork_points`."""
        return fork_points(self._record.manager)

    async def fork(self, entry_id: str) -> ForkResult:
        """New session holding the history before the user message ``entry_id``.

        Raises:
            SessionBusyError: A run is in progress.
            KeyError: ``entry_id`` is not a user message.
        """
        from .results import ForkResult

        self._require_idle()
        sm = self._record.manager
        entry = sm.get_entry(entry_id)
        message = getattr(entry, "message", None)
        if entry is None or getattr(message, "role", None) != "user":
            raise KeyError(f"Entry {entry_id} is not a user message")
        text = message_text(message)
        if await self._gate.cancels("session_before_fork", entry_id=entry_id, position="before"):
            return ForkResult(text=text, cancelled=True)
        if entry.parent_id is None:
            parent = str(sm.session_file) if sm.session_file else None
            fresh = (SessionManager.create(self._cwd, sm.session_dir, parent_session=parent)
                     if sm.persist else SessionManager.in_memory(self._cwd))
            self._record.replace(fresh)
            self._record.ensure_history_start()  # Pi's new runtime records them in the new file
        else:
            sm.create_branched_session(entry.parent_id)
        await self._changed("fork")
        return ForkResult(text=text)

    async def branch_allowed(self, entry_id: str | None, position: str) -> bool:
        """Whether extensions let a fork (``position="before"`` a user message) or a clone
        (``"at"`` an entry) go ahead: ``session_before_fork``, as ``fork``/``clone`` ask it."""
        return not await self._gate.cancels("session_before_fork", entry_id=entry_id, position=position)

    async def clone(self, entry_id: str | None = None) -> SwitchResult:
        """Duplicate the active branch (or the path to ``entry_id``) into a new session file and switch to it."""
        from .results import SwitchResult

        self._require_idle()
        _require_saved(self._record.manager)
        leaf = entry_id or self._record.manager.leaf_id
        if leaf is None:
            raise ValueError("Nothing to clone: the session is empty")
        if self._record.manager.get_entry(leaf) is None:
            raise KeyError(f"Entry {leaf} not found")
        if await self._gate.cancels("session_before_fork", entry_id=leaf, position="at"):
            return SwitchResult(cancelled=True)
        self._record.manager.create_branched_session(leaf)
        await self._changed("clone")
        return SwitchResult()

    async def new_session(self, parent_session: str | None = None, *,
                          setup: Callable[[Any], Any] | None = None) -> SwitchResult:
        """Start a fresh session in the same folder (the old file stays as it is).

        ``setup(session_manager)`` (sync or async) may append to the new session before the
        agent's context is loaded from it.
        """
        from .results import SwitchResult

        if await self._gate.cancels("session_before_switch", reason="new"):
            return SwitchResult(cancelled=True)
        if self._is_running():
            await self._abort()
        old = self._record.manager
        fresh = (SessionManager.create(self._cwd, old.session_dir, parent_session=parent_session)
                 if old.persist else SessionManager.in_memory(self._cwd))
        self._record.replace(fresh)
        # Keep the current model and thinking level in the new file's history.
        state = self._agent.state
        fresh.append_model_change(state.model.provider, state.model.id)
        fresh.append_thinking_level_change(state.thinking_level)  # "off" too, as Pi
        if setup is not None:
            filled = setup(fresh)
            if inspect.isawaitable(filled):
                await filled
        await self._changed("new")
        return SwitchResult()

    async def switch_allowed(self, path: str) -> bool:
        """Whether extensions let this session give way to the file ``path`` (``session_before_switch``,
        reason ``resume``, as ``switch`` asks it), when a front end opens that file in a session of
        its own instead (a session of another folder runs in a session built for that folder)."""
        return not await self._gate.cancels("session_before_switch", reason="resume", target_session_file=str(path))

    async def switch(self, path: str) -> SwitchResult:
        """Open another session file and continue it."""
        from .results import SwitchResult

        if await self._gate.cancels("session_before_switch", reason="resume", target_session_file=str(path)):
            return SwitchResult(cancelled=True)
        if self._is_running():
            await self._abort()
        self._record.replace(SessionManager.open(path))
        await self._changed("switch")
        return SwitchResult()


def _require_saved(manager: SessionManager) -> None:
    """Pi 1.6 forks and clones only a session on disk (one in memory too): a new session's file is
    written with its first exchange, and a copy of it would have nothing to point back to.

    Raises:
        ValueError: The session's file is not written yet.
    """
    if manager.unsaved_file:
        raise ValueError("This session has not been saved yet. Send a message before cloning or forking it.")
