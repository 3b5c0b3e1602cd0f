"""Signing in to an OAuth MCP server from the app: "Sign in" in ``/mcp`` (the browser follows the
redirect), ``/mcp login`` with a pasted redirect URL, Esc to cancel, and ``/mcp logout``; against a
real OAuth-protected MCP server run as a subprocess."""

from __future__ import annotations

import json
import webbrowser

import pytest
from textual.widgets import Input

from pi_runtime.testing.mcp_oauth_server import McpOAuthServer
from pi_runtime.testing.oauth_browser import redirect_target, write_browser
from pi_tui.launch import create_app
from pi_tui.transcript.notice import Notice

from .conftest import make_session, screen_text, wait_for
from .test_commands_models import type_command


@pytest.fixture
def oauth_server(tmp_path):
    with McpOAuthServer(tmp_path) as server:
        yield server


def use_browser(monkeypatch, command: str) -> None:
    """``BROWSER`` for this test: webbrowser reads it once per process, so its choice is reset."""
    monkeypatch.setenv("BROWSER", command)
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})


def configure(agent_dir, url: str) -> None:
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"notes": {"url": url, "exposure": "direct"}}}))


def notices(app) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


async def test_sign_in_from_the_mcp_screen_then_sign_out(provider, workdir, agent_dir, oauth_server, tmp_path,
                                                         monkeypatch):
    use_browser(monkeypatch, str(write_browser(tmp_path)))
    configure(agent_dir, oauth_server.url)
    app = create_app(make_session(provider, workdir, mcp=True), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 34)) as pilot:
        await type_command(pilot, "/mcp")
        assert await wait_for(pilot, lambda: "notes: needs sign-in" in screen_text(app))
        assert "needs sign-in: run /mcp login notes or pi mcp login notes" in screen_text(app)
        assert not (agent_dir / "mcp-auth.json").exists()
        await pilot.press("s")
        assert await wait_for(pilot, lambda: "notes: connected, 1 tool" in screen_text(app))
        assert oauth_server.events() == ["register pi", "authorization_code"]
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: 'Signed in to MCP server "notes"; it is connected' in notices(app))
        await type_command(pilot, "/mcp logout notes")
        assert await wait_for(pilot, lambda: 'Signed out of MCP server "notes"' in notices(app))
        assert json.loads((agent_dir / "mcp-auth.json").read_text()) == {}
        await type_command(pilot, "/mcp")
        assert await wait_for(pilot, lambda: "notes: needs sign-in" in screen_text(app))
        await app.action_quit()


async def test_mcp_login_accepts_a_pasted_redirect_url(provider, workdir, agent_dir, oauth_server, monkeypatch):
    use_browser(monkeypatch, "/bin/true")  # the browser is "on another machine"
    configure(agent_dir, oauth_server.url)
    app = create_app(make_session(provider, workdir, mcp=True), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_command(pilot, "/mcp login notes")
        assert app.screen.id == "mcp-login"
        login = app.screen
        assert await wait_for(pilot, lambda: login.attempt is not None and login.attempt.authorization_url)
        assert "/authorize?" in screen_text(app)
        target = redirect_target(login.attempt.authorization_url)
        field = login.query_one("#mcp-login-paste", Input)
        field.value = "https://example.com/nothing-here"
        await pilot.press("enter")
        await pilot.pause()
        assert "That is not the redirected URL" in screen_text(app)
        field.value = target
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: 'Signed in to MCP server "notes"; it is connected' in notices(app))
        assert app.screen.id != "mcp-login"
        assert (agent_dir / "mcp-auth.json").exists()
        await app.action_quit()


async def test_escape_cancels_the_sign_in_and_stores_nothing(provider, workdir, agent_dir, oauth_server,
                                                            monkeypatch):
    use_browser(monkeypatch, "/bin/true")
    configure(agent_dir, oauth_server.url)
    app = create_app(make_session(provider, workdir, mcp=True), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_command(pilot, "/mcp login notes")
        login = app.screen
        assert await wait_for(pilot, lambda: login.attempt is not None and login.attempt.authorization_url)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: 'Sign-in to MCP server "notes" cancelled' in notices(app))
        assert app.screen.id != "mcp-login"
        await type_command(pilot, "/mcp login nope")
        assert await wait_for(pilot, lambda: 'No MCP server named "nope"' in notices(app))
        await app.action_quit()
    assert not (agent_dir / "mcp-auth.json").exists()
    assert "authorization_code" not in oauth_server.events()
