"""Tools changed during a run, side by side with the real Pi 1.6 (issue 27, item 14).

The same extension, written once for Pi (TypeScript) and once for pi (Python), changes the tools
from its first ``tool_execution_end`` handler; both run ``--mode json`` against one loopback
server replying with a tool call, then text. The turn and message events, the declaring system
message, the tools of each request and the session file's messages must agree.

Runs only where Pi is installed and named by ``PI_REFERENCE`` (see ``test_pi_interop.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.testing.loopback import LoopbackServer, Reply

PI_REFERENCE = os.environ.get("PI_REFERENCE")
pytestmark = pytest.mark.skipif(
    not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)"
)

PI_EXTENSION = textwrap.dedent(
    """
    import { Type } from "typebox";

    export default function (pi: any) {
      let done = false;
      pi.on("tool_execution_end", async () => {
        if (done) return;
        done = true;
        if (process.env.LOADOUT_MODE === "register") {
          pi.registerTool({
            name: "late_tool", label: "Late", description: "Registered mid-run",
            promptSnippet: "late_tool: a tool registered mid-run",
            parameters: Type.Object({}),
            async execute() { return { content: [{ type: "text", text: "late" }], details: {} }; },
          });
        } else if (process.env.LOADOUT_MODE === "narrow") {
          pi.setActiveTools(["read", "bash"]);
        }
      });
    }
    """
)

OUR_EXTENSION = textwrap.dedent(
    """
    import os

    from pi_runtime.agent.tool import ToolParams


    def extension(pi):
        done = []

        async def late(call_id, params, signal, on_update, ctx):
            return "late"

        async def on_end(event, ctx):
            if done:
                return
            done.append(True)
            if os.environ["LOADOUT_MODE"] == "register":
                pi.register_tool(name="late_tool", label="Late", description="Registered mid-run",
                                 prompt_snippet="late_tool: a tool registered mid-run", params=ToolParams,
                                 execute=late)
            elif os.environ["LOADOUT_MODE"] == "narrow":
                pi.set_active_tools(["read", "bash"])

        pi.on("tool_execution_end", on_end)
    """
)


def tool_call_then_text(request) -> Reply:
    last = ((request.json() or {}).get("messages") or [{}])[-1]
    if last.get("role") == "user":
        return Reply.sse([
            {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": "bash", "arguments": '{"command": "echo hi"}'}}]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
             "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}},
            "[DONE]",
        ])
    return Reply.sse([
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "all done"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 60, "completion_tokens": 2, "total_tokens": 62}},
        "[DONE]",
    ])


def declaration(message: dict[str, Any]) -> dict[str, Any]:
    """What a system message declares, without the texts whose wording differs between the two."""
    return {
        "added": [tool["name"] for tool in message.get("toolsAdded") or []],
        "removed": [tool["name"] for tool in message.get("toolsRemoved") or []],
        "sections": sorted(message.get("sections") or {}),
    }


def run(binary: str, extension: Path, mode: str, home: Path) -> dict[str, Any]:
    agent, project = home / "agent", home / "project"
    agent.mkdir(parents=True)
    project.mkdir()
    with LoopbackServer(tool_call_then_text) as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000}]}}}))
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "LOADOUT_MODE": mode}
        out = subprocess.run([binary, "--mode", "json", "--model", "loop/m1", "-e", str(extension), "go"],
                             cwd=project, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        requests = [[t["function"]["name"] for t in r.json().get("tools") or []] for r in server.requests]
    events = [json.loads(line) for line in out.stdout.splitlines()]
    outline, systems = [], []
    for event in events:
        kind = event["type"]
        if kind in ("turn_start", "turn_end"):
            outline.append(kind)
        elif kind in ("message_start", "message_end"):
            outline.append(f"{kind}:{event['message']['role']}")
            if kind == "message_end" and event["message"]["role"] == "system":
                systems.append(declaration(event["message"]))
    [session] = list((agent / "sessions").rglob("*.jsonl"))
    stored = [json.loads(line) for line in session.read_text().splitlines()]
    stored_messages = [e["message"] for e in stored if e.get("type") == "message"]
    return {
        "outline": outline,
        # The first one declares the whole prompt, whose sections differ in name between the two.
        "changes": systems[1:],
        "requests": requests,
        "stored_roles": [m["role"] for m in stored_messages],
        "stored_changes": [declaration(m) for m in stored_messages if m["role"] == "system"][1:],
    }


@pytest.mark.parametrize("mode", ["register", "narrow", "none"])
def test_tools_changed_mid_run_are_declared_as_pi_does(tmp_path, mode):
    ours = shutil.which("pi") or str(Path(sys.executable).parent / "pi")
    (tmp_path / "ext.ts").write_text(PI_EXTENSION)
    (tmp_path / "ext.py").write_text(OUR_EXTENSION)
    theirs = run(str(PI_REFERENCE), tmp_path / "ext.ts", mode, tmp_path / "pi-ref")
    mine = run(ours, tmp_path / "ext.py", mode, tmp_path / "pi-ours")
    assert mine == theirs
    if mode == "register":
        assert theirs["changes"] == [{"added": ["late_tool"], "removed": [], "sections": ["tools"]}]
    elif mode == "narrow":
        assert theirs["changes"] == [{"added": [], "removed": ["edit", "write"], "sections": ["rules", "tools"]}]
    else:
        assert theirs["changes"] == []
