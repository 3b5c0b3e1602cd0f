"""The ported Pi example extensions (docs/examples/extensions) run by the installed ``pi``, in print and RPC mode."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from e2e_support import MODEL, chunk, run_pi, stalled_reply, text_reply, tool_reply, usage
from rpc_client import RpcClient

from pi_runtime.testing.loopback import Reply

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions"


def example(name: str) -> str:
    return str(EXAMPLES / name)


def request_text(request) -> str:
    return json.dumps(request.json())


def test_rpc_demo_round_trips_every_ui_method(env, loopback):
    loopback.push(tool_reply("bash", {"command": "rm -rf build"}), text_reply("blocked it"))
    client = RpcClient(env, "--model", MODEL, "-e", example("rpc_demo.py"))
    try:
        start = {m: client.wait(lambda r, m=m: r.get("method") == m) for m in ("setTitle", "setWidget", "setStatus")}
        assert start["setTitle"]["title"] == "pi RPC Demo"
        assert start["setWidget"]["widgetLines"] == ["--- RPC Extension UI Demo ---", "Loaded and ready."]
        assert start["setStatus"]["statusText"] == "Turns: 0"
        # select on a dangerous command: the client blocks it.
        client.ok({"type": "prompt", "message": "clean up"})
        asked = client.wait(lambda r: r.get("method") == "select")
        assert asked["title"] == "Dangerous command: rm -rf build" and asked["options"] == ["Allow", "Block"]
        client.send({"type": "extension_ui_response", "id": asked["id"], "value": "Block"})
        end = client.wait_event("tool_execution_end")
        assert end["isError"] and end["result"]["content"][0]["text"] == "Blocked by user"
        client.wait_event("agent_settled")
        # input and editor dialogs, set_editor_text
        client.send({"type": "prompt", "message": "/rpc-input"})
        dialog = client.wait(lambda r: r.get("method") == "input")
        client.send({"type": "extension_ui_response", "id": dialog["id"], "value": "forty-two"})
        client.wait(lambda r: r.get("method") == "notify" and r.get("message") == "You entered: forty-two")
        client.send({"type": "prompt", "message": "/rpc-editor"})
        dialog = client.wait(lambda r: r.get("method") == "editor")
        assert dialog["prefill"] == "Line 1\nLine 2\nLine 3"
        client.send({"type": "extension_ui_response", "id": dialog["id"], "value": "a\nb"})
        client.wait(lambda r: r.get("method") == "notify" and r.get("message") == "Editor submitted (2 lines)")
        client.send({"type": "prompt", "message": "/rpc-prefill"})
        prefill = client.wait(lambda r: r.get("method") == "set_editor_text")
        assert prefill["text"] == "This text was set by the rpc-demo extension."
        # confirm before /new: refused, the session stays
        before = client.ok({"type": "get_state"})["sessionId"]
        pending = client.send({"type": "new_session"})
        confirm = client.wait(lambda r: r.get("method") == "confirm")
        client.send({"type": "extension_ui_response", "id": confirm["id"], "confirmed": False})
        client.wait(lambda r: r.get("type") == "response" and r.get("id") == pending)
        assert client.ok({"type": "get_state"})["sessionId"] == before
    finally:
        client.close()


def test_plan_mode_from_the_command_line(env, loopback):
    loopback.push(text_reply("Plan:\n1. Read the parser module\n"))
    result = run_pi(["-p", "--model", MODEL, "-e", example("plan_mode"), "--plan", "plan the parser"], env)
    assert result.returncode == 0, result.stderr
    body = loopback.requests[0].json()
    assert "[PLAN MODE ACTIVE]" in request_text(loopback.requests[0])
    tools = [t["function"]["name"] for t in body["tools"]]
    assert "edit" not in tools and "write" not in tools and {"read", "bash", "grep", "find", "ls"} <= set(tools)


def test_preset_from_the_command_line(env, loopback):
    agent = Path(env["PI_CODING_AGENT_DIR"])
    (agent / "presets.json").write_text(json.dumps(
        {"review": {"tools": ["read", "grep"], "instructions": "REVIEW ONLY: never change files."}}))
    loopback.push(text_reply("looks fine"))
    result = run_pi(["-p", "--model", MODEL, "-e", example("preset.py"), "--preset", "review", "check main.py"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "looks fine"
    body = loopback.requests[0].json()
    assert body["messages"][0]["content"].rstrip().endswith("REVIEW ONLY: never change files.")
    assert [t["function"]["name"] for t in body["tools"]] == ["read", "grep"]
    assert body["messages"][-1]["content"] == [{"type": "text", "text": "check main.py"}]


def test_todo_tool_in_print_mode(env, loopback):
    loopback.push(tool_reply("todo", {"action": "add", "text": "write docs"}), text_reply("Added it."))
    result = run_pi(["-p", "--model", MODEL, "-e", example("todo.py"), "remember to write docs"], env)
    assert result.returncode == 0 and result.stdout.strip() == "Added it."
    assert "Added todo #1: write docs" in request_text(loopback.requests[1])


def test_input_transform_in_print_mode(env, loopback):
    loopback.push(text_reply("A language."))
    result = run_pi(["-p", "--model", MODEL, "-e", example("input_transform.py"), "?quick What is Python?"], env)
    assert result.returncode == 0 and result.stdout.strip() == "A language."
    assert loopback.requests[0].json()["messages"][-1]["content"] == [
        {"type": "text", "text": "Respond briefly in 1-2 sentences: What is Python?"}]


def test_auto_commit_on_exit_in_print_mode(env, loopback):
    project = Path(env["PI_TEST_PROJECT"])

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=project, capture_output=True, text=True, check=True, env=env).stdout

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "Test")
    (project / "app.py").write_text("print('hi')\n")
    loopback.push(text_reply("Added app.py with a greeting"))
    result = run_pi(["-p", "--model", MODEL, "-e", example("auto_commit_on_exit.py"), "add a greeting"], env)
    assert result.returncode == 0, result.stderr
    assert git("log", "--format=%s").strip() == "[pi] Added app.py with a greeting"


def test_provider_payload_logs_in_print_mode(env, loopback):
    loopback.push(text_reply("logged"))
    result = run_pi(["-p", "--model", MODEL, "-e", example("provider_payload.py"), "hi"], env)
    assert result.returncode == 0, result.stderr
    log = (Path(env["PI_TEST_PROJECT"]) / ".pi" / "provider-payload.log").read_text()
    assert '"model": "loop-model"' in log and "[200]" in log


def test_custom_provider_in_print_mode(env, loopback, tmp_path):
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "custom hello"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
    ]
    loopback.push(Reply.sse(events, event_names=[e["type"] for e in events]))
    repoint = tmp_path / "repoint.py"
    repoint.write_text(f"def extension(pi):\n    pi.register_provider('custom-anthropic', base_url='{loopback.url}')\n")
    env = {**env, "CUSTOM_ANTHROPIC_API_KEY": "sk-ant-e2e"}
    result = run_pi(["-p", "-e", example("custom_provider_anthropic"), "-e", str(repoint),
                     "--model", "custom-anthropic/claude-opus-4-5", "hello"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "custom hello"
    assert loopback.requests[0].path == "/v1/messages" and loopback.requests[0].headers["x-api-key"] == "sk-ant-e2e"


def test_truncated_tool_in_print_mode_stores_its_truncation(env, loopback):
    # A tool putting pi's TruncationResult in its details (as Pi's example does) failed the whole
    # run here: the session file could not take it, nothing was printed.
    project = Path(env["PI_TEST_PROJECT"])
    (project / "logs").mkdir()
    for n in range(10):
        (project / "logs" / f"{n}.log").write_text("\n".join(f"ERROR line {i}" for i in range(300)))
    loopback.push(tool_reply("rg", {"pattern": "ERROR", "path": "logs"}), text_reply("Lots of errors."))
    result = run_pi(["-p", "--model", MODEL, "-e", example("truncated_tool.py"), "find the errors"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Lots of errors."
    sent = loopback.requests[1].json()["messages"][-1]["content"]
    assert "[Output truncated: showing" in sent and "of 3000 lines" in sent and "Full output saved to:" in sent
    session_file, = (Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in session_file.read_text().splitlines()]
    details, = [e["message"]["details"] for e in entries
                if e.get("type") == "message" and e["message"]["role"] == "toolResult"]
    assert details["truncation"]["truncated"] is True and details["truncation"]["totalLines"] == 3000
    assert Path(details["fullOutputPath"]).read_text().count("ERROR") == 3000


def test_dirty_repo_guard_asks_an_rpc_client(env, loopback):
    project = Path(env["PI_TEST_PROJECT"])
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=env)
    (project / "draft.txt").write_text("unsaved thoughts")
    client = RpcClient(env, "--model", MODEL, "-e", example("dirty_repo_guard.py"))
    try:
        before = client.ok({"type": "get_state"})["sessionId"]
        pending = client.send({"type": "new_session"})
        asked = client.wait(lambda r: r.get("method") == "select")
        assert asked["title"] == "You have 1 uncommitted file(s). new session anyway?"
        client.send({"type": "extension_ui_response", "id": asked["id"], "value": "No, let me commit first"})
        reply = client.wait(lambda r: r.get("type") == "response" and r.get("id") == pending)
        assert reply["data"]["cancelled"] is True
        assert client.ok({"type": "get_state"})["sessionId"] == before
    finally:
        client.close()


def test_prompt_customizer_and_dynamic_resources_in_print_mode(env, loopback):
    loopback.push(text_reply("Listed."))
    result = run_pi(["-p", "--model", MODEL, "-e", example("prompt_customizer.py"), "-e", example("dynamic_resources"),
                     "/dynamic"], env)
    assert result.returncode == 0 and result.stdout.strip() == "Listed.", result.stderr
    body = loopback.requests[0].json()
    system = body["messages"][0]["content"]
    assert "<tool_guidance>\n- Use `read` for file contents" in system
    assert "- Available skills: dynamic-resources." in system and "<name>dynamic-resources</name>" in system
    assert body["messages"][-1]["content"][0]["text"].startswith("List the top-level folders of this repository")


def test_prompt_customizer_and_dynamic_resources_in_rpc_mode(env, loopback):
    loopback.push(text_reply("Listed."))
    client = RpcClient(env, "--model", MODEL, "-e", example("prompt_customizer.py"), "-e", example("dynamic_resources"))
    try:
        commands = client.ok({"type": "get_commands"})["commands"]
        assert {"dynamic", "skill:dynamic-resources"} <= {c["name"] for c in commands}
        client.ok({"type": "prompt", "message": "/dynamic"})
        client.wait_event("agent_settled")
        system = loopback.requests[0].json()["messages"][0]["content"]
        assert "- Available skills: dynamic-resources." in system
    finally:
        client.close()


def test_qna_snake_and_thinking_label_over_rpc(env, loopback):
    client = RpcClient(env, "--model", MODEL, "-e", example("qna.py"), "-e", example("snake.py"),
                       "-e", example("hidden_thinking_label.py"))
    try:
        for command, said in (("/qna", "qna requires interactive mode"), ("/snake", "Snake requires interactive mode"),
                              ("/thinking-label Mulling", "Hidden thinking label set to: Mulling")):
            assert client.ok({"type": "prompt", "message": command})["disposition"] == "handled"
            client.wait(lambda r, said=said: r.get("method") == "notify" and r.get("message") == said)
        assert loopback.requests == []
    finally:
        assert client.close() == 0


def test_trigger_compact_compacts_in_the_middle_of_a_run(env, loopback):
    # Pi's trigger-compact: a turn_end handler calls ctx.compact() when the context crosses
    # 100k tokens. Pi's compact() aborts the run first; refusing ("Cannot compact while the
    # agent is working") would leave the example doing nothing.
    settings_path = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["compaction"] = {"enabled": False, "keepRecentTokens": 1}  # only the extension compacts
    settings_path.write_text(json.dumps(settings))
    calls = {"turns": 0}

    def respond(request):
        body = request.json()
        if "summar" in json.dumps(body.get("messages", [])[-1:]).lower():
            return text_reply("## Goal\nSummary of the work so far")
        calls["turns"] += 1
        if calls["turns"] > 2:
            return stalled_reply()  # the run must be aborted before it gets this far
        prompt_tokens = 90_000 if calls["turns"] == 1 else 120_000
        call = {"index": 0, "id": f"call_{calls['turns']}", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": "echo hi"})}}
        return Reply.sse([chunk({"tool_calls": [call]}), chunk(finish="tool_calls"),
                          usage(prompt=prompt_tokens, completion=10), "[DONE]"])

    loopback.responder = respond
    client = RpcClient(env, "--model", MODEL, "-e", example("trigger_compact.py"))
    try:
        client.ok({"type": "prompt", "message": "work"})
        settled = client.wait_event("agent_settled")
        end = client.wait_event("compaction_end", timeout=30)
        errors = [r for r in client.events() if r["type"] == "extension_error"]
    finally:
        client.close()
    assert settled["aborted"] is True
    assert end["reason"] == "manual" and "Summary of the work so far" in end["result"]["summary"]
    assert errors == []
    assert calls["turns"] == 2 or calls["turns"] == 3  # a third request, if sent, was cut off by the abort
