"""``pi mcp add|remove|list`` as a user (or an agent through bash) runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import run_pi

from pi_runtime.testing.mcp_servers import HttpMcpServer, server_executable


def mcp_file(env: dict[str, str], project: bool = False) -> Path:
    return Path(env["PI_TEST_PROJECT"], ".pi", "mcp.json") if project else Path(env["PI_CODING_AGENT_DIR"], "mcp.json")


def test_add_writes_the_common_shape_and_remove_takes_it_out(env):
    path = mcp_file(env)
    result = run_pi(["mcp", "add", "fs", "--env", "A=B", "--cwd", "sub", "--", "npx", "-y", "server", "--flag"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f'Added global MCP server "fs" in {path}.\nCheck it with: pi mcp list\n'
    result = run_pi(["mcp", "add", "docs", "--url", "https://example.com/mcp", "--bearer-token-env-var", "DOCS_TOKEN",
                     "--exposure", "direct", "--description", "Docs"], env)
    assert result.returncode == 0, result.stderr
    assert json.loads(path.read_text()) == {"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server", "--flag"], "env": {"A": "B"}, "cwd": "sub"},
        "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
                 "exposure": "direct", "description": "Docs"},
    }}
    again = run_pi(["mcp", "add", "fs", "--", "other"], env)
    assert again.stdout.startswith('Replaced global MCP server "fs"')
    result = run_pi(["mcp", "remove", "docs"], env)
    assert (result.returncode, result.stdout) == (0, f'Removed global MCP server "docs" from {path}.\n')
    result = run_pi(["mcp", "remove", "docs"], env)
    assert (result.returncode, result.stderr) == (1, f'No global MCP server named "docs" in {path}.\n')


@pytest.mark.parametrize(("args", "message"), [
    (["mcp", "add", "bad name", "--", "x"], 'invalid server name "bad name" (use letters, digits, "_" and "-")'),
    (["mcp", "add", "a", "--url", "https://x", "--env", "A=B"], "--env only applies to stdio servers."),
    (["mcp", "add", "a", "--header", "H=1", "--", "x"], "--header only applies to HTTP servers (--url)."),
    (["mcp", "add", "a", "--env", "AB", "--", "x"], '--env expects KEY=VALUE, got "AB".'),
    (["mcp", "add", "a", "--exposure", "loud", "--", "x"],
     'server "a": exposure must be one of "codemode", "deferred", "direct", "hidden"'),
    (["mcp", "frobnicate"], 'Unknown mcp command "frobnicate".'),
])
def test_bad_commands_say_what_is_wrong_and_change_nothing(env, args, message):
    result = run_pi(args, env)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == message
    assert not mcp_file(env).exists()


def test_list_connects_and_exits_1_when_a_server_fails(env):
    time = server_executable("mcp-server-time")
    if time is None:
        pytest.skip("mcp-server-time is not installed")
    empty = run_pi(["mcp", "list"], env)
    assert (empty.returncode, empty.stdout) == (0, f"No MCP servers configured. Add them to {mcp_file(env)} or .pi/mcp.json.\n")
    assert run_pi(["mcp", "add", "time", "--", time], env).returncode == 0
    ok = run_pi(["mcp", "list"], env, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.splitlines()[:3] == ["time: connected, 2 tools (codemode, global)", f"  {time}",
                                          "  tools: get_current_time, convert_time"]
    assert run_pi(["mcp", "add", "gone", "--", "/nonexistent/server"], env).returncode == 0
    bad = run_pi(["mcp", "list", "--json"], env, timeout=60)
    assert bad.returncode == 1
    report = json.loads(bad.stdout)
    gone = next(s for s in report["servers"] if s["name"] == "gone")
    assert gone["state"] == "failed" and "No such file or directory" in gone["error"]
    assert report["errors"] == []


def test_project_servers_need_trust(env):
    with HttpMcpServer() as server:
        result = run_pi(["mcp", "add", "-l", "web", "--url", server.url, "--header", "X-Key=1"], env)
        path = mcp_file(env, project=True)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[1] == (
            f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it.")
        untrusted = run_pi(["mcp", "list"], env, timeout=60)
        assert untrusted.returncode == 0
        assert untrusted.stdout.strip().endswith(
            f"{path} is ignored because the project is not trusted. Start pi in the project to trust it.")
        trust = Path(env["PI_CODING_AGENT_DIR"], "trust.json")
        trust.write_text(json.dumps({str(Path(env["PI_TEST_PROJECT"]).resolve()): True}))
        trusted = run_pi(["mcp", "list"], env, timeout=60)
        assert trusted.returncode == 0, trusted.stdout
        assert trusted.stdout.splitlines()[0] == "web: connected, 2 tools (codemode, project)"
        assert "  offers resources" in trusted.stdout.splitlines()
        assert server.headers[0]["x-key"] == "1"
