"""What an extension may ask of the user, and the stand-in used when nobody can answer.

``ExtensionUI`` is the protocol every front end implements (the app with real dialogs, RPC
mode with ``extension_ui_request``/``extension_ui_response``). ``HeadlessUI`` is the default
for print/JSON mode and the SDK: notifications go to stderr and the log, dialogs resolve at
once to their defaults (``confirm`` -> False, the others -> None), so a gate that asks
before a risky action denies it when there is nobody to ask.

``GuardedUI`` wraps whichever UI is installed: it applies dialog timeouts on the agent side
(as Pi does for RPC) and turns a failing front end into the default answer, so an
extension never hangs or crashes because of its UI.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, Protocol, TextIO, runtime_checkable

log = logging.getLogger("pi.extensions")

NOTIFY_LEVELS = ("info", "warning", "error")


@runtime_checkable
class ExtensionUI(Protocol):
    """User interaction offered to extensions (``ctx.ui``)."""

    has_ui: bool
    """True when dialogs reach a person (app, RPC); False in print/JSON mode."""

    def notify(self, message: str, level: str = "info") -> None:
        """Show a non-blocking notification (``info``, ``warning`` or ``error``)."""

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        """Let the user pick one option; None when cancelled or timed out."""

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        """Ask yes/no; False when cancelled or timed out."""

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None) -> str | None:
        """Ask for one line of text; None when cancelled or timed out."""

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """Ask for multi-line text; None when cancelled."""

    def set_status(self, key: str, text: str | None) -> None:
        """Set (None clears) a footer status entry owned by ``key``."""

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        """Set (None clears) lines shown above or below the editor."""


class HeadlessUI:
    """No person to ask: notifications to stderr, dialogs answer their defaults.

    Statuses and widgets are kept in :attr:`statuses` / :attr:`widgets` so a host (or a
    test) can still read what extensions published.
    """

    has_ui = False

    def __init__(self, stream: TextIO | None = None) -> None:
        """Args:
            stream: Where notifications are written; ``sys.stderr`` (looked up per call) when None.
        """
        self._stream = stream
        self.statuses: dict[str, str] = {}
        """Footer statuses by key."""
        self.widgets: dict[str, list[str]] = {}
        """Widget lines by key."""
        self.notifications: list[tuple[str, str]] = []
        """Every (level, message) notified, oldest first."""

    def notify(self, message: str, level: str = "info") -> None:
        self.notifications.append((level, message))
        log.info("extension notification [%s]: %s", level, message)
        stream = self._stream or sys.stderr
        try:
            stream.write(f"[{level}] {message}\n")
            stream.flush()
        except (OSError, ValueError):  # a closed stderr must not break the extension
            pass

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        return None

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return False

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None) -> str | None:
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = list(lines)


class GuardedUI:
    """The ``ctx.ui`` extensions get: timeouts and front-end failures resolve to defaults.

    Args:
        inner: The installed front-end UI.
        on_error: Called with the exception when the front end fails.
    """

    def __init__(self, inner: Any, on_error: Any = None) -> None:
        self.inner = inner
        self._on_error = on_error

    @property
    def has_ui(self) -> bool:
        return bool(getattr(self.inner, "has_ui", False))

    async def _dialog(self, default: Any, timeout: float | None, call: Any) -> Any:
        try:
            if timeout is not None and timeout > 0:
                return await asyncio.wait_for(call, timeout)
            return await call
        except TimeoutError:
            return default
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a broken dialog answers its default
            if self._on_error is not None:
                self._on_error(exc)
            return default

    def _fire(self, name: str, *args: Any, **kwargs: Any) -> None:
        method = getattr(self.inner, name, None)
        if method is None:
            return
        try:
            method(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - fire-and-forget calls never raise into extensions
            if self._on_error is not None:
                self._on_error(exc)

    def notify(self, message: str, level: str = "info") -> None:
        """Show a notification (``info``, ``warning`` or ``error``)."""
        self._fire("notify", str(message), level if level in NOTIFY_LEVELS else "info")

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        """Pick one of ``options``; None when cancelled, timed out or headless."""
        return await self._dialog(None, timeout, self.inner.select(title, list(options), timeout=timeout))

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        """Yes/no; False when cancelled, timed out or headless."""
        return bool(await self._dialog(False, timeout, self.inner.confirm(title, message, timeout=timeout)))

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None) -> str | None:
        """One line of text; None when cancelled, timed out or headless."""
        return await self._dialog(None, timeout, self.inner.input(title, placeholder, timeout=timeout))

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """Multi-line text; None when cancelled or headless."""
        return await self._dialog(None, None, self.inner.editor(title, prefill))

    def set_status(self, key: str, text: str | None) -> None:
        """Set (None clears) a footer status."""
        self._fire("set_status", key, text)

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        """Set (None clears) widget lines above/below the editor."""
        self._fire("set_widget", key, lines, placement=placement)

    def __getattr__(self, name: str) -> Any:
        # Front ends may offer more (set_title, set_editor_text); pass those through.
        return getattr(self.inner, name)
