"""pi draws on the terminal's own background, as Pi does: a light or custom terminal background
shows through, with no slab of the theme's grey. Backgrounds the theme gives to parts (the
user's message, tool boxes, the selection) stay."""

from __future__ import annotations

import pytest
from rich.color import ColorType

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app

from .conftest import settle


def _screen_rows(app) -> list[tuple[str, set]]:
    """Each row of the composed screen (what is written to the terminal): its text and the
    background colours its cells are drawn with."""
    rows = []
    for line in app.screen._compositor.render_full_update().strips:
        segments = [seg for strip in line for seg in strip]
        colours = {seg.style.bgcolor for seg in segments if seg.style is not None and seg.text.strip(" ") != ""}
        blanks = {seg.style.bgcolor for seg in segments if seg.style is not None and not seg.text.strip(" ")}
        rows.append(("".join(seg.text for seg in segments), colours | blanks))
    return rows


def _painted(colours: set) -> set:
    return {c for c in colours if c is not None and c.type != ColorType.DEFAULT}


@pytest.mark.parametrize("theme", ["dark", "light"])
async def test_the_screen_is_the_terminals_default_background(provider, session, theme):
    provider.push(scripted_text("An answer in plain words."))
    app = create_app(session, static=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.themes.apply(theme)
        await pilot.press(*"question", "enter")
        await settle(pilot, session)
        rows = _screen_rows(app)
        answer = [colours for text, colours in rows if "An answer in plain words." in text]
        assert answer and not _painted(answer[0]), answer
        user = [colours for text, colours in rows if " question " in text]
        assert user and _painted(user[0])  # the user's message keeps the theme's colour
        blank = [colours for text, colours in rows if not text.strip()]
        assert blank and all(not _painted(colours) for colours in blank)
