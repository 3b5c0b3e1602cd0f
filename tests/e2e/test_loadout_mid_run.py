"""Tool loadout changed during a run is declared before the next request of that run (issue 27, item 14).

Pi 1.6 checks before every model request whether the executable tools (and the prompt sections)
differ from what the transcript declared; when they do, the turn starts with a system message
carrying the difference (``turn_start``, ``message_start``/``message_end`` of it, then the
request), and the message is stored in the session file between the tool results and the answer.
Each test runs the installed ``pi --mode json`` with an extension file that changes the tools from
its first ``tool_execution_end`` handler, against the loopback server.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from e2e_support import MODEL, run_pi, session_files, text_reply, tool_reply

MID_RUN_EXTENSION = textwrap.dedent(
    """
    from pi_runtime.agent.tool import ToolParams

    MODE = {mode!r}


    def extension(pi):
        done = []

        async def late(call_id, params, signal, on_update, ctx):
            return "late"

        async def on_end(event, ctx):
            if done:
                return
            done.append(True)
            if MODE == "register":
                pi.register_tool(name="late_tool", description="Registered mid-run", params=ToolParams,
                                 execute=late)
            elif MODE == "narrow":
                pi.set_active_tools(["read", "bash"])

        pi.on("tool_execution_end", on_end)
    """
)


def run_json(env, tmp_path, loopback, mode: str) -> list[dict[str, Any]]:
    ext = tmp_path / "mid_run.py"
    ext.write_text(MID_RUN_EXTENSION.format(mode=mode))
    loopback.push(tool_reply("bash", {"command": "echo hi"}), text_reply("all done"))
    out = run_pi(["--mode", "json", "--model", MODEL, "-e", str(ext), "go"], env)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def outline(events: list[dict[str, Any]]) -> list[str]:
    """Turn and message events, a message's with its role."""
    out = []
    for event in events:
        kind = event["type"]
        if kind in ("turn_start", "turn_end"):
            out.append(kind)
        elif kind in ("message_start", "message_end"):
            out.append(f"{kind}:{event['message']['role']}")
    return out


def stored_messages(env) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in session_files(env)[0].read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message"]


def request_tools(request) -> list[str]:
    return [tool["function"]["name"] for tool in request.json().get("tools") or []]


SECOND_TURN = ["turn_end", "turn_start", "message_start:system", "message_end:system",
               "message_start:assistant", "message_end:assistant", "turn_end"]


def test_a_tool_registered_mid_run_is_declared_before_the_next_request(env, tmp_path, loopback):
    events = run_json(env, tmp_path, loopback, "register")
    steps = outline(events)
    # After the first turn (system, user, assistant with the call, its result) the second turn
    # opens with the declaration, then the request.
    assert steps[-len(SECOND_TURN):] == SECOND_TURN
    systems = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "system"]
    assert len(systems) == 2
    change = systems[1]
    assert change["content"] == ""
    assert [t["name"] for t in change["toolsAdded"]] == ["late_tool"]
    assert change["toolsAdded"][0]["description"] == "Registered mid-run"
    assert "toolsRemoved" not in change
    # A tool without a prompt snippet is not listed in the prompt (as in Pi): no section changes.
    assert "sections" not in change
    assert "late_tool" not in request_tools(loopback.requests[0])
    assert "late_tool" in request_tools(loopback.requests[1])
    # The session file keeps it where it happened: after the tool result, before the answer.
    stored = stored_messages(env)
    assert [m["role"] for m in stored] == ["system", "user", "assistant", "toolResult", "system", "assistant"]
    assert stored[4]["toolsAdded"] == change["toolsAdded"]


def test_set_active_tools_mid_run_declares_the_removed_tools_and_the_changed_sections(env, tmp_path, loopback):
    events = run_json(env, tmp_path, loopback, "narrow")
    assert outline(events)[-len(SECOND_TURN):] == SECOND_TURN
    change = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "system"][1]
    # As Pi 1.6: {"toolsRemoved": [{"name": "edit"}, {"name": "write"}], "sections": {rules, tools}}.
    assert change["toolsRemoved"] == [{"name": "edit"}, {"name": "write"}]
    assert "toolsAdded" not in change
    assert set(change["sections"]) == {"rules", "tools"}
    assert "edit" not in change["sections"]["tools"]
    assert request_tools(loopback.requests[1]) == ["read", "bash"]
    assert [m["role"] for m in stored_messages(env)] == ["system", "user", "assistant", "toolResult", "system",
                                                        "assistant"]


def test_nothing_is_declared_mid_run_when_nothing_changed(env, tmp_path, loopback):
    events = run_json(env, tmp_path, loopback, "none")
    steps = outline(events)
    assert steps.count("message_end:system") == 1
    assert steps[-5:] == ["turn_end", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end"]
    assert [m["role"] for m in stored_messages(env)] == ["system", "user", "assistant", "toolResult", "assistant"]
