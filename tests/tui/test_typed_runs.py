"""Printable keys that arrive together (a key macro, a paste without bracketed paste, tmux send-keys):
grouped by the app's input thread into one ``TypedRun``, inserted in one edit when nothing else wants
them, else handled key by key in their order."""

from __future__ import annotations

import asyncio
import os
import signal
import threading

from textual import events
from textual.app import App

from pi_runtime.testing.waiting import eventually
from pi_tui.launch import create_app
from pi_tui.terminal import typed_runs
from pi_tui.terminal.app_driver import TypedRunsDriver
from pi_tui.terminal.textual_internals import linux_driver_module
from pi_tui.terminal.typed_runs import TypedRun

from .conftest import make_session, started, wait_for
from .test_extension_input import LISTENER, start


def _described(messages) -> list[str]:
    return [f"run:{m.text}" if isinstance(m, TypedRun) else m.key for m in messages if isinstance(m, (TypedRun, events.Key))]


def _parse_in_thread(data: str, group: bool) -> list[str]:
    """What the input thread's parser makes of one read, in a thread that groups (or not)."""
    typed_runs.install()
    out: list[str] = []

    def parse() -> None:
        if group:
            typed_runs.group_runs_in_this_thread()
        parser = linux_driver_module().XTermParser()
        out.extend(_described(list(parser.feed(data)) + list(parser.feed(""))))

    thread = threading.Thread(target=parse)
    thread.start()
    thread.join(10)
    return out


def test_one_reads_printable_keys_come_out_as_runs_in_order():
    assert _parse_in_thread("hello\x1b[Dab c\r", group=True) == ["run:hello", "left", "run:ab c", "enter"]
    assert _parse_in_thread("x", group=True) == ["x"]  # a key alone stays a key
    # Modified keys are not typing (Textual calls Alt+T printable), nor are control keys.
    assert _parse_in_thread("ab\x1btcd\x7fé€", group=True) == ["run:ab", "alt+t", "run:cd", "backspace", "run:é€"]


def test_a_thread_that_did_not_ask_gets_textuals_keys():
    assert _parse_in_thread("hello", group=False) == ["h", "e", "l", "l", "o"]


class _Collecting(TypedRunsDriver):
    """pi's driver reading a pipe and keeping what it would post."""

    def __init__(self, app: App, read_fd: int) -> None:
        super().__init__(app)
        self.fileno = read_fd
        self.got: list[object] = []

    def process_message(self, message) -> None:
        self.got.append(message)


async def test_the_apps_input_thread_hands_keys_typed_together_over_as_one_run():
    typed_runs.install()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    read_fd, write_fd = os.pipe()
    try:
        driver = _Collecting(App(), read_fd)
        reader = threading.Thread(target=driver.run_input_thread, daemon=True)
        reader.start()
        os.write(write_fd, b"typed together\x1b[D")
        assert await eventually(lambda: "left" in _described(driver.got), timeout=10)
        assert _described(driver.got) == ["run:typed together", "left"]
        driver.exit_event.set()
        await asyncio.to_thread(reader.join, 10)
    finally:
        os.close(read_fd)
        os.close(write_fd)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def _run(text: str) -> TypedRun:
    return TypedRun([events.Key(c if c.isalnum() else "space" if c == " " else c, c) for c in text])


async def test_a_run_is_typed_into_the_editor_in_order_with_the_keys_around_it(provider, workdir, agent_dir):
    app = create_app(make_session(provider, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        app.post_message(_run("ab"))
        app.post_message(events.Key("home", None))
        app.post_message(_run("XY"))
        assert await wait_for(pilot, lambda: app.editor.text == "XYab")
        await pilot.press("end")
        app.post_message(_run(" cd"))
        assert await wait_for(pilot, lambda: app.editor.text == "XYab cd")


async def test_a_printable_key_bound_to_an_editor_action_still_acts_inside_a_run(provider, workdir, agent_dir):
    from pi_runtime.ai.providers.scripted import scripted_text

    session = make_session(provider, workdir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        app.editor.key_actions["x"] = "submit"  # as keybindings.json {"tui.input.submit": "x"} makes it
        provider.push(scripted_text("noted"))
        app.post_message(_run("abxcd"))
        assert await wait_for(pilot, lambda: app.editor.text == "cd")
        assert await wait_for(pilot, lambda: any(m.role == "user" for m in session.messages))
        assert [m.content for m in session.messages if m.role == "user"][0][0].text == "ab"


async def test_an_extension_listening_to_input_sees_each_key_of_a_run(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, LISTENER, size=(120, 30))
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        app.post_message(_run("axb"))
        assert await wait_for(pilot, lambda: app.editor.text == "ab")  # the listener swallowed "x"
