"""``/reload`` reads settings.json again, as Pi's does (issue #37): what the session keeps from it
(automatic compaction, queue modes, retry) and what the app shows from it (theme, padding, folded
thinking) follow the file without a restart."""

from __future__ import annotations

import json

from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app

from .conftest import screen_text, wait_for


async def test_reload_applies_the_edited_settings_file(provider, workdir, agent_dir):
    settings_file = agent_dir / "settings.json"
    settings_file.write_text(json.dumps({"compaction": {"enabled": True}}))
    session = create_agent_session(cwd=str(workdir), agent_dir=str(agent_dir), model=provider.model(),
                                   session_manager=SessionManager.in_memory(),
                                   settings=SettingsManager.create(str(workdir), str(agent_dir)))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        assert await wait_for(pilot, lambda: "(auto)" in screen_text(app))
        settings_file.write_text(json.dumps({
            "compaction": {"enabled": False}, "steeringMode": "all", "retry": {"maxRetries": 7},
            "theme": "light", "hideThinkingBlock": True, "editorPaddingX": 2}))
        await pilot.press(*"/reload", "enter")
        assert await wait_for(pilot, lambda: "Reloaded settings" in screen_text(app))
        assert not session.auto_compaction_enabled and "(auto)" not in screen_text(app)
        assert session.agent.steering_mode == "all" and session.retry_policy.max_retries == 7
        assert app.theme == "light" and app.transcript.thinking_collapsed
        assert app.editor.styles.padding.left == 3
