"""/login on an extension's OAuth provider, driven through the real app.

The extension (tests/fixtures/oauth_provider_ext.py) exchanges the code at a real token
server on 127.0.0.1 (``OAuthTokenServer``); requests go to a real loopback model server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.testing.loopback import Reply
from pi_runtime.testing.oauth_server import fixture_servers
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, wait_for
from .test_commands_models import type_command

EXT = str(Path(__file__).resolve().parent.parent / "fixtures" / "oauth_provider_ext.py")


@pytest.fixture
def servers(monkeypatch):
    with fixture_servers(monkeypatch.setenv) as pair:
        yield pair


def screen_name(app) -> str:
    return type(app.screen).__name__


def asking(app) -> bool:
    """The login dialog shows its input line (the flow asked something)."""
    return app.screen.id == "oauth-login" and app.screen.query_one("#oauth-input").has_class("asking")


async def test_login_runs_the_oauth_flow_and_requests_use_the_token(provider, workdir, agent_dir, servers):
    auth_server, llm = servers
    session = make_session(provider, workdir, agent_dir=str(agent_dir), extensions=[EXT])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 32)) as pilot:
        await type_command(pilot, "/login")
        assert "Select authentication method:" in screen_text(app)
        await pilot.press("enter")  # "Sign in with an account"
        assert await wait_for(pilot, lambda: app.screen.id == "login-picker")
        text = screen_text(app)
        assert "Select provider to configure:" in text and "Corp SSO" in text and "Anthropic" in text
        app.screen.query_one("#picker-filter").value = "corp"
        await pilot.pause()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen.id == "oauth-select")
        assert "How do you want to log in?" in screen_text(app)
        await pilot.press("down", "enter")  # "Device code"
        assert await wait_for(pilot, lambda: asking(app))
        login_screen = app.screen
        assert login_screen.id == "oauth-login"
        assert "WDJB-MJHT" in "\n".join(line.plain for line in login_screen.lines)
        assert "Paste the authorization code" in screen_text(app)
        await pilot.press(*"the-code", "enter")
        assert await wait_for(pilot, lambda: screen_name(app) != "OAuthLoginScreen")
        assert await wait_for(pilot, lambda: "Logged in to Corp SSO" in screen_text(app))
        stored = json.loads((agent_dir / "auth.json").read_text())["corp"]
        assert stored["type"] == "oauth" and stored["access"] == "access-1"
        assert "access-1" not in screen_text(app) and "refresh-1" not in screen_text(app)
        model = session.model_registry.find("corp", "corp-1")
        assert model.name == "corp-1 (dev@corp)"  # modify_models ran after the login
        await session.set_model(model)
        llm.push(Reply.sse([{"id": "c", "choices": [{"index": 0, "delta": {"content": "hi from corp"}}]},
                            {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}, "[DONE]"]))
        await type_command(pilot, "hello")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "hi from corp" in screen_text(app))
    assert llm.requests[0].headers["authorization"] == "Bearer access-1"
    assert auth_server.grants == ["authorization_code"]


async def test_esc_in_a_question_cancels_and_stores_nothing(provider, workdir, agent_dir, servers):
    session = make_session(provider, workdir, agent_dir=str(agent_dir), extensions=[EXT])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 32)) as pilot:
        await type_command(pilot, "/login corp")
        assert await wait_for(pilot, lambda: app.screen.id == "oauth-select")
        await pilot.press("enter")  # "Browser"
        assert await wait_for(pilot, lambda: asking(app))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: "Login to Corp SSO cancelled" in screen_text(app))
        assert screen_name(app) != "OAuthLoginScreen"
    assert not (agent_dir / "auth.json").exists()


SLOW = """
import asyncio

state = {"cancelled": False}


async def login(callbacks):
    callbacks.on_auth("http://127.0.0.1:9/authorize", "Waiting for the browser")
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        state["cancelled"] = True
        raise
    return {}


def extension(pi):
    pi.register_provider("slow", api="openai-completions", base_url="http://127.0.0.1:9/v1",
                         models=[{"id": "s1"}],
                         oauth={"name": "Slow SSO", "login": login, "refresh_token": login,
                                "get_api_key": lambda c: c["access"]})
"""


async def test_esc_on_the_login_dialog_aborts_a_waiting_flow(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "slow_sso.py"
    ext.write_text(SLOW)
    session = make_session(provider, workdir, agent_dir=str(agent_dir), extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 32)) as pilot:
        await type_command(pilot, "/login slow")
        assert await wait_for(pilot, lambda: "http://127.0.0.1:9/authorize" in screen_text(app))
        assert screen_name(app) == "OAuthLoginScreen"
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: "Login to Slow SSO cancelled" in screen_text(app))
        assert screen_name(app) != "OAuthLoginScreen"
    import sys

    module = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(ext))
    assert module.state["cancelled"] is True
    assert not (agent_dir / "auth.json").exists()
