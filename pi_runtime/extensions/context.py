"""``ctx``: what a handler, command or tool can see and do in the current session.

Every handler gets an :class:`ExtensionContext`; a tool's ``execute`` gets an
:class:`ExtensionToolContext` (adds ``tools`` and ``execute_tool``); command and shortcut
handlers get an :class:`ExtensionCommandContext`, which adds the session-control methods
(new session, fork, tree navigation, switching, reload) that would deadlock if called from
inside a run. Properties are read when used, so a context stays valid across model and session
changes. Asynchronous calls return an :class:`~pi_runtime.extensions.calls.ExtensionCall`:
they run whether awaited or not; ``await`` them for the result.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .calls import ExtensionCall
from .ui import GuardedUI

if TYPE_CHECKING:
    from .registry import Extension
    from .runner import ExtensionRunner


class ExtensionContext:
    """The session as an extension sees it (``ctx``)."""

    def __init__(self, runner: ExtensionRunner, extension: Extension | None = None) -> None:
        self._runner = runner
        self._extension = extension

    if not TYPE_CHECKING:  # hidden from type checkers, which would accept any name otherwise

        def __getattr__(self, name: str) -> Any:
            # Only reached when normal lookup failed: suggest the Python spelling of Pi's name.
            from .pi_names import missing_attribute

            raise missing_attribute(self, name, "ctx")

    @property
    def _session(self) -> Any:
        return self._runner.require_session()

    def _call(self, work: Any, what: str) -> ExtensionCall[Any]:
        return ExtensionCall(work, what, self._runner.reporter_for(self._extension, what))

    @property
    def ui(self) -> GuardedUI:
        """User interaction: dialogs (``select``, ``confirm``, ``input``, ``editor``, ``custom``),
        ``notify``, ``set_status``, ``set_widget``, ``set_title``, ``set_editor_text``... (see :mod:`.ui`)."""
        return self._runner.ui_for(self._extension)

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

    @property
    def agent_dir(self) -> str:
        """The session's agent dir (where settings, auth.json, mcp.json and sessions live)."""
        if self._runner.agent_dir is not None:
            return self._runner.agent_dir
        from ..paths import agent_dir

        return str(agent_dir())

    def is_project_trusted(self) -> bool:
        """Whether project-local resources (``.pi/``) were allowed for this session."""
        return self._runner.project_trusted

    @property
    def session_manager(self) -> Any:
        """The session (entries, branch, tree, labels): read it; change the session through ``pi``.
        See ``docs/extensions.md`` for the entry classes."""
        return self._session.session_manager

    @property
    def model_registry(self) -> Any:
        """Every known model and its credentials, with ``complete``/``stream_simple`` to ask one
        (see :mod:`.model_calls`)."""
        from .model_calls import ExtensionModelRegistry

        registry = self._session.model_registry
        return None if registry is None else ExtensionModelRegistry(registry, self._call)

    @property
    def model(self) -> Any:
        """The active model."""
        return self._session.model

    @property
    def thinking_level(self) -> str:
        """The effective thinking level."""
        return str(self._session.thinking_level)

    @property
    def scoped_models(self) -> list[Any]:
        """``(model, thinking level or None)`` pairs from ``--models`` / ``enabledModels``."""
        return list(self._session.scoped_models)

    @property
    def signal(self) -> Any:
        """The current run's abort signal, or None when idle."""
        return self._runner.actions.signal

    def is_idle(self) -> bool:
        """False while a run, a retry or a queued continuation is in progress."""
        return not self._session.is_streaming

    def abort(self) -> ExtensionCall[None]:
        """Abort the current run (runs at once; await it to wait until idle)."""
        return self._call(self._session.abort(), "ctx.abort()")

    def has_pending_messages(self) -> bool:
        """Whether steering or follow-up messages are queued."""
        return self._runner.actions.has_pending_messages()

    def get_system_prompt(self) -> str:
        """The system prompt as it stands (inside ``before_agent_start``: as chained so far)."""
        return str(self._session.system_prompt)

    def get_context_usage(self) -> Any:
        """Context-window usage (``tokens``, ``contextWindow``, ``percent``), None when unknown."""
        try:
            return self._session.context_usage()
        except Exception:  # noqa: BLE001 - usage is best effort (compaction may be absent)
            return None

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (file form, camelCase keys)."""
        return self._runner.settings_dict()

    def compact(self, custom_instructions: str | None = None, *, on_complete: Callable[[Any], Any] | None = None,
                on_error: Callable[[Exception], Any] | None = None) -> ExtensionCall[Any]:
        """Compact the context (starts at once; await for the result, or pass callbacks).

        Raises (when awaited):
            CompactionError: Busy, nothing to compact, or the summary failed, unless ``on_error`` is given.
        """
        session = self._session

        async def run() -> Any:
            try:
                result = await session.compact(custom_instructions)
            except Exception as exc:
                if on_error is None:
                    raise
                _maybe_await(on_error(exc))
                return None
            if on_complete is not None:
                _maybe_await(on_complete(result))
            return result

        return self._call(run(), "ctx.compact(...)")

    def shutdown(self) -> None:
        """Ask pi to exit gracefully (``session_shutdown`` runs first).

        Interactive and RPC modes wait until the agent is idle; print mode ignores it (it exits
        when its prompts are done).
        """
        self._runner.request_shutdown()


def _maybe_await(value: Any) -> None:
    if inspect.iscoroutine(value):
        from ..background import spawn

        spawn(value, name="extension-callback")


class ExtensionToolContext(ExtensionContext):
    """``ctx`` for a tool's ``execute``: adds calling other tools."""

    def __init__(self, runner: ExtensionRunner, extension: Extension | None, call_id: str) -> None:
        super().__init__(runner, extension)
        self.tool_call_id = call_id
        """The id of the call being executed."""

    @property
    def tools(self) -> list[str]:
        """Names of the tools :meth:`execute_tool` can run (the active tools)."""
        return self._runner.nested.available()

    def execute_tool(self, name: str, args: dict[str, Any] | None = None, *, signal: Any = None,
                     on_update: Callable[[Any], None] | None = None) -> ExtensionCall[Any]:
        """Run another tool as part of this call; await it for a ``NestedToolResult``.

        The call goes through validation and the ``tool_call`` / ``tool_result`` handlers, and
        never raises for the tool's failure (``result.is_error`` says so).
        """
        work = self._runner.nested.execute(self.tool_call_id, name, args, signal=signal or self.signal,
                                           on_update=on_update)
        return self._call(work, f"ctx.execute_tool({name!r})")


class ExtensionCommandContext(ExtensionContext):
    """``ctx`` for command and shortcut handlers: adds session control."""

    def wait_for_idle(self) -> ExtensionCall[None]:
        """Wait until the agent has settled (retries and queued work included)."""
        return self._call(self._session.wait_for_idle(), "ctx.wait_for_idle()")

    def _replace(self, work: Any, with_session: Callable[[Any], Any] | None, what: str) -> ExtensionCall[Any]:
        async def run() -> Any:
            result = await work
            if with_session is not None and not getattr(result, "cancelled", False):
                # The same extension instance serves the new session, so a fresh ctx is valid.
                value = with_session(ExtensionCommandContext(self._runner, self._extension))
                if inspect.isawaitable(value):
                    await value
            return result

        return self._call(run(), what)

    def new_session(self, parent_session: str | None = None, *, setup: Callable[[Any], Any] | None = None,
                    with_session: Callable[[Any], Any] | None = None) -> ExtensionCall[Any]:
        """Start a new session; ``result.cancelled`` when an extension vetoed it.

        Args:
            parent_session: Session file recorded as the new session's parent.
            setup: ``setup(session_manager)`` (sync or async) fills the new session before it is used,
                e.g. ``sm.append_message(...)``.
            with_session: ``with_session(ctx)`` runs afterwards with a context of the new session.
        """
        return self._replace(self._session.new_session(parent_session, setup=setup), with_session,
                             "ctx.new_session(...)")

    def fork(self, entry_id: str, *, position: str = "before",
             with_session: Callable[[Any], Any] | None = None) -> ExtensionCall[Any]:
        """Fork before the user message ``entry_id`` (``position="at"`` clones the branch)."""
        work = self._session.clone() if position == "at" else self._session.fork(entry_id)
        return self._replace(work, with_session, "ctx.fork(...)")

    def navigate_tree(self, target_id: str, *, summarize: bool | str = False,
                      custom_instructions: str | None = None) -> ExtensionCall[Any]:
        """Move the session leaf to ``target_id``; ``summarize`` (or ``custom_instructions``) summarises
        the branch left behind."""
        how: bool | str = custom_instructions if (summarize and custom_instructions) else summarize
        return self._call(self._session.navigate_tree(target_id, summarize=how), "ctx.navigate_tree(...)")

    def switch_session(self, session_path: str, *,
                       with_session: Callable[[Any], Any] | None = None) -> ExtensionCall[Any]:
        """Open another session file."""
        return self._replace(self._session.switch_session(session_path), with_session, "ctx.switch_session(...)")

    def reload(self) -> ExtensionCall[None]:
        """Reload extensions (re-imported), skills, prompts and context files, as ``/reload`` does.

        ``session_shutdown`` (reason ``reload``) runs for the old extension instances, then
        ``session_start`` (reason ``reload``) for the new ones. Code after ``await ctx.reload()``
        still runs in the old module: treat it as the handler's last line.
        """
        return self._call(self._runner.reload_for_extension(), "ctx.reload()")

    def get_system_prompt_options(self) -> dict[str, Any]:
        """The inputs the system prompt is built from (a copy): ``sections`` (name -> text),
        ``selectedTools``, ``skills``, ``contextFiles``, ``cwd``."""
        from .prompt_options import system_prompt_options

        sections = getattr(self._session, "system_prompt_sections", None)
        options = system_prompt_options(self._session, self._runner.cwd, sections, self._runner.tools.active_names())
        options["sections"] = dict(options["sections"])
        return options
