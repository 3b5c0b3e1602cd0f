"""``pi config`` as a user runs it: the installed ``pi`` on a pseudo-terminal, keys typed, the
settings file read back, and the next session without what was turned off. Also Pi's refusals
(an untrusted project with ``-l``, unknown options), which never start a session."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from e2e_support import MODEL, assert_one_line_error, run_pi, text_reply

from pi_runtime.testing.mcp_servers import server_executable
from pi_runtime.testing.waiting import wait_until


def _declared_tools(request) -> list[str]:
    return [tool["function"]["name"] for tool in request.json().get("tools", [])]


def _settings(env) -> dict:
    path = Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_turning_mcp_off_in_pi_config_keeps_it_out_of_the_next_session(terminal, env, loopback):
    time_server = server_executable("mcp-server-time")
    if time_server is None:
        pytest.skip("mcp-server-time is not installed (pip install -e '.[test]')")
    Path(env["PI_CODING_AGENT_DIR"], "mcp.json").write_text(json.dumps({"mcpServers": {"time": {
        "command": time_server, "args": ["--local-timezone", "UTC"], "env": {"PI_MARK": uuid.uuid4().hex},
        "exposure": "direct"}}}), encoding="utf-8")
    Path(env["PI_CODING_AGENT_DIR"], "settings.json").write_text(json.dumps({"quietStartup": True}), encoding="utf-8")
    loopback.push(text_reply("with mcp"))
    before = run_pi(["-p", "hi", "--model", MODEL], env, timeout=60)
    assert before.returncode == 0, before.stderr
    assert "mcp__time__get_current_time" in _declared_tools(loopback.requests[-1])

    term = terminal("config")
    assert term.wait_for("GlobalResources", "[x]mcp"), term.screen[-2000:]
    typed = term.mark()
    term.type(b"mcp")  # the search: the cursor lands on the built-in mcp
    assert term.wait_for(">[x]mcp", since=typed), term.screen[-2000:]
    term.type(b" ")
    assert wait_until(lambda: "-builtin:mcp" in _settings(env).get("extensions", []), timeout=20), term.screen[-2000:]
    term.type(b"\x1b")
    assert term.exit_status() == 0, term.screen[-2000:]
    assert _settings(env) == {"quietStartup": True, "extensions": ["-builtin:mcp"]}

    loopback.push(text_reply("without mcp"))
    after = run_pi(["-p", "hi", "--model", MODEL], env, timeout=60)
    assert after.returncode == 0, after.stderr
    assert after.stdout == "without mcp\n"
    assert not any(name.startswith("mcp__") for name in _declared_tools(loopback.requests[-1]))


def test_local_mode_in_an_untrusted_project_is_refused_unless_approved(env, loopback):
    project = Path(env["PI_TEST_PROJECT"])
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text("{}", encoding="utf-8")  # a decision is needed now
    Path(env["PI_CODING_AGENT_DIR"], "settings.json").write_text(json.dumps({"defaultProjectTrust": "ask"}))
    done = run_pi(["config", "-l"], env)
    assert done.returncode == 1
    assert_one_line_error(done.stderr)
    assert "Project is not trusted. Use --approve to modify local resource config." in done.stderr
    assert loopback.requests == []


def test_on_a_terminal_the_open_trust_question_is_asked_as_pi_asks_it(terminal, env):
    project = Path(env["PI_TEST_PROJECT"])
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text("{}", encoding="utf-8")
    Path(env["PI_CODING_AGENT_DIR"], "settings.json").write_text(json.dumps({"defaultProjectTrust": "ask"}))
    term = terminal("config", "-l")
    assert term.wait_for("Trustprojectfolder?"), term.screen[-2000:]
    term.type(b"\r")  # Trust
    assert term.wait_for("ProjectLocalResources"), term.screen[-2000:]
    term.type(b"\x1b")
    assert term.exit_status() == 0, term.screen[-2000:]
    trust = json.loads(Path(env["PI_CODING_AGENT_DIR"], "trust.json").read_text(encoding="utf-8"))
    assert trust == {str(project.resolve()): True}


@pytest.mark.parametrize(("args", "message"), [
    (["config", "--nope"], 'Unknown option --nope for "config".'),
    (["config", "extra"], "Unexpected argument extra."),
])
def test_bad_arguments_get_pis_message_and_no_session(env, loopback, args, message):
    done = run_pi(args, env)
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert loopback.requests == []


def test_without_a_terminal_it_says_so_instead_of_waiting_for_keys(env, loopback):
    done = run_pi(["config"], env)  # stdin and stdout are pipes
    assert done.returncode == 1
    assert_one_line_error(done.stderr)
    assert "needs a terminal" in done.stderr and loopback.requests == []


def test_help_says_what_the_flags_do(env):
    done = run_pi(["config", "--help"], env)
    assert done.returncode == 0
    assert "pi config [-l] [--approve|--no-approve]" in done.stdout and "--approve" in done.stdout
