"""Session files shared with the real Pi: Pi writes, pi continues, Pi continues again.

Runs only where Pi is installed and named by ``PI_REFERENCE`` (the path of its ``pi``
executable; Node ≥ 22.19 on PATH), e.g. after
``npm install node@22 @earendil-works/pi-coding-agent`` in a scratch folder. Elsewhere it
is skipped, which the test report shows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_runtime.testing.loopback import Reply

PI_REFERENCE = os.environ.get("PI_REFERENCE")
pytestmark = pytest.mark.skipif(
    not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)"
)


def _tool_then_answer(counter):
    def responder(request):
        counter[0] += 1
        body = request.json() or {}
        last = (body.get("messages") or [{}])[-1]
        if last.get("role") == "user" and body.get("tools"):
            return Reply.sse([
                {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                    {"index": 0, "id": f"call_{counter[0]}", "type": "function",
                     "function": {"name": "bash", "arguments": '{"command": "echo shared"}'}}]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                 "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}},
                "[DONE]",
            ])
        return Reply.sse([
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": f"answer {counter[0]}"}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 60, "completion_tokens": 2, "total_tokens": 62}},
            "[DONE]",
        ])

    return responder


def test_pi_and_pi_share_one_session_file(tmp_path):
    from pi_runtime.testing.loopback import LoopbackServer

    ours = shutil.which("pi") or str(Path(os.sys.executable).parent / "pi")
    counter = [0]
    agent = tmp_path / "agent"
    project = tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    with LoopbackServer(_tool_then_answer(counter)) as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000}]}}}))
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent)}

        def run(binary, *args):
            out = subprocess.run([binary, *args], cwd=project, env=env, capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr
            return out.stdout.strip()

        run(PI_REFERENCE, "-p", "--model", "loop/m1", "first, by Pi")
        assert run(ours, "-c", "-p", "second, by pi") .startswith("answer")
        assert run(PI_REFERENCE, "-c", "-p", "third, by Pi again").startswith("answer")
    files = list((agent / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    users = [e["message"]["content"] for e in lines if e.get("type") == "message" and e["message"]["role"] == "user"]
    texts = [u if isinstance(u, str) else u[0]["text"] for u in users]
    assert texts == ["first, by Pi", "second, by pi", "third, by Pi again"]
    # One linear path: every entry's parent is the entry before it.
    assert [e["parentId"] for e in lines[2:]] == [e["id"] for e in lines[1:-1]]


def test_what_pi_writes_survives_fork_and_clone_by_pi_unchanged(tmp_path):
    # Pi writes a session (a tool call, its result, an answer); a newer Pi's extra entry type
    # and fields are added to it. Forking it with our pi (``--fork``) and cloning a branch
    # (``create_branched_session``) must copy every line as Pi wrote it, and Pi must go on
    # with the copy.
    from pi_runtime.session import SessionManager
    from pi_runtime.testing.loopback import LoopbackServer

    ours = shutil.which("pi") or str(Path(os.sys.executable).parent / "pi")
    counter = [0]
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    with LoopbackServer(_tool_then_answer(counter)) as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000}]}}}))
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent)}

        def run(binary, *args):
            out = subprocess.run([binary, *args], cwd=project, env=env, capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr
            return out.stdout.strip()

        run(PI_REFERENCE, "-p", "--model", "loop/m1", "written by Pi")
        [original] = list((agent / "sessions").rglob("*.jsonl"))
        lines = [json.loads(line) for line in original.read_text().splitlines()]
        message_entry = next(e for e in lines if e.get("type") == "message" and e["message"]["role"] == "assistant")
        message_entry["futureEntryField"] = {"kept": None}
        message_entry["message"]["futureMessageField"] = [1, {"x": None}]
        lines.append({"type": "future_kind", "id": "f0000001", "parentId": lines[-1]["id"],
                      "timestamp": lines[-1]["timestamp"], "payload": {"deep": [None, True]}})
        original.write_text("".join(json.dumps(line) + "\n" for line in lines))
        by_id = {e["id"]: e for e in lines[1:]}

        forks = agent / "forks"
        run(ours, "--fork", str(original), "--session-dir", str(forks), "-p", "--model", "loop/m1", "forked by pi")
        [forked] = list(forks.rglob("*.jsonl"))
        copied = {e["id"]: e for e in map(json.loads, forked.read_text().splitlines()[1:])}
        for entry_id, entry in by_id.items():
            assert copied[entry_id] == entry

        with SessionManager.open(original) as manager:
            clone_path = manager.create_branched_session(message_entry["id"])
        cloned = {e["id"]: e for e in map(json.loads, Path(clone_path).read_text().splitlines()[1:])}
        assert cloned[message_entry["id"]] == message_entry
        # Pi 1.6 writes usage.cost.totalFromProvider and rawStopReason; the typed view keeps both.
        assert typed_round_trip(message_entry) == message_entry

        assert run(PI_REFERENCE, "--session", str(forked), "-p", "--model", "loop/m1", "Pi again").startswith("answer")


def typed_round_trip(entry):
    """The entry through its typed view and back (what RPC and extensions hand out)."""
    from pi_runtime.session.entries import entry_to_wire, parse_entry

    return entry_to_wire(parse_entry(entry))


# Differences kept on purpose (see pi_side_by_side.py for how records are compared):
KEPT = {
    # Pi copies the shown text into details.truncation.content; pi leaves the duplicate out of the file.
    "truncation.content: only Pi": None,
    # Provider error text: pi words HTTP errors as "500 boom" (its retry and overflow rules read that form).
    ".errorMessage: Pi": {"error"},
    # Tool prose the model reads is pi's own, like its system prompt.
    ".content[0].text: Pi": {"edit", "edit_missing_text", "read_missing"},
}


def _unexplained(scenario: str, lines: list[str]) -> list[str]:
    def kept(line: str) -> bool:
        return any(marker in line and (where is None or scenario in where) for marker, where in KEPT.items())

    return [line for line in lines if not kept(line)]


@pytest.mark.parametrize("scenario", ["bash", "bash_exit", "bash_long", "edit", "read_missing", "reasoning",
                                      "interleaved", "bad_args", "extra_arg", "error", "abort", "queue"])
def test_session_lines_and_events_have_pis_fields(tmp_path, scenario):
    """Pi and pi run one scenario each against the same scripted server; the session files and
    the JSON/RPC records must agree in field names, presence, types, order and meaningful values."""
    import pi_side_by_side as side

    ours = shutil.which("pi") or str(Path(os.sys.executable).parent / "pi")
    spec = side.SCENARIOS[scenario]
    theirs_run = side.run(PI_REFERENCE, spec, tmp_path / "Pi")
    ours_run = side.run(ours, spec, tmp_path / "pi")
    assert theirs_run.returncode == ours_run.returncode == 0
    problems = side.differences(side.session_shape(theirs_run), side.session_shape(ours_run))
    problems += side.differences(side.event_shape(theirs_run), side.event_shape(ours_run))
    assert _unexplained(scenario, problems) == []
