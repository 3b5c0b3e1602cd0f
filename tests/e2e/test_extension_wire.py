"""Wire details an extension author meets over RPC, each checked beside Pi 1.6 (issue 27, item 14).

Every test runs the installed ``pi --mode rpc`` with a real extension file and the loopback server.
"""

from __future__ import annotations

import json
import textwrap

from e2e_support import MODEL, session_files, text_reply, tool_reply
from rpc_client import RpcClient

WIRE_EXTENSION = textwrap.dedent(
    """
    from pydantic import BaseModel


    class NoParams(BaseModel):
        pass


    def extension(pi):
        async def finish(call_id, params, signal, on_update, ctx):
            return {"content": [{"type": "text", "text": "done"}], "details": {}, "terminate": True}

        async def wrong(call_id, params, signal, on_update, ctx):
            return 42

        async def blocks(args, ctx):
            pi.send_user_message([{"type": "text", "text": "alpha"}, {"type": "text", "text": "beta"}])

        async def pi_spelling(args, ctx):
            ctx.ui.setStatus("k", "v")

        pi.register_tool(name="finish", description="Finish", params=NoParams, execute=finish)
        pi.register_tool(name="wrong", description="Returns a number", params=NoParams, execute=wrong)
        pi.register_command("blocks", blocks, description="Send two text blocks")
        pi.register_command("pi-spelling", pi_spelling, description="Use Pi's camelCase name")
        pi.on("input", lambda event, ctx: 42 if event.text == "wrong shape" else None)
        pi.on("input", lambda event: {"action": "transform", "text": "no ctx: " + event.text}
              if event.text == "short handler" else None)
    """
)


def start(env, tmp_path) -> RpcClient:
    ext = tmp_path / "wire.py"
    ext.write_text(WIRE_EXTENSION)
    return RpcClient(env, "--model", MODEL, "-e", str(ext))


def user_contents(env) -> list:
    entries = [json.loads(line) for line in session_files(env)[0].read_text().splitlines()]
    return [e["message"]["content"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "user"]


def test_send_user_message_blocks_are_one_text_block_joined_by_newline(env, tmp_path, loopback):
    loopback.push(text_reply("ok"))
    client = start(env, tmp_path)
    try:
        client.ok({"type": "prompt", "message": "/blocks"})
        client.wait_event("agent_settled")
    finally:
        client.close()
    # Pi: textParts.join("\n"), stored as [{type: text}] - not "alphabeta", not a string.
    assert user_contents(env) == [[{"type": "text", "text": "alpha\nbeta"}]]
    assert loopback.requests[0].json()["messages"][-1]["content"] in ("alpha\nbeta", [{"type": "text", "text": "alpha\nbeta"}])


def test_a_terminating_result_says_so_in_tool_execution_end(env, tmp_path, loopback):
    loopback.push(tool_reply("finish", {}))
    client = start(env, tmp_path)
    try:
        client.ok({"type": "prompt", "message": "finish"})
        end = client.wait_event("tool_execution_end")
        client.wait_event("agent_settled")
    finally:
        client.close()
    assert end["result"] == {"content": [{"type": "text", "text": "done"}], "details": {}, "terminate": True}
    assert len(loopback.requests) == 1  # and the run stopped after the batch


def test_a_tool_returning_the_wrong_type_is_reported_to_the_author(env, tmp_path, loopback):
    loopback.push(tool_reply("wrong", {}), text_reply("noted"))
    client = start(env, tmp_path)
    try:
        client.ok({"type": "prompt", "message": "go"})
        error = client.wait_event("extension_error")
        end = client.wait_event("tool_execution_end")
        client.wait_event("agent_settled")
    finally:
        client.close()
    assert error["event"] == "tool:wrong" and error["extensionPath"].endswith("wire.py")
    assert "returned int" in error["error"]
    assert end["isError"] is True  # the model still learns that the call failed


def test_pi_camel_case_names_point_at_the_python_name(env, tmp_path, loopback):
    client = start(env, tmp_path)
    try:
        client.ok({"type": "prompt", "message": "/pi-spelling"})
        error = client.wait_event("extension_error")
    finally:
        client.close()
    assert error["event"] == "command:pi-spelling"
    assert "ctx.ui.set_status" in error["error"] and "setStatus" in error["error"]


def test_input_handler_results_of_the_wrong_shape_are_reported(env, tmp_path, loopback):
    loopback.push(text_reply("one"), text_reply("two"))
    client = start(env, tmp_path)
    try:
        client.ok({"type": "prompt", "message": "wrong shape"})
        error = client.wait_event("extension_error")
        client.wait_event("agent_settled")
        mark = client.mark()
        # A handler may leave out ctx, as a JavaScript one may: it runs, and its result counts.
        client.ok({"type": "prompt", "message": "short handler"})
        client.wait_event("agent_settled", since=mark)
        later_errors = [r for r in client.events(mark) if r["type"] == "extension_error"]
    finally:
        client.close()
    assert error["event"] == "input" and "returned int 42" in error["error"]
    assert later_errors == []
    assert user_contents(env) == [[{"type": "text", "text": t}] for t in ("wrong shape", "no ctx: short handler")]


LATE_TOOL_EXTENSION = textwrap.dedent(
    """
    from pi_runtime.agent.tool import ToolParams


    def extension(pi):
        async def late(call_id, params, signal, on_update, ctx):
            return "late"

        async def register(args, ctx):
            pi.register_tool(name="late", description="Registered late", params=ToolParams, execute=late)

        pi.register_command("register-late", register, description="Register a tool now")
    """
)


def test_a_tool_registered_at_run_time_is_declared_by_a_system_message(env, tmp_path, loopback):
    # Pi 1.6 opens the next run with {"role": "system", "content": "", "toolsAdded": [...]}:
    # emitted (message_start/_end) and stored, so a reader replaying the file knows the tools.
    ext = tmp_path / "late.py"
    ext.write_text(LATE_TOOL_EXTENSION)
    loopback.push(text_reply("one"), text_reply("two"))
    client = RpcClient(env, "--model", MODEL, "-e", str(ext))
    try:
        client.ok({"type": "prompt", "message": "first"})
        client.wait_event("agent_settled")
        client.ok({"type": "prompt", "message": "/register-late"})
        mark = client.mark()
        client.ok({"type": "prompt", "message": "second"})
        client.wait_event("agent_settled", since=mark)
        ends = [r["message"] for r in client.events(mark) if r["type"] == "message_end"]
    finally:
        client.close()
    assert [m["role"] for m in ends] == ["system", "user", "assistant"]
    change = ends[0]
    assert [t["name"] for t in change["toolsAdded"]] == ["late"] and "toolsRemoved" not in change
    entries = [json.loads(line) for line in session_files(env)[0].read_text().splitlines()]
    systems = [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "system"]
    assert len(systems) == 2 and systems[1]["toolsAdded"] == change["toolsAdded"]
    assert "late" in [t["function"]["name"] for t in loopback.requests[1].json()["tools"]]
