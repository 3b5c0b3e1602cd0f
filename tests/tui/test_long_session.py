"""Long sessions: only a window of the transcript is mounted; scrolling up mounts more."""

from __future__ import annotations

from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app
from pi_tui.widgets.transcript import INITIAL_MESSAGES, REMOUNT_MESSAGES


async def test_resume_mounts_a_window_and_scrolling_up_mounts_more(provider, workdir, agent_dir):
    manager = SessionManager.in_memory()
    model = provider.model()
    for i in range(300):
        manager.append_message(UserMessage(content=f"question {i}"))
        manager.append_message(AssistantMessage(content=[TextContent(text=f"answer {i}")], provider=model.provider,
                                                model=model.id, api=model.api, stop_reason="stop"))
    session = create_agent_session(cwd=str(workdir), model=model, session_manager=manager,
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
    assert len(session.messages) == 600
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        transcript = app.transcript
        assert transcript.first_index == 600 - INITIAL_MESSAGES
        assert len(transcript.children) == INITIAL_MESSAGES
        assert transcript.scroll_y == transcript.max_scroll_y  # at the bottom
        await pilot.press("ctrl+home")
        await pilot.pause(0.3)
        assert transcript.first_index == 600 - INITIAL_MESSAGES - REMOUNT_MESSAGES
        assert len(transcript.children) == INITIAL_MESSAGES + REMOUNT_MESSAGES
        assert transcript.scroll_y > 0  # the view stayed on what the user was reading
