"""A tool box drawn again from the session (a resume, a rebuild) still says how long the tool
took (issue #37: "Took 0.1s" was only on the live box; Pi keeps durationMs on the result)."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_tui.launch import create_app

from .conftest import screen_text, wait_for


async def test_took_line_after_a_rebuild(session, provider):
    provider.push(scripted_tool_call("bash", {"command": "echo hi"}, id="b1"), scripted_text("ran it"))
    await session.prompt("run echo")
    [result] = [m for m in session.messages if getattr(m, "role", None) == "toolResult"]
    assert result.duration_ms is not None  # stored on the message, as Pi stores durationMs
    app = create_app(session, static=True)  # drawn from the session's history
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        assert await wait_for(pilot, lambda: "Took " in screen_text(app))
