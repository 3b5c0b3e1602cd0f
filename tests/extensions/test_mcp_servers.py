"""``pi.register_mcp_server``: registrations checked like ``mcp.json`` entries, connected by the
built-in MCP support (added for them when no ``mcp.json`` exists), ``mcp.json`` winning a name,
``mcp_servers_change``, and an extension that owns ``/mcp`` replacing the built-in support. The
servers are real (PyPI's ``mcp-server-time``)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.extensions import ExtensionRunner
from pi_runtime.extensions.load_configured import builtin_disabled
from pi_runtime.frontend import mcp_manager_for
from pi_runtime.settings import SettingsManager
from pi_runtime.testing.mcp_servers import processes_with_env, server_executable, wait_until

from .conftest import module_of

MARKER = "PI_MCP_TEST_MARKER"


@pytest.fixture
def time_server() -> str:
    found = server_executable("mcp-server-time")
    if found is None:
        pytest.skip("mcp-server-time is not installed")
    return found


def tool_names(session) -> list[str]:
    return [t.name for t in session.agent.state.tools]


async def eventually(predicate, timeout: float = 10.0) -> bool:
    """Poll ``predicate`` while the loop runs (the session's background tasks go on meanwhile)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def time_config(time_server: str, marker: str) -> dict:
    return {"command": time_server, "env": {MARKER: marker}, "exposure": "direct"}


def registering(name: str, config: dict, more: str = "") -> str:
    """Extension source registering ``config`` as ``name`` while it loads, then ``more`` (in ``extension``)."""
    return f"CONFIG = {config!r}\nseen = []\n\ndef extension(pi):\n    pi.register_mcp_server({name!r}, CONFIG)\n{more}"


# ---------------------------------------------------------------------- validation and ownership

def test_registrations_are_checked_like_mcp_json_entries_and_owned_by_their_extension(tmp_path):
    runner = ExtensionRunner(cwd=str(tmp_path))
    apis = []
    runner.add_extension(apis.append, "/exts/a.py")
    runner.add_extension(apis.append, "/exts/b.py")
    a, b = apis
    config = {"url": "https://example.com/mcp", "exposure": "codemode-deferred"}
    a.register_mcp_server("docs", config)
    config["url"] = "https://changed.example.com"  # the registration kept its own copy
    [docs] = a.get_mcp_servers()
    assert (docs.name, docs.config, docs.extension_path) == (
        "docs", {"url": "https://example.com/mcp", "exposure": "codemode"}, "/exts/a.py")

    cases = [
        ("bad name", {"command": "x"}, 'invalid server name "bad name"'),
        ("x", {"args": ["a"]}, 'server "x" needs either "command" \\(stdio\\) or "url"'),
        ("x", "uvx mcp-server-time", 'server "x" must be an object'),
        ("x", {"command": "x", "exposure": "loud"}, "exposure must be one of"),
        ("x", {"url": "ftp://example.com"}, "url must be an http or https URL"),
        ("x", {"command": "x", "type": "sse", "url": "https://e.com"}, "legacy SSE transport is not supported"),
        (7, {"command": "x"}, "the server name must be a string"),
    ]
    for name, bad, message in cases:
        with pytest.raises(ValueError, match=f"register_mcp_server: .*{message}"):
            a.register_mcp_server(name, bad)
    with pytest.raises(ValueError, match='"docs" is already registered by /exts/a.py'):
        b.register_mcp_server("docs", {"command": "x"})
    a.register_mcp_server("my-tickets", {"command": "x"})
    with pytest.raises(ValueError, match='"my_tickets" conflicts with "my-tickets"'):
        b.register_mcp_server("my_tickets", {"command": "x"})
    with pytest.raises(ValueError, match='"docs" was registered by /exts/a.py'):
        b.unregister_mcp_server("docs")
    b.unregister_mcp_server("nobody-registered-this")  # no effect

    a.register_mcp_server("docs", {"command": "docs-server"})  # the same extension replaces its own
    assert [(s.name, s.config) for s in b.get_mcp_servers()] == [
        ("docs", {"command": "docs-server"}), ("my-tickets", {"command": "x"})]
    a.unregister_mcp_server("docs")
    assert [s.name for s in a.get_mcp_servers()] == ["my-tickets"]


def test_a_factory_that_fails_takes_its_registrations_back(tmp_path):
    runner = ExtensionRunner(cwd=str(tmp_path))

    def broken(pi):
        pi.register_mcp_server("half", {"command": "x"})
        raise RuntimeError("boom")

    assert runner.add_extension(broken, "/exts/broken.py") is None
    assert runner.mcp_servers.servers() == []


def test_builtin_disabled_reads_the_last_plus_or_minus_entry_project_over_user(tmp_path):
    agent, project = tmp_path / "agent", tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"extensions": ["+builtin:mcp", "-builtin:mcp"]}))
    settings = SettingsManager.create(str(project), str(agent))
    assert builtin_disabled(settings, False, "mcp") and not builtin_disabled(settings, False, "codemode")
    (project / ".pi" / "settings.json").write_text(json.dumps({"extensions": ["+builtin:mcp"]}))
    settings = SettingsManager.create(str(project), str(agent), project_trusted=True)
    assert not builtin_disabled(settings, True, "mcp")
    assert builtin_disabled(settings, False, "mcp")  # an untrusted project's settings do not count


# ---------------------------------------------------------------------- connected by builtin:mcp

async def test_registered_server_connects_at_start_unregisters_registers_again_and_survives_reload(
        make_session, write_ext, time_server):
    marker = uuid.uuid4().hex
    path = write_ext("clock", registering("time", time_config(time_server, marker), """
    pi.register_command("drop", lambda args, ctx: pi.unregister_mcp_server("time"))
    pi.register_command("add", lambda args, ctx: pi.register_mcp_server("time", CONFIG))
    pi.on("mcp_servers_change", lambda event, ctx: seen.append([s.name for s in event.servers]))
"""))
    session = make_session(extensions=[path], mcp=True)  # no mcp.json at all
    runner = session.extension_runner
    session.provider.push(scripted_tool_call("mcp__time__get_current_time", {"timezone": "UTC"}),
                          scripted_text("ok"))
    await session.prompt("time?")
    assert [e.path for e in runner.extensions] == [path, "builtin:mcp"]  # added for the registration
    assert '"timezone": "UTC"' in session.messages[-2].content[0].text
    manager = mcp_manager_for(session)
    [row] = manager.status()
    assert (row["scope"], row["source"], row["state"]) == ("extension", f"extension:{path}", "connected")
    [pid] = processes_with_env(MARKER, marker)

    await runner.run_command("drop")
    assert await eventually(lambda: processes_with_env(MARKER, marker) == [])
    assert not any(n.startswith("mcp__time__") for n in tool_names(session))
    assert manager.status() == []

    await runner.run_command("add")  # registered after the start: connects right away
    assert await eventually(lambda: "mcp__time__get_current_time" in tool_names(session), 30)
    assert processes_with_env(MARKER, marker) not in ([], [pid])
    assert module_of(path).seen == [[], ["time"]]
    assert runner.errors == []

    await runner.reload()  # registrations are not saved: the extension registers again as it loads
    assert [e.path for e in runner.extensions] == [path, "builtin:mcp"]
    reloaded = mcp_manager_for(session)
    assert reloaded is not manager
    await reloaded.wait_connected(30)
    assert reloaded.connections["time"].state == "connected"
    await session.dispose()
    assert wait_until(lambda: processes_with_env(MARKER, marker) == [], 10)


async def test_mcp_json_server_takes_precedence_and_the_registration_shows_as_overridden(
        make_session, write_ext, agent_dir, time_server):
    from_file, from_extension = uuid.uuid4().hex, uuid.uuid4().hex
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": time_server, "env": {MARKER: from_file}}}}))
    path = write_ext("shadowed", registering("time", time_config(time_server, from_extension)))
    session = make_session(extensions=[path], mcp=True)
    await session.extension_runner.start()
    manager = mcp_manager_for(session)
    await manager.wait_connected(30)
    file_row, shadowed = manager.status()
    assert (file_row["source"], file_row["state"]) == (str(agent_dir / "mcp.json"), "connected")
    assert (shadowed["name"], shadowed["state"], shadowed["source"], shadowed["override"]) == (
        "time", "overridden", f"extension:{path}", str(agent_dir / "mcp.json"))
    assert len(processes_with_env(MARKER, from_file)) == 1 and processes_with_env(MARKER, from_extension) == []
    await session.dispose()


# ---------------------------------------------------------------------- nothing, or someone else, connects

REPLACEMENT = """
def extension(pi):
    pi.register_command("mcp", lambda args, ctx: ctx.ui.notify("my MCP"))
    pi.register_mcp_server("clock", {"command": "clock-server"})
"""


async def test_an_extension_owning_mcp_replaces_the_builtin_support(make_session, write_ext, agent_dir, time_server):
    marker = uuid.uuid4().hex
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": time_server, "env": {MARKER: marker}}}}))
    path = write_ext("replacement", REPLACEMENT)
    session = make_session(extensions=[path], mcp=True)
    runner = session.extension_runner
    await runner.start()
    # builtin:mcp is taken out (no mcp.json read); the codemode and tool_search built-ins stay, as in Pi
    assert [e.path for e in runner.extensions if e.path not in ("builtin:codemode", "builtin:tool-search")] == [path]
    assert mcp_manager_for(session) is None and processes_with_env(MARKER, marker) == []
    assert runner.errors == [(path, "register_mcp_server",
                              'MCP server "clock" is not connected: no extension connects registered MCP servers '
                              "(the built-in MCP support is disabled or replaced)")]


async def test_a_replacement_that_handles_the_change_event_connects_registrations(make_session, write_ext):
    path = write_ext("adapter", REPLACEMENT + """
    pi.on("session_start", lambda event, ctx: state.update(at_start=[s.name for s in pi.get_mcp_servers()]))
    pi.on("mcp_servers_change", lambda event, ctx: state.setdefault("changes", []).append(
        [(s.name, s.extension_path) for s in event.servers]))
    pi.register_command("later", lambda args, ctx: pi.register_mcp_server("later", {"url": "http://127.0.0.1:9/mcp"}))

state = {}
""")
    session = make_session(extensions=[path], mcp=True)
    runner = session.extension_runner
    await runner.start()
    await runner.run_command("later")
    await session.prompt("/later")  # twice: the same registration replaced
    state = module_of(path).state
    assert await eventually(lambda: len(state.get("changes", [])) == 2)
    assert state["at_start"] == ["clock"]
    assert state["changes"] == [[("clock", path), ("later", path)]] * 2
    assert runner.errors == []


async def test_builtin_mcp_off_in_settings_connects_nothing(make_session, write_ext, agent_dir, time_server):
    marker = uuid.uuid4().hex
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": time_server, "env": {MARKER: marker}}}}))
    path = write_ext("lonely", registering("clock", time_config(time_server, marker)))
    session = make_session(extensions=[path], mcp=True, settings={"extensions": ["-builtin:mcp"]})
    runner = session.extension_runner
    await runner.start()
    assert [e.path for e in runner.extensions] == [path]
    assert processes_with_env(MARKER, marker) == []
    assert [(p, e) for p, e, _ in runner.errors] == [(path, "register_mcp_server")]


async def test_a_registration_from_a_session_start_handler_connects(make_session, write_ext, time_server):
    marker = uuid.uuid4().hex
    path = write_ext("starter", f"""
        CONFIG = {time_config(time_server, marker)!r}

        def extension(pi):
            pi.on("session_start", lambda event, ctx: pi.register_mcp_server("time", CONFIG))
        """)
    session = make_session(extensions=[path], mcp=True)
    await session.extension_runner.start()
    assert await eventually(lambda: "mcp__time__get_current_time" in tool_names(session), 30)
    assert session.extension_runner.errors == []
    await session.dispose()
    assert wait_until(lambda: processes_with_env(MARKER, marker) == [], 10)
