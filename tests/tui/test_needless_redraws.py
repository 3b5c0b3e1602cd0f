"""Nothing is drawn or parsed twice for nothing: the footer (always two lines) never asks for a layout pass
of the whole screen, an update of the footer or header that changes nothing draws nothing, and the
stylesheet is parsed once at start."""

from __future__ import annotations

import pytest
from textual.widget import Widget

from pi_tui.launch import create_app

from .conftest import caught_up, settle, workers_done


@pytest.fixture
def refreshes(monkeypatch) -> list[tuple[Widget, bool]]:
    """Every ``Widget.refresh`` (Textual's) asked for from now on: (widget, with a layout pass)."""
    seen: list[tuple[Widget, bool]] = []
    original = Widget.refresh

    def recording(self, *regions, repaint=True, layout=False, recompose=False):
        seen.append((self, layout))
        return original(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    monkeypatch.setattr(Widget, "refresh", recording)
    return seen


async def test_footer_changes_are_drawn_without_a_layout_pass(session, refreshes):
    app = create_app(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await workers_done(pilot)
        refreshes.clear()
        footer = app.footer_bar
        footer.set_working(True, "Starting")
        footer._tick()  # the spinner's next frame
        footer.set_model("another-model", "", False)
        await caught_up(pilot)
        assert "another-model" in str(footer.render())
        assert "Starting" in str(footer.render())
        mine = [layout for widget, layout in refreshes if widget is footer]
        assert mine and not any(mine)


async def test_setting_what_is_shown_again_draws_nothing(session, refreshes):
    app = create_app(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await workers_done(pilot)
        header, footer = app.header_bar, app.footer_bar
        refreshes.clear()
        header.set_model(header.model)
        header.set_palette(dict(header.palette))
        footer.set_palette(dict(footer.palette))
        footer.set_stats(footer.stats)
        await caught_up(pilot)
        assert not [widget for widget, _ in refreshes if widget in (header, footer)]


async def test_the_stylesheet_is_parsed_once_before_the_first_frame(session, monkeypatch):
    # pi starts in its "dark" theme: switching to it from Textual's default parsed and applied
    # every stylesheet a second time before anything was drawn.
    from textual.app import App

    reparsed: list[bool] = []
    original = App.refresh_css
    monkeypatch.setattr(App, "refresh_css", lambda self, animate=True: (reparsed.append(True), original(self, animate)))
    app = create_app(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await workers_done(pilot)
        assert app.theme == "dark" and app.current_theme.name == "dark"
        assert app.theme_variables == app.get_css_variables()  # the dark theme's colours, not Textual's
        assert reparsed == []


async def test_a_run_starting_and_ending_restyles_none_of_the_blocks_shown(session, provider, monkeypatch):
    # The scrollbar hides while a run is followed: a class on the transcript re-applied the
    # stylesheet to every block mounted below it, at each run's start and end.
    from textual.css.stylesheet import Stylesheet

    from pi_runtime.ai.providers.scripted import scripted_text

    for answer in ("one", "two", "three"):
        provider.push(scripted_text(f"answer {answer}"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        for question in ("first", "second"):
            await pilot.press(*question, "enter")
            await settle(pilot, session)
        restyled: list[object] = []
        original = Stylesheet.apply

        def recording(self, node, *args, **kwargs):
            restyled.append(node)
            return original(self, node, *args, **kwargs)

        monkeypatch.setattr(Stylesheet, "apply", recording)
        blocks = list(app.transcript.walk_children())
        assert len(blocks) > 4
        app.transcript.set_streaming(True)
        await caught_up(pilot)
        assert app.transcript.scrollbar_hidden
        app.transcript.set_streaming(False)
        await caught_up(pilot)
        assert not app.transcript.scrollbar_hidden
        assert not [node for node in restyled if node in blocks or node is app.transcript]
