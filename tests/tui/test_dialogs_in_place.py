"""Small dialogs are drawn over the conversation, which stays in sight (issue #37: the "Summarize
the branch?" question blanked the screen behind it; Pi draws it in place)."""

from __future__ import annotations

import pytest

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.dialogs.text_prompt import ConfirmPrompt, TextPrompt
from pi_tui.launch import create_app
from pi_tui.tree.summarize_prompt import SummarizePrompt

from .conftest import screen_text, wait_for


@pytest.mark.parametrize("dialog", [SummarizePrompt, lambda: TextPrompt("Label for abc"),
                                    lambda: ConfirmPrompt("Delete it?")],
                         ids=["summarize", "label", "confirm"])
async def test_the_conversation_stays_in_sight_behind_a_dialog(session, provider, dialog):
    provider.push(scripted_text("An answer worth keeping in sight"))
    await session.prompt("the question asked")
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        assert await wait_for(pilot, lambda: "An answer worth keeping in sight" in screen_text(app))
        screen = dialog()
        app.push_screen(screen)
        assert await wait_for(pilot, lambda: app.screen is screen and screen.is_mounted)
        # Read again until the dialog's first frame is drawn.
        assert await wait_for(pilot, lambda: "the question asked" in screen_text(app)), screen_text(app)
        assert "An answer worth keeping in sight" in screen_text(app)
