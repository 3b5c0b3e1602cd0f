"""Extensions through the headless front ends: RPC's UI sub-protocol and print mode's stderr."""

from __future__ import annotations

import textwrap

from e2e_support import MODEL, run_pi, text_reply, tool_reply
from rpc_client import RpcClient

ASKING_EXTENSION = textwrap.dedent(
    """
    def extension(pi):
        async def deploy(args, ctx):
            choice = await ctx.ui.select("Where to?", ["staging", "production"])
            sure = await ctx.ui.confirm("Really?", f"Deploy to {choice}")
            name = await ctx.ui.input("Release name", "v1.2.3", timeout=0.3)
            ctx.ui.notify(f"deploy {choice} confirmed={sure} name={name}", "warning")
            ctx.ui.set_status("deploy", "done")

        pi.register_command("deploy", deploy, description="Deploy somewhere")
    """
)


def test_rpc_extension_dialogs_round_trip(env, tmp_path):
    ext = tmp_path / "asking.py"
    ext.write_text(ASKING_EXTENSION)
    client = RpcClient(env, "--model", MODEL, "-e", str(ext))
    try:
        commands = client.ok({"type": "get_commands"})["commands"]
        assert any(c["name"] == "deploy" and c["source"] == "extension" for c in commands)
        # The command runs while dialogs are open; its "handled" response comes when it is done.
        prompt_id = client.send({"type": "prompt", "message": "/deploy"})
        select = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "select")
        assert select["title"] == "Where to?" and select["options"] == ["staging", "production"]
        client.send({"type": "extension_ui_response", "id": select["id"], "value": "production"})
        confirm = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
        assert confirm["message"] == "Deploy to production"
        client.send({"type": "extension_ui_response", "id": confirm["id"], "confirmed": True})
        # The input dialog is left unanswered: its timeout resolves it to the default (None).
        asked = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "input")
        assert asked["timeout"] == 300
        note = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "notify")
        assert note["message"] == "deploy production confirmed=True name=None" and note["notifyType"] == "warning"
        status = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "setStatus")
        assert status["statusKey"] == "deploy" and status["statusText"] == "done"
        response = client.wait(lambda r: r.get("type") == "response" and r.get("id") == prompt_id)
        assert response["success"] and response["data"]["disposition"] == "handled"
        # Responses to dialogs never produce response records.
        assert not [r for r in client.records if r.get("type") == "response" and r.get("command") == "extension_ui_response"]
    finally:
        client.close()


def test_print_mode_reports_extension_failures_on_stderr(env, tmp_path, loopback):
    broken = tmp_path / "broken.py"
    broken.write_text("def extension(pi):\n    raise RuntimeError('setup exploded')\n")
    loopback.push(text_reply("still answered"))
    result = run_pi(["-p", "--model", MODEL, "-e", str(broken), "hello"], env)
    assert result.returncode == 0
    assert result.stdout.strip() == "still answered"
    assert "broken.py" in result.stderr and "setup exploded" in result.stderr


def test_rpc_permission_gate_takes_only_a_json_true_and_denies_when_nobody_answers(env, loopback):
    import json
    from pathlib import Path

    settings_file = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    settings = json.loads(settings_file.read_text())
    settings["permissionGate"] = {"confirmTimeoutSeconds": 1}
    settings_file.write_text(json.dumps(settings))
    data = Path(env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    client = RpcClient(env, "--model", MODEL, "-e", "builtin:permission-gate", "--no-session")

    def ask(answer):
        mark = client.mark()
        loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("ok"))
        client.ok({"type": "prompt", "message": "clean up"})
        request = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm",
                              start=mark)
        if answer is not None:
            client.send({"type": "extension_ui_response", "id": request["id"], **answer})
        end = client.wait(lambda r: r.get("type") == "tool_execution_end", start=mark, timeout=20)
        client.wait(lambda r: r.get("type") == "agent_settled", start=mark, timeout=20)
        return request, end

    try:
        # Before: the string "false" is truthy, and the call ran.
        _, end = ask({"confirmed": "false"})
        assert end["isError"] is True and "Blocked by the user" in end["result"]["content"][0]["text"]
        assert data.exists()
        # Before: no timeout, the run waited for an answer forever.
        request, end = ask(None)
        assert request["timeout"] == 1000
        assert end["isError"] is True and data.exists()
        _, end = ask({"confirmed": True})
        assert end["isError"] is False and not data.exists()
    finally:
        client.close()
