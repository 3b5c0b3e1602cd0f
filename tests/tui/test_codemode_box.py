"""A ``codemode`` call in the transcript, drawn as Pi 1.6 draws it: the script under the title, the
tool calls it made with their marks and times, the output without the "Script completed" header,
and how long it took; Ctrl+O shows the long parts whole."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, started, wait_for

SCRIPT = "\n".join([
    'const a = await tools.read({ path: "a.txt" });',
    'await tools.read({ path: "missing.txt" }).catch(() => null);',
    *[f"// note {i}" for i in range(12)],
    "text(a);",
    'return "x\\n".repeat(9);',
])


async def test_the_script_its_calls_and_its_output(provider, workdir, agent_dir):
    (workdir / "a.txt").write_text("alpha\n")
    session = make_session(provider, workdir, tools="read,codemode")
    provider.push(scripted_tool_call("codemode", {"code": SCRIPT}, id="cm1"), scripted_text("done"))
    app = create_app(session, static=True)
    async with app.run_test(size=(110, 50)) as pilot:
        await started(pilot)
        await pilot.press(*"go", "enter")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "done" in screen_text(app))
        text = screen_text(app)
        assert "codemode {" not in text  # the script is drawn, not its JSON
        # (the highlighted script's spaces are separate spans, which the screenshot's text loses)
        assert 'consta=awaittools.read({path:"a.txt"});' in text.replace(" ", "")
        assert "// note 7" in text and "// note 8" not in text  # ten lines, then a hint
        assert "… (6 more lines, ctrl+o to expand)" in text
        assert '✓ read {"path":"a.txt"}' in text and '✗ read {"path":"missing.txt"}' in text
        assert "Script completed" not in text and "Wall time" not in text
        assert "alpha" in text and "Took " in text
        assert [box.call_id for box in app.query("ToolBox")] == ["cm1"]  # no box per nested call
        await pilot.press("ctrl+o")
        assert await wait_for(pilot, lambda: "// note 11" in screen_text(app))
        assert "File not found" in screen_text(app)  # the failed call's error, expanded
