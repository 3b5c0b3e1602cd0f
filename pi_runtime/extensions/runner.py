"""``ExtensionRunner``: loads extensions, owns what they registered, dispatches events.

One runner serves one ``AgentSession``. It is created (and the extensions loaded) before
the session's tools are chosen, so extension tools can be selected with ``--tools``; then
:meth:`ExtensionRunner.bind` attaches it: it subscribes to the session's events, installs
the agent's ``before_tool_call`` / ``after_tool_call`` / ``transform_context`` hooks, and the
kernel calls it at the points only it knows (input, ``before_agent_start``, the
``session_before_*`` gates). The kernel-facing hooks live in :mod:`.hooks`.

Errors go to one channel. A failure to load, or an exception in any handler, command or
tool hook, is logged and emitted as the kernel event ``extension_error {extensionPath,
event, error}``; print mode prints it to stderr, JSON/RPC write it, the app shows a
notification. Failures before the session is bound wait until :meth:`start`.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..background import spawn
from .context import ExtensionCommandContext, ExtensionContext
from .events import Event
from .hooks import KernelHooksMixin
from .loader import ExtensionSource, LoadFailure, discover_extensions, import_extension, summarize_error
from .registry import Command, EventBus, RegistryMixin, Shortcut
from .ui import GuardedUI, HeadlessUI

log = logging.getLogger("pi.extensions")

INPUT_SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar("pi_input_source", default="interactive")
"""Where the text reaching ``input`` came from: ``interactive``, ``rpc`` or ``extension``."""


@dataclass
class Extension:
    """One loaded extension and everything it registered."""

    path: str
    scope: str
    runner: ExtensionRunner
    handlers: dict[str, list[Callable[..., Any]]] = field(default_factory=dict)
    tools: dict[str, Any] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    shortcuts: dict[str, Shortcut] = field(default_factory=dict)
    flags: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending_init: Any = None
    """An async factory's coroutine, awaited by :meth:`ExtensionRunner.start`."""


class ExtensionRunner(KernelHooksMixin, RegistryMixin):
    """Loaded extensions for one session.

    Args:
        cwd: Working directory.
        settings: The ``SettingsManager`` (``pi.get_settings``, bundled extensions' config).
        model_registry: Where ``register_provider`` puts models.
        ui: The front end's :class:`~pi_runtime.extensions.ui.ExtensionUI`; headless when None.
        mode: ``tui``, ``rpc``, ``json``, ``print`` or ``sdk``.
        project_trusted: Whether project resources were allowed.
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
    ) -> None:
        self.cwd = cwd
        self.settings = settings
        self.model_registry = model_registry
        self.mode = mode
        self.project_trusted = project_trusted
        self.ui = GuardedUI(ui or HeadlessUI(), on_error=self._ui_failed)
        self.extensions: list[Extension] = []
        self.failures: list[LoadFailure] = []
        """Extensions that could not be loaded."""
        self.errors: list[tuple[str, str, str]] = []
        """Every reported (extension path, event, error), oldest first."""
        self.all_tools: dict[str, Any] = {}
        """Every tool that can be activated (built-in and extension), by name."""
        self.bus = EventBus(self)
        self._session: Any = None
        self._pending_errors: list[tuple[str, str, str]] = []
        self._started = False
        self._shut_down = False
        self._handled_names: set[str] = set()
        self._next_turn: list[Any] = []
        self._previous_session_file: str | None = None
        self._unsubscribe: Callable[[], None] | None = None

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
        runner = cls(cwd=cwd, **kwargs)
        sources, failures = discover_extensions(
            cwd, agent_dir, settings=kwargs.get("settings"), project_trusted=runner.project_trusted,
            paths=paths, no_extensions=no_extensions,
        )
        for failure in failures:
            runner._record_failure(failure)
        runner.load(sources)
        return runner

    def load(self, sources: Iterable[ExtensionSource | str]) -> None:
        """Import each source and run its ``extension(pi)``; failures are recorded, never raised."""
        from .api import ExtensionAPI

        for source in sources:
            if isinstance(source, str):
                source = ExtensionSource(source, "sdk")
            try:
                module = import_extension(source.path)
                factory = getattr(module, "extension", None)
                if not callable(factory):
                    raise TypeError("the module defines no 'extension(pi)' function")
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
                    raise
                self._record_failure(LoadFailure(source.path, summarize_error(exc, source.path)))
                continue
            self.add_extension(factory, source.path, source.scope, api_class=ExtensionAPI)

    def add_extension(self, factory: Callable[[Any], Any], path: str, scope: str = "sdk", *, api_class: Any = None) -> Extension | None:
        """Run one factory (a module's ``extension`` or an inline function). Returns None when it failed."""
        if api_class is None:
            from .api import ExtensionAPI as api_class
        ext = Extension(path, scope, self)
        try:
            result = factory(api_class(self, ext))
        except Exception as exc:  # noqa: BLE001 - a broken extension is skipped, pi starts anyway
            self._record_failure(LoadFailure(path, summarize_error(exc, path)))
            return None
        if inspect.isawaitable(result):
            ext.pending_init = result
        self.extensions.append(ext)
        self._handled_names.update(n for n, hs in ext.handlers.items() if hs)
        return ext

    def _record_failure(self, failure: LoadFailure) -> None:
        log.warning("extension %s failed to load: %s", failure.path, failure.error)
        self.failures.append(failure)
        self._pending_errors.append((failure.path, "load", failure.error))

    # ------------------------------------------------------------------ binding

    def bind(self, session: Any, available_tools: dict[str, Any] | None = None) -> None:
        """Attach to a session: events, agent hooks, the tool registry.

        Args:
            session: The ``AgentSession``.
            available_tools: Every tool that may be activated (built-ins included), by name.
        """
        self._session = session
        session.extension_runner = self
        if self.model_registry is None:
            self.model_registry = session.model_registry
        self.all_tools = dict(available_tools or {t.name: t for t in session.agent.state.tools})
        for ext in self.extensions:
            self.all_tools.update(ext.tools)
        self._previous_session_file = session.session_file
        self._unsubscribe = session.subscribe(self._on_session_event)
        self.install_agent_hooks(session.agent)

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

    @property
    def session(self) -> Any:
        """The bound ``AgentSession`` (None before :meth:`bind`)."""
        return self._session

    def set_ui(self, ui: Any, mode: str | None = None) -> None:
        """Install a front end's UI (and name the mode). Extensions see it at once."""
        self.ui.inner = ui or HeadlessUI()
        if mode is not None:
            self.mode = mode

    async def start(self) -> None:
        """Finish async factories, report load failures, emit ``session_start`` (once).

        Called by the host at start-up; otherwise it runs before the first event.
        """
        if self._started:
            return
        self._started = True
        for ext in self.extensions:
            if ext.pending_init is not None:
                pending, ext.pending_init = ext.pending_init, None
                try:
                    await pending
                except Exception as exc:  # noqa: BLE001
                    await self.report_error(ext.path, "load", summarize_error(exc, ext.path))
                self._handled_names.update(n for n, hs in ext.handlers.items() if hs)
                if self._session is not None:
                    for tool in ext.tools.values():
                        self.add_tool(tool)
        pending, self._pending_errors = self._pending_errors, []
        for path, event, error in pending:
            await self._emit_error(path, event, error)
        await self.emit("session_start", Event("session_start", reason="startup"))

    async def shutdown(self, reason: str = "quit") -> None:
        """Emit ``session_shutdown`` (once) and detach from the session."""
        if self._shut_down or not self._started:
            self._shut_down = True
            return
        self._shut_down = True
        await self.emit("session_shutdown", Event("session_shutdown", reason=reason))
        if self._unsubscribe is not None:
            self._unsubscribe()

    # ------------------------------------------------------------------ dispatch

    def has_handlers(self, name: str) -> bool:
        """Whether any extension handles ``name`` (cheap; checked on hot events)."""
        return name in self._handled_names

    def handler_added(self, name: str) -> None:
        self._handled_names.add(name)

    def context(self, ext: Extension | None) -> ExtensionContext:
        """A ``ctx`` for ``ext``'s handlers and tools."""
        return ExtensionContext(self, ext)

    def command_context(self, ext: Extension | None) -> ExtensionCommandContext:
        """A ``ctx`` for ``ext``'s command handlers."""
        return ExtensionCommandContext(self, ext)

    async def call(self, ext: Extension, handler: Callable[..., Any], *args: Any) -> Any:
        """Call a handler (sync or async) with ``args`` + ``ctx``; exceptions propagate."""
        from .tools import _positional_count

        wanted = _positional_count(handler)
        full = (*args, self.context(ext))
        result = handler(*full[: max(1, min(wanted, len(full)))])
        if inspect.isawaitable(result):
            result = await result
        return result

    def handlers(self, name: str) -> list[tuple[Extension, Callable[..., Any]]]:
        """Handlers for ``name`` in load order, then registration order (a snapshot)."""
        return [(ext, h) for ext in self.extensions for h in list(ext.handlers.get(name, ()))]

    async def emit(self, name: str, event: Event) -> list[Any]:
        """Run every handler of ``name``; an exception is reported and the next handler runs.

        Returns:
            The non-None results, in order.
        """
        if not self.has_handlers(name):
            return []
        results = []
        for ext, handler in self.handlers(name):
            try:
                result = await self.call(ext, handler, event)
            except Exception as exc:  # noqa: BLE001 - reported, the others still run
                await self.report_error(ext.path, name, summarize_error(exc, ext.path))
                continue
            if result is not None:
                results.append(result)
        return results

    # ------------------------------------------------------------------ errors

    async def report_error(self, path: str, event: str, error: str) -> None:
        """Log an extension failure and emit ``extension_error`` (queued until :meth:`start`)."""
        log.warning("extension %s failed in %s: %s", path, event, error)
        if self._session is None or not self._started:
            self._pending_errors.append((path, event, error))
            return
        await self._emit_error(path, event, error)

    def report_error_soon(self, path: str, event: str, error: str) -> None:
        """:meth:`report_error` from synchronous code."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._pending_errors.append((path, event, error))
            return
        spawn(self.report_error(path, event, error), name="extension-error")

    async def _emit_error(self, path: str, event: str, error: str) -> None:
        from ..kernel.events import ExtensionErrorEvent

        self.errors.append((path, event, error))
        if self._session is not None:
            await self._session.actions.emit(ExtensionErrorEvent(path, event, error))

    def _ui_failed(self, exc: BaseException) -> None:
        self.report_error_soon("(ui)", "ui", f"{type(exc).__name__}: {exc}")
