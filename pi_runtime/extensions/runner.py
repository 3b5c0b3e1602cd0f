"""``ExtensionRunner``: loads extensions and wires the parts that serve them to one session.

The runner owns the lifecycle (load, bind, start, reload, shutdown) and composes parts that
each own their state and talk through narrow ports:

- :class:`~.registry.ExtensionRegistry` — what the loaded extensions registered;
- :class:`~.reporter.ErrorReporter` — the one ``extension_error`` channel;
- :class:`~.dispatch.Dispatcher` — calls handlers with containment, time limits and abort;
- :class:`~.toolset.ToolSet` — activatable and active tools;
- :class:`~.agent_hooks.AgentHooks` — ``tool_call``/``tool_result``/``context``/provider hooks;
- :class:`~.kernel_hooks.KernelHooks` — ``input``, ``before_agent_start``, gates, ``user_bash``;
- :class:`~.forwarder.SessionEvents` — agent and kernel events as extension events;
- :class:`~.mcp_servers.McpServerRegistrations` — MCP servers extensions register;
- :class:`~.commands.Commands`, :class:`~.provider.ProviderRegistrations`,
  :class:`~.nested.NestedCalls`, :class:`~.sending.ExtensionMessages`, the UI host and the bus.

It is created (and the extensions loaded) before the session's tools are chosen, so extension
tools can be selected with ``--tools`` and extension models with ``--model``; then
:meth:`ExtensionRunner.bind` attaches it through the session's ``actions`` port and its
``ExtensionGate``. Failures before the session is bound wait until :meth:`start`.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable
from typing import Any

from .agent_hooks import AgentHooks
from .bus import EventBus
from .commands import Commands
from .context import ExtensionCommandContext, ExtensionContext, ExtensionToolContext
from .dispatch import DEFAULT_TIMEOUT, SHUTDOWN_TIMEOUT, Dispatcher
from .events import SessionShutdownEvent, SessionStartEvent
from .forwarder import SessionEvents
from .kernel_hooks import INPUT_SOURCE, KernelHooks
from .loader import ExtensionSource, LoadFailure, forget_modules
from .loading import Discovery, ExtensionLoading
from .mcp_servers import McpServerRegistrations
from .nested import NestedCalls
from .provider import ProviderRegistrations
from .registry import Command, Extension, ExtensionRegistry, Flag, Shortcut
from .reporter import ErrorReporter
from .sending import ExtensionMessages, send_user_message
from .shutdown import ShutdownRequest
from .toolset import ToolSet
from .ui import GuardedUI, HeadlessUI, UIHost

log = logging.getLogger("pi.extensions")

__all__ = ["INPUT_SOURCE", "Command", "Extension", "ExtensionRunner", "Flag", "Shortcut"]


class ExtensionRunner:
    """Loaded extensions for one session.

    Args:
        cwd: Working directory.
        settings: The ``SettingsManager`` (``pi.get_settings``, bundled extensions' config).
        model_registry: Where ``register_provider`` puts models.
        ui: The front end's :class:`~pi_runtime.extensions.ui.ExtensionUI`; headless when None.
        mode: ``tui``, ``rpc``, ``json``, ``print`` or ``sdk``.
        project_trusted: Whether project resources were allowed.
        handler_timeout: Seconds an async handler may run (dialog time not counted); None: no limit.
    """

    def __init__(
        self,
        *,
        cwd: str,
        settings: Any = None,
        model_registry: Any = None,
        ui: Any = None,
        mode: str = "sdk",
        project_trusted: bool = True,
        handler_timeout: float | None = DEFAULT_TIMEOUT,
        agent_dir: str | None = None,
    ) -> None:
        self.cwd = cwd
        self.agent_dir = agent_dir
        """The session's agent dir (None: the process default, ``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``)."""
        self.settings = settings
        self.mode = mode
        self.project_trusted = project_trusted
        self.registry = ExtensionRegistry()
        self.reporter = ErrorReporter()
        self._ui_host = UIHost(ui, report=self.reporter.report_soon)
        self.ui = GuardedUI(self._ui_host)
        """The shared ``ctx.ui`` (front ends install theirs with :meth:`set_ui`)."""
        self.dispatcher = Dispatcher(self.registry, self.reporter, self.context,
                                     waiting_on_user=lambda: self._ui_host.open_dialogs > 0, timeout=handler_timeout)
        self.bus = EventBus(self.reporter)
        self.tools = ToolSet()
        self.messages = ExtensionMessages()
        self.providers = ProviderRegistrations(model_registry)
        self.loading = ExtensionLoading(self.registry, self.reporter, self.providers, self._make_api)
        self.mcp_servers = McpServerRegistrations(self.registry, self.reporter, self.dispatcher, self.add_extension)
        self.loading.on_failed = lambda path: self.mcp_servers.forget([path])
        self.commands_part = Commands(self.registry, self.dispatcher, self.reporter, self.command_context,
                                      resources=self._resources)
        self.agent_hooks = AgentHooks(self.registry, self.dispatcher, self.reporter, self.ensure_started,
                                      nested_call_id=lambda call_id: self.nested.parent_of(call_id),
                                      nested_record=lambda call_id: self.nested.take_record(call_id))
        self.nested = NestedCalls(self.agent_hooks, self.tools, self.dispatcher, self.registry)
        self.session_events = SessionEvents(self.registry, self.dispatcher, self.ensure_started,
                                            parent_of=self.nested.parent_of,
                                            before_switch=self._ui_host.session_switching)
        self.kernel_hooks = KernelHooks(
            registry=self.registry, dispatcher=self.dispatcher, reporter=self.reporter, commands=self.commands_part,
            tools=self.tools, messages=self.messages, ensure_started=self.ensure_started,
            session=self.require_session, actions=lambda: self.actions, on_switch=self.session_events.switching,
        )
        self._session: Any = None
        self._actions: Any = None
        self._available: dict[str, Any] = {}
        self._started = False
        self._prepared = False
        self._shut_down = False
        self._unsubscribe: Callable[[], None] | None = None
        self.shutdown_request = ShutdownRequest()
        self.reload_handler: Callable[[], Any] | None = None

    # ------------------------------------------------------------------ views for hosts and tests

    @property
    def extensions(self) -> list[Extension]:
        """The loaded extensions, in load order."""
        return self.registry.extensions

    @property
    def failures(self) -> list[LoadFailure]:
        """Extensions that could not be loaded."""
        return self.reporter.failures

    @property
    def errors(self) -> list[tuple[str, str, str]]:
        """Every reported (extension path, event, error), oldest first."""
        return self.reporter.errors

    @property
    def all_tools(self) -> dict[str, Any]:
        """Every tool that can be activated (built-in and extension), by name."""
        return self.tools.all

    @property
    def model_registry(self) -> Any:
        return self.providers.registry

    @property
    def session(self) -> Any:
        """The bound ``AgentSession`` (None before :meth:`bind`)."""
        return self._session

    @property
    def actions(self) -> Any:
        """The session's actions port (raises while extensions load)."""
        self.require_session()
        return self._actions

    def require_session(self) -> Any:
        """The bound session.

        Raises:
            RuntimeError: Called while extensions are still loading.
        """
        if self._session is None:
            raise RuntimeError(
                "not available while the extension loads; call it from a handler (e.g. session_start) or a command"
            )
        return self._session

    # ------------------------------------------------------------------ loading

    @classmethod
    def discover(
        cls,
        *,
        cwd: str,
        agent_dir: str,
        paths: Iterable[str] = (),
        no_extensions: bool = False,
        **kwargs: Any,
    ) -> ExtensionRunner:
        """Create a runner and load every extension found for ``cwd`` (see :mod:`.loader`)."""
        runner = cls(cwd=cwd, agent_dir=agent_dir, **kwargs)
        runner.loading.discover(Discovery(cwd, agent_dir, runner.settings, runner.project_trusted, list(paths),
                                          no_extensions))
        return runner

    def load(self, sources: Iterable[ExtensionSource | str]) -> None:
        """Import each source and run its ``extension(pi)``; failures are recorded, never raised."""
        self.loading.load(sources)

    def add_extension(self, factory: Callable[[Any], Any], path: str, scope: str = "sdk") -> Extension | None:
        """Run one factory (a module's ``extension`` or an inline function). Returns None when it failed."""
        return self.loading.add(factory, path, scope)

    # ------------------------------------------------------------------ binding

    def bind(self, session: Any, available_tools: dict[str, Any] | None = None) -> None:
        """Attach to a session: events, agent hooks, the tool registry.

        Args:
            session: The ``AgentSession``.
            available_tools: Every tool that may be activated (built-ins included), by name.
        """
        self._session = session
        self._actions = session.actions
        session.extension_runner = self
        if self.providers.registry is None:
            self.providers.registry = session.model_registry
        self._available = dict(available_tools or {t.name: t for t in self._actions.active_tools()})
        self.tools.attach(self._actions, self._available, self.registry.tools())
        self.session_events.attach(session)
        self._unsubscribe = session.subscribe(self.session_events.on_session_event)
        self.agent_hooks.install(self._actions)
        self.nested.deliver = self._actions.emit_agent_event
        self.reporter.attach(self._actions.emit)

    def set_ui(self, ui: Any, mode: str | None = None) -> None:
        """Install a front end's UI (and name the mode). Extensions see it at once."""
        self._ui_host.inner = ui or HeadlessUI()
        if mode is not None:
            self.mode = mode

    def needs_preparing(self) -> bool:
        """Whether some extension has start-up work left (an async factory, ``refresh_models``)."""
        return any(ext.pending_init is not None for ext in self.extensions) or bool(self.providers.refreshable())

    async def prepare(self) -> None:
        """Finish async factories and refresh dynamic models before the session exists (the CLI).

        Handler-free: nothing is emitted; failures are kept for :meth:`start`.
        """
        await self._finish_factories()
        await self.providers.refresh(on_error=self.reporter.report)
        self._prepared = True

    async def ensure_started(self) -> None:
        """:meth:`start`, unless it already ran."""
        if not self._started:
            await self.start()

    async def start(self, reason: str = "startup") -> None:
        """Finish async factories, refresh dynamic models, report load failures, emit ``session_start`` (once).

        Called by the host at start-up; otherwise it runs before the first event.
        """
        if self._started:
            return
        self._started = True
        await self._finish_factories()
        if not self._prepared:
            await self.providers.refresh(on_error=self.reporter.report)
        self.mcp_servers.settle()
        if self._session is not None:
            await self.reporter.flush()
        await self.dispatcher.emit("session_start", SessionStartEvent(reason=reason), abortable=False)
        if self._session is not None:
            from .resource_discovery import discover_resources

            await discover_resources(self, "reload" if reason == "reload" else "startup")
        await self.mcp_servers.started()

    async def _finish_factories(self) -> None:
        for ext in self.extensions:
            if ext.pending_init is None:
                continue
            pending, ext.pending_init = ext.pending_init, None
            outcome = await self.dispatcher.run(ext, pending, event="load", abortable=False)
            if outcome.failed:
                self.providers.unregister_owner(ext.path)
                self.mcp_servers.forget([ext.path])
            self.registry.refresh_handled()
            if self.tools.attached:
                for tool in ext.tools.values():
                    self.tools.add(tool)

    async def shutdown(self, reason: str = "quit") -> None:
        """Emit ``session_shutdown`` (once; each handler gets a few seconds) and detach from the session."""
        if self._shut_down or not self._started:
            self._shut_down = True
            return
        self._shut_down = True
        await self.dispatcher.emit("session_shutdown", SessionShutdownEvent(reason=reason), abortable=False,
                                   timeout=SHUTDOWN_TIMEOUT)
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.agent_hooks.uninstall()
        self.nested.deliver = None

    # ------------------------------------------------------------------ reload

    async def reload(self) -> None:
        """Re-import every extension (``/reload``): ``session_shutdown`` then ``session_start`` (reason
        ``reload``). Tools, commands, providers and handlers of the old instances are gone after it;
        resources (skills, templates, context files) are reloaded too.

        Raises:
            RuntimeError: The agent is running (reload waits for idle in Pi; do it from a command).
        """
        session = self.require_session()
        if session.is_streaming:
            raise RuntimeError("cannot reload while the agent is running; wait for idle (ctx.wait_for_idle())")
        if self._started and not self._shut_down:
            await self.dispatcher.emit("session_shutdown", SessionShutdownEvent(reason="reload"), abortable=False,
                                       timeout=SHUTDOWN_TIMEOUT)
        self._ui_host.session_switching()  # as on a switch (Pi resets the extension UI on reload too)
        old = list(self.extensions)
        for ext in old:
            self.providers.unregister_owner(ext.path)
            for tool in ext.tools.values():
                self.tools.remove(tool, self._available.get(tool.name))
        forget_modules(ext.path for ext in old)
        self.registry.clear()
        self.mcp_servers.forget()  # registrations are not saved: the extensions register again as they load
        self.bus.clear()
        self.reporter.failures.clear()
        self.loading.load_again()
        for tool in self.registry.tools():
            self.tools.add(tool)
        resources = getattr(session, "resources", None)
        if resources is not None and callable(getattr(resources, "reload", None)):
            resources.reload()
        self._actions.refresh_system_prompt()
        self._started, self._shut_down, self._prepared = False, False, False
        await self.start(reason="reload")

    async def reload_for_extension(self) -> None:
        """``ctx.reload()``: what ``/reload`` does in this front end (the host's reload), else :meth:`reload`."""
        if self.reload_handler is None:
            await self.reload()
            return
        result = self.reload_handler()
        if inspect.isawaitable(result):
            await result

    # ------------------------------------------------------------------ contexts

    def _make_api(self, ext: Extension) -> Any:
        from .api import ExtensionAPI

        return ExtensionAPI(self, ext)

    def context(self, ext: Extension | None) -> ExtensionContext:
        """A ``ctx`` for ``ext``'s handlers."""
        return ExtensionContext(self, ext)

    def command_context(self, ext: Extension | None) -> ExtensionCommandContext:
        """A ``ctx`` for ``ext``'s command and shortcut handlers."""
        return ExtensionCommandContext(self, ext)

    def tool_context(self, ext: Extension | None, call_id: str) -> ExtensionToolContext:
        """A ``ctx`` for ``ext``'s tool executing call ``call_id``."""
        return ExtensionToolContext(self, ext, call_id)

    def ui_for(self, ext: Extension | None) -> GuardedUI:
        """``ctx.ui`` of ``ext`` (failures are reported under its path)."""
        return GuardedUI(self._ui_host, ext.path if ext is not None else "(ui)")

    def reporter_for(self, ext: Extension | None, what: str) -> Callable[[str], None]:
        """How an un-awaited call of ``ext`` reports a failure."""
        path = ext.path if ext is not None else "(extension)"
        return lambda error: self.reporter.report_soon(path, what, error)

    # ------------------------------------------------------------------ the kernel's questions (ExtensionHooks)

    async def handle_input(self, text: str, images: list[Any] | None = None,
                           streaming_behavior: str | None = None) -> str | None:
        return await self.kernel_hooks.handle_input(text, images, streaming_behavior)

    def expand_templates(self) -> bool:
        return self.kernel_hooks.expand_templates()

    async def before_agent_start(self, prompts: list[Any]) -> list[Any]:
        return await self.kernel_hooks.before_agent_start(prompts)

    async def emit_cancellable(self, name: str, **fields: Any) -> bool:
        return await self.kernel_hooks.emit_cancellable(name, **fields)

    async def emit_gate(self, name: str, supplies: str | None = None, **fields: Any) -> Any:
        return await self.kernel_hooks.emit_gate(name, supplies, **fields)

    async def emit_named(self, name: str, **fields: Any) -> None:
        await self.kernel_hooks.emit_named(name, **fields)

    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> Any:
        return await self.kernel_hooks.user_bash(command, exclude_from_context, cwd)

    def abort(self) -> None:
        """The session is aborting: cancel in-flight handlers of the run's events."""
        self.dispatcher.abort(run_in_progress=self._session is not None and self._session.is_streaming)

    # ------------------------------------------------------------------ for hosts and the API

    def commands(self) -> dict[str, Command]:
        """Invocable name -> extension command."""
        return self.registry.commands()

    def get_commands(self) -> list[dict[str, Any]]:
        """Pi's ``get_commands`` list: extension commands, prompt templates, skills."""
        return self.commands_part.list_commands()

    async def complete_command(self, name: str, prefix: str) -> list[Any] | None:
        """Argument completions for ``/name prefix`` (None when there are none)."""
        return await self.commands_part.complete(name, prefix)

    async def run_command(self, name: str, args: str = "") -> bool:
        """Run ``/name args``. Returns False when no such command exists."""
        return await self.commands_part.run(name, args)

    def shortcuts(self) -> dict[str, Shortcut]:
        """Key -> shortcut for the app to bind (a later extension's binding for a key wins)."""
        return self.registry.shortcuts()

    async def run_shortcut(self, key: str) -> bool:
        """Run the handler bound to ``key``. Returns False when none is."""
        return await self.commands_part.run_shortcut(key)

    def flags(self) -> dict[str, Flag]:
        """Flag name -> definition (``description``, ``type``, ``default``, ``value``)."""
        return self.registry.flags()

    def set_flag_values(self, values: dict[str, Any]) -> None:
        """Values for registered flags, from the command line."""
        for ext in self.extensions:
            for name, flag in ext.flags.items():
                if name in values:
                    flag.value, flag.is_set = values[name], True

    def tool_renderer(self, tool_name: str) -> Any:
        """How calls to ``tool_name`` are drawn: ``{"render_call", "render_result", "render_shell"}``
        from tool renderer resolvers, else the tool's own (None fields: the app's default)."""
        tool = self.tools.all.get(tool_name)
        own = None
        if tool is not None and (getattr(tool, "render_call", None) or getattr(tool, "render_result", None)):
            own = {"render_call": getattr(tool, "render_call", None), "render_result": getattr(tool, "render_result", None),
                   "render_shell": getattr(tool, "render_shell", None)}
        return self.registry.tool_renderer(tool_name, own)

    def message_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        """The renderer registered for custom messages of ``custom_type``."""
        return self.registry.message_renderer(custom_type)

    def entry_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        """The renderer registered for custom entries of ``custom_type``."""
        return self.registry.entry_renderer(custom_type)

    def markdown_transformers(self, message_type: str) -> list[Callable[..., Any]]:
        """Markdown transformers for ``user``, ``assistant``, ``assistant-thinking``, ``custom``... in load order."""
        return self.registry.markdown_transformers(message_type)

    def registered_tools(self) -> list[Any]:
        """Tools registered by extensions, in load order (a later registration of a name wins)."""
        return self.registry.tools()

    def prompt_guidelines(self, active: list[str]) -> list[str]:
        return self.tools.prompt_guidelines(active)


    def active_tool_names(self) -> list[str]:
        return self.tools.active_names()

    def set_active_tools(self, names: list[str]) -> list[str]:
        return self.tools.set_active(names)

    def settings_dict(self) -> dict[str, Any]:
        """The effective settings in file form (an empty dict without settings)."""
        data = getattr(self.settings, "settings", None)
        return data.model_dump(by_alias=True) if data is not None else {}

    def _resources(self) -> Any:
        resources = getattr(self._session, "resources", None)
        return getattr(resources, "resources", resources)

    async def refresh_models(self, provider: str | None = None) -> list[Any]:
        """Run ``refresh_models`` callbacks and publish what they return."""
        return await self.providers.refresh(provider, on_error=self.reporter.report)

    async def send_user_message(self, ext: Extension, content: Any, deliver_as: str | None,
                                expand: bool) -> str | None:
        """See ``ExtensionAPI.send_user_message``."""
        return await send_user_message(self.require_session(), self.reporter, ext.path, content, deliver_as, expand)

    @property
    def on_shutdown_request(self) -> Callable[[], Any] | None:
        """Installed by the host: ends pi gracefully (``ctx.shutdown()``); None in print mode (a no-op)."""
        return self.shutdown_request.callback

    @on_shutdown_request.setter
    def on_shutdown_request(self, callback: Callable[[], Any] | None) -> None:
        self.shutdown_request.callback = callback

    def request_shutdown(self) -> None:
        """``ctx.shutdown()``: the host ends pi once the agent is idle (print mode: nothing)."""
        self.shutdown_request.request(self._session)


