"""Extensions through the headless front ends: RPC's UI sub-protocol and print mode's stderr."""

from __future__ import annotations

import textwrap

from e2e_support import MODEL, run_pi, text_reply
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
