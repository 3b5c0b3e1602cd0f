"""What an extension may ask of the user, and the stand-in used when nobody can answer.

``ExtensionUI`` is the protocol front ends implement (the app with real dialogs, RPC mode with
``extension_ui_request``/``extension_ui_response``); a front end implements what it can and
may leave out the rest. ``HeadlessUI`` is the default for print/JSON mode and the SDK:
notifications go to stderr, dialogs resolve at once to their defaults (``confirm`` -> False,
the others -> None), so a gate that asks before a risky action denies it when nobody can answer.

``GuardedUI`` is what extensions get as ``ctx.ui``. It offers every call of Pi's UI in every
mode (a no-op, or Pi's documented default, where the front end has no such thing), applies
dialog timeouts (seconds) and abort signals on pi's side, and turns a failing front end into
the default answer, so an extension never hangs or crashes because of its UI. Dialogs return
an ``ExtensionCall``: ``await`` it.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TextIO, runtime_checkable

from .calls import ExtensionCall

log = logging.getLogger("pi.extensions")

NOTIFY_LEVELS = ("info", "warning", "error")


@runtime_checkable
class ExtensionUI(Protocol):
    """User interaction a front end offers extensions. Only ``has_ui`` and the dialogs are required."""

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
        """Set (None clears) a footer status entry owned by ``key``; front ends show the text only."""

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        """Set (None clears) lines shown above or below the editor."""


def status_line(statuses: dict[str, str]) -> str:
    """The footer line of extension statuses, as Pi shows it: the texts (never the keys), sorted by
    key, each on one line, joined by a space."""
    return " ".join(" ".join(str(text).split()) for _, text in sorted(statuses.items()))


class HeadlessUI:
    """No person to ask: notifications to stderr, dialogs answer their defaults.

    Statuses, widgets, the title and the editor text are kept so a host (or a test) can still
    read what extensions published.
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
        self.title: str | None = None
        self.editor_text = ""

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

    def set_title(self, title: str) -> None:
        self.title = title

    def set_editor_text(self, text: str) -> None:
        self.editor_text = text

    def get_editor_text(self) -> str:
        return self.editor_text


class PlainTheme:
    """``ctx.ui.theme`` where the front end has none: every style returns the text unchanged."""

    def fg(self, color: str, text: str) -> str:
        return text

    def bg(self, color: str, text: str) -> str:
        return text

    def bold(self, text: str) -> str:
        return text

    def italic(self, text: str) -> str:
        return text

    def underline(self, text: str) -> str:
        return text

    def dim(self, text: str) -> str:
        return text

    def strikethrough(self, text: str) -> str:
        return text


class UIHost:
    """The installed front end and what every extension's ``ctx.ui`` shares.

    Args:
        inner: The front end's UI; ``HeadlessUI`` when None.
        report: ``report(extension_path, event, error)`` for a failing front end or a misused dialog.
    """

    def __init__(self, inner: Any = None, report: Callable[[str, str, str], None] | None = None) -> None:
        self.inner: Any = inner or HeadlessUI()
        self._report = report
        self.open_dialogs = 0
        """Dialogs waiting for the user right now (handler time limits do not count that time)."""

    def report(self, owner: str, event: str, error: str) -> None:
        if self._report is not None:
            self._report(owner, event, error)

    def session_switching(self) -> None:
        """The session is being switched (new, resume, fork) or its extensions reloaded: the front
        end drops what extensions set up (statuses, widgets, editor, autocomplete providers,
        terminal input listeners…), as Pi does, before the ``session_start`` handlers set it up again."""
        method = getattr(self.inner, "session_switching", None)
        if method is None:
            return
        try:
            method()
        except Exception as exc:  # noqa: BLE001 - a front end failing here must not stop the switch
            self.report("(ui)", "ui", f"{type(exc).__name__}: {exc}")


class GuardedUI:
    """``ctx.ui``: every UI call in every mode; timeouts, abort and front-end failures resolve to defaults.

    Args:
        host: The shared front end.
        owner: The extension path failures are reported under.
    """

    def __init__(self, host: UIHost, owner: str = "(ui)") -> None:
        self._host = host
        self._owner = owner

    if not TYPE_CHECKING:  # hidden from type checkers, which would accept any name otherwise

        def __getattr__(self, name: str) -> Any:
            # Only reached when normal lookup failed: suggest the Python spelling of Pi's name.
            from .pi_names import missing_attribute

            raise missing_attribute(self, name, "ctx.ui")

    @property
    def inner(self) -> Any:
        """The front end's own UI object."""
        return self._host.inner

    @inner.setter
    def inner(self, ui: Any) -> None:
        self._host.inner = ui or HeadlessUI()

    @property
    def has_ui(self) -> bool:
        """True when dialogs reach a person (app, RPC); False in print/JSON mode."""
        return bool(getattr(self._host.inner, "has_ui", False))

    def _failed(self, exc: BaseException) -> None:
        self._host.report(self._owner, "ui", f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ dialogs

    def _dialog(self, what: str, default: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                timeout: float | None, signal: Any, accept: Callable[[Any], bool] = lambda value: True
                ) -> ExtensionCall[Any]:
        async def ask() -> Any:
            fn = getattr(self._host.inner, method, None)
            if fn is None or (signal is not None and signal.aborted):
                return default
            self._host.open_dialogs += 1
            try:
                call = asyncio.ensure_future(fn(*args, **kwargs))
                waiters: set[asyncio.Future[Any]] = {call}
                stop = asyncio.ensure_future(signal.wait()) if signal is not None else None
                if stop is not None:
                    waiters.add(stop)
                try:
                    done, _ = await asyncio.wait(waiters, timeout=timeout if timeout and timeout > 0 else None,
                                                 return_when=asyncio.FIRST_COMPLETED)
                finally:
                    if stop is not None:
                        stop.cancel()
                if call not in done:  # timed out or aborted: the dialog closes with its default
                    call.cancel()
                    return default
                value = call.result()
                # Only an answer of the right kind counts; anything else is the safe default.
                return value if accept(value) else default
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a broken dialog answers its default
                self._failed(exc)
                return default
            finally:
                self._host.open_dialogs -= 1

        return ExtensionCall(ask(), what, lambda error: self._host.report(self._owner, "ui", error), answer_matters=True)

    def select(self, title: str, options: list[str], *, timeout: float | None = None,
               signal: Any = None) -> ExtensionCall[str | None]:
        """Pick one of ``options``; None when cancelled, timed out, aborted or headless.

        Args:
            title: The question.
            options: The choices.
            timeout: Seconds before it closes by itself (front ends show a countdown).
            signal: An ``AbortSignal`` (``ctx.signal``) that closes it.
        """
        opts = [str(o) for o in options]
        return self._dialog("ctx.ui.select(...)", None, "select", (str(title), opts), {"timeout": timeout},
                            timeout, signal, accept=lambda value: value in opts)

    def confirm(self, title: str, message: str = "", *, timeout: float | None = None,
                signal: Any = None) -> ExtensionCall[bool]:
        """Yes/no; False when cancelled, timed out, aborted or headless (see :meth:`select`).
        Only a real ``True`` from the front end confirms."""
        return self._dialog("ctx.ui.confirm(...)", False, "confirm", (str(title), str(message)),
                            {"timeout": timeout}, timeout, signal, accept=lambda value: value is True)

    def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None,
              signal: Any = None) -> ExtensionCall[str | None]:
        """One line of text; None when cancelled, timed out, aborted or headless (see :meth:`select`)."""
        return self._dialog("ctx.ui.input(...)", None, "input", (str(title), placeholder), {"timeout": timeout},
                            timeout, signal, accept=lambda value: isinstance(value, str))

    def editor(self, title: str, prefill: str | None = None, *, signal: Any = None) -> ExtensionCall[str | None]:
        """Multi-line text; None when cancelled, aborted or headless."""
        return self._dialog("ctx.ui.editor(...)", None, "editor", (str(title), prefill), {}, None, signal,
                            accept=lambda value: isinstance(value, str))

    def custom(self, factory: Callable[..., Any], *, overlay: bool = False, overlay_options: Any = None,
               signal: Any = None) -> ExtensionCall[Any]:
        """Show the extension's own component and wait for the value it finishes with.

        ``factory(tui, theme, keybindings, done)`` builds it; only the app can show one (see
        ``ctx.mode == "tui"``). Elsewhere the call resolves to None at once.
        """
        kwargs = {"overlay": overlay, "overlay_options": overlay_options}
        return self._dialog("ctx.ui.custom(...)", None, "custom", (factory,), kwargs, None, signal)

    # ------------------------------------------------------------------ fire and forget

    def _fire(self, name: str, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self._host.inner, name, None)
        if method is None:
            return None
        try:
            return method(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - fire-and-forget calls never raise into extensions
            self._failed(exc)
            return None

    def _text(self, value: Any) -> Any:
        """A status or widget line for the front end: styled text (``ctx.ui.theme``'s) as it is for
        a front end that draws it (``accepts_styled_text``), else its plain text."""
        if isinstance(value, str):
            return value
        if getattr(self._host.inner, "accepts_styled_text", False) and hasattr(value, "__rich_console__"):
            return value
        return str(value)

    def notify(self, message: str, level: str = "info") -> None:
        """Show a notification (``info``, ``warning`` or ``error``)."""
        self._fire("notify", str(message), level if level in NOTIFY_LEVELS else "info")

    def set_status(self, key: str, text: str | None) -> None:
        """Set (None clears) a footer status; front ends show the text (the key only orders and replaces)."""
        self._fire("set_status", str(key), None if text is None else self._text(text))

    def set_widget(self, key: str, lines: list[str] | Callable[..., Any] | None, *,
                   placement: str = "aboveEditor") -> None:
        """Set (None clears) widget lines above/below the editor; a component factory only in the app."""
        if callable(lines):
            self._fire("set_widget_component", str(key), lines, placement=placement)
            return
        self._fire("set_widget", str(key), None if lines is None else [self._text(x) for x in lines],
                   placement=placement)

    def set_title(self, title: str) -> None:
        """Set the terminal title."""
        self._fire("set_title", str(title))

    def set_editor_text(self, text: str) -> None:
        """Replace the text in the input editor."""
        self._fire("set_editor_text", str(text))

    def get_editor_text(self) -> str:
        """The input editor's text ("" where there is no editor)."""
        value = self._fire("get_editor_text")
        return value if isinstance(value, str) else ""

    def paste_to_editor(self, text: str) -> None:
        """Paste into the editor (``set_editor_text`` where there is no paste handling)."""
        if getattr(self._host.inner, "paste_to_editor", None) is not None:
            self._fire("paste_to_editor", str(text))
        else:
            self.set_editor_text(str(text))

    def set_working_message(self, message: str | None = None) -> None:
        """The text of the working loader while streaming (None restores the default)."""
        self._fire("set_working_message", message)

    def set_working_visible(self, visible: bool) -> None:
        """Show or hide the working loader row."""
        self._fire("set_working_visible", bool(visible))

    def set_working_indicator(self, frames: Any = None, interval_ms: int | None = None) -> None:
        """Custom spinner frames (``[]`` hides it, None restores the default), ``interval_ms`` per frame.

        ``frames`` may also be Pi's options object, ``{"frames": [...], "intervalMs": 80}``. A frame
        is a string or ``ctx.ui.theme`` text (coloured where the front end draws it)."""
        if isinstance(frames, dict):
            interval_ms = frames.get("intervalMs", frames.get("interval_ms", interval_ms))
            frames = frames.get("frames")
        self._fire("set_working_indicator", None if frames is None else [self._text(f) for f in frames],
                   interval_ms)

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        """The label shown for hidden thinking blocks (None restores the default)."""
        self._fire("set_hidden_thinking_label", label)

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        """Replace the footer with a component (app only; None restores it)."""
        self._fire("set_footer", factory)

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        """Replace the start-up header with a component (app only; None restores it)."""
        self._fire("set_header", factory)

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """Replace the input editor (app only; None restores it)."""
        self._fire("set_editor_component", factory)

    def get_editor_component(self) -> Callable[..., Any] | None:
        """The custom editor factory in use, if any."""
        factory = self._fire("get_editor_component")
        return factory if callable(factory) else None

    def set_tools_expanded(self, expanded: bool) -> None:
        """Expand or collapse tool output."""
        self._fire("set_tools_expanded", bool(expanded))

    def get_tools_expanded(self) -> bool:
        """Whether tool output is expanded (False where there is no such view)."""
        return bool(self._fire("get_tools_expanded"))

    def add_autocomplete_provider(self, factory: Callable[..., Any]) -> None:
        """Stack an autocomplete provider on the editor's (app only)."""
        self._fire("add_autocomplete_provider", factory)

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        """Raw terminal input (app only). Returns an unsubscriber (a no-op elsewhere)."""
        unsubscribe = self._fire("on_terminal_input", handler)
        return unsubscribe if callable(unsubscribe) else (lambda: None)

    # ------------------------------------------------------------------ themes

    @property
    def theme(self) -> Any:
        """The current theme (``fg``, ``bg``, ``bold``...); plain text where the front end has none."""
        theme = getattr(self._host.inner, "theme", None)
        return theme if theme is not None else PlainTheme()

    def get_all_themes(self) -> list[dict[str, Any]]:
        """``[{"name", "path"}]`` of the themes the front end knows ([] where none)."""
        value = self._fire("get_all_themes")
        return list(value) if isinstance(value, list) else []

    def get_theme(self, name: str) -> Any:
        """A theme by name without switching to it (None where there are none)."""
        return self._fire("get_theme", name)

    def set_theme(self, theme: Any) -> dict[str, Any]:
        """Switch theme by name or object: ``{"success": bool, "error"?: str}``."""
        if getattr(self._host.inner, "set_theme", None) is None:
            return {"success": False, "error": "Theme switching is not supported in this mode"}
        value = self._fire("set_theme", theme)
        return value if isinstance(value, dict) else {"success": bool(value)}
