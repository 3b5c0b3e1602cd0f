"""A contract test for each private part of Textual pi uses (pi_tui/terminal/textual_internals.py).

Each test says what pi needs from the part, on the installed Textual, so a Textual release
that changes one fails here (and in ``check()`` at start-up), not silently in a user's
terminal. The check itself is tested too: breaking any one part makes it name that part.
"""

from __future__ import annotations

import asyncio
import gc
import io
import os
import re
import signal
import subprocess
import sys
import threading
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from rich.console import Console
from rich.segment import Segment
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.drivers.linux_driver import LinuxDriver
from textual.strip import Strip
from textual.widgets import Static, TextArea

from pi_runtime.testing.waiting import eventually, wait_until
from pi_tui.terminal import escape_key, extended_keys
from pi_tui.terminal import textual_internals as internals
from pi_tui.terminal.app_driver import AppDriver, _HangupTolerantOutput
from pi_tui.terminal.clipboard import copy_text
from pi_tui.terminal.safe_strips import guard_strip_output

ROOT = Path(__file__).parents[2]


# ---------------------------------------------------------------------- the pin and the check


def test_pyproject_pins_textual_to_the_tested_release_and_it_is_installed():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"textual{internals.TESTED_TEXTUAL}" in [d.replace(" ", "") for d in dependencies]
    assert re.fullmatch(r"==[\d.]+", internals.TESTED_TEXTUAL)
    assert version("textual") == internals.TESTED_TEXTUAL[2:]


def test_the_installed_textual_has_every_part_pi_uses():
    assert internals.missing() == []
    internals.check()


def _one_key_parser(self, sequence: str) -> events.Key | None:  # Textual 8.2.7's shape of the method
    return None


# How a Textual without each part would look: each entry removes or reshapes the part.
BREAKERS = {
    "textual._xterm_parser.XTermParser._parse_extended_key": ("textual._xterm_parser", "XTermParser",
                                                              "_parse_extended_key", _one_key_parser),
    "textual._xterm_parser.XTermParser.feed": ("textual._xterm_parser", "XTermParser", "feed", "not a method"),
    "textual._parser.Parser.tick": ("textual._parser", "Parser", "tick", None),
    "textual._parser.Parser._timeout_time": ("textual._parser", "Parser", "__init__", lambda self: None),
    "textual._time.get_time": ("textual._time", None, "get_time", None),
    "textual.drivers.linux_driver.selectors": ("textual.drivers.linux_driver", "LinuxDriver", "run_input_thread",
                                               lambda self: __import__("selectors").DefaultSelector()),
    "textual.keys._character_to_key": ("textual.keys", None, "_character_to_key", None),
    "textual.strip.Strip.render": ("textual.strip", "Strip", "render", lambda self: ""),
    "textual.constants.MAX_FPS, ESCAPE_DELAY": ("textual.constants", None, "ESCAPE_DELAY", None),
    "textual.app.App._handle_exception": ("textual.widget", "Widget", "_compose", lambda self: None),
    "textual.app.App._driver": ("textual.app", "App", "__init__", lambda self: None),
    "textual.app.App._clipboard": ("textual.app", "App", "__init__", lambda self: None),
    "textual.app.App._keymap, textual.dom.DOMNode._bindings": ("textual.dom", "DOMNode", "__init__",
                                                                lambda self: None),
    "textual.app.App._background_screens, textual.screen.Screen._compositor": ("textual.app", "App",
                                                                               "_background_screens", None),
    "textual.drivers.linux_driver.LinuxDriver._sigcont_application, _must_signal_resume, _file": (
        "textual.drivers.linux_driver", "LinuxDriver", "_sigcont_application", None),
    "textual.widget.Widget._on_key, textual.widgets.TextArea._on_key": ("textual.widgets", "TextArea", "_on_key",
                                                                        lambda self, event: None),
    "textual.drivers.linux_driver.XTermParser": ("textual.drivers.linux_driver", "LinuxDriver", "run_input_thread",
                                                 lambda self: None),
    "textual.message.Message._set_forwarded, textual.widgets.TextArea._restart_blink": (
        "textual.widgets", "TextArea", "_restart_blink", None),
    "textual.widgets._toast.ToastRack": ("textual.widgets._toast", "ToastRack", "show",
                                         lambda self, notifications: None),
}


def test_every_touch_point_has_a_breaker():
    assert set(BREAKERS) == set(internals.TOUCH_POINTS)


@pytest.mark.parametrize("name", list(BREAKERS))
def test_a_textual_without_the_part_is_refused_with_its_name(name, monkeypatch):
    module, owner, attribute, replacement = BREAKERS[name]
    target = __import__(module, fromlist=["_"])
    if owner is not None:
        target = getattr(target, owner)
    if replacement is None:
        monkeypatch.delattr(target, attribute)
    else:
        monkeypatch.setattr(target, attribute, replacement)
    assert name in internals.missing()
    with pytest.raises(internals.TextualMismatch) as refused:
        internals.check()
    message = str(refused.value)
    assert name in message and internals.TOUCH_POINTS[name][0] in message
    assert f"pip install 'textual{internals.TESTED_TEXTUAL}'" in message and version("textual") in message


def test_pi_on_a_textual_lacking_a_part_ends_with_one_line_naming_it(tmp_path):
    # Textual 8.2.6 had no XTermParser._parse_extended_key: pi ended with a raw traceback.
    (tmp_path / "sitecustomize.py").write_text(
        "import textual._xterm_parser as p\ndel p.XTermParser._parse_extended_key\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", "import pi_tui.launch"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("pi_tui.terminal.textual_internals.TextualMismatch: Textual ")
    assert "missing or changed: textual._xterm_parser.XTermParser._parse_extended_key" in last


# ---------------------------------------------------------------------- each part does what pi needs


def _keys(messages) -> list[str]:
    return [m.key for m in messages if isinstance(m, events.Key)]


def test_extended_keys_parser_reads_tmux_and_xterm_modified_keys():
    extended_keys.install()
    parser = internals.xterm_parser_class()()
    assert _keys(parser.feed("\x1b[27;2;13~")) == ["shift+enter"]  # xterm's format
    assert _keys(parser.feed("\x1b[70;6u")) == ["ctrl+shift+f"]  # csi-u with a capital
    assert internals.key_name("+") == "plus"


def test_an_esc_whose_wait_ran_out_is_the_esc_key_even_with_a_key_right_behind_it():
    escape_key.install()
    parser = internals.xterm_parser_class()()
    assert _keys(parser.feed("\x1b")) == []
    deadline = internals.escape_wait_deadline(parser)
    assert deadline is not None and deadline > internals.textual_time()
    assert wait_until(lambda: internals.textual_time() >= deadline, timeout=5, interval=0.001)
    assert _keys(parser.feed("a")) == ["escape", "a"]  # not alt+a
    assert internals.escape_wait_deadline(parser) is None


class _Collecting(LinuxDriver):
    """Textual's own Linux driver, reading a pipe and keeping what it parses."""

    def __init__(self, app: App, read_fd: int) -> None:
        super().__init__(app)
        self.fileno = read_fd
        self.got: list[object] = []

    def process_message(self, message) -> None:
        self.got.append(message)


async def test_the_linux_input_thread_builds_the_waking_selector():
    escape_key.install()
    thread_code = LinuxDriver.run_input_thread
    assert thread_code.__globals__["selectors"].SelectSelector is escape_key._WakingSelector
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    read_fd, write_fd = os.pipe()
    try:
        driver = _Collecting(App(), read_fd)
        reader = threading.Thread(target=driver.run_input_thread, daemon=True)
        reader.start()
        os.write(write_fd, b"\x1b")
        assert await eventually(lambda: "escape" in _keys(driver.got), timeout=10)
        assert any(type(o) is escape_key._WakingSelector for o in gc.get_objects())
        driver.exit_event.set()
        await asyncio.to_thread(reader.join, 10)
        assert not reader.is_alive()
    finally:
        os.close(read_fd)
        os.close(write_fd)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def test_strip_render_is_where_text_reaches_the_terminal():
    guard_strip_output()
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor")
    out = Strip([Segment("a\x1b[2Jb")]).render(console)
    assert "\x1b[2J" not in out and "a[2Jb" in out


def test_textual_reads_fps_and_esc_delay_from_the_environment_pi_sets():
    code = "import pi_tui, textual.constants as c, os; print(c.MAX_FPS, c.ESCAPE_DELAY, 'ESCDELAY' in os.environ)"
    env = {k: v for k, v in os.environ.items() if k not in ("TEXTUAL_FPS", "ESCDELAY")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["120", "0.01", "False"], done.stderr


class _Broken(Static):
    class Poked(events.Event):
        pass

    def on_mount(self) -> None:
        self.post_message(self.Poked())

    def on__broken_poked(self, _: Poked) -> None:
        raise RuntimeError("widget broke")


class _Hooked(App):
    """An app whose private exception hook records instead of ending the app, as pi's does."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []

    def compose(self) -> ComposeResult:
        yield _Broken("x")

    def _handle_exception(self, error: Exception) -> None:
        self.errors.append(error)


async def test_an_exception_in_a_widget_goes_through_the_apps_private_hook():
    app = _Hooked()
    async with app.run_test() as pilot:
        assert await eventually(lambda: app.errors, timeout=10)
        await pilot.pause()
        assert app.is_running  # the hook kept it going
    assert [str(e) for e in app.errors] == ["widget broke"]


class _Keyed(App):
    BINDINGS = [Binding("f2", "noop", "Nothing", id="test.noop")]

    def compose(self) -> ComposeResult:
        yield _KeyedArea()

    def action_noop(self) -> None:
        pass


class _KeyedArea(TextArea):
    BINDINGS = [Binding("f3", "noop", "Nothing", id="test.area")]

    async def _on_key(self, event: events.Key) -> None:
        await super()._on_key(event)


async def test_app_private_state_pi_reads_and_writes():
    app = _Keyed()
    async with app.run_test(size=(40, 6)) as pilot:
        driver = internals.running_driver(app)
        assert driver is not None and callable(driver.write) and callable(driver.flush)
        copy_text(app, "copied text")
        assert app.clipboard == "copied text"
        app.set_keymap({"test.area": "f4"})
        keymap = internals.active_keymap(app)
        assert keymap == {"test.area": "f4"}
        area = app.query_one(_KeyedArea)
        mine = internals.own_bindings(area).copy()
        mine.apply_keymap(keymap)
        assert "f4" in mine.key_to_bindings and "f3" not in mine.key_to_bindings
        area.focus()
        await pilot.press("h", "i")
        assert area.text == "hi"  # TextArea's own _on_key, reached through super()
        console = Console(width=40, height=6, file=io.StringIO(), force_terminal=True, record=True)
        console.print(internals.whole_screen_render(app, simplify=False))
        assert "hi" in console.export_text()


async def test_the_app_driver_wraps_textuals_output_file_and_resume_flag():
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        driver = AppDriver(App())
        assert isinstance(internals.driver_output(driver), _HangupTolerantOutput)
        assert internals.resume_was_requested(driver) is False
        assert signal.getsignal(signal.SIGCONT) == driver._sigcont_application  # Textual's handler is ours
        driver._sigcont_application()  # a SIGCONT pi did not ask for: nothing resumes
        assert driver._writer_thread is None
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def test_the_linux_input_thread_builds_its_parser_from_the_name_pi_swaps():
    from pi_tui.terminal import typed_runs

    typed_runs.install()
    parser_class = LinuxDriver.run_input_thread.__globals__["XTermParser"]
    assert parser_class is not internals.xterm_parser_class()
    assert issubclass(parser_class, internals.xterm_parser_class())


class _Typed(App):
    def compose(self) -> ComposeResult:
        yield TextArea()


async def test_a_key_handed_to_a_widget_directly_is_flagged_forwarded_and_the_blink_restarts():
    app = _Typed()
    async with app.run_test(size=(40, 6)) as pilot:
        area = app.query_one(TextArea)
        area.focus()
        key = events.Key("a", "a")
        assert not key.is_forwarded
        internals.mark_forwarded(key)
        assert key.is_forwarded
        await area.on_event(key.set_sender(app))
        assert area.text == "a"  # TextArea typed it; being forwarded, it does not start over at the app
        await pilot.pause()
        assert area.text == "a"
        area.cursor_blink = True
        area._cursor_visible = False
        internals.restart_cursor_blink(area)
        assert area._cursor_visible


class _Toasting(App):
    """A plain app counting its screen's layouts."""

    def __init__(self) -> None:
        super().__init__()
        self.layouts = 0

    def compose(self) -> ComposeResult:
        yield Static("text")

    def on_mount(self) -> None:
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

    def _laid_out(self, screen: object) -> None:
        self.layouts += 1


async def test_toast_rack_show_lays_the_screen_out_again_unless_hide_toast_rack_set_its_style_before():
    app = _Toasting()
    async with app.run_test(size=(40, 6), notifications=True) as pilot:
        await pilot.pause()
        rack = app.screen.get_child_by_id("textual-toastrack")
        rack.styles.inline.clear_rule("display")  # as the rack is before the screen first resumes
        await pilot.pause()
        laid_out = app.layouts
        rack.show([])  # what Textual runs as each screen resumes, with no notification
        await pilot.pause()
        assert app.layouts == laid_out + 1  # a change of style: the whole screen laid out again

        rack.styles.inline.clear_rule("display")
        internals.hide_toast_rack(app.screen)  # what pi's app does at mount, before its first layout
        await pilot.pause()
        laid_out = app.layouts
        rack.show([])
        await pilot.pause()
        assert app.layouts == laid_out and not rack.display

        app.notify("a toast")  # the rack still shows notifications
        assert await eventually(lambda: rack.display and "a toast" in str([str(w.render()) for w in rack.walk_children()]))
