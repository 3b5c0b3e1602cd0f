"""``/mcp`` in the app: the servers of the session (a real mcp-server-time and one that cannot
start), their state and tools, reconnecting one, and no server left after the app quits."""

from __future__ import annotations

import json
import uuid

import pytest

from pi_runtime.testing.mcp_servers import processes_with_env, server_executable
from pi_tui.commands.commands import COMMANDS
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, started, wait_for, workers_done
from .test_commands_models import type_command

MARKER = "PI_MCP_TEST_MARKER"


async def test_mcp_lists_servers_their_tools_and_reconnects(provider, workdir, agent_dir):
    time_server = server_executable("mcp-server-time")
    if time_server is None:
        pytest.skip("mcp-server-time is not installed")
    marker = uuid.uuid4().hex
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": time_server, "env": {MARKER: marker}},
        "broken": {"command": "/nonexistent/mcp-server"},
        "off": {"command": "x", "enabled": False},
    }}))
    session = make_session(provider, workdir, mcp=True)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await started(pilot)
        # The MCP extension's /mcp (print and RPC mode) is shadowed by the app's: listed once.
        assert "mcp" in session.extension_runner.commands()
        assert [name for name, _ in COMMANDS.menu_entries(session)].count("mcp") == 1
        await type_command(pilot, "/mcp")
        assert app.screen.id == "mcp-screen"
        assert await wait_for(pilot, lambda: "time: connected, 2 tools (codemode, global)" in screen_text(app))
        text = screen_text(app)
        # Servers that need attention come first; the highlighted one's error shows below.
        assert text.index("broken: failed") < text.index("time: connected") < text.index("off: disabled")
        assert "No such file or directory" in text
        await pilot.press("down")
        await pilot.pause()
        assert "get_current_time (mcp__time__get_current_time)" in screen_text(app)
        [first_pid] = processes_with_env(MARKER, marker)
        await pilot.press("r")
        assert await wait_for(pilot, lambda: processes_with_env(MARKER, marker) not in ([], [first_pid]))
        assert await wait_for(pilot, lambda: "time: connected, 2 tools" in screen_text(app))
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.id != "mcp-screen"
        await app.action_quit()
    assert processes_with_env(MARKER, marker) == []


async def test_mcp_without_servers_says_how_to_add_them(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 30)) as pilot:
        await type_command(pilot, "/mcp")
        await workers_done(pilot)
        assert "No MCP servers configured" in screen_text(app)
        assert app.screen.id != "mcp-screen"


async def test_mcp_shows_registered_servers_with_their_extension_and_the_overridden_one(
        provider, workdir, agent_dir, tmp_path):
    time_server = server_executable("mcp-server-time")
    if time_server is None:
        pytest.skip("mcp-server-time is not installed")
    marker = uuid.uuid4().hex
    config = {"command": time_server, "env": {MARKER: marker}, "exposure": "direct"}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"time": {**config, "exposure": "hidden"}}}))
    ext = tmp_path / "clocks.py"
    ext.write_text(f"def extension(pi):\n    pi.register_mcp_server('clock', {config!r})\n"
                   f"    pi.register_mcp_server('time', {config!r})\n")
    session = make_session(provider, workdir, mcp=True, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 34)) as pilot:
        await type_command(pilot, "/mcp")
        assert await wait_for(pilot, lambda: "clock: connected, 2 tools (direct, extension)" in screen_text(app))
        text = screen_text(app)
        assert "time: overridden (direct, extension)" in text  # mcp.json's "time" wins the name
        while "overridden by" not in screen_text(app):
            await pilot.press("down")
            await pilot.pause()
        detail = str(app.screen.query_one("#mcp-detail").render())  # long paths wrap on the screen
        assert f"from extension:{ext}, overridden by {agent_dir / 'mcp.json'}" in detail
        await app.action_quit()
    assert processes_with_env(MARKER, marker) == []


async def test_mcp_belongs_to_an_extension_that_registers_it(provider, workdir, agent_dir, tmp_path):
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"off": {"command": "x", "enabled": False}}}))
    ext = tmp_path / "adapter.py"
    ext.write_text("def extension(pi):\n"
                   "    pi.register_command('mcp', lambda args, ctx: ctx.ui.set_widget('a', ['adapter servers: ' + args]))\n")
    session = make_session(provider, workdir, mcp=True, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 30)) as pilot:
        await type_command(pilot, "/mcp list")
        assert await wait_for(pilot, lambda: "adapter servers: list" in screen_text(app))
        assert app.screen.id != "mcp-screen"
        await app.action_quit()


def _active(session) -> list[str]:
    return [t.name for t in session.agent.state.tools]


async def _highlight(pilot, app, name: str) -> None:
    while app.screen._selected_name() != name:
        await pilot.press("down")


async def test_mcp_turns_a_server_off_and_on_and_changes_its_exposure_saved_to_its_file(
        provider, workdir, agent_dir):
    time_server = server_executable("mcp-server-time")
    if time_server is None:
        pytest.skip("mcp-server-time is not installed")
    marker = uuid.uuid4().hex
    config_file = agent_dir / "mcp.json"
    config_file.write_text(json.dumps({"mcpServers": {
        "time": {"command": time_server, "env": {MARKER: marker}, "exposure": "direct"},
        "off": {"command": "x", "enabled": False},
    }, "note": "kept"}, indent=4))
    session = make_session(provider, workdir, mcp=True)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    tool = "mcp__time__get_current_time"
    async with app.run_test(size=(130, 34)) as pilot:
        await type_command(pilot, "/mcp")
        assert await wait_for(pilot, lambda: "time: connected, 2 tools (direct, global)" in screen_text(app))
        assert await wait_for(pilot, lambda: tool in _active(session))
        await _highlight(pilot, app, "time")
        await pilot.press("e")
        # Off: saved as Pi saves it, gone from the next request, its process stopped.
        assert await wait_for(pilot, lambda: "time: disabled" in screen_text(app))
        saved = json.loads(config_file.read_text())
        assert saved["mcpServers"]["time"]["enabled"] is False and saved["note"] == "kept"
        assert config_file.read_text().startswith('{\n    "mcpServers"')  # the file's own indentation
        assert tool not in _active(session)
        assert await wait_for(pilot, lambda: processes_with_env(MARKER, marker) == [])
        await pilot.press("e")
        assert await wait_for(pilot, lambda: "time: connected, 2 tools (direct, global)" in screen_text(app))
        assert "enabled" not in json.loads(config_file.read_text())["mcpServers"]["time"]  # the default again
        assert await wait_for(pilot, lambda: tool in _active(session))
        # Exposure: codemode takes the tools out of the declared set and turns codemode on.
        await pilot.press("x")
        assert await wait_for(pilot, lambda: app.screen.id == "mcp-exposure")
        while app.screen.query_one("PickRows").item.value != "codemode":
            await pilot.press("up")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: "time: connected, 2 tools (codemode, global)" in screen_text(app))
        assert "exposure" not in json.loads(config_file.read_text())["mcpServers"]["time"]  # the default
        assert tool not in _active(session)
        assert "codemode" in _active(session)
        await app.action_quit()
    assert processes_with_env(MARKER, marker) == []
