"""Every place pi reaches into Textual's private parts, in one list, checked when ``pi_tui`` loads.

pi fixes a few things Textual gets wrong for a coding agent (Esc followed quickly by a key,
modified keys from tmux, text that could command the terminal, a hung-up terminal) and reads
a few of its private attributes. Such parts change between Textual releases, even patch
releases (``XTermParser._parse_extended_key`` came in 8.2.7), so pyproject pins Textual to
the releases pi was tested with (:data:`TESTED_TEXTUAL`). A user can still end up with
another one (pip keeps an installed Textual that met an older requirement; ``--no-deps``; a
distribution's package), so :func:`check` looks at every touch point when ``pi_tui`` is
imported, and a missing one stops pi with one line saying which, what it is for and how to
install the tested Textual, rather than a traceback later, or, worse, a fix that silently
stops working (the Esc selector swap, the exception hook).

The accessors below are the only places the rest of ``pi_tui`` reads or writes a private
attribute of Textual; overrides of private methods (``App._handle_exception``,
``LinuxDriver._sigcont_application``, ``_on_key``) and the wrappers installed by
``escape_key``, ``extended_keys`` and ``safe_strips`` are listed and checked here too.
``tests/tui/test_textual_internals.py`` has a contract test for each.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from types import CodeType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen

TESTED_TEXTUAL = "==8.2.8"
"""The Textual release pi is tested with (pyproject.toml says the same; a test keeps them equal). 8.2.7, the
first with ``_parse_extended_key``, returns one key from it where 8.2.8 returns a list: the suite fails there."""


class TextualMismatch(ImportError):
    """The installed Textual lacks a part pi relies on."""


def _attribute(module: str, path: str) -> Any:
    target: Any = importlib.import_module(module)
    for name in path.split("."):
        target = getattr(target, name)
    return target


def _codes(target: Any) -> Iterator[CodeType]:
    """The code of a function or of every function of a class, nested functions included."""
    functions = [target] if inspect.isfunction(target) else [
        f for f in vars(target).values() if inspect.isfunction(f)]
    pending = [f.__code__ for f in functions]
    while pending:
        code = pending.pop()
        yield code
        pending.extend(c for c in code.co_consts if isinstance(c, CodeType))


def _uses(module: str, path: str, *names: str) -> bool:
    """``module.path`` (a function or class) refers to every one of ``names``."""
    used: set[str] = set()
    for code in _codes(_attribute(module, path)):
        used.update(code.co_names)
    return set(names) <= used


def _is_function(module: str, path: str) -> bool:
    return callable(_attribute(module, path))


TOUCH_POINTS: dict[str, tuple[str, Callable[[], bool]]] = {
    "textual._xterm_parser.XTermParser._parse_extended_key": (
        "reads Shift+Enter and Ctrl+Shift+<key> sent by tmux and xterm (terminal/extended_keys.py)",
        lambda: _is_function("textual._xterm_parser", "XTermParser._parse_extended_key")
        and _uses("textual._xterm_parser", "XTermParser", "_parse_extended_key")
        # A list of keys (8.2.8); 8.2.7's returned one key, which pi's wrapper cannot take.
        and str(_attribute("textual._xterm_parser", "XTermParser._parse_extended_key").__annotations__.get(
            "return", "")).startswith("list[")),
    "textual._xterm_parser.XTermParser.feed": (
        "Esc followed at once by a key stays the Esc key (terminal/escape_key.py)",
        lambda: _is_function("textual._xterm_parser", "XTermParser.feed")),
    "textual._parser.Parser.tick": (
        "settles the wait after a lone ESC before more input is parsed (terminal/escape_key.py)",
        lambda: _is_function("textual._parser", "Parser.tick") and _uses("textual._parser", "Parser.tick",
                                                                          "_timeout_time")),
    "textual._parser.Parser._timeout_time": (
        "when the wait after a lone ESC runs out (terminal/escape_key.py)",
        lambda: _uses("textual._parser", "Parser.__init__", "_timeout_time")),
    "textual._time.get_time": (
        "the clock of that wait (terminal/escape_key.py)",
        lambda: _is_function("textual._time", "get_time")),
    "textual.drivers.linux_driver.selectors": (
        "the input thread wakes when the ESC wait runs out: pi swaps the SelectSelector it builds "
        "(terminal/escape_key.py)",
        lambda: _uses("textual.drivers.linux_driver", "LinuxDriver.run_input_thread", "selectors", "SelectSelector")
        and hasattr(_attribute("textual.drivers.linux_driver", "selectors"), "SelectSelector")),
    "textual.keys._character_to_key": (
        "names keys typed with Shift from tmux and xterm (terminal/extended_keys.py)",
        lambda: _is_function("textual.keys", "_character_to_key")),
    "textual.strip.Strip.render": (
        "no text on screen can send the terminal a command (terminal/safe_strips.py)",
        lambda: list(inspect.signature(_attribute("textual.strip", "Strip.render")).parameters)[:2]
        == ["self", "console"]),
    "textual.constants.MAX_FPS, ESCAPE_DELAY": (
        "pi's frame rate and Pi's 10 ms Esc delay, set through TEXTUAL_FPS and ESCDELAY (pi_tui/__init__.py)",
        lambda: hasattr(_attribute("textual", "constants"), "MAX_FPS")
        and hasattr(_attribute("textual", "constants"), "ESCAPE_DELAY")),
    "textual.app.App._handle_exception": (
        "an extension's broken widget is reported and removed instead of ending pi (app.py)",
        lambda: _is_function("textual.app", "App._handle_exception")
        and _uses("textual.message_pump", "MessagePump", "_handle_exception")
        and _uses("textual.widget", "Widget._compose", "_handle_exception")),
    "textual.app.App._driver": (
        "writes OSC 52 copies, the window title and extensions' escape sequences (terminal/)",
        lambda: _uses("textual.app", "App.__init__", "_driver")),
    "textual.app.App._clipboard": (
        "Textual's own paste sees what pi copied (terminal/clipboard.py)",
        lambda: _uses("textual.app", "App.__init__", "_clipboard") and _uses("textual.app", "App", "_clipboard")),
    "textual.app.App._keymap, textual.dom.DOMNode._bindings": (
        "the editor runs its own keys in order, keybindings.json applied (editor/prompt_editor.py)",
        lambda: _uses("textual.app", "App.__init__", "_keymap") and _uses("textual.dom", "DOMNode.__init__", "_bindings")
        and all(hasattr(_attribute("textual.binding", "BindingsMap")(), n) for n in ("copy", "apply_keymap",
                                                                                     "key_to_bindings"))),
    "textual.app.App._background_screens, textual.screen.Screen._compositor": (
        "screenshots drawn on the terminal's own background (app.py)",
        lambda: hasattr(_attribute("textual.app", "App"), "_background_screens")
        and _uses("textual.screen", "Screen.__init__", "_compositor")
        and {"full", "screen_stack", "simplify"} <= set(inspect.signature(
            _attribute("textual._compositor", "Compositor.render_update")).parameters)),
    "textual.drivers.linux_driver.LinuxDriver._sigcont_application, _must_signal_resume, _file": (
        "a hung-up terminal ends pi instead of leaving it running (terminal/app_driver.py)",
        lambda: _is_function("textual.drivers.linux_driver", "LinuxDriver._sigcont_application")
        and _uses("textual.drivers.linux_driver", "LinuxDriver.__init__", "_sigcont_application",
                  "_must_signal_resume", "_file")),
    "textual.drivers.linux_driver.XTermParser": (
        "printable keys arriving together reach the editor as one insertion: the input thread's parser "
        "groups them (terminal/typed_runs.py)",
        lambda: _uses("textual.drivers.linux_driver", "LinuxDriver.run_input_thread", "XTermParser")
        and issubclass(_attribute("textual.drivers.linux_driver", "XTermParser"),
                       _attribute("textual._xterm_parser", "XTermParser"))),
    "textual.message.Message._set_forwarded, textual.widgets.TextArea._restart_blink": (
        "such a run is typed as its keys would have been, or handled key by key (editor/typed_text.py)",
        lambda: _is_function("textual.message", "Message._set_forwarded")
        and _is_function("textual.widgets", "TextArea._restart_blink")),
    "textual.widgets._toast.ToastRack": (
        "the screen is not laid out and drawn a second time right after pi's first frame (app.py)",
        lambda: _uses("textual.screen", "Screen._extend_compose", "ToastRack")
        and _uses("textual.widgets._toast", "ToastRack.show", "display")),
    "textual.widget.Widget._on_key, textual.widgets.TextArea._on_key": (
        "the editor and the queue act on each key as it comes (editor/, queue/)",
        lambda: inspect.iscoroutinefunction(_attribute("textual.widget", "Widget._on_key"))
        and inspect.iscoroutinefunction(_attribute("textual.widgets", "TextArea._on_key"))),
}
"""Each private part pi uses: what for, and how to see that the installed Textual still has it."""


def missing() -> list[str]:
    """The touch points the installed Textual lacks (empty when it has them all)."""
    gone = []
    for name, (_, present) in TOUCH_POINTS.items():
        try:
            ok = present()
        except (ImportError, AttributeError, TypeError, ValueError):
            ok = False
        if not ok:
            gone.append(name)
    return gone


def check() -> None:
    """Raise :class:`TextualMismatch` naming every touch point the installed Textual lacks, and what for."""
    gone = missing()
    if not gone:
        return
    try:
        from importlib.metadata import version

        installed = version("textual")
    except Exception:  # noqa: BLE001 - any failure to read metadata: the version is simply unknown
        installed = "unknown"
    parts = "; ".join(f"{name} (pi uses it: {TOUCH_POINTS[name][0]})" for name in gone)
    raise TextualMismatch(
        f"Textual {installed} is not one pi works with: missing or changed: {parts}. "
        f"Install the tested Textual: pip install 'textual{TESTED_TEXTUAL}'")


# ---------------------------------------------------------------------- accessors


def xterm_parser_class() -> type[Any]:
    """Textual's terminal input parser (``textual._xterm_parser.XTermParser``)."""
    return _attribute("textual._xterm_parser", "XTermParser")


def escape_wait_deadline(parser: Any) -> float | None:
    """When the parser's wait after a lone ESC runs out (Textual's clock); None when no wait is pending."""
    return parser._timeout_time


def textual_time() -> float:
    """Textual's clock (the one its parser's waits are measured on)."""
    from textual._time import get_time

    return get_time()


def key_name(character: str) -> str:
    """Textual's key name for a typed character (``+`` is ``plus``)."""
    from textual.keys import _character_to_key

    return _character_to_key(character)


def linux_driver_module() -> Any:
    """The module whose ``selectors`` name the Linux driver's input thread builds its selector from."""
    return importlib.import_module("textual.drivers.linux_driver")


def running_driver(app: Any) -> Any:
    """The app's terminal driver (None before it starts or after it stops)."""
    return getattr(app, "_driver", None)


def hide_toast_rack(screen: Screen[object]) -> None:
    """Hide the screen's toast rack the way Textual's ``ToastRack.show`` does when there is no
    notification (an inline ``display: none``).

    Its CSS hides it already, but ``show`` runs as every screen resumes and sets the inline rule
    anew: a change of style that lays out and draws the whole screen again, right after pi's first
    frame (4-5 ms while the first prompt is being typed). Set before the screen's first layout,
    that later setting changes nothing.
    """
    from textual.widgets._toast import ToastRack

    for rack in screen.query_children(ToastRack):
        rack.display = False


def keep_app_clipboard(app: Any, text: str) -> None:
    """Make ``text`` what Textual's own paste (``App.clipboard``) gives."""
    app._clipboard = text


def active_keymap(app: Any) -> Mapping[str, str]:
    """The keymap ``App.set_keymap`` applied last (binding id -> keys); Textual replaces the dict on change."""
    return app._keymap


def own_bindings(widget: Any) -> Any:
    """A widget's own bindings (a ``BindingsMap``, before any keymap)."""
    return widget._bindings


def whole_screen_render(app: Any, simplify: bool) -> Any:
    """The current screen and the screens under it, as one renderable (what ``export_screenshot`` draws)."""
    return app.screen._compositor.render_update(full=True, screen_stack=app._background_screens, simplify=simplify)


def driver_output(driver: Any) -> Any:
    """The file a Linux driver's writer thread writes to (None for a driver without one)."""
    return getattr(driver, "_file", None)


def replace_driver_output(driver: Any, file: Any) -> None:
    """Give the driver's writer thread another file (before the thread starts)."""
    driver._file = file


def resume_was_requested(driver: Any) -> bool:
    """The Linux driver suspended the app itself (Ctrl+Z) and expects a SIGCONT to resume it."""
    return bool(driver._must_signal_resume)


def mark_forwarded(event: Any) -> None:
    """Flag an input event as the app's forward to the focused widget flags it (so it does not
    start over at the app when it bubbles back up)."""
    event._set_forwarded()


def restart_cursor_blink(text_area: Any) -> None:
    """Show a text area's cursor at once and restart its blink, as a typed key does."""
    text_area._restart_blink()
