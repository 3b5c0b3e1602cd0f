"""``/login`` with pi's own account sign-ins, driven through the real app.

The providers' sign-in hosts are played by ``SignInServers`` behind the stand-in, reached by the
app's own HTTP client (this process's HTTPS goes through the stand-in); the test plays the browser.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_runtime.testing.signin_servers import SignInServers, authorization_answer, follow_callback, route_this_process
from pi_runtime.testing.standin import ProviderStandIn
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, wait_for
from .test_commands_models import type_command
from .test_oauth_login import asking


@pytest.fixture
def servers() -> SignInServers:
    return SignInServers()


@pytest.fixture
def standin(tmp_path: Path, servers: SignInServers, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderStandIn]:
    with ProviderStandIn(servers, directory=tmp_path / "ca") as server:
        route_this_process(server, monkeypatch.setenv)
        for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
            monkeypatch.delenv(name, raising=False)
        yield server


async def test_the_account_list_is_pis(provider, workdir, agent_dir) -> None:
    session = make_session(provider, workdir, agent_dir=str(agent_dir))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 40)) as pilot:
        await type_command(pilot, "/login")
        text = screen_text(app)
        assert "Sign in with an account" in text and "Sign in with an API key" in text
        assert "Sign in with Radius • not configured" in text
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen.id == "login-picker")
        shown = [app.screen.shown[i].label.plain for i in range(len(app.screen.shown))]
    # Pi's nine account sign-ins: the partners first, then by name; none is configured yet.
    assert [row.split(" • ")[0].rstrip(" ✦") for row in shown] == [
        "Radius", "OpenRouter", "Anthropic", "GitHub Copilot", "Kimi For Coding", "Meta", "OpenAI", "OpenAI Codex",
        "xAI"]
    assert all(row.endswith("• not configured") for row in shown)


async def test_signing_in_to_claude_in_the_browser(provider, workdir, agent_dir, standin, servers) -> None:
    session = make_session(provider, workdir, agent_dir=str(agent_dir))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_command(pilot, "/login anthropic")
        assert "Select authentication method for Anthropic:" in screen_text(app)
        await pilot.press("enter")  # "Sign in with an account"
        assert await wait_for(pilot, lambda: app.screen.id == "oauth-select")
        assert "Select Anthropic login method:" in screen_text(app)
        await pilot.press("enter")  # "Browser login (default)"
        assert await wait_for(pilot, lambda: asking(app))
        dialog = app.screen
        url = dialog.url
        assert url.startswith("https://claude.ai/oauth/authorize?")
        assert "Login to Anthropic" in screen_text(app)
        assert "paste the authorization code / redirect URL here:" in " ".join(line.plain for line in dialog.lines)
        # The user signs in in the browser: its redirect reaches the dialog's callback server.
        location = await asyncio.to_thread(authorization_answer, url, standin)
        assert await asyncio.to_thread(follow_callback, location) == 200
        assert await wait_for(pilot, lambda: "Logged in to Anthropic" in screen_text(app))
        assert app.screen is not dialog
        text = screen_text(app)
    stored = json.loads((agent_dir / "auth.json").read_text())["anthropic"]
    assert stored["access"] == servers.issued["anthropic"][-1]
    assert stored["access"] not in text and stored["refresh"] not in text
    assert session.model_registry.request_auth(session.model_registry.find("anthropic", "claude-sonnet-4-5")).api_key \
        == stored["access"]


async def test_a_device_code_sign_in_asks_in_the_dialog_and_shows_the_code(provider, workdir, agent_dir, standin,
                                                                          servers) -> None:
    servers.pending_polls = 2  # time to press Enter while the code is shown
    session = make_session(provider, workdir, agent_dir=str(agent_dir))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_command(pilot, "/login github-copilot")
        await pilot.press("enter")  # "Sign in with an account"
        assert await wait_for(pilot, lambda: asking(app))
        assert "GitHub Enterprise URL/domain (blank for github.com)" in screen_text(app)
        await pilot.press("enter")  # blank: github.com
        assert await wait_for(pilot, lambda: "Enter code: ABCD-EFGH" in screen_text(app))
        assert "https://github.com/login/device" in screen_text(app)
        assert "Waiting for authentication..." in screen_text(app)
        await pilot.press("enter")  # opens the page (no browser here) and copies the code, as Pi's dialog does
        assert app._clipboard == "ABCD-EFGH"
        assert await wait_for(pilot, lambda: "Logged in to GitHub Copilot" in screen_text(app))
    stored = json.loads((agent_dir / "auth.json").read_text())["github-copilot"]
    assert stored["availableModelIds"] == ["gpt-4.1"] or "gpt-4.1" in stored["availableModelIds"]
    auth = session.model_registry._oauth_auth("github-copilot")
    assert auth.base_url == "https://api.business.githubcopilot.com"


async def test_esc_while_waiting_for_the_browser_takes_the_question_back_and_goes_back(provider, workdir, agent_dir,
                                                                                        standin) -> None:
    session = make_session(provider, workdir, agent_dir=str(agent_dir))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_command(pilot, "/login")
        await pilot.press("enter")  # account
        assert await wait_for(pilot, lambda: app.screen.id == "login-picker")
        app.screen.query_one("#picker-filter").value = "openrouter"
        await pilot.pause()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: asking(app))
        assert app.screen.url.startswith("https://openrouter.ai/auth?callback_url=http")
        await pilot.press("escape")
        # Cancelled from the list: the list comes back, as in Pi.
        assert await wait_for(pilot, lambda: app.screen.id == "login-picker")
    assert not (agent_dir / "auth.json").exists()
