"""The ported Pi examples that draw in the app (docs/examples/extensions), driven with Pilot:
the question tool's own dialog and the custom footer."""

from __future__ import annotations

from pathlib import Path

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, started, wait_for, workers_done
from .test_commands_models import type_command

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions"
QUESTION = {"question": "Which colour?", "options": [{"label": "Red", "description": "warm"}, {"label": "Blue"}]}


def question_results(session):
    return [m for m in session.messages if getattr(m, "role", None) == "toolResult"]


async def test_the_question_tool_takes_an_option(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "question.py")], tools="question")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    provider.push(scripted_tool_call("question", QUESTION), scripted_text("Blue it is"))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "ask me")
        assert await wait_for(pilot, lambda: bool(app.screen.query("#question-picker")))
        text = screen_text(app)
        assert "> 1. Red" in text and "warm" in text and "3. Type something." in text
        await pilot.press("down", "enter")
        await settle(pilot, session)
        assert question_results(session)[0].content[0].text == "User selected: 2. Blue"
        assert "✓ 2. Blue" in screen_text(app)


async def test_the_question_tool_takes_a_written_answer_and_esc_goes_back_first(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "question.py")], tools="question")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    provider.push(scripted_tool_call("question", QUESTION), scripted_text("noted"),
                  scripted_tool_call("question", QUESTION), scripted_text("cancelled"))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "ask me")
        assert await wait_for(pilot, lambda: bool(app.screen.query("#question-picker")))
        await pilot.press("down", "down", "enter", *"teal", "escape")  # Esc leaves the text field only
        assert await wait_for(pilot, lambda: app.screen.query("#question-picker") and "Esc to cancel" in screen_text(app))
        await pilot.press("enter", *"Green please", "enter")
        await settle(pilot, session)
        assert question_results(session)[0].content[0].text == "User wrote: Green please"
        await type_command(pilot, "ask again")
        assert await wait_for(pilot, lambda: bool(app.screen.query("#question-picker")))
        await pilot.press("escape")
        await settle(pilot, session)
        assert question_results(session)[1].content[0].text == "User cancelled the selection"
        assert session.extension_runner.reporter.errors == []


async def test_the_custom_footer_shows_usage_and_branch_and_toggles_back(provider, workdir, agent_dir):
    (workdir / ".git").mkdir()
    (workdir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "custom_footer.py")])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/footer")
        await workers_done(pilot)
        assert not app.footer_bar.display and app.screen.query("#usage-footer")
        session.extension_runner.ui.set_status("demo", "STATUS-TEXT")
        await workers_done(pilot)
        assert "STATUS-TEXT" not in screen_text(app)  # statuses belong to pi's footer, as in Pi
        assert "↑0 ↓0 $0.000" in screen_text(app) and "(main)" in screen_text(app)
        provider.push(scripted_text("hello there"))
        await type_command(pilot, "hi")
        await settle(pilot, session)
        assert "↑0 ↓0" not in screen_text(app)  # redrawn with the new usage
        await type_command(pilot, "/footer")
        await workers_done(pilot)
        assert app.footer_bar.display and not app.screen.query("#usage-footer")
        assert "STATUS-TEXT" in screen_text(app)


async def test_github_issue_autocomplete_completes_issues_from_gh(provider, workdir, agent_dir, tmp_path, monkeypatch):
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_gh = bin_dir / "gh"  # a real program on PATH standing in for GitHub's CLI (no network)
    fake_gh.write_text("#!/bin/sh\necho '[{\"number\": 2983, \"title\": \"Autocomplete API\", \"state\": \"OPEN\"},"
                       " {\"number\": 2990, \"title\": \"Fix footer\", \"state\": \"OPEN\"},"
                       " {\"number\": 12, \"title\": \"Crash on start\", \"state\": \"OPEN\"}]'\n")
    fake_gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    subprocess.run(["git", "init", "-q", str(workdir)], check=True)
    subprocess.run(["git", "-C", str(workdir), "remote", "add", "origin", "git@github.com:acme/widgets.git"], check=True)
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "github_issue_autocomplete.py")])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"see #29", "tab")
        assert await wait_for(pilot, lambda: app.menu.is_open and app.menu.kind == "ext")
        assert [c.value for c in app.menu.items] == ["#2983", "#2990"]
        assert "[open] Autocomplete API" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.text == "see #2983 "
        app.editor.set_text("")
        await pilot.press(*"fix #foot", "tab")  # no number: fuzzy over number and title
        assert await wait_for(pilot, lambda: app.menu.is_open and [c.value for c in app.menu.items] == ["#2990"])
        assert session.extension_runner.reporter.errors == []


async def test_template_and_skill_commands_are_listed_once_with_an_extension_loaded(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "dynamic_resources")])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"/dyn")
        assert await wait_for(pilot, lambda: app.menu.is_open and app.menu.kind == "slash")
        values = [c.value for c in app.menu.items]
        assert sorted(values) == sorted(set(values)) and len(values) == 2
