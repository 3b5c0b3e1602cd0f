"""``shellCommandPrefix`` runs before every shell command, the model's and the user's (issue #37:
it was read and never used, so Pi's alias recipe failed with "command not found")."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import MODEL, run_pi, session_files, text_reply, tool_reply
from rpc_client import RpcClient

RECIPE = "shopt -s expand_aliases\nalias hello='echo hello from an alias'"


def test_the_prefix_makes_aliases_work_for_the_tool_and_for_the_user(env, loopback):
    settings = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "shellCommandPrefix": RECIPE}))
    loopback.push(tool_reply("bash", {"command": "hello"}), text_reply("done"))
    assert run_pi(["-p", "greet", "--model", MODEL], env).returncode == 0
    tool_result = loopback.requests[-1].json()["messages"][-1]
    assert "hello from an alias" in json.dumps(tool_result)
    client = RpcClient(env, "--model", MODEL, "--no-session")
    try:
        result = client.ok({"type": "bash", "command": "hello"})
        assert result["output"].strip() == "hello from an alias" and result["exitCode"] == 0
    finally:
        client.kill()
    assert session_files(env)  # the print run's session
