"""A compaction that runs just before a prompt shows the prompt once, under the summary (issue #37:
the view was rebuilt from the session's messages after the prompt had joined them, and then the
prompt's own event drew it a second time)."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text
from pi_runtime.ai.types import Usage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app
from pi_tui.transcript.compaction_panel import SummaryPanel
from pi_tui.transcript.user_message import UserMessage

from .conftest import wait_for

WORDS = "lorem ipsum dolor sit amet " * 80  # about 540 estimated tokens


async def test_the_prompt_after_a_compaction_is_drawn_once(workdir, agent_dir):
    provider = ScriptedProvider("small-window")
    session = create_agent_session(
        cwd=str(workdir), model=provider.model(context_window=20_000, max_tokens=2048),
        session_manager=SessionManager.in_memory(),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False, "keepRecentTokens": 1000}}))
    provider.push(scripted_text(f"first answer {WORDS}", usage=Usage(input=1_000, output=100)),
                  scripted_text(f"second answer {WORDS}", usage=Usage(input=6_000, output=100)))
    await session.prompt(f"first question {WORDS}")
    await session.prompt(f"second question {WORDS}")
    session.set_auto_compaction(True)  # now over the threshold: the next prompt compacts first
    provider.push(scripted_text("## Goal\nthe summary"), scripted_text("third answer"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await session.wait_for_idle()
        await pilot.press(*"third question", "enter")
        assert await wait_for(pilot, lambda: any(isinstance(w, SummaryPanel) for w in app.transcript.children)
                              and "third answer" in (session.get_last_assistant_text() or ""))
        await session.wait_for_idle()
        assert await wait_for(pilot, lambda: not app.transcript.window._loading.locked())

        def shown_prompts() -> list[str]:
            return [str(w.render()) for w in app.transcript.query(UserMessage) if "third question" in str(w.render())]

        assert await wait_for(pilot, lambda: len(shown_prompts()) >= 1)
        assert shown_prompts() == ["third question"]
