"""The main screen lays out again on a Resize only when the size changed (``terminal/steady_screen.py``)."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

from pi_runtime.testing.waiting import eventually
from pi_tui.terminal.steady_screen import SteadyScreen


class _Counting(App):
    def __init__(self, steady: bool) -> None:
        super().__init__()
        self.steady = steady
        self.layouts = 0

    def get_default_screen(self) -> Screen:
        return SteadyScreen(id="_default") if self.steady else super().get_default_screen()

    def compose(self) -> ComposeResult:
        yield Static("text", id="text")

    def on_mount(self) -> None:
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

    def _laid_out(self, screen: object) -> None:
        self.layouts += 1


async def _layouts_for_a_same_size_resize(steady: bool) -> int:
    app = _Counting(steady)
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        laid_out = app.layouts
        app.screen.post_message(events.Resize(Size(40, 8), Size(40, 8)))  # as the terminal driver's first report
        await pilot.pause()
        await pilot.pause()
        same = app.layouts - laid_out
        await pilot.resize_terminal(60, 10)  # a real change is laid out
        assert await eventually(lambda: app.query_one("#text").size.width == 60)
    return same


async def test_a_resize_to_the_same_size_is_not_laid_out_again_and_a_new_size_is():
    assert await _layouts_for_a_same_size_resize(steady=False) == 1  # Textual's screen: a full layout for nothing
    assert await _layouts_for_a_same_size_resize(steady=True) == 0


async def test_pis_app_draws_on_the_steady_screen(session):
    from pi_tui.launch import create_app

    app = create_app(session, static=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SteadyScreen)
        await pilot.resize_terminal(100, 30)
        assert await eventually(lambda: app.footer_bar.region.width == 100), app.footer_bar.region
