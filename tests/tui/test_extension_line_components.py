"""Components of Pi's shape (``render(width)`` → lines, ``handle_input(data)``) in the app that runs
the extension: the same objects an extension shows in ``pi serve``'s viewers
(tests/e2e/test_serve_components.py) show here, in ``ctx.ui.custom`` and as a widget."""

from __future__ import annotations

import textwrap

from pi_tui.extension_ui.component_lines_view import ComponentLinesView
from pi_tui.extension_ui.extension_screen import ExtensionScreen
from pi_tui.launch import create_app

from .conftest import make_session, wait_for
from .test_commands_models import type_command

COUNTER = textwrap.dedent(
    """
    class Counter:
        def __init__(self, tui, done):
            self.tui, self.done, self.count = tui, done, 0

        def render(self, width):
            return [f"count {self.count}", "=" * width]

        def handle_input(self, data):
            if data == "+":
                self.count += 1
            elif data == "enter":
                self.done(self.count)


    class Notice:
        def render(self, width):
            return ["read me"]


    class Ticks:
        def __init__(self, tui):
            self.tui, self.ticks = tui, 0

        def render(self, width):
            return [f"ticks {self.ticks} at {width}"]


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

        async def peek(args, ctx):
            value = await ctx.ui.custom(lambda tui, theme, keybindings, done: Notice())
            ctx.ui.notify(f"peeked {value}")

        pi.register_command("count", count)
        pi.register_command("peek", peek)
    """
)


def _shown(app, takes_keys: bool) -> list[str]:
    for screen in reversed(app.screen_stack):  # the top screen's first
        for view in screen.query(ComponentLinesView):
            if view.can_focus == takes_keys:
                return view.render().plain.splitlines()
    return []


def _widget_width(app) -> int:
    return next(view.size.width for view in app.screen_stack[0].query(ComponentLinesView))


async def test_pi_shaped_components_show_and_take_keys_in_the_app(provider, workdir, agent_dir, tmp_path):
    extension = tmp_path / "counter.py"
    extension.write_text(COUNTER)
    session = make_session(provider, workdir, extensions=[str(extension)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/count")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ExtensionScreen))
        assert await wait_for(pilot, lambda: _shown(app, True)[:1] == ["count 0"])
        view = app.screen.query_one(ComponentLinesView)
        assert _shown(app, True)[1] == "=" * view.size.width
        assert await wait_for(pilot, lambda: _shown(app, False) == [f"ticks 0 at {_widget_width(app)}"])
        await pilot.press("+", "+")
        assert await wait_for(pilot, lambda: _shown(app, True)[:1] == ["count 2"])
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: any("counted 2" in str(n.message) for n in app._notifications))
        assert not isinstance(app.screen, ExtensionScreen)
        # tui.request_render() (the app's) draws the widget again.
        assert await wait_for(pilot, lambda: _shown(app, False) == [f"ticks 5 at {_widget_width(app)}"])
        # A component that takes no keys: Esc closes it, the extension gets None.
        await type_command(pilot, "/peek")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ExtensionScreen) and _shown(app, False) == ["read me"])
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: any("peeked None" in str(n.message) for n in app._notifications))
        assert not session.extension_runner.errors
