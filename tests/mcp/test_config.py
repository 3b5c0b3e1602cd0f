"""mcp.json: validation, global + trusted project merge, overrides, and edits that keep the file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_runtime.mcp.config import McpConfigError, load_config, validate_server
from pi_runtime.mcp.config_edit import add_server, remove_server, switch_server, update_server


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "entry", "problem"), [
    ("bad name", {"command": "x"}, 'invalid server name "bad name" (use letters, digits, "_" and "-")'),
    ("a", "x", 'server "a" must be an object'),
    ("a", {}, 'server "a" needs either "command" (stdio) or "url" (streamable HTTP)'),
    ("a", {"url": "https://x/sse", "type": "sse"}, 'server "a": legacy SSE transport is not supported; use the streamable HTTP URL'),
    ("a", {"url": "ftp://x"}, 'server "a": url must be an http or https URL'),
    ("a", {"command": "x", "args": "y"}, 'server "a": args must be an array of strings'),
    ("a", {"command": "x", "env": {"K": 1}}, 'server "a": env must map names to strings'),
    ("a", {"command": "x", "timeout": 0}, 'server "a": timeout must be a positive number of seconds'),
    ("a", {"command": "x", "timeout": float("nan")}, 'server "a": timeout must be a positive number of seconds'),
    ("a", {"command": "x", "timeout": float("inf")}, 'server "a": timeout must be at most 86400 seconds (a day)'),
    ("a", {"command": "x", "timeout": 10**400}, 'server "a": timeout must be at most 86400 seconds (a day)'),
    ("a", {"command": "x", "enabled": "no"}, 'server "a": enabled must be a boolean'),
    ("a", {"command": "x", "exposure": "loud"},
     'server "a": exposure must be one of "codemode", "deferred", "direct", "hidden"'),
    ("a", {"url": "https://x", "oauth": {"callbackPort": 70000}}, 'server "a": oauth.callbackPort must be a port number'),
    ("a", {"url": "http://example.com", "auth": {"provider": "p"}},
     'server "a": auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]'),
])
def test_invalid_entries_get_pis_messages(name, entry, problem):
    assert validate_server(name, entry) == problem


def test_valid_entries_keep_unknown_fields_and_resolve_the_exposure_alias():
    entry = validate_server("a", {"command": "x", "exposure": "codemode-deferred", "toolExposure": {"t": "codemode-deferred"},
                                  "shared": True})
    assert entry == {"command": "x", "exposure": "codemode", "toolExposure": {"t": "codemode"}, "shared": True}


def test_project_replaces_global_overrides_merge_and_errors_do_not_stop_the_rest(tmp_path):
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    write(agent / "mcp.json", {"mcpServers": {
        "tools": {"command": "t", "env": {"KEY": "secret"}},
        "docs": {"url": "https://docs.example/mcp"},
        "my-srv": {"command": "m"},
        "broken": {"command": 3},
    }})
    write(cwd / ".pi" / "mcp.json", {"autoEnableCodemode": False, "mcpServers": {
        "tools": {"enabled": False, "exposure": "direct"},
        "docs": {"command": "local-docs"},
        "my_srv": {"command": "clash"},
        "orphan": {"enabled": False},
        "sneaky": {"url": "https://x.example", "auth": {"provider": "anthropic"}},
    }})
    untrusted = load_config(agent, cwd, project_trusted=False)
    assert [s.name for s in untrusted.servers] == ["tools", "docs", "my-srv"]
    assert untrusted.project_config is None
    config = load_config(agent, cwd, project_trusted=True)
    tools = config.get("tools")
    assert tools is not None and tools.config == {"command": "t", "env": {"KEY": "secret"}, "enabled": False,
                                                  "exposure": "direct"}
    assert tools.scope == "global" and tools.override == str(cwd / ".pi" / "mcp.json")
    docs = config.get("docs")
    assert docs is not None and docs.scope == "project" and docs.config == {"command": "local-docs"}
    assert config.auto_enable_codemode is False
    assert config.get("my_srv") is None and config.get("orphan") is None and config.get("sneaky") is None
    assert len(config.errors) == 4
    assert any('"my_srv" conflicts with "my-srv"' in e for e in config.errors)
    assert any('"orphan" needs "command" or "url", or a global server to override' in e for e in config.errors)
    assert any("auth is only allowed in the global mcp.json" in e for e in config.errors)


def test_a_file_that_is_not_json_is_reported_and_never_rewritten(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text("{ not json", encoding="utf-8")
    config = load_config(tmp_path, tmp_path, project_trusted=False)
    assert config.servers == [] and "invalid JSON" in config.errors[0]
    with pytest.raises(McpConfigError):
        add_server(path, "x", {"command": "y"})
    assert path.read_text(encoding="utf-8") == "{ not json"


def test_edits_keep_other_content_and_indentation(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text('{\n    "custom": 1,\n    "mcpServers": {\n        "a": {"command": "x"}\n    }\n}\n', encoding="utf-8")
    assert add_server(path, "b", {"url": "https://b.example/mcp"}) is False
    assert add_server(path, "a", {"command": "z"}) is True
    text = path.read_text(encoding="utf-8")
    assert '\n    "custom": 1' in text
    assert json.loads(text) == {"custom": 1, "mcpServers": {"a": {"command": "z"}, "b": {"url": "https://b.example/mcp"}}}
    update_server(path, "a", enabled=False, exposure="direct")
    assert json.loads(path.read_text())["mcpServers"]["a"] == {"command": "z", "enabled": False, "exposure": "direct"}
    update_server(path, "a", enabled=True, exposure="codemode")  # defaults are dropped from a full entry
    assert json.loads(path.read_text())["mcpServers"]["a"] == {"command": "z"}
    update_server(path, "g", enabled=True, as_override=True)  # an override keeps the value it overrides with
    assert json.loads(path.read_text())["mcpServers"]["g"] == {"enabled": True}
    assert remove_server(path, "b") is True
    assert remove_server(path, "b") is False
    assert remove_server(tmp_path / "missing.json", "a") is False


def test_switches_are_saved_where_pi_saves_them(tmp_path):
    agent, project = tmp_path / "agent", tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    agent.mkdir()
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"g": {"command": "x"}, "o": {"command": "y"}}}))
    (project / ".pi" / "mcp.json").write_text(json.dumps({"mcpServers": {"o": {"exposure": "direct"}}}))
    config = load_config(agent, project, project_trusted=True)
    g, o = config.get("g"), config.get("o")
    # A global server in this project only: an override in the project's file; the global file is untouched.
    g = switch_server(g, config.project_config, enabled=False, in_project=True)
    assert json.loads((project / ".pi" / "mcp.json").read_text())["mcpServers"]["g"] == {"enabled": False}
    assert json.loads((agent / "mcp.json").read_text())["mcpServers"]["g"] == {"command": "x"}
    assert not g.enabled and g.override == str(config.project_config)
    # A server the project already overrides: changed in the override.
    o = switch_server(o, config.project_config, exposure="hidden")
    assert json.loads((project / ".pi" / "mcp.json").read_text())["mcpServers"]["o"] == {"exposure": "hidden"}
    assert o.exposure == "hidden"
    reread = load_config(agent, project, project_trusted=True)
    assert (reread.get("g").enabled, reread.get("o").exposure) == (False, "hidden")
    # An untrusted project has no file of its own to save to.
    untrusted = load_config(agent, project, project_trusted=False)
    with pytest.raises(McpConfigError, match="not trusted"):
        switch_server(untrusted.get("g"), untrusted.project_config, enabled=False, in_project=True)


def test_a_file_nested_100000_deep_is_one_clear_error_naming_the_file(tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    path = agent / "mcp.json"
    text = "[" * 100_000 + "]" * 100_000
    path.write_text(text, encoding="utf-8")
    config = load_config(agent, tmp_path, project_trusted=False)
    problem = 'expected an object with an "mcpServers" object'
    assert (config.servers, config.errors) == ([], [f"{path}: {problem}"])
    with pytest.raises(McpConfigError, match=re.escape(problem)):  # pi mcp add/remove leave such a file alone
        add_server(path, "b", {"command": "y"})
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("value", "problem"), [
    ("NaN", "timeout: NaN, which is not a JSON number"),
    ("-Infinity", "timeout: -Infinity, which is not a JSON number"),
    ("1e400", "timeout: a number too large to use (1e400)"),
    ("9" * 100_000, "timeout: a number of 100,000 digits, too large to use"),
    ("[" * 100_000 + "]" * 100_000, "timeout: nested more than 64 levels deep"),
], ids=["nan", "minus-infinity", "1e400", "100000-digits", "nested-100000-deep"])
def test_a_server_with_a_value_pi_cannot_use_is_refused_and_the_others_load(tmp_path, value, problem):
    agent = tmp_path / "agent"
    agent.mkdir()
    path = agent / "mcp.json"
    text = '{"mcpServers": {"a": {"command": "x", "timeout": ' + value + '}, "b": {"command": "y"}}}'
    path.write_text(text, encoding="utf-8")
    config = load_config(agent, tmp_path, project_trusted=False)
    assert [s.name for s in config.servers] == ["b"]
    assert config.errors == [f'{path}: server "a": {problem}']
    with pytest.raises(McpConfigError, match="holds a value pi cannot keep"):  # never written back without it
        add_server(path, "c", {"command": "z"})
    assert path.read_text(encoding="utf-8") == text


