"""What headless modes say about the session file: a full disk, lines skipped on load.

Run as the installed ``pi`` against the loopback server, on real files (a tiny tmpfs as root).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from e2e_support import MODEL, run_pi, text_reply

from pi_runtime.testing.tmpfs import small_tmpfs


@pytest.mark.parametrize("mode", ["print", "json"])
def test_answer_on_a_full_disk_is_shown_not_saved_and_the_exit_status_says_so(loopback, env, tmp_path, mode):
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        (disk / "filler").write_bytes(b"\0" * (60 * 1024))
        loopback.push(text_reply("The answer."))
        args = ["-p", "q" * 20_000, "--model", MODEL, "--session-dir", str(disk)]
        result = run_pi(args + (["--mode", "json"] if mode == "json" else []), env)
        assert "Traceback" not in result.stderr
        if mode == "print":
            assert result.stdout == "The answer.\n"
        else:
            assert '"The answer."' in result.stdout or "The answer." in result.stdout
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("pi: Could not save to ") and "No space left on device" in lines[0]
        assert "session entries are not in the file" in lines[0]
        assert result.returncode == 1
        for file in disk.glob("*.jsonl"):
            assert file.read_bytes() == b""  # nothing half-written


def test_skipped_and_torn_lines_are_reported_once_on_resume(loopback, env, tmp_path):
    loopback.push(text_reply("first"), text_reply("second"))
    first = run_pi(["-p", "hello", "--model", MODEL], env)
    assert first.returncode == 0, first.stderr
    [saved] = sorted(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
    torn = b'{"type":"message","id":"torn","parentId":null,"message":{"role":"us'
    bad_line = len(saved.read_bytes().splitlines()) + 1
    with open(saved, "ab") as fh:
        fh.write(b"not json at all\n" + torn)
    again = run_pi(["-p", "more", "--model", MODEL, "--session", str(saved)], env)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "second\n"
    assert again.stderr.splitlines() == [
        f"pi: {saved}: last line is incomplete ({len(torn)} bytes), ignored",
        f"pi: {saved}: skipped 1 malformed line(s) (line {bad_line}: not a JSON object)",
    ]
    # The new entries start on a fresh line after the torn one, which stays confined to itself.
    tail = saved.read_bytes().split(torn + b"\n", 1)[1].splitlines()
    assert [json.loads(line)["message"]["role"] for line in tail if b'"message"' in line] == ["user", "assistant"]


def test_continue_and_session_open_files_pi_writes_deep_lines_and_string_versions(loopback, env):
    loopback.push(text_reply("first"), text_reply("second"), text_reply("third"))
    assert run_pi(["-p", "hello", "--model", MODEL], env).returncode == 0
    [saved] = sorted(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
    lines = saved.read_text().splitlines()
    header, last = json.loads(lines[0]), json.loads(lines[-1])
    header["version"] = "3"
    deep = json.dumps({"type": "custom", "id": "deep0001", "parentId": last["id"], "timestamp": last["timestamp"],
                       "customType": "nest", "data": "@"}).replace('"@"', "[" * 3000 + "]" * 3000)
    saved.write_text("\n".join([json.dumps(header), *lines[1:], deep]) + "\n")
    resumed = run_pi(["-p", "more", "-c", "--model", MODEL], env)
    assert (resumed.returncode, resumed.stdout, resumed.stderr) == (0, "second\n", "")
    opened = run_pi(["-p", "again", "--session", str(saved), "--model", MODEL], env)
    assert (opened.returncode, opened.stdout, opened.stderr) == (0, "third\n", "")


def test_a_session_whose_tool_arguments_are_nested_3000_deep_can_be_continued(loopback, env):
    # Pi writes these when a model emits deeply nested tool arguments; the next prompt sends them.
    loopback.push(text_reply("first"), text_reply("continued"))
    assert run_pi(["-p", "hello", "--model", MODEL], env).returncode == 0
    [saved] = sorted(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
    lines = saved.read_text().splitlines()
    last = json.loads(lines[-1])
    usage = last["message"]["usage"]
    call = json.dumps({"type": "message", "id": "deepcall", "parentId": last["id"], "timestamp": last["timestamp"],
                       "message": {"role": "assistant", "api": "openai-completions", "provider": "loop",
                                   "model": "loop-model", "usage": usage, "stopReason": "toolUse", "timestamp": 2,
                                   "content": [{"type": "toolCall", "id": "c1", "name": "bash",
                                                "arguments": {"x": "@"}}]}}).replace('"@"', "[" * 3000 + "]" * 3000)
    result = json.dumps({"type": "message", "id": "deepresult", "parentId": "deepcall", "timestamp": last["timestamp"],
                         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": True,
                                     "content": [{"type": "text", "text": "bad arguments"}], "timestamp": 3}})
    saved.write_text("\n".join([*lines, call, result]) + "\n")
    resumed = run_pi(["-p", "go on", "--session", str(saved), "--model", MODEL], env)
    assert (resumed.returncode, resumed.stdout, resumed.stderr) == (0, "continued\n", "")
    sent = loopback.requests[-1].json()["messages"]
    arguments = next(m for m in sent if m.get("tool_calls"))["tool_calls"][0]["function"]["arguments"]
    assert arguments.count("[") == 3000


def test_bad_settings_and_a_readable_auth_json_are_said_once_on_stderr(loopback, env):
    agent = Path(env["PI_CODING_AGENT_DIR"])
    settings = json.loads((agent / "settings.json").read_text())
    settings["compaction"] = {"reserveTokens": "lots"}
    (agent / "settings.json").write_text(json.dumps(settings))
    auth = agent / "auth.json"
    auth.write_text(json.dumps({"anthropic": {"type": "api_key", "key": "sk-ant-x"}}))
    auth.chmod(0o644)
    loopback.push(text_reply("fine"))
    result = run_pi(["-p", "hi", "--model", MODEL, "--no-session"], env)
    assert (result.returncode, result.stdout) == (0, "fine\n")
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith(f"pi: {agent / 'settings.json'}: compaction.reserveTokens: ")
    assert lines[1] == (f"pi: {auth} is accessible to other users (mode 0644); the keys in it are exposed. "
                        f"Run: chmod 600 {auth}")


def test_config_files_that_are_fifos_do_not_hang_a_run(loopback, env):
    agent = Path(env["PI_CODING_AGENT_DIR"])
    (agent / "settings.json").unlink()
    os.mkfifo(agent / "settings.json")
    os.mkfifo(agent / "auth.json")
    loopback.push(text_reply("fine"))
    result = run_pi(["-p", "hi", "--model", MODEL, "--no-session"], env, timeout=30)
    assert (result.returncode, result.stdout) == (0, "fine\n")
    assert result.stderr.splitlines()[0] == (
        f"pi: {agent / 'settings.json'}: not read: it is a FIFO, not a regular file; using defaults for this file")


HOSTILE = [
    {"role": "user", "content": 5, "timestamp": 1},
    {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "usage": "x", "timestamp": 2},
    {"role": "user", "content": [{"type": "text", "text": 5}], "timestamp": 3},
    {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "bash", "arguments": "rm"}],
     "timestamp": 4},
    {"role": "user", "content": [{"type": "text", "text": "a fine question"}], "timestamp": "noon"},
]


def _hostile_session(env) -> Path:
    path = Path(env["PI_TEST_PROJECT"]) / "hostile.jsonl"
    lines = [{"type": "session", "version": 3, "id": "hostile", "timestamp": "2025-01-01T00:00:00.000Z",
              "cwd": env["PI_TEST_PROJECT"]}]
    for i, message in enumerate(HOSTILE):
        lines.append({"type": "message", "id": f"h{i}", "parentId": f"h{i - 1}" if i else None,
                      "timestamp": "2025-01-01T00:00:00.000Z", "message": message})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_messages_of_the_wrong_shape_are_left_out_and_named_not_a_crash(loopback, env):
    # A damaged or hand-edited file: every message here has a field of the wrong type. pi
    # answers, says which entries it left out, sends none of them and keeps the file's lines.
    path = _hostile_session(env)
    before = path.read_bytes()
    loopback.push(text_reply("still here"))
    result = run_pi(["-p", "go on", "--model", MODEL, "--session", str(path)], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "still here\n" and "Traceback" not in result.stderr
    # Each named with its line, its entry and the field that is wrong.
    assert (f"pi: {path}: 4 malformed message(s) left out of the context: "
            "line 2 (entry h0): Expected `str | array`, got `int` - at `$.message.content`; ") in result.stderr
    assert "; …" in result.stderr
    sent = json.dumps(loopback.requests[-1].json()["messages"])
    assert "rm" not in sent and '"ok"' not in sent
    assert path.read_bytes().startswith(before)


def test_the_app_opens_a_session_with_messages_of_the_wrong_shape(env):
    from test_interactive_pty import Terminal

    term = Terminal(["--model", MODEL, "--session", str(_hostile_session(env))], env)
    try:
        assert term.wait_for("afinequestion", "0.0%/"), term.screen[-2000:]  # the footer
        # Still a fixed wait: without it, about one run in ten printed a Traceback on quitting
        # (Ctrl+D just after the first frame) - to be found and fixed in pi, not hidden here longer.
        time.sleep(0.5)
        term.type(b"\x04")
        assert term.exit_status() == 0, term.screen[-2000:]
        assert "Traceback" not in term.screen and "pi --session" in term.screen
    finally:
        term.close()
