"""Steering, follow-ups, dequeue, abort, completion, history, pastes, themes and keybindings."""

from __future__ import annotations

import json

from textual import events

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText, scripted_text
from pi_tui.launch import create_app
from pi_tui.transcript.notice import Notice

from .conftest import make_session, screen_text, settle, wait_for


def user_texts(provider, request: int) -> list[str]:
    context, _ = provider.requests[request]
    out = []
    for m in context.messages:
        if m.role == "user":
            out.append(m.content if isinstance(m.content, str) else "".join(b.text for b in m.content if b.type == "text"))
    return out


async def wait_streaming(pilot, session) -> None:
    if await wait_for(pilot, lambda: session.is_streaming):
        return
    raise AssertionError(f"the run never started: {len(session.messages)} messages, {screen_text(pilot.app)[-800:]}")


async def test_steer_while_streaming_reaches_the_next_request(provider, session):
    provider.push(scripted_text("word " * 60, first_delay=1.0), scripted_text("Steered answer."))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"start", "enter")
        await wait_streaming(pilot, session)
        app.editor.insert("change course")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: "change course" in screen_text(app) and "steer" in screen_text(app))
        await settle(pilot, session)
        assert len(provider.requests) == 2
        assert user_texts(provider, 1) == ["start", "change course"]
        assert not app.queue_view.display


async def test_follow_up_with_alt_enter(provider, session):
    provider.push(scripted_text("first " * 30, first_delay=1.0), scripted_text("second"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await wait_streaming(pilot, session)
        app.editor.insert("and then this")
        await pilot.press("alt+enter")
        assert await wait_for(pilot, lambda: session.follow_up_texts == ["and then this"])
        assert "follow-up" in screen_text(app)
        await settle(pilot, session)
        assert user_texts(provider, 1)[-1] == "and then this"


async def test_alt_up_dequeues_into_editor_and_esc_aborts(provider, session):
    provider.push(ScriptedResponse([ScriptedText("thinking about it")], hang=True))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"work", "enter")
        await wait_streaming(pilot, session)
        await pilot.press(*"steer one", "enter")
        await pilot.press(*"later two", "alt+enter")
        assert await wait_for(pilot, lambda: session.steering_texts == ["steer one"]
                              and session.follow_up_texts == ["later two"])
        await pilot.press("alt+up")
        assert await wait_for(pilot, lambda: app.editor.text == "steer one\n\nlater two")
        assert session.steering_texts == [] and session.follow_up_texts == []
        # Queue again, then Esc: the run stops and the queued text comes back to the editor.
        app.editor.take_text()
        await pilot.press(*"queued again", "enter")
        assert await wait_for(pilot, lambda: session.steering_texts == ["queued again"])
        await pilot.press("escape")
        await settle(pilot, session)
        assert not session.is_streaming
        assert app.editor.text == "queued again"
        assert any(n.kind == "error" and str(n.render()) == "Operation aborted" for n in app.query(Notice))
        assert len(provider.requests) == 1


async def test_slash_completion_lists_commands_and_templates(provider, workdir, agent_dir):
    prompts = agent_dir / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review the diff\n---\nReview $1", encoding="utf-8")
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("/", "m", "o")
        await pilot.pause()
        assert app.menu.is_open and app.menu.items[0].value == "/model"
        assert "Select a model" in screen_text(app)
        await pilot.press("tab")
        assert app.editor.text == "/model "
        assert not app.menu.is_open
        app.editor.take_text()
        await pilot.press("/", "r", "e", "v")
        await pilot.pause()
        labels = [i.value for i in app.menu.items]
        assert "/review" in labels
        assert "Review the diff" in screen_text(app)


async def test_at_file_completion_respects_gitignore(provider, workdir, agent_dir):
    (workdir / ".gitignore").write_text("secret*\n", encoding="utf-8")
    (workdir / "src").mkdir()
    (workdir / "src" / "reader.py").write_text("x", encoding="utf-8")
    (workdir / "secret_reader.txt").write_text("x", encoding="utf-8")
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"look at @read")
        await app.workers.wait_for_complete()
        await pilot.pause()
        values = [i.value for i in app.menu.items]
        assert "@src/reader.py" in values
        assert not any("secret" in v for v in values)
        await pilot.press("enter")
        assert app.editor.text == "look at @src/reader.py "
        assert not provider.requests  # enter picked the completion, it did not send


async def test_history_and_large_paste(provider, session):
    provider.push(scripted_text("a"), scripted_text("b"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"first prompt", "enter")
        await settle(pilot, session)
        await pilot.press("up")
        assert app.editor.text == "first prompt"
        await pilot.press("down")
        assert app.editor.text == ""
        pasted = "\n".join(f"row {i}" for i in range(1200))
        app.editor.post_message(events.Paste(pasted))
        await pilot.pause()
        assert app.editor.text == "[paste #1 +1200 lines]"
        await pilot.press("enter")
        await settle(pilot, session)
        assert user_texts(provider, 1)[-1] == pasted


def test_paste_markers_are_worded_as_pis() -> None:
    from pi_tui.editor.paste import is_large, marker

    eleven_lines = "\n".join(["row"] * 11)
    assert marker(eleven_lines, 1) == "[paste #1 +11 lines]"
    three_long_lines = "\n".join(["x" * 500] * 3)  # more than 1,000 characters on few lines: counted in characters
    assert is_large(three_long_lines) and marker(three_long_lines, 2) == "[paste #2 1502 chars]"
    assert not is_large("\n".join(["row"] * 10))


async def test_theme_switch_and_invalid_user_theme(provider, workdir, agent_dir):
    themes = agent_dir / "themes"
    themes.mkdir()
    (themes / "broken.json").write_text(json.dumps({"name": "broken", "colors": {"accent": "#fff"}}), encoding="utf-8")
    session = make_session(provider, workdir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "dark"
        assert any("missing colour token" in e for e in app.themes.errors)
        dark_bg = app.theme_variables["pi-user-message-bg"]
        await pilot.press(*"/settings theme light", "enter")
        await pilot.pause()
        assert app.theme == "light"
        assert app.theme_variables["pi-user-message-bg"] != dark_bg
        assert app.themes.apply("broken") is False and app.theme == "dark"


async def test_keybinding_override_from_agent_dir(provider, workdir, agent_dir):
    (agent_dir / "keybindings.json").write_text(json.dumps({"app.tools.expand": "ctrl+y",
                                                            "app.message.followUp": ["ctrl+q"]}), encoding="utf-8")
    # The first answer stalls until aborted: the follow-up key must find the run still going
    # however slow the machine (a loaded run saw a second's stream end before Ctrl+Q arrived).
    provider.push(scripted_text("slow " * 40, hang=True), scripted_text("done"))
    session = make_session(provider, workdir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+o")
        assert app.transcript.tools_expanded is False
        await pilot.press("ctrl+y")
        assert app.transcript.tools_expanded is True
        await pilot.press(*"go", "enter")
        await wait_streaming(pilot, session)
        app.editor.insert("queued")
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: session.follow_up_texts == ["queued"])
        await session.abort()
        await settle(pilot, session)
