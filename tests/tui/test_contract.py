"""The kernel/app seam as a user meets it: one input path, one usage ledger, the kernel's lifecycle.

Each test drives the real app (Pilot) on a real session and checks what the screen shows
against what the session file holds.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from pi_runtime.ai.providers.scripted import ScriptedProvider, ScriptedResponse, ScriptedText, scripted_text
from pi_runtime.ai.types import Usage
from pi_runtime.testing.waiting import eventually
from pi_tui.footer.figures import format_cost, format_tokens
from pi_tui.launch import create_app

from .conftest import caught_up, make_session, settle, started, wait_for, workers_done
from .test_commands_models import entries, file_session, type_command
from .test_commands_session import small_keep

PRICED = Usage(input=1200, output=300)


def footer_text(app) -> str:
    return str(app.footer_bar.render())


def file_totals(session) -> tuple[int, int, float]:
    """Input and output tokens and cost summed over every entry of the session file (all branches, summaries)."""
    lines = Path(session.session_file).read_text().splitlines()[1:]
    total_in = total_out = 0
    cost = 0.0
    for entry in map(json.loads, lines):
        usage = (entry.get("message") or {}).get("usage") if entry["type"] == "message" else entry.get("usage")
        if isinstance(usage, dict):
            total_in += usage.get("input", 0)
            total_out += usage.get("output", 0)
            cost += usage.get("cost", {}).get("total", 0)
    return total_in, total_out, cost


async def test_an_extension_command_typed_while_the_agent_streams_runs(provider, workdir, agent_dir, tmp_path):
    marker = tmp_path / "ran.txt"
    ext = tmp_path / "note.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            async def note(args, ctx):
                open({str(marker)!r}, "a").write(args + "\\n")
            pi.register_command("note", note, description="Write a note")
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    provider.push(ScriptedResponse([ScriptedText("working on it")], hang=True))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "start the work")
        assert await wait_for(pilot, lambda: session.is_streaming)
        await type_command(pilot, "/note typed mid-run")
        await workers_done(pilot)
        assert marker.read_text() == "typed mid-run\n"
        assert session.steering_texts == [] and session.follow_up_texts == []  # not sent to the model
        await session.abort()
    assert len(provider.requests) == 1


async def test_footer_totals_count_the_whole_file_after_tree_and_compact(provider, workdir, agent_dir):
    small_keep(agent_dir)
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 30)) as pilot:
        for text in ("x " * 150, "y " * 150, "z " * 150):
            provider.push(ScriptedResponse([ScriptedText("answer " + text[:1])], usage=PRICED))
            await type_command(pilot, text)
            await settle(pilot, session)
        # Back to the second question: the branch now holds one answer, the file three.
        second_user = [e["id"] for e in entries(session) if e["type"] == "message"
                       and e["message"]["role"] == "user"][1]
        await session.navigate_tree(second_user)
        await caught_up(pilot)
        total_in, total_out, cost = file_totals(session)
        assert (total_in, total_out) == (3600, 900) and cost > 0
        assert f"↑{format_tokens(total_in)} ↓{format_tokens(total_out)} {format_cost(cost)}" in footer_text(app)
        # A compaction's own summary call counts too.
        provider.push(ScriptedResponse([ScriptedText("## Goal\nsummary")], usage=PRICED))
        provider.push(scripted_text("answer again"))
        await type_command(pilot, "w " * 150)
        await settle(pilot, session)
        await type_command(pilot, "/compact")
        await settle(pilot, session)
        assert any(e["type"] == "compaction" for e in entries(session))
        total_in, total_out, cost = file_totals(session)
        assert total_in > 3600
        assert f"↑{format_tokens(total_in)} ↓{format_tokens(total_out)} {format_cost(cost)}" in footer_text(app)


async def test_context_window_follows_a_model_switch_at_once(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    small = ScriptedProvider("small-local").model("tiny", context_window=32_000)
    session.model_registry.add_model(small)
    provider.push(scripted_text("hello"))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 30)) as pilot:
        await type_command(pilot, "hi")
        await settle(pilot, session)
        assert "/200k" in footer_text(app)
        await type_command(pilot, f"/model {small.ref}")
        await workers_done(pilot)
        assert "/32k" in footer_text(app) and "/200k" not in footer_text(app)


async def test_quitting_the_app_fires_session_shutdown_once(provider, workdir, agent_dir, tmp_path):
    log = tmp_path / "shutdown.log"
    ext = tmp_path / "on_exit.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            def on_shutdown(event, ctx):
                open({str(log)!r}, "a").write(event.type + "\\n")
            pi.on("session_shutdown", on_shutdown)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press("ctrl+d")  # quit with an empty editor
        assert await eventually(lambda: not app.is_running)
        assert not app.is_running
    assert log.read_text() == "session_shutdown\n"
