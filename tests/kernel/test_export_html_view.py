"""What the exported page shows first (issue #37): it opens at the top of the branch, as Pi's export
does (it opened at the last entry), and five Ctrl+P presses in a row are one model line, the
model kept (each press was a line). The page's own scripts run in Node against a small stand-in
for the browser's document; skipped where Node is not installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text

NODE = shutil.which("node")

HARNESS = r"""
const fs = require("fs");
const vm = require("vm");
const page = fs.readFileSync(process.argv[2], "utf8");
const scripts = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
const elements = new Map();
function element(id) {
  if (!elements.has(id)) {
    const classes = new Set();
    elements.set(id, {
      id, innerHTML: "", textContent: "", value: "", scrollTop: 0, scrollHeight: 5000,
      classList: { add: (c) => classes.add(c), remove: (c) => classes.delete(c), toggle: (c) => classes.has(c) ? classes.delete(c) : classes.add(c), contains: (c) => classes.has(c) },
      addEventListener() {}, scrollIntoView() {}, blur() {}, focus() {},
    });
  }
  return elements.get(id);
}
for (const [, attrs, text] of scripts) {
  const id = /id="([^"]+)"/.exec(attrs);
  if (id) element(id[1]).textContent = text;
}
const document = {
  getElementById: element, body: element("body"),
  querySelector: () => null, querySelectorAll: () => [], addEventListener() {}, createElement: () => element("x"),
};
const window = { location: { search: "", hash: "" }, history: { replaceState() {} } };
const context = vm.createContext({ window, document, atob, TextDecoder, URLSearchParams, CSS: { escape: (s) => s }, console });
for (const [, attrs, text] of scripts) {
  if (!/application\/json/.test(attrs)) vm.runInContext(text, context);
}
process.stdout.write(JSON.stringify({ messages: element("messages").innerHTML, scrollTop: element("main").scrollTop }));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_the_page_opens_at_the_top_with_one_line_per_model_switch(make_session, tmp_path):
    provider = ScriptedProvider("exported")
    session = make_session(provider=provider)
    for model_id in ("alpha", "beta", "gamma"):
        session.model_registry.add_model(provider.model(model_id))
    provider.push(scripted_text("first answer"), scripted_text("second answer"))
    await session.prompt("first question")
    for model_id in ("alpha", "beta", "gamma", "alpha", "beta"):  # Ctrl+P pressed five times
        await session.set_model(session.model_registry.find("exported", model_id))
    await session.prompt("second question")
    page = Path(session.export_html(str(tmp_path / "export.html")))
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    done = subprocess.run([NODE, str(harness), str(page)], capture_output=True, text=True, timeout=60, check=True)
    shown = json.loads(done.stdout)
    assert shown["scrollTop"] == 0
    models = re.findall(r"Model: ([\w/-]+)", shown["messages"])
    assert models == ["exported/scripted-model", "exported/beta"]  # the start's, then the one kept
    assert "first answer" in shown["messages"] and "second answer" in shown["messages"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_a_tools_nested_calls_are_listed_under_its_result(make_session, tmp_path):
    # Pi 1.6's export lists the calls a codemode script made (its result's nestedCalls).
    from pi_runtime.ai.types import AssistantMessage, ToolCall, ToolResultMessage, UserMessage

    session = make_session()
    manager = session.session_manager
    manager.append_message(UserMessage(content="go"))
    manager.append_message(AssistantMessage(content=[ToolCall(id="c1", name="codemode", arguments={"code": "..."})],
                                            stop_reason="toolUse"))
    manager.append_message(ToolResultMessage(tool_call_id="c1", tool_name="codemode", content=[], nested_calls={
        "complete": False, "calls": [
            {"id": "c1/1", "name": "read", "status": "ok", "arguments": {"path": "a.txt"}, "durationMs": 3},
            {"id": "c1/2", "name": "bash", "status": "error", "argumentsBytes": 9000, "error": "exit 2"}]}))
    page = Path(session.export_html(str(tmp_path / "export.html")))
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    done = subprocess.run([NODE, str(harness), str(page)], capture_output=True, text=True, timeout=60, check=True)
    shown = json.loads(done.stdout)["messages"]
    assert "2 nested calls (the record lost some)" in shown
    assert "✓ read {&quot;path&quot;:&quot;a.txt&quot;} 3 ms" in shown
    assert "✗ bash (arguments left out: 9000 bytes)\n    exit 2" in shown
