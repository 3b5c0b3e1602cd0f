"""An extension's own components in a served session (``ctx.ui.custom``, a widget component): they
live in ``pi serve``, where the extension runs; the attached app draws the lines the server renders
at the app's width and sends the keys typed into them; ``done(value)`` resolves the extension's call
and closes the component in every viewer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from attach_support import app_environment, attached_as_pi_attach_does, until
from e2e_support import MODEL
from serve_support import ServeProcess, short_runtime_dir

from pi_runtime.testing.waiting import eventually
from pi_tui.attach_app import AttachedApp
from pi_tui.extension_ui.component_lines_view import ComponentLinesView
from pi_tui.extension_ui.extension_screen import ExtensionScreen

COUNTER = '''
class Counter:
    """Counts the "+" typed into it; Enter finishes with the count, Esc with None."""

    def __init__(self, tui, done):
        self.tui, self.done, self.count = tui, done, 0

    def render(self, width):
        return [f"count {self.count}\\n" + "=" * width]  # a line break splits a line

    def handle_input(self, data):
        if data == "+":
            self.count += 1
        elif data == "enter":
            self.done(self.count)
        elif data == "escape":
            self.done(None)


class Ticks:
    """A widget that shows how often it was told to tick."""

    def __init__(self, tui):
        self.tui, self.ticks = tui, 0

    def render(self, width):
        return [f"ticks {self.ticks} at {width}"]

    def dispose(self):
        open("ticks-disposed", "w").close()  # in the server's folder


def extension(pi):
    made = {}

    def ticks(tui, theme):
        made["ticks"] = Ticks(tui)
        return made["ticks"]

    async def count(args, ctx):
        ctx.ui.set_widget("ticks", ticks)
        value = await ctx.ui.custom(lambda tui, theme, keybindings, done: Counter(tui, done), overlay=True)
        ctx.ui.notify(f"counted {value}")
        made["ticks"].ticks += 5
        made["ticks"].tui.request_render()

    pi.register_command("count", count, description="Count pluses")

    async def untick(args, ctx):
        ctx.ui.set_widget("ticks", None)

    pi.register_command("untick", untick, description="Take the ticks away")

    class Notice:
        """Takes no keys: Esc closes it."""

        def render(self, width):
            return ["read me"]

    async def peek(args, ctx):
        value = await ctx.ui.custom(lambda tui, theme, keybindings, done: Notice())
        ctx.ui.notify(f"peeked {value}")

    pi.register_command("peek", peek, description="A notice")

    async def textual(args, ctx):
        from textual.widgets import Static

        class Box(Static):  # a widget of the extension's own: Textual's all the same
            pass

        value = await ctx.ui.custom(lambda tui, theme, keybindings, done: Box("only in the app"))
        ctx.ui.notify(f"textual {value}")

    pi.register_command("textual", textual, description="A Textual widget")
'''


def _shown(app, takes_keys: bool) -> list[str]:
    """What the app draws of the served component that does (or does not) take keys."""
    for view in app.screen.query(ComponentLinesView) if takes_keys else app.query(ComponentLinesView):
        if view.can_focus == takes_keys:
            return view.render().plain.splitlines()
    return []


def _widget_width(app) -> int:
    return next(view.size.width for view in app.query(ComponentLinesView) if not view.can_focus)


@pytest.mark.asyncio
async def test_a_served_extensions_components_are_drawn_and_driven_from_the_app(env, loopback, monkeypatch, tmp_path):
    app_environment(env, monkeypatch)
    extension = tmp_path / "counter.py"
    extension.write_text(COUNTER)
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", str(extension))
    try:
        viewer = process.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.ok({"type": "attach", "session": handle})
        app = AttachedApp(process.socket, [], attached=await attached_as_pi_attach_does(process.socket, [handle]))
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, app.ready.is_set)
            from pi_tui.commands.commands import COMMANDS

            assert await until(pilot, lambda: ("count", "Count pluses") in COMMANDS.menu_entries(app.session))
            app.editor.load_text("/count")
            app.editor.move_cursor((0, len("/count")))
            await pilot.press("enter")
            # The component opens in the app, rendered by the server at the width the app shows it.
            assert await until(pilot, lambda: isinstance(app.screen, ExtensionScreen))
            assert await until(pilot, lambda: _shown(app, True)[:1] == ["count 0"])
            view = app.screen.query_one(ComponentLinesView)
            assert _shown(app, True)[1] == "=" * view.size.width
            asked = viewer.wait_event("extension_ui_request", method="custom")
            # Another viewer, narrower, gets its own rendering; both see the same component.
            viewer.send({"type": "extension_ui_component", "session": handle, "id": asked["id"], "width": 7})
            assert viewer.wait_event("extension_ui_render", id=asked["id"], width=7)["lines"] == ["count 0", "======="]
            await pilot.press("+", "+")
            assert await until(pilot, lambda: _shown(app, True)[:1] == ["count 2"])
            # The widget component shows below/above the editor, drawn at the tab's width.
            assert await until(pilot, lambda: _shown(app, False) == [f"ticks 0 at {_widget_width(app)}"])
            await pilot.press("enter")  # the component's done(2): the extension's call returns 2
            resolved = viewer.wait_event("extension_ui_resolved", id=asked["id"])
            assert "cancelled" not in resolved
            assert await until(pilot, lambda: not isinstance(app.screen, ExtensionScreen))
            assert await until(pilot, lambda: any("counted 2" in str(n.message) for n in app._notifications))
            assert await until(pilot, lambda: _shown(app, False) == [f"ticks 5 at {_widget_width(app)}"])
            app.editor.load_text("/untick")
            app.editor.move_cursor((0, len("/untick")))
            await pilot.press("enter")
            assert await until(pilot, lambda: not app.query(ComponentLinesView))  # the widget goes
        viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_components_over_the_protocol_two_viewers_esc_and_what_cannot_be_served(env, loopback, monkeypatch,
                                                                                          tmp_path):
    extension = tmp_path / "counter.py"
    extension.write_text(COUNTER)
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", str(extension))
    try:
        first, second, rpc = process.viewer(), process.viewer(), process.viewer()
        handle = first.ok({"type": "open_session"})["session"]
        for viewer in (first, second):
            viewer.ok({"type": "attach", "session": handle})
        rpc.ok({"type": "attach", "session": handle, "rpc": True})

        def component(viewer, cid, **fields):
            viewer.send({"type": "extension_ui_component", "session": handle, "id": cid, **fields})

        first.send({"type": "prompt", "session": handle, "message": "/count"})
        asked = second.wait_event("extension_ui_request", method="custom")
        component(first, asked["id"], width=12)
        component(second, asked["id"], width=5)
        assert second.wait_event("extension_ui_render", id=asked["id"], width=12)["lines"] == ["count 0", "=" * 12]
        component(second, asked["id"], data="+")  # keys from either viewer reach the one component
        component(first, asked["id"], data="+")
        mark = first.mark()
        component(second, asked["id"], data="+")
        assert first.wait(lambda r: r.get("type") == "extension_ui_render" and r.get("width") == 5
                          and r["lines"][0] == "count 3", start=mark)["lines"] == ["count 3", "====="]
        component(first, asked["id"], data="enter")
        second.wait_event("extension_ui_resolved", id=asked["id"])
        first.wait(lambda r: r.get("method") == "notify" and r.get("message") == "counted 3")
        mark = first.mark()

        # A component that takes no keys closes on Esc; the extension gets None.
        first.send({"type": "prompt", "session": handle, "message": "/peek"})
        peek = first.wait_event("extension_ui_request", method="custom", start=mark)
        component(second, peek["id"], width=30)
        assert first.wait_event("extension_ui_render", id=peek["id"], start=mark)["lines"] == ["read me"]
        component(second, peek["id"], data="escape")
        assert first.wait_event("extension_ui_resolved", id=peek["id"])["cancelled"] is True
        first.wait(lambda r: r.get("method") == "notify" and r.get("message") == "peeked None")

        # A Textual widget cannot cross the socket: the call resolves to None, the error is reported.
        first.send({"type": "prompt", "session": handle, "message": "/textual"})
        first.wait(lambda r: r.get("method") == "notify" and r.get("message") == "textual None")
        first.wait(lambda r: r.get("type") == "extension_error" and "render(width)" in r.get("error", ""))

        # Pi's RPC shape has none of it: a Pi RPC client sees the notifications only.
        rpc.wait(lambda r: r.get("method") == "notify" and r.get("message") == "textual None")
        assert not [r for r in rpc.records if r.get("method") == "custom" or r.get("widgetComponent")
                    or r.get("type") in ("extension_ui_render", "extension_ui_resolved")]
        # Closing the session closes its components (their dispose()).
        first.ok({"type": "close_session", "session": handle})
        assert (Path(env["PI_TEST_PROJECT"]) / "ticks-disposed").exists()
        for viewer in (first, second, rpc):
            viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_a_component_opened_while_nobody_watched_shows_when_the_app_attaches(env, loopback, monkeypatch,
                                                                                     tmp_path):
    app_environment(env, monkeypatch)
    extension = tmp_path / "counter.py"
    extension.write_text(COUNTER)
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", str(extension))
    try:
        viewer = process.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.send({"type": "prompt", "session": handle, "message": "/count"})  # not attached: nobody sees it
        assert await eventually(lambda: viewer.ok({"type": "list_sessions"})["sessions"][0]["status"] == "waiting")
        app = AttachedApp(process.socket, [handle])
        async with app.run_test(size=(100, 30)) as pilot:
            # From the snapshot: the component opens, says its width and gets its lines.
            assert await until(pilot, lambda: isinstance(app.screen, ExtensionScreen))
            assert await until(pilot, lambda: _shown(app, True)[:1] == ["count 0"])
            assert await until(pilot, lambda: _shown(app, False) == [f"ticks 0 at {_widget_width(app)}"])
            await pilot.press("+", "enter")
            assert await until(pilot, lambda: any("counted 1" in str(n.message) for n in app._notifications))
            assert not isinstance(app.screen, ExtensionScreen)
        viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)
