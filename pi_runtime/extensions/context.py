"""``ctx``: what a handler, command or tool can see and do in the current session.

Every handler gets an :class:`ExtensionContext`; command handlers get an
:class:`ExtensionCommandContext`, which adds the session-control methods (new session,
fork, tree navigation, switching) that would deadlock if called from inside a run.
Properties are read when used, so a context stays valid across model and session changes.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import Extension, ExtensionRunner


class ExtensionContext:
    """The session as an extension sees it (``ctx``)."""

    def __init__(self, runner: ExtensionRunner, extension: Extension | None = None) -> None:
        self._runner = runner
        self._extension = extension

    @property
    def _session(self) -> Any:
        return self._runner.require_session()

    @property
    def ui(self) -> Any:
        """User interaction (``notify``, ``select``, ``confirm``, ``input``, ``editor``, ``set_status``, ``set_widget``)."""
        return self._runner.ui

    @property
    def has_ui(self) -> bool:
        """True when dialogs reach a person (app, RPC); False in print/JSON mode."""
        return self._runner.ui.has_ui

    @property
    def mode(self) -> str:
        """``tui``, ``rpc``, ``json``, ``print`` or ``sdk``."""
        return self._runner.mode

    @property
    def cwd(self) -> str:
        """Working directory."""
        return self._runner.cwd

    @property
    def extension_path(self) -> str | None:
        """The path of the extension this context belongs to."""
        return self._extension.path if self._extension else None

    def is_project_trusted(self) -> bool:
        """Whether project-local resources (``.pi/``) were allowed for this session."""
        return self._runner.project_trusted

    @property
    def session_manager(self) -> Any:
        """The session (entries, branch, tree, labels). Treat it as read-only; use ``pi.*`` to change it."""
        return self._session.session_manager

    @property
    def model_registry(self) -> Any:
        """Every known model and its credentials."""
        return self._session.model_registry

    @property
    def model(self) -> Any:
        """The active model."""
        return self._session.model

    @property
    def thinking_level(self) -> str:
        """The effective thinking level."""
        return self._session.thinking_level

    @property
    def scoped_models(self) -> list[Any]:
        """``(model, thinking level or None)`` pairs from ``--models`` / ``enabledModels``."""
        return list(self._session.scoped_models)

    @property
    def signal(self) -> Any:
        """The current run's abort signal, or None when idle."""
        session = self._session
        return session.agent.signal if session.is_streaming else None

    def is_idle(self) -> bool:
        """False while a run, a retry or a queued continuation is in progress."""
        return not self._session.is_streaming

    def abort(self) -> asyncio.Future[Any]:
        """Abort the current run (returns at once; await the result to wait for idle)."""
        return asyncio.ensure_future(self._session.abort())

    def has_pending_messages(self) -> bool:
        """Whether steering or follow-up messages are queued."""
        agent = self._session.agent
        return bool(agent.steering_queue or agent.follow_up_queue)

    def get_system_prompt(self) -> str:
        """The system prompt as it stands (inside ``before_agent_start``: as chained so far)."""
        return self._session.system_prompt

    def get_context_usage(self) -> Any:
        """Context-window usage (None when unknown)."""
        try:
            return self._session.context_usage()
        except Exception:  # noqa: BLE001 - usage is best effort (compaction may be absent)
            return None

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (file form, camelCase keys)."""
        return self._runner.settings_dict()


class ExtensionCommandContext(ExtensionContext):
    """``ctx`` for command handlers: adds session control."""

    async def wait_for_idle(self) -> None:
        """Wait until the agent has settled (retries and queued work included)."""
        await self._session.wait_for_idle()

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        """Start a new session. Returns ``{"cancelled": bool}``."""
        return await self._session.new_session(parent_session)

    async def fork(self, entry_id: str, *, position: str = "before") -> dict[str, Any]:
        """Fork before the user message ``entry_id`` (``position="at"`` clones the branch)."""
        if position == "at":
            return await self._session.clone()
        return await self._session.fork(entry_id)

    async def navigate_tree(self, target_id: str, *, summarize: bool | str = False) -> dict[str, Any]:
        """Move the session leaf to ``target_id`` (see ``AgentSession.navigate_tree``)."""
        return await self._session.navigate_tree(target_id, summarize=summarize)

    async def switch_session(self, session_path: str) -> dict[str, Any]:
        """Open another session file."""
        return await self._session.switch_session(session_path)

    async def compact(self, instructions: str | None = None) -> Any:
        """Compact the context now."""
        return await self._session.compact(instructions)
