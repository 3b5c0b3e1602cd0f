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

from .conftest import screen_text


def _long_session(provider, workdir, turns: int):
    manager = SessionManager.in_memory()
    model = provider.model()
    for i in range(turns):
        manager.append_message(UserMessage(content=f"question {i}"))
        manager.append_message(AssistantMessage(content=[TextContent(text=f"answer {i}")], provider=model.provider,
                                                model=model.id, api=model.api, stop_reason="stop"))
    return create_agent_session(cwd=str(workdir), model=model, session_manager=manager,
                                settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))


async def _settle(pilot, rounds: int = 3) -> None:
    for _ in range(rounds):
        await pilot.pause(0.1)


async def test_resume_mounts_a_window_and_scrolling_up_mounts_more(provider, workdir, agent_dir):
    session = _long_session(provider, workdir, 300)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        # The last screenful first, then (soon after, not in the first frames) the rest.
        assert await eventually(lambda: transcript.first_index == 600 - INITIAL_MESSAGES)
        await _settle(pilot)
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
        await _settle(pilot)
        transcript = app.transcript
        most = 0
        for _ in range(30):  # about ten rounds reach the top; pressing on at the top proves nothing
            if transcript.first_index == 0 and transcript.scroll_y == 0:
                break
            for _ in range(10):
                await pilot.press("pageup")
            await _settle(pilot, 1)
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
        await _settle(pilot)
        await pilot.press("ctrl+home")
        await _settle(pilot)
        assert app.transcript.end_index is not None
        await pilot.press(*"new question", "enter")
        await session.wait_for_idle()
        await _settle(pilot)
        assert app.transcript.end_index is None
        text = screen_text(app)
        assert "new question" in text and "fresh answer" in text
