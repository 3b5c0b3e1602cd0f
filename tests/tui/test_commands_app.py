"""/login, /logout, /copy (+ OSC 52), transcript search, message selection, /hotkeys,
/changelog, /reload: driven through the real app."""

from __future__ import annotations

import base64
import json
import os
import stat

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.terminal.clipboard import osc52_sequence

from .conftest import screen_text, settle, wait_for, workers_done
from .test_commands_models import type_command

SECRET = "sk-test-0123456789-SECRET"


async def test_login_writes_auth_json_0600_and_never_shows_the_key(session, agent_dir):
    registry = session.model_registry
    model = registry.find("anthropic", "claude-sonnet-4-5") or next(m for m in registry.all() if m.provider == "anthropic")
    os.environ.pop("ANTHROPIC_API_KEY", None)
    assert not registry.has_credentials(model)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/login")
        assert "Select authentication method:" in screen_text(app)
        await pilot.press("down", "enter")  # "Sign in with an API key"
        await pilot.pause()
        assert "Select provider to configure:" in screen_text(app)
        app.screen.query_one("#picker-filter").value = "anthropic"
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "ApiKeyPrompt"
        await pilot.press(*SECRET)
        await pilot.pause()
        assert SECRET not in screen_text(app)
        await pilot.press("enter")
        await workers_done(pilot)
        assert SECRET not in screen_text(app)
        assert registry.has_credentials(model)
        assert model.ref in [m.ref for m in registry.available()]
    path = agent_dir / "auth.json"
    assert json.loads(path.read_text())["anthropic"] == {"type": "api_key", "key": SECRET}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_logout_removes_the_stored_key(session, agent_dir):
    (agent_dir / "auth.json").write_text(json.dumps({"openai": {"type": "api_key", "key": "k1"},
                                                     "anthropic": {"type": "api_key", "key": "k2"}}))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/logout")
        text = screen_text(app)
        assert "Select provider to logout:" in text and "[API key] ✓ stored credential" in text
        app.screen.query_one("#picker-filter").value = "openai"
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await type_command(pilot, "/logout nobody")
        assert "No stored credentials for nobody." in screen_text(app)
    assert set(json.loads((agent_dir / "auth.json").read_text())) == {"anthropic"}


async def test_copy_sends_osc52_through_the_driver(session, provider, agent_dir, monkeypatch):
    monkeypatch.setenv("SSH_CONNECTION", "1 2 3 4")  # no system clipboard: OSC 52 only
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("TMUX", raising=False)
    provider.push(scripted_text("**copy me** please"))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        written: list[str] = []
        monkeypatch.setattr(app._driver, "write", written.append)
        await type_command(pilot, "hello")
        await settle(pilot, session)
        await type_command(pilot, "/copy")
        assert app._clipboard == "**copy me** please"  # the source, not the rendered text
        assert osc52_sequence("**copy me** please") in written


def test_osc52_sequence_inside_tmux_is_wrapped_for_passthrough():
    seq = osc52_sequence("hi", tmux=True)
    payload = base64.b64encode(b"hi").decode()
    assert seq.startswith(f"\x1b]52;c;{payload}\x07")
    assert "\x1bPtmux;\x1b\x1b]52;c;" in seq and seq.endswith("\x1b\\")


async def test_search_highlights_and_cycles_matches_and_copies_the_current_one(session, provider, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        for i in range(1, 4):
            provider.push(scripted_text(f"answer {i} mentions the needle {i}" if i != 2 else "nothing here"))
            await type_command(pilot, f"question {i}")
            await settle(pilot, session)
        await pilot.press("alt+s")
        await pilot.pause()
        await pilot.press(*"needle")
        await pilot.pause()
        hits = list(app.transcript.query(".search-match"))
        assert len(hits) == 2
        current = app.transcript.query_one(".search-current")
        assert "needle 3" in current.text and "1/2" not in screen_text(app) and "2/2" in screen_text(app)
        await pilot.press("enter")  # older
        await pilot.pause()
        assert "needle 1" in app.transcript.query_one(".search-current").text
        await pilot.press("f3")  # wraps to the newest
        await pilot.pause()
        assert "needle 3" in app.transcript.query_one(".search-current").text
        await pilot.press("shift+f3")
        await pilot.pause()
        assert "needle 1" in app.transcript.query_one(".search-current").text
        await pilot.press("ctrl+x")
        assert app._clipboard == "answer 1 mentions the needle 1"
        await pilot.press("escape")
        await pilot.pause()
        assert not app.transcript.query(".search-match") and not app.query("#search-bar")
        assert app.editor.has_focus


async def test_find_command_and_message_selection_copy(session, provider, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        provider.push(scripted_text("the reply"))
        await type_command(pilot, "my prompt text")
        await settle(pilot, session)
        await type_command(pilot, "/find prompt")
        await pilot.pause()
        assert app.transcript.query_one(".search-current").has_class("user-message")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+shift+up", "ctrl+shift+up")
        await pilot.pause()
        selected = app.transcript.query_one(".message-selected")
        assert selected.has_class("user-message")
        await pilot.press("ctrl+x")
        assert app._clipboard == "my prompt text"
        await pilot.press("escape")
        assert not app.transcript.query(".message-selected")
        await pilot.press("ctrl+x")
        assert app._clipboard == "the reply"


async def test_hotkeys_lists_live_keymap_with_user_override(session, agent_dir):
    (agent_dir / "keybindings.json").write_text(json.dumps({"app.model.select": "ctrl+k"}))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 60)) as pilot:
        await type_command(pilot, "/hotkeys")
        text = screen_text(app)
        assert "Keyboard shortcuts" in text
        assert "ctrl+k *" in text and "Select a model (/model)" in text
        assert "Cycle the thinking level" in text
        await pilot.press("escape")
        await pilot.pause()
        assert "Keyboard shortcuts" not in screen_text(app)


async def test_changelog_and_reload(session, agent_dir, workdir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 40)) as pilot:
        await type_command(pilot, "/changelog")
        assert await wait_for(pilot, lambda: "What's new in pi" in screen_text(app))
        text = screen_text(app)
        assert "What's new in pi" in text and "Unreleased" in text
        await pilot.press("escape")
        await pilot.pause()
        (workdir / "AGENTS.md").write_text("Always answer in haiku.")
        await type_command(pilot, "/reload")
        await workers_done(pilot)
        assert "Reloaded" in screen_text(app)
        assert "Always answer in haiku." in session.system_prompt
