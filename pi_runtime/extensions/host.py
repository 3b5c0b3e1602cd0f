"""``ExtensionHost``: what a front end calls on ``session.extension_runner`` (typed).

The app, RPC and print modes hold the runner through this interface only. It covers starting
the extensions with the front end's UI, the registrations a front end presents (commands and
their argument completions, shortcuts, flags, renderers, Markdown transformers), running them,
reloading, and the graceful-shutdown request (``ctx.shutdown()``).

Renderers are the extension's own callables; the runtime never calls them. Their contract (the
app's to honour): ``render_call(args, theme, context)`` and ``render_result(result, options,
theme, context)`` on a tool (see ``tool_renderer``), ``renderer(message, options, theme)`` for
custom messages, ``renderer(entry, options, theme)`` for custom entries; each returns what the
app can show (text with the theme's styles, or a widget), ``options`` has ``expanded``.
``ctx.ui.custom(factory)`` calls the front end's ``custom(factory, overlay=, overlay_options=)``,
which shows ``factory(tui, theme, keybindings, done)`` and resolves with the value passed to ``done``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .registry import Command, Flag, Shortcut
    from .reporter import ErrorReporter
    from .runner import ExtensionRunner


class ExtensionHost(Protocol):
    """The runner as front ends use it."""

    mode: str
    on_shutdown_request: Callable[[], Any] | None
    """Set by the host: end pi gracefully (the runner waits for idle first)."""
    reload_handler: Callable[[], Any] | None
    """Set by a host whose reload does more (the app: keybindings, themes, shortcuts): ``ctx.reload()`` runs it."""
    reporter: ErrorReporter
    """Where a front end reports an extension's failure in its UI (``extension_error``)."""

    def set_ui(self, ui: Any, mode: str | None = None) -> None: ...
    async def start(self, reason: str = "startup") -> None: ...
    async def reload(self) -> None: ...
    def get_commands(self) -> list[dict[str, Any]]: ...
    def commands(self) -> dict[str, Command]: ...
    async def complete_command(self, name: str, prefix: str) -> list[Any] | None: ...
    def shortcuts(self) -> dict[str, Shortcut]: ...
    async def run_shortcut(self, key: str) -> bool: ...
    def flags(self) -> dict[str, Flag]: ...
    def tool_renderer(self, tool_name: str) -> Any: ...
    def message_renderer(self, custom_type: str) -> Callable[..., Any] | None: ...
    def entry_renderer(self, custom_type: str) -> Callable[..., Any] | None: ...
    def markdown_transformers(self, message_type: str) -> list[Callable[..., Any]]: ...


def _conforms(runner: ExtensionRunner) -> ExtensionHost:
    return runner  # mypy checks here that the runner offers the whole interface
