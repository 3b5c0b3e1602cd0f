"""/fork, /clone, /compact, /new, /name, /session, /export, /tree, /resume and double Esc,
driven through the real app on file-backed sessions; checked on the kernel and the files."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app

from .conftest import screen_text, settle, wait_for, workers_done
from .test_commands_models import entries, file_session, type_command


async def converse(pilot, session, provider, prompts: list[str]) -> None:
    for i, text in enumerate(prompts):
        provider.push(scripted_text(f"answer {i + 1}"))
        await type_command(pilot, text)
        await settle(pilot, session)


async def test_fork_picker_creates_a_session_with_the_history_before_the_message(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await converse(pilot, session, provider, ["first question", "second question", "third question"])
        old_file = session.session_file
        await type_command(pilot, "/fork")
        text = screen_text(app)
        assert "Fork from an earlier message" in text and "second question" in text
        app.screen.query_one("#picker-filter").value = "second"
        await pilot.pause()
        await pilot.press("enter")
        await workers_done(pilot)
        assert app.editor.text == "second question"
        assert session.session_file != old_file
        users = [m.content[0].text for m in session.messages if getattr(m, "role", "") == "user"]
        assert users == ["first question"]
    header = json.loads(Path(session.session_file).read_text().splitlines()[0])
    assert header["parentSession"] == old_file


async def test_clone_duplicates_the_branch_into_a_new_file(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await converse(pilot, session, provider, ["one", "two"])
        old_file = session.session_file
        await type_command(pilot, "/clone")
        await workers_done(pilot)
        assert session.session_file != old_file and Path(session.session_file).exists()
        assert "answer 2" in screen_text(app)
    old_messages = [e["message"]["content"] for e in entries_of(old_file) if e["type"] == "message"]
    new_messages = [e["message"]["content"] for e in entries(session) if e["type"] == "message"]
    assert new_messages == old_messages


def small_keep(agent_dir: Path) -> None:
    """Settings that let a short conversation be compacted (little recent context kept)."""
    (agent_dir / "settings.json").write_text(json.dumps({"compaction": {"enabled": False, "keepRecentTokens": 50}}))


def entries_of(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()[1:] if line.strip()]


async def test_compact_shows_collapsed_summary_with_tokens_and_ctrl_o_expands(provider, workdir, agent_dir):
    small_keep(agent_dir)
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    summary = "\n".join(f"Summary line {i}" for i in range(1, 9))
    async with app.run_test(size=(100, 40)) as pilot:
        await converse(pilot, session, provider, ["x " * 150, "y " * 150, "z " * 150])
        provider.push(scripted_text(summary))
        await type_command(pilot, "/compact focus on z")
        await settle(pilot, session)
        assert any(e["type"] == "compaction" for e in entries(session))
        text = screen_text(app)
        tokens = next(e for e in entries(session) if e["type"] == "compaction")["tokensBefore"]
        assert "[compaction]" in text and f"Compacted from {tokens:,} tokens (ctrl+o to expand)" in text
        assert "Summary line 1" not in text  # one line while collapsed, as in Pi
        assert "Compacted: " in text and "→" in text
        # As Pi shows it then: the kept turn first, the summary below it where it happened.
        assert text.index("z z z") < text.index("[compaction]")
        context, _options = provider.requests[-1]
        assert "focus on z" in json.dumps(context.to_wire())
        await pilot.press("ctrl+o")
        await workers_done(pilot)
        assert "Summary line 1" in screen_text(app) and "Summary line 8" in screen_text(app)


async def test_a_branch_summary_is_one_line_until_expanded(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    summary = "\n".join(f"Branch line {i}" for i in range(1, 12))  # one line each: fits the screen expanded
    async with app.run_test(size=(100, 40)) as pilot:
        await converse(pilot, session, provider, ["first question", "second question"])
        first_answer = [e["id"] for e in entries(session) if e["type"] == "message"
                        and e["message"]["role"] == "assistant"][0]
        provider.push(scripted_text(summary))
        await session.navigate_tree(first_answer, summarize=True)
        await settle(pilot, session)
        text = screen_text(app)
        assert "[branch]" in text and "Branch summary (ctrl+o to expand)" in text
        assert "Branch line 1" not in text
        panel = app.transcript.query(".panel-branch").first()
        await pilot.click(panel)
        await workers_done(pilot)
        assert "Branch Summary" in screen_text(app) and "Branch line 1" in screen_text(app)


async def test_compact_error_is_shown_and_esc_cancels_a_running_compaction(provider, workdir, agent_dir):
    from pi_runtime.ai.providers.scripted import scripted_text as text_reply

    small_keep(agent_dir)
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/compact")
        await settle(pilot, session)
        assert "Compaction failed: Nothing to compact" in screen_text(app)
        assert "Compacting context" not in screen_text(app)  # the status line became the outcome (Pi)
        await converse(pilot, session, provider, ["x " * 150, "y " * 150, "z " * 150])
        provider.push(text_reply("never", hang=True))
        await type_command(pilot, "/compact")
        assert await wait_for(pilot, lambda: session.is_compacting)
        await pilot.press("escape")
        await settle(pilot, session)
        assert not session.is_compacting
        assert "Compaction cancelled" in screen_text(app) and "Compacting context" not in screen_text(app)
        assert not any(e["type"] == "compaction" for e in entries(session))


async def test_new_name_session_and_export(provider, workdir, agent_dir, tmp_path):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 36)) as pilot:
        await converse(pilot, session, provider, ["hello there"])
        await type_command(pilot, "/name my work")
        await pilot.pause()
        assert session.session_name == "my work"
        await type_command(pilot, "/session")
        text = str(app.transcript.children[-1].content)  # long paths wrap on screen
        assert session.session_file in text and session.session_id in text
        assert "1 user, 1 assistant" in text and "my work" in text
        out = tmp_path / "out.html"
        await type_command(pilot, f"/export {out}")
        from pi_runtime.kernel.export_html import decode_session_data  # the page embeds the session file

        assert "hello there" in json.dumps(decode_session_data(out.read_text())["entries"])
        first = session.session_file
        await type_command(pilot, "/new")
        await workers_done(pilot)
        assert session.session_file != first and not [m for m in session.messages if m.role == "user"]
        assert "hello there" not in screen_text(app)


async def test_double_escape_opens_the_tree_and_navigation_puts_text_back(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await converse(pilot, session, provider, ["alpha", "beta"])
        await pilot.press("escape", "escape")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "TreeBrowser")
        browser = app.screen
        target = next(i for i, r in enumerate(browser.tree_rows.rows) if r.text.endswith("beta") or "beta" in r.text)
        entry_id = browser.tree_rows.rows[target].entry_id
        browser.dismiss(entry_id)
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "SummarizePrompt")
        await pilot.press("enter")  # "No summary"
        await settle(pilot, session)
        assert app.editor.text == "beta"
        users = [m.content[0].text for m in session.messages if getattr(m, "role", "") == "user"]
        assert users == ["alpha"]
        assert "answer 2" not in screen_text(app)


async def test_resume_switches_to_the_chosen_session(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 30)) as pilot:
        await converse(pilot, session, provider, ["the old conversation"])
        old = session.session_file
        await type_command(pilot, "/new")
        await workers_done(pilot)
        await converse(pilot, session, provider, ["the new one"])
        await type_command(pilot, "/resume")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "SessionPicker")
        app.screen.dismiss(old)
        await workers_done(pilot)
        assert session.session_file == old
        assert "the old conversation" in screen_text(app)
    assert Path(old).exists()


async def test_retries_that_all_fail_end_with_one_line_below_the_last_error(provider, workdir, agent_dir):
    """Pi's order: each attempt's error, then "Error: Retry failed after N attempts: …" last."""
    from pi_runtime.ai.providers.scripted import scripted_error
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    settings = SettingsManager.in_memory({"compaction": {"enabled": False},
                                          "retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 1}})
    session = create_agent_session(cwd=str(workdir), model=provider.model(), session_manager=SessionManager.in_memory(),
                                   settings=settings)
    for _ in range(3):
        provider.push(scripted_error("503 service unavailable"))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "hello")
        await settle(pilot, session)
        lines = [line.strip() for line in screen_text(app).splitlines() if line.strip()]
        failed = [i for i, line in enumerate(lines) if line.startswith("Error: Retry failed after 2 attempts: 503")]
        errors = [i for i, line in enumerate(lines) if "503 service unavailable" in line and i not in failed]
        assert len(failed) == 1 and errors and failed[0] > max(errors)
        assert not any(line.startswith("Retrying in") for line in lines)


@asynccontextmanager
async def left_working(provider, workdir, agent_dir, done: str, working: str):
    """The app on a file session where ``done`` was answered and ``working`` was sent to a model
    that never finishes: a run under way. Yields (session, app, pilot)."""
    from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText

    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await converse(pilot, session, provider, [done])
        provider.push(ScriptedResponse([ScriptedText("still going")], hang=True))
        await type_command(pilot, working)
        assert await wait_for(pilot, lambda: session.is_streaming)
        yield session, app, pilot


async def test_tree_opens_while_the_agent_works_and_moving_stops_the_run(provider, workdir, agent_dir):
    # As Pi 1.6: /tree is not refused while a run streams; moving to another entry stops the run.
    async with left_working(provider, workdir, agent_dir, "alpha", "beta") as (session, app, pilot):
        await type_command(pilot, "/tree")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "TreeBrowser")
        browser = app.screen
        alpha = next(r.entry_id for r in browser.tree_rows.rows if "alpha" in r.text)
        browser.dismiss(alpha)
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "SummarizePrompt")
        await pilot.press("enter")  # "No summary"
        await settle(pilot, session)
        assert not session.is_streaming
        assert app.editor.text == "alpha"
        assert [m.content[0].text for m in session.messages if getattr(m, "role", "") == "user"] == []


async def test_fork_while_the_agent_works_stops_the_run_then_forks(provider, workdir, agent_dir):
    # As Pi 1.6: /fork's picker opens during a run; choosing a message stops the run first.
    async with left_working(provider, workdir, agent_dir, "first question", "second question") as (session, app, pilot):
        old_file = session.session_file
        await type_command(pilot, "/fork")
        assert "Fork from an earlier message" in screen_text(app)
        app.screen.query_one("#picker-filter").value = "second"
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot, session)
        assert not session.is_streaming
        assert app.editor.text == "second question" and session.session_file != old_file


async def test_clone_while_the_agent_works_stops_the_run_then_clones(provider, workdir, agent_dir):
    # As Pi 1.6: /clone during a run stops it, then clones (pi failed: "Wait for the agent to finish").
    async with left_working(provider, workdir, agent_dir, "one", "two") as (session, app, pilot):
        old_file = session.session_file
        await type_command(pilot, "/clone")
        await settle(pilot, session)
        assert not session.is_streaming
        assert session.session_file != old_file
        assert "failed" not in screen_text(app)
    # The clone holds the stopped run as the old file does (Pi's aborted entry included).
    old_messages = [e["message"]["content"] for e in entries_of(old_file) if e["type"] == "message"]
    assert [e["message"]["content"] for e in entries(session) if e["type"] == "message"] == old_messages


async def test_fork_picker_lists_messages_as_pi_does_and_up_goes_back_in_time(provider, workdir, agent_dir):
    # Pi's "Fork from Message": oldest at the top, the cursor on the newest; Up goes to older ones.
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await converse(pilot, session, provider, ["first question", "second question", "third question"])
        await type_command(pilot, "/fork")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ForkPicker")
        text = screen_text(app)
        assert text.index("first question") < text.index("second question") < text.index("third question")
        assert await wait_for(pilot, lambda: app.screen.highlighted_item is not None)
        assert "third question" in app.screen.highlighted_item.search
        await pilot.press("up")
        assert await wait_for(pilot, lambda: "second question" in app.screen.highlighted_item.search)
        await pilot.press("enter")
        await workers_done(pilot)
        assert app.editor.text == "second question"
