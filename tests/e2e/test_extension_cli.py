"""Extensions through the installed ``pi``: flags, extension models, print-mode exits, misbehaving handlers."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from e2e_support import MODEL, run_pi, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.waiting import wait_until


def write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def last_user_text(request) -> str:
    message = [m for m in request.json()["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


FLAGS = """
    def extension(pi):
        pi.register_flag("plan", description="Start in plan mode", type="boolean", default=False)
        pi.register_flag("target", description="Where to deploy", type="string", default="staging")
        pi.on("input", lambda e, ctx: {"action": "transform",
                                       "text": f"{e.text} [plan={pi.get_flag('plan')} target={pi.get_flag('target')}]"})
"""


def test_register_flag_reaches_the_cli(env, loopback, tmp_path):
    ext = write(tmp_path, "flags.py", FLAGS)
    loopback.push(text_reply("one"), text_reply("two"), text_reply("three"))
    # A boolean flag gives back the word the parser took as its value (Pi would drop it).
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "--plan", "say hi"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "one"
    assert last_user_text(loopback.requests[0]) == "say hi [plan=True target=staging]"
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "--target", "prod", "--plan=false", "deploy"], env)
    assert result.returncode == 0, result.stderr
    assert last_user_text(loopback.requests[1]) == "deploy [plan=False target=prod]"
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "--target=prod", "deploy"], env)
    assert last_user_text(loopback.requests[2]) == "deploy [plan=False target=prod]"


def test_unknown_and_incomplete_extension_flags_are_usage_errors(env, tmp_path):
    ext = write(tmp_path, "flags.py", FLAGS)
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "--planz", "hi"], env)
    assert result.returncode == 2
    assert "Unknown option: --planz" in result.stderr and "--plan" in result.stderr  # the hint names the flag
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "hi", "--target"], env)
    assert result.returncode == 2 and 'Extension flag "--target" requires a value' in result.stderr
    result = run_pi(["-p", "--model", MODEL, "--plan", "hi"], env)  # no extension registers it
    assert result.returncode == 2 and "Unknown option: --plan" in result.stderr


PROVIDER = """
    import asyncio
    from pi_runtime.extensions import text_stream

    async def reply(model, context, options):
        return f"{model.id} says: " + context.messages[-1].content[0].text  # blocks, as Pi stores them

    async def extension(pi):
        await asyncio.sleep(0)  # an async factory: finished before --model is resolved
        pi.register_provider("echo-corp", models=[{"id": "echo-1"}], stream=text_stream(reply))

        async def discover(context):
            return [{"id": "live-model"}]
        pi.register_provider("live", stream=text_stream(reply), refresh_models=discover)
"""


def test_model_from_an_extension_provider(env, tmp_path):
    ext = write(tmp_path, "prov.py", PROVIDER)
    result = run_pi(["-p", "-e", ext, "--model", "echo-corp/echo-1", "ping"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "echo-1 says: ping"
    result = run_pi(["-p", "-e", ext, "--model", "live/live-model", "pong"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "live-model says: pong"


COMMAND = """
    def extension(pi):
        pi.register_command("hello", lambda args, ctx: ctx.ui.notify("hello " + args))
        pi.on("input", lambda e, ctx: {"action": "handled"} if e.text == "ping" else None)
"""


def test_handled_input_and_commands_exit_0_in_print_mode(env, loopback, tmp_path):
    ext = write(tmp_path, "cmd.py", COMMAND)
    for prompt in ("/hello world", "ping"):
        result = run_pi(["-p", "--model", MODEL, "-e", ext, prompt], env)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "" and "gave no answer" not in result.stderr
    assert loopback.requests == []


def test_a_load_failure_is_printed_once(env, loopback, tmp_path):
    ext = write(tmp_path, "broken.py", "def extension(pi):\n    raise RuntimeError('setup exploded')\n")
    loopback.push(text_reply("answered"))
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "hello"], env)
    assert result.returncode == 0 and result.stdout.strip() == "answered"
    assert result.stderr.count("setup exploded") == 1, result.stderr


MISBEHAVING = """
    import sys

    def extension(pi):
        pi.on("tool_call", lambda event, ctx: {"block": True, "reason": 42})  # not text
        pi.on("turn_start", lambda event, ctx: sys.exit(5))
"""


def test_misbehaving_handlers_do_not_end_pi_or_the_run(env, loopback, tmp_path):
    ext = write(tmp_path, "bad.py", MISBEHAVING)
    loopback.push(tool_reply("read", {"path": "x.txt"}), text_reply("finished anyway"))
    result = run_pi(["--mode", "json", "--model", MODEL, "-e", ext, "go"], env)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    kinds = [e["type"] for e in events]
    assert "agent_end" in kinds and kinds[-1] == "agent_settled"
    errors = [e for e in events if e["type"] == "extension_error"]
    assert errors and all(e["event"] == "turn_start" and "SystemExit(5)" in e["error"] for e in errors)
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert end["isError"] is True and end["result"]["content"][0]["text"] == "42"
    assert "finished anyway" in json.dumps(events)


def test_sys_exit_while_loading_is_a_load_failure(env, loopback, tmp_path):
    ext = write(tmp_path, "quits.py", "import sys\nsys.exit(9)\n")
    loopback.push(text_reply("still here"))
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "hello"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "still here"
    assert "quits.py" in result.stderr and "sys.exit()" in result.stderr


HANGS = """
    import asyncio
    import os
    from pathlib import Path

    def extension(pi):
        async def hang(event, ctx):
            Path(os.environ["PI_TEST_PROJECT"], "hanging").touch()  # for the test to wait on
            await asyncio.Event().wait()
        pi.on("tool_call", hang)
"""


def test_rpc_abort_wins_over_a_handler_that_never_returns(env, loopback, tmp_path):
    ext = write(tmp_path, "hangs.py", HANGS)
    loopback.push(tool_reply("read", {"path": "x.txt"}), text_reply("unused"))
    client = RpcClient(env, "--model", MODEL, "-e", ext)
    try:
        client.ok({"type": "prompt", "message": "go"})
        client.wait_event("tool_execution_start")
        assert wait_until(lambda: Path(env["PI_TEST_PROJECT"], "hanging").exists()), "the handler never ran"
        # The handler never returns: an abort that waited for it would never settle (a bound that
        # ends a failing test, not a figure: "< 3" was too tight on a loaded machine).
        client.ok({"type": "abort"}, timeout=30)
        settled = client.wait_event("agent_settled", timeout=30)
        assert settled["aborted"] is True
        assert client.ok({"type": "get_state"})["isStreaming"] is False
    finally:
        client.close()


SHUTDOWN = """
    from pathlib import Path

    def extension(pi):
        async def bye(args, ctx):
            ctx.shutdown()
        pi.register_command("bye", bye)
        pi.on("session_shutdown", lambda e, ctx: Path(ctx.cwd, "shutdown.txt").write_text(e.reason))
"""


def test_rpc_ctx_shutdown_ends_pi(env, tmp_path):
    ext = write(tmp_path, "bye.py", SHUTDOWN)
    client = RpcClient(env, "--model", MODEL, "-e", ext)
    try:
        client.send({"type": "prompt", "message": "/bye"})
        code = client.proc.wait(15)
    finally:
        client.kill()
    assert code == 0
    assert Path(env["PI_TEST_PROJECT"], "shutdown.txt").read_text() == "quit"


UI_EVERYWHERE = """
    def extension(pi):
        def start(event, ctx):
            ctx.ui.set_title("pi - project")
            ctx.ui.set_editor_text("draft")
            ctx.ui.set_working_message("busy")
            ctx.ui.set_status("mode", "planning")
        pi.on("session_start", start)
"""


def test_ui_calls_exist_in_print_json_and_rpc_modes(env, loopback, tmp_path):
    ext = write(tmp_path, "ui.py", UI_EVERYWHERE)
    loopback.push(text_reply("printed"), text_reply("json"))
    result = run_pi(["-p", "--model", MODEL, "-e", ext, "hi"], env)
    assert result.returncode == 0 and result.stdout.strip() == "printed"
    assert "failed" not in result.stderr, result.stderr
    result = run_pi(["--mode", "json", "--model", MODEL, "-e", ext, "hi"], env)
    assert '"extension_error"' not in result.stdout
    client = RpcClient(env, "--model", MODEL, "-e", ext)
    try:
        title = client.wait(lambda r: r.get("method") == "setTitle")
        editor = client.wait(lambda r: r.get("method") == "set_editor_text")
        assert title["title"] == "pi - project" and editor["text"] == "draft"
        assert not [r for r in client.records if r.get("type") == "extension_error"]
    finally:
        client.close()


def test_rpc_get_commands_lists_each_command_once_in_pis_order(env, tmp_path):
    prompts = Path(env["PI_CODING_AGENT_DIR"]) / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review code\n---\nReview $1")
    ext = write(tmp_path, "cmd.py", "def extension(pi):\n    pi.register_command('deploy', lambda a, c: None)\n")
    client = RpcClient(env, "--model", MODEL, "-e", ext)
    try:
        commands = client.ok({"type": "get_commands"})["commands"]
    finally:
        client.close()
    # builtin:llama.cpp's /llama first, as Pi lists its built-ins' commands before others.
    assert [(c["name"], c["source"]) for c in commands] == [
        ("llama", "extension"), ("deploy", "extension"), ("review", "prompt")]
    commands = commands[1:]
    assert commands[0]["sourceInfo"] == {"path": ext, "source": "cli", "scope": "temporary", "origin": "top-level"}
