"""Long sessions: only a window of the transcript is mounted, and it moves with the view."""

from __future__ import annotations

from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_runtime.testing.waiting import eventually
from pi_tui.launch import create_app
from pi_tui.transcript.transcript import INITIAL_MESSAGES
from pi_tui.transcript.transcript_window import HIGH_WATER

from .conftest import screen_text, settle


def _long_session(provider, workdir, turns: int):
    manager = SessionManager.in_memory()
    model = provider.model()
    for i in range(turns):
        manager.append_message(UserMessage(content=f"question {i}"))
        manager.append_message(AssistantMessage(content=[TextContent(text=f"answer {i}")], provider=model.provider,
                                                model=model.id, api=model.api, stop_reason="stop"))
    return create_agent_session(cwd=str(workdir), model=model, session_manager=manager,
                                settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))


async def _settle(pilot) -> None:
    """Wait until the transcript's window stops changing: the mounts a scroll scheduled, and the
    scroll kept in place after them, have run when two idle rounds of the app see the same window."""
    transcript = pilot.app.transcript

    def window() -> tuple:
        return (transcript.first_index, transcript.end_index, len(transcript.children), transcript.scroll_y,
                transcript.max_scroll_y)

    seen = None
    for _ in range(500):
        await pilot.pause()
        if window() == seen:
            return
        seen = window()
    raise AssertionError(f"the transcript window kept changing: {window()}")


async def _loaded(pilot, total_messages: int) -> None:
    """The initial window is in: the last screenful, then (after a short delay) the rest."""
    transcript = pilot.app.transcript
    assert await eventually(lambda: transcript.first_index == total_messages - INITIAL_MESSAGES)
    await _settle(pilot)


async def test_resume_mounts_a_window_and_scrolling_up_mounts_more(provider, workdir, agent_dir):
    session = _long_session(provider, workdir, 300)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        # The last screenful first, then (soon after, not in the first frames) the rest.
        await _loaded(pilot, 600)
        assert len(transcript.children) == INITIAL_MESSAGES
        assert transcript.end_index is None
        assert transcript.scroll_y == transcript.max_scroll_y  # at the bottom
        assert "answer 299" in screen_text(app)
        first_before = transcript.first_index
        for _ in range(40):  # until older messages mount (a dozen presses), not a fixed count
            await pilot.press("pageup")
            if transcript.first_index < first_before:
                break
        await _settle(pilot)
        assert transcript.first_index < first_before  # older messages came in near the top
        assert transcript.scroll_y > 0  # ...without yanking the view to the top


async def test_scrolling_end_to_end_keeps_the_window_bounded(provider, workdir, agent_dir):
    session = _long_session(provider, workdir, 600)  # 1,200 messages
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(pilot, 1200)
        transcript = app.transcript
        most = 0
        for _ in range(30):  # about ten rounds reach the top; pressing on at the top proves nothing
            if transcript.first_index == 0 and transcript.scroll_y == 0:
                break
            for _ in range(10):
                await pilot.press("pageup")
            await _settle(pilot)
            most = max(most, len(transcript.children))
        assert transcript.first_index == 0 and transcript.scroll_y == 0  # scrolled all the way up
        assert transcript.end_index is not None  # the newest messages were unmounted...
        assert most <= HIGH_WATER + INITIAL_MESSAGES  # ...so the window stayed bounded

        await pilot.press("ctrl+home")
        await _settle(pilot)
        assert transcript.first_index == 0
        assert "question 0" in screen_text(app)
        assert len(transcript.children) <= HIGH_WATER

        await pilot.press("ctrl+end")
        await _settle(pilot)
        assert transcript.end_index is None
        assert "answer 599" in screen_text(app)


async def test_a_prompt_sent_while_reading_old_history_brings_the_end_back(provider, workdir, agent_dir):
    from pi_runtime.ai.providers.scripted import scripted_text

    session = _long_session(provider, workdir, 600)
    provider.push(scripted_text("fresh answer"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(pilot, 1200)
        await pilot.press("ctrl+home")
        await _settle(pilot)
        assert app.transcript.end_index is not None
        await pilot.press(*"new question", "enter")
        await settle(pilot, session)
        await _settle(pilot)
        assert app.transcript.end_index is None
        text = screen_text(app)
        assert "new question" in text and "fresh answer" in text
