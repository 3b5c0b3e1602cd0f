"""What the app just did is written into the transcript as Pi's status lines (issue #37): model
switches, forks, clones stay findable there instead of vanishing with a toast."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text
from pi_tui.launch import create_app
from pi_tui.transcript.notice import Notice

from .conftest import wait_for
from .test_commands_models import file_session, type_command


def statuses(app) -> list[str]:
    return [str(n.render()) for n in app.transcript.query(Notice) if n.kind == "status"]


async def test_model_switch_fork_and_clone_leave_a_line_in_the_transcript(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    other = ScriptedProvider("other-scripted").model("other-model", name="Other Model")
    session.model_registry.add_model(other)
    provider.push(scripted_text("first answer"))
    await session.prompt("first question")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: statuses(app) == ["Switched to Other Model (thinking: medium)"])
        await pilot.press("ctrl+p")  # a second status right after the first replaces it (Pi)
        assert await wait_for(pilot, lambda: len(statuses(app)) == 1 and statuses(app)[0].startswith("Switched to ")
                              and "Other" not in statuses(app)[0])
        await type_command(pilot, "/clone")
        # The clone rebuilds the view; the line is drawn again after it.
        assert await wait_for(pilot, lambda: statuses(app) == ["Cloned to new session"])
        await type_command(pilot, "/fork")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ForkPicker")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: statuses(app) == ["Forked to new session"]
                              and app.editor.text == "first question")
