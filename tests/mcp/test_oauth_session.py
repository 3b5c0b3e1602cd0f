"""A session's MCP manager and OAuth: a 401 without a sign-in is ``needs-auth`` (reported once, no
browser), and a sign-in made meanwhile (``pi mcp login`` elsewhere) is picked up on the next turn.
Against the real OAuth MCP server in a subprocess; the "browser" follows the redirect."""

from __future__ import annotations

import json
import webbrowser

import pytest

from pi_runtime.mcp.config import load_config
from pi_runtime.mcp.manager import McpManager
from pi_runtime.mcp.oauth import McpSignInError
from pi_runtime.mcp.oauth_login import mcp_sign_in
from pi_runtime.testing.mcp_oauth_server import McpOAuthServer
from pi_runtime.testing.oauth_browser import write_browser


@pytest.fixture
def browser(tmp_path, monkeypatch):
    monkeypatch.setenv("BROWSER", str(write_browser(tmp_path)))
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # webbrowser reads BROWSER once per process
    monkeypatch.setattr(webbrowser, "_browsers", {})
    return tmp_path / "browser.log"


async def test_needs_auth_then_a_sign_in_elsewhere_is_used_on_the_next_turn(tmp_path, browser):
    agent = tmp_path / "agent"
    agent.mkdir()
    with McpOAuthServer(tmp_path) as server:
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"notes": {"url": server.url}}}))
        manager = McpManager.load(str(tmp_path), agent, project_trusted=False)
        try:
            await manager.wait_connected(20)
            connection = manager.connections["notes"]
            assert connection.state == "needs-auth"
            assert manager.problems() == [
                'MCP server "notes" needs sign-in: run /mcp login notes or pi mcp login notes']
            assert manager.problems() == []  # once
            assert not browser.exists() and server.events() == []  # nothing opened, nothing registered

            shown: list[str] = []
            entry = load_config(agent, tmp_path, project_trusted=False).get("notes")
            assert await mcp_sign_in(entry, agent, shown.append, timeout=30) is True
            assert any("/authorize?" in line for line in shown)
            assert browser.exists()

            await manager.reconnect_signed_in()
            assert connection.state == "connected"
            assert [t.name for t in manager.tools() if t.name.startswith("mcp__")] == ["mcp__notes__whoami"]
        finally:
            await manager.close()


async def test_a_server_with_its_own_authorization_header_does_not_use_oauth(tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    with McpOAuthServer(tmp_path) as server:
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": {
            "notes": {"url": server.url, "headers": {"Authorization": "Bearer wrong"}}}}))
        manager = McpManager.load(str(tmp_path), agent, project_trusted=False)
        try:
            await manager.wait_connected(20)
            assert manager.connections["notes"].state == "failed"  # a 401 here is not a sign-in matter
        finally:
            await manager.close()
        entry = load_config(agent, tmp_path, project_trusted=False).get("notes")
        with pytest.raises(McpSignInError, match="sends its own Authorization header"):
            await mcp_sign_in(entry, agent, print)
