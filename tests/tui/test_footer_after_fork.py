"""The footer's token totals follow the session a fork or clone switched to (issue #37: they kept
the old file's totals until a restart)."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.ai.types import Usage
from pi_tui.launch import create_app

from .conftest import wait_for
from .test_commands_models import file_session, type_command


async def test_totals_after_clone_and_fork(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    provider.push(*(scripted_text(f"answer {i}", usage=Usage(input=1000 * (i + 1), output=10)) for i in range(3)))
    await session.prompt("first")
    first_answer = session.session_manager.leaf_id
    await session.prompt("second")
    await session.navigate_tree(first_answer)
    await session.prompt("third, on a branch")  # the file holds three answers, the path two
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        assert session.usage_totals().input == 6000
        assert await wait_for(pilot, lambda: app.footer_bar.stats.input == 6000)
        await type_command(pilot, "/clone")
        assert await wait_for(pilot, lambda: session.usage_totals().input == 4000)  # answers 1 and 3
        assert await wait_for(pilot, lambda: app.footer_bar.stats.input == 4000)
        await type_command(pilot, "/fork")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ForkPicker")
        await pilot.press(*"first", "enter")  # before the first prompt: nothing is kept
        assert await wait_for(pilot, lambda: session.usage_totals().input == 0)
        assert await wait_for(pilot, lambda: app.footer_bar.stats.input == 0)
