"""The app shows what the kernel reports about the session file: lines skipped when it was opened."""

from __future__ import annotations

from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app


async def test_skipped_and_torn_lines_become_notifications(provider, workdir, agent_dir, tmp_path):
    writer = SessionManager.create(str(workdir), tmp_path / "sessions")
    writer.append_message(UserMessage(content="hello"))
    writer.append_message(AssistantMessage(content=[TextContent(text="hi")], api="x", provider="p", model="m"))
    writer.close()
    path = writer.session_file
    with open(path, "ab") as fh:
        fh.write(b"garbage\n{\"type\":\"message\",\"id\":\"torn\"")
    session = create_agent_session(
        cwd=str(workdir), model=provider.model(), session_manager=SessionManager.open(path),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}}),
    )
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.pause()
        messages = [str(n.message) for n in app._notifications]
    assert f"{path}: last line is incomplete (29 bytes), ignored" in messages
    assert any(m.startswith(f"{path}: skipped 1 malformed line(s) (line ") for m in messages)
    assert session.take_session_notices() == []  # shown once
