"""``codemode`` end to end: the installed ``pi`` runs scripts the model sends, and the same scripts run
by the real Pi 1.6 (``PI_REFERENCE``) give the same result text.

The loopback server plays the model: it answers the prompt with one ``codemode`` call, then ends
the turn. What is compared is the tool result as the session file keeps it, with the wall time
and temp paths taken out.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import pi_side_by_side as sbs

PI_REFERENCE = os.environ.get("PI_REFERENCE")
OURS = str(Path(sys.executable).parent / "pi")

SCRIPTS = {
    "parallel": 'const [a, b] = await Promise.all([tools.read({ path: "a.txt" }), tools.bash({ command: "echo hi" })]);'
                "\ntext(a);\nreturn b;",
    "console": 'console.log("one", 2, { three: 3 });\ntext("body");\nconsole.warn("last");',
    "allsettled": 'const r = await Promise.allSettled([tools.read({ path: "a.txt" }), tools.read({ path: "nope.txt" })]);'
                  "\nreturn r.map((x) => x.status);",
    "bash_exit": 'const r = await tools.bash({ command: "echo out; exit 3" });\nreturn [r.output, r.exit_code];',
    "throws": 'text("before");\nthrow new TypeError("bad thing");',
    "store": 'store("k", { n: 1 });\nreturn load("k");',
    "options": '// @options: {"max_output_tokens": 5}\ntext("x".repeat(100));',
    "bad_options": '// @options: {"colour": 1}\nreturn 1;',
    "missing_tool": "await tools.reed({});",
    "edit": 'await tools.edit({ path: "a.txt", edits: [{ oldText: "alpha", newText: "omega" }] });\n'
            'return await tools.read({ path: "a.txt" });',
    "exit": 'text("a");\nexit();\ntext("b");',
    "describe": 'return (await describeTool("bash")).split("\\n").slice(-3).join("\\n");',
    "search": 'return (await searchTools("run shell command")).map((t) => t.name).slice(0, 2);',
}


def scenario(name: str) -> sbs.Scenario:
    return sbs.Scenario(f"codemode_{name}", sbs.tool_then_answer("codemode", {"code": SCRIPTS[name]}),
                        files={"a.txt": "alpha\n"}, extra_args=("--tools", "+codemode"))


def result_text(run: sbs.Run) -> str:
    results = [e["message"] for e in run.entries
               if e.get("type") == "message" and e["message"].get("role") == "toolResult"]
    assert results, run.stdout[-2000:]
    text = "".join(b.get("text", "") for b in results[-1]["content"])
    text = re.sub(r"Wall time \d+\.\d seconds", "Wall time N seconds", text)
    text = re.sub(r'"wall_time_seconds":[\d.]+', '"wall_time_seconds":N', text)
    return re.sub(r"/tmp/pi-[\w-]+\.\w+", "<tmp>", text)


def test_installed_pi_runs_a_parallel_script(tmp_path):
    run = sbs.run(OURS, scenario("parallel"), tmp_path)
    assert run.returncode == 0, run.stdout[-2000:]
    assert result_text(run) == ('Script completed\nWall time N seconds\nOutput:\n==> text 1/2 <==\nalpha\n'
                                '==> text 2/2 <==\n{"output":"hi\\n","truncated":false,"exit_code":0,'
                                '"wall_time_seconds":N}')
    second = run.requests[1]["messages"][-1]
    assert second["role"] == "tool" and "alpha" in json.dumps(second)
    names = [t["function"]["name"] for t in run.requests[0]["tools"]]
    assert names == ["read", "bash", "edit", "write", "codemode"]


def nested_view(run: sbs.Run) -> tuple[list[tuple[str, str, str | None]], dict]:
    """The nested calls' start/end records (kind, id, parent) and the result message's ``nestedCalls``
    with the durations taken out."""
    events = [(r["type"], r["toolCallId"], r.get("parentToolCallId")) for r in run.records
              if r.get("type") in ("tool_execution_start", "tool_execution_end") and r["toolName"] == "read"]
    [message] = [e["message"] for e in run.entries if e.get("message", {}).get("role") == "toolResult"]
    record = message.get("nestedCalls") or {}
    calls = [{k: v for k, v in c.items() if k != "durationMs"} for c in record.get("calls", [])]
    return events, {**record, "calls": calls}


def test_a_scripts_calls_are_session_events_and_recorded_on_its_result(tmp_path):
    run = sbs.run(OURS, scenario("allsettled"), tmp_path)
    assert run.returncode == 0, run.stdout[-2000:]
    events, record = nested_view(run)
    # Pi 1.6: each nested call's start and end go out with the codemode call as parentToolCallId,
    # and the codemode result message keeps a bounded record of them (never their results).
    parent = next(r["toolCallId"] for r in run.records if r.get("type") == "tool_execution_start"
                  and r["toolName"] == "codemode")
    assert sorted(events) == sorted([(kind, f"{parent}/{n}", parent) for n in (1, 2)
                                     for kind in ("tool_execution_start", "tool_execution_end")])
    assert record["complete"] is True
    assert [(c["name"], c["status"], c["arguments"]) for c in record["calls"]] == [
        ("read", "ok", {"path": "a.txt"}), ("read", "error", {"path": "nope.txt"})]
    assert "nope.txt" in record["calls"][1]["error"]


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_nested_calls_as_pi_records_them(tmp_path):
    os.environ["PATH"] = f"{Path(PI_REFERENCE).parent.parent / 'node' / 'bin'}:{os.environ['PATH']}"
    theirs = nested_view(sbs.run(str(PI_REFERENCE), scenario("parallel"), tmp_path / "pi"))
    ours = nested_view(sbs.run(OURS, scenario("parallel"), tmp_path / "ours"))
    assert ours[0] == theirs[0] and ours[1] == theirs[1]


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_result_text_as_pi(name, tmp_path):
    os.environ["PATH"] = f"{Path(PI_REFERENCE).parent.parent / 'node' / 'bin'}:{os.environ['PATH']}"
    theirs = sbs.run(str(PI_REFERENCE), scenario(name), tmp_path / "pi")
    ours = sbs.run(OURS, scenario(name), tmp_path / "ours")
    assert result_text(ours) == result_text(theirs)


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_same_codemode_declaration_as_pi(tmp_path):
    os.environ["PATH"] = f"{Path(PI_REFERENCE).parent.parent / 'node' / 'bin'}:{os.environ['PATH']}"
    theirs = sbs.run(str(PI_REFERENCE), scenario("store"), tmp_path / "pi")
    ours = sbs.run(OURS, scenario("store"), tmp_path / "ours")

    def declaration(run: sbs.Run) -> dict:
        tools = {t["function"]["name"]: t["function"] for t in run.requests[0]["tools"]}
        codemode = dict(tools["codemode"])
        codemode["description"] = re.sub(r"Read \S+codemode\.md first", "Read <docs> first", codemode["description"])
        codemode["parameters"] = {k: v for k, v in codemode["parameters"].items() if k != "additionalProperties"}
        return {"codemode": codemode, "read": tools["read"]["description"], "bash": tools["bash"]["description"]}

    mine, pis = declaration(ours), declaration(theirs)
    assert mine["codemode"] == pis["codemode"]
    assert mine["bash"].split("\n\n")[-1] == pis["bash"].split("\n\n")[-1]  # the "Codemode: ..." note
    assert mine["read"].split("\n\n")[-1] == pis["read"].split("\n\n")[-1]


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_five_mcp_servers_declare_no_more_than_pi(tmp_path):
    """Five servers with the default (codemode) exposure: neither declares their tools; pi's request
    (tools and system prompt) is not larger than Pi's."""
    os.environ["PATH"] = f"{Path(PI_REFERENCE).parent.parent / 'node' / 'bin'}:{os.environ['PATH']}"
    time_server = str(Path(sys.executable).parent / "mcp-server-time")
    servers = {name: {"command": time_server, "args": ["--local-timezone", "UTC"]}
               for name in ("alpha", "beta", "gamma", "delta", "epsilon")}
    sizes, sections = {}, {}
    for label, binary in (("pi", OURS), ("Pi", str(PI_REFERENCE))):
        folder = tmp_path / label
        scene = sbs.Scenario("mcp5", sbs.tool_then_answer("codemode", {"code": 'return (await searchTools("time")).length'}))
        (folder / "agent").mkdir(parents=True)
        (folder / "agent" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        run = sbs.run(binary, scene, folder, mkdirs=False)
        first = run.requests[0]
        names = [t["function"]["name"] for t in first["tools"]]
        assert "codemode" in names and not any(n.startswith("mcp__") for n in names), names
        sizes[label] = len(json.dumps(first["tools"])) + len(json.dumps(first["messages"][0]))
        prompt = json.dumps(first["messages"])
        sections[label] = re.search(r"<mcp_servers>.*?</mcp_servers>", json.loads(json.dumps(prompt)))
        assert result_text(run).endswith("Output:\n8") or result_text(run).endswith("Output:\n2"), result_text(run)
    print("request sizes (tools + system prompt, characters):", sizes)
    assert sections["pi"] is not None and sections["Pi"] is not None
    assert sections["pi"].group(0) == sections["Pi"].group(0)  # the mcp_servers section, word for word
    assert sizes["pi"] <= sizes["Pi"], sizes


def test_script_output_never_reaches_the_terminal_as_escape_sequences(tmp_path):
    code = 'text("\\u001b[2J\\u001b]0;pwned\\u0007red"); console.log("\\u001b[31mx"); return "\\u009b31m"'
    scene = sbs.Scenario("escapes", sbs.tool_then_answer("codemode", {"code": code}), extra_args=("--tools", "+codemode"))
    run = sbs.run(OURS, scene, tmp_path)
    assert run.returncode == 0, run.stdout[-2000:]
    # JSON mode escapes C0 controls (as Pi's JSON.stringify; U+009B stays, as there, for a program to read)
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout
    text = result_text(run)
    assert "red" in text and "\x1b" in text  # the model gets the script's text as it is
    from pi_runtime.text_safety import terminal_safe  # what the app's tool box draws

    assert not any(c in terminal_safe(text, multiline=True) for c in "\x1b\x9b\x07")
