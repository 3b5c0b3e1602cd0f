"""Side by side with the real Pi: the same scenario run by Pi and by pi against one loopback server.

Each scenario is a scripted OpenAI-compatible server (answers by what the last message is), a
mode (``json`` events on stdout, or ``rpc`` with a script of commands) and a prompt. A run gives
the session file's entries and the records written to stdout. ``shape`` reduces either to what a
reader of Pi's files or an RPC client depends on: field names, value types and the values that
carry meaning (types, roles, stop reasons, tool result text), with ids, times and temp paths out.

Used by ``test_pi_interop.py`` (when ``PI_REFERENCE`` names Pi) and as a script that prints the
differences: ``PI_REFERENCE=... python tests/e2e/pi_side_by_side.py [scenario ...]`` (the runs' files go
to ``PI_SIDE_OUT``, a temp folder by default).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m1",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def _usage(prompt: int, completion: int, reasoning: int | None = None) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
    if reasoning is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return {"id": "chatcmpl-1", "choices": [], "usage": usage}


def _tool_call(name: str, arguments: dict[str, Any]) -> Reply:
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}
    return Reply.sse([_chunk({"role": "assistant", "tool_calls": [call]}), _chunk(finish="tool_calls"),
                      _usage(50, 5), "[DONE]"])


def _answer(text: str = "done") -> Reply:
    return Reply.sse([_chunk({"role": "assistant", "content": text}), _chunk(finish="stop"), _usage(60, 2), "[DONE]"])


def _last_role(request: RecordedRequest) -> str:
    messages = (request.json() or {}).get("messages") or [{}]
    return str(messages[-1].get("role"))


def tool_then_answer(name: str, arguments: dict[str, Any]) -> Callable[[RecordedRequest], Reply]:
    """A tool call for the user's prompt, then a text answer once the tool result came back."""
    def responder(request: RecordedRequest) -> Reply:
        return _answer() if _last_role(request) == "tool" else _tool_call(name, arguments)
    return responder


def reasoning_answer(_request: RecordedRequest) -> Reply:
    return Reply.sse([
        _chunk({"role": "assistant", "reasoning_content": "Let me "}),
        _chunk({"reasoning_content": "think."}),
        _chunk({"content": "The answer"}),
        _chunk({"content": " is 4."}),
        _chunk(finish="stop"), _usage(40, 9, reasoning=4), "[DONE]",
    ])


def interleaved_blocks(request: RecordedRequest) -> Reply:
    """Reasoning, text, a tool call whose first chunk has empty arguments (as OpenAI sends it),
    then more text and more reasoning in the same message; an answer once the tool result is back."""
    if _last_role(request) == "tool":
        return _answer()
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": ""}}
    return Reply.sse([
        _chunk({"role": "assistant", "reasoning_content": "Plan."}), _chunk({"content": "Reading."}),
        _chunk({"tool_calls": [call]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": json.dumps({"path": "a.txt"})}}]}),
        _chunk({"content": " Then more."}), _chunk({"reasoning_content": " More thought."}),
        _chunk(finish="tool_calls"), _usage(40, 9, reasoning=4), "[DONE]",
    ])


def server_error(_request: RecordedRequest) -> Reply:
    return Reply.json(500, {"error": {"message": "boom", "type": "server_error"}})


def stalled_answer(_request: RecordedRequest) -> Reply:
    return Reply.sse([_chunk({"role": "assistant", "content": "Working on"})], stall=True)


def slow_then_quick(request: RecordedRequest) -> Reply:
    """The first answer streams slowly (time to steer); later ones come at once."""
    users = [m for m in (request.json() or {}).get("messages", []) if m.get("role") == "user"]
    if len(users) == 1:
        return Reply.sse([_chunk({"role": "assistant", "content": "Work"}), *[_chunk({"content": "ing"})] * 8,
                          _chunk(finish="stop"), _usage(10, 9), "[DONE]"], delay=0.15)
    return _answer(f"answer {len(users)}")


@dataclass
class Scenario:
    name: str
    responder: Callable[[RecordedRequest], Reply]
    mode: str = "json"
    prompt: str = "hello there"
    files: dict[str, str] = field(default_factory=dict)
    model: str = "loop/m1"
    extra_args: tuple[str, ...] = ()
    rpc: Callable[[Any, str], None] | None = None
    """The RPC conversation (``mode="rpc"``): gets an ``RpcSession`` and the prompt."""




@dataclass
class Run:
    entries: list[dict[str, Any]]
    """The session file, header first."""
    records: list[dict[str, Any]]
    """What stdout carried, one JSON record a line (none in print mode)."""
    stdout: str
    returncode: int
    requests: list[dict[str, Any]]


def _write_config(agent: Path, url: str) -> None:
    (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
        "baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "k",
        "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000},
                   {"id": "r1", "reasoning": True, "contextWindow": 100000, "maxTokens": 4000}]}}}))
    (agent / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10, "maxRetries": 1}}))


def _env(agent: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(home))
    return env


def run(binary: str, scenario: Scenario, tmp: Path, timeout: float = 90, mkdirs: bool = True) -> Run:
    """Run ``scenario`` with the ``pi`` executable ``binary`` (ours or Pi's) in a fresh folder under ``tmp``
    (``mkdirs=False``: the caller made ``agent/`` and put files in it)."""
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True, exist_ok=not mkdirs)
    for name, text in scenario.files.items():
        (project / name).write_text(text)
    with LoopbackServer(scenario.responder) as server:
        _write_config(agent, server.url)
        env = _env(agent, home)
        args = [binary, "--model", scenario.model, *scenario.extra_args]
        if scenario.rpc is not None:
            rpc = RpcSession(args, env, project, timeout)
            try:
                scenario.rpc(rpc, scenario.prompt)
            finally:
                stdout, code = rpc.close()
        else:
            mode = ["-p"] if scenario.mode == "print" else ["--mode", "json"]
            proc = subprocess.run([*args, *mode, scenario.prompt], cwd=project, env=env, capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
            stdout, code = proc.stdout, proc.returncode
        requests = [r.json() for r in server.requests]
    files = list((agent / "sessions").rglob("*.jsonl"))
    entries = [json.loads(line) for line in files[0].read_text().splitlines()] if files else []
    records = [] if scenario.mode == "print" else [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return Run(entries, records, stdout, code, requests)


class RpcSession:
    """``pi --mode rpc`` as a subprocess: send commands, wait for records."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> None:
        self.proc = subprocess.Popen([*args, "--mode", "rpc"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.timeout = timeout
        self.lines: list[str] = []
        self._seen = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._seen:
                self.lines.append(raw.decode())
                self._seen.notify_all()

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        with self._seen:
            while True:
                for line in self.lines:
                    if line.strip() and predicate(record := json.loads(line)):
                        return record
                if time.monotonic() > deadline:
                    raise AssertionError(f"timed out; stdout so far: {self.lines[-5:]}")
                self._seen.wait(0.2)

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, command: dict[str, Any]) -> dict[str, Any]:
        self.send(command)
        return self.wait_for(lambda r: r.get("type") == "response" and r.get("id") == command["id"])

    def close(self) -> tuple[str, int]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(self.timeout)
        self._reader.join(self.timeout)
        return "".join(self.lines), code


def _is_delta(record: dict[str, Any]) -> bool:
    return record.get("type") == "message_update" and record.get("assistantMessageEvent", {}).get("type") == "text_delta"


def rpc_abort(rpc: RpcSession, prompt: str) -> None:
    """Prompt, abort once the first text arrived, wait for the run to end, read the messages."""
    rpc.send({"type": "prompt", "message": prompt, "id": "p1"})
    rpc.wait_for(_is_delta)
    rpc.send({"type": "abort", "id": "a1"})
    rpc.wait_for(lambda r: r.get("type") == "agent_settled")
    rpc.request({"type": "get_messages", "id": "m1"})


def rpc_queue(rpc: RpcSession, prompt: str) -> None:
    """Prompt, then steer and queue a follow-up while the answer streams; read the messages at the end."""
    rpc.send({"type": "prompt", "message": prompt, "id": "p1"})
    rpc.wait_for(_is_delta)
    rpc.request({"type": "steer", "message": "steered", "id": "s1"})
    rpc.request({"type": "follow_up", "message": "followed", "id": "f1"})
    rpc.wait_for(lambda r: r.get("type") == "agent_settled")
    rpc.request({"type": "get_messages", "id": "m1"})
    rpc.request({"type": "get_state", "id": "g1"})


SCENARIOS: dict[str, Scenario] = {s.name: s for s in [
    Scenario("bash", tool_then_answer("bash", {"command": "echo shared"})),
    Scenario("bash_print", tool_then_answer("bash", {"command": "echo shared"}), mode="print"),
    Scenario("bash_exit", tool_then_answer("bash", {"command": "echo out; echo err >&2; exit 3"})),
    Scenario("bash_empty", tool_then_answer("bash", {"command": "true"})),
    Scenario("bash_long", tool_then_answer("bash", {"command": "seq 1 2500"})),
    Scenario("edit", tool_then_answer("edit", {"path": "a.txt", "edits": [{"oldText": "world", "newText": "there"}]}),
             files={"a.txt": "hello world\nsecond line\n"}),
    Scenario("edit_missing_text", tool_then_answer("edit", {"path": "a.txt", "edits": [{"oldText": "nope",
                                                                                       "newText": "x"}]}),
             files={"a.txt": "hello world\n"}),
    Scenario("write", tool_then_answer("write", {"path": "new/b.txt", "content": "made\n"})),
    Scenario("read", tool_then_answer("read", {"path": "a.txt"}), files={"a.txt": "one\ntwo\n"}),
    Scenario("read_missing", tool_then_answer("read", {"path": "missing.txt"})),
    Scenario("unknown_tool", tool_then_answer("nosuch", {"x": 1})),
    Scenario("bad_args", tool_then_answer("read", {"offset": 2})),
    # Arguments beyond the declared ones pass (small models add them): the read succeeds in both.
    Scenario("extra_arg", tool_then_answer("read", {"path": "a.txt", "encoding": "utf-8"}), files={"a.txt": "one\ntwo\n"}),
    Scenario("reasoning", reasoning_answer, model="loop/r1", extra_args=("--thinking", "low")),
    Scenario("interleaved", interleaved_blocks, model="loop/r1", extra_args=("--thinking", "low"),
             files={"a.txt": "one\ntwo\n"}),
    Scenario("error", server_error),
    Scenario("abort", stalled_answer, mode="rpc", rpc=rpc_abort),
    Scenario("queue", slow_then_quick, mode="rpc", rpc=rpc_queue),
]}


# ----------------------------------------------------------------------------- shapes

MEANINGFUL = {"type", "role", "stopReason", "rawStopReason", "isError", "api", "provider", "model",
              "toolName", "name", "command", "thinkingLevel", "customType", "success", "totalFromProvider",
              "truncatedBy", "truncated", "errorMessage"}
"""Keys whose values a reader acts on; their values are compared, not only their types."""
TEXTS = {"text", "thinking", "diff", "output", "message", "patch"}
"""Keys holding text shown or sent on; compared with temp paths and timing numbers masked."""
VOLATILE = {"id", "parentId", "timestamp", "durationMs", "cwd", "toolCallId", "sessionFile", "sessionId",
            "fullOutputPath", "attempt", "delayMs", "responseId", "leafId", "entryId", "parentSession"}
"""Keys whose values differ between any two runs; only their presence and type count."""


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"  # JSON has one number type: Pi's 0 and pi's 0.0 are the same to a reader
    return "null" if value is None else type(value).__name__


def shape(value: Any, key: str | None = None, root: str | None = None) -> Any:
    """``value`` reduced to what a reader of Pi's output relies on (see the module docstring)."""
    if isinstance(value, dict):
        return {k: shape(v, k, root) for k, v in value.items()}
    if isinstance(value, list):
        # The system message is our own prose and tool schemas: left out wherever it shows.
        return [shape(v, key, root) for v in value if not (isinstance(v, dict) and v.get("role") == "system")]
    if key in VOLATILE or key is None:
        return _type_name(value)
    if key in MEANINGFUL:
        return value
    if key in TEXTS and isinstance(value, str):
        return _mask(value, root)
    return _type_name(value)


def _mask(text: str, root: str | None) -> str:
    import re

    if root:
        text = text.replace(root, "<TMP>")
    text = re.sub(r"/tmp/[\w./-]+", "<TMPFILE>", text)
    return re.sub(r"\b\d+(\.\d+)?(ms|s)\b", "<T>", text)


def session_shape(run: Run, root: str | None = None) -> list[Any]:
    """The session's entries (header left out: its ids and times are all volatile) as shapes; the
    system message's prose and tool schemas are ours (see the module docstring of ``system_prompt``)."""
    out = []
    for entry in run.entries[1:]:
        message = entry.get("message") or {}
        if message.get("role") == "system":
            continue
        out.append(shape(entry, root=root))
    return out


def event_shape(run: Run, root: str | None = None) -> list[Any]:
    """The stdout records as shapes, minus the system message events and the session header.

    What depends on timing is left out: the usage a ``message_update`` shows (Pi writes the
    record after later chunks may have changed it) and, of a run of ``tool_execution_update``
    records (throttled by time), all but the first and the last.
    """
    out: list[Any] = []
    for record in run.records:
        message = record.get("message") or {}
        if isinstance(message, dict) and message.get("role") == "system":
            continue
        kind = record.get("type")
        if kind == "session":
            continue
        if kind == "message_update" and "usage" in record:
            record = {**record, "usage": "object"}
        shaped = shape(record, root=root)
        if (kind == "tool_execution_update" and len(out) >= 2 and _event_key(out[-1]) == kind
                and _event_key(out[-2]) == kind):
            out[-1] = shaped  # keep the run's first and last
            continue
        out.append(shaped)
    return out


def _diff(a: Any, b: Any, path: str = "$") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in a.keys() | b.keys():
            if k not in b:
                out.append(f"{path}.{k}: only Pi ({json.dumps(a[k])[:120]})")
            elif k not in a:
                out.append(f"{path}.{k}: only pi ({json.dumps(b[k])[:120]})")
            else:
                out += _diff(a[k], b[k], f"{path}.{k}")
        if list(a.keys() & b.keys()) and [k for k in a if k in b] != [k for k in b if k in a]:
            out.append(f"{path}: key order Pi {list(a)} pi {list(b)}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = []
        if len(a) != len(b):
            out.append(f"{path}: Pi has {len(a)} items, pi {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            out += _diff(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: Pi {json.dumps(a)[:200]} | pi {json.dumps(b)[:200]}"]


def _event_key(shape_: Any) -> str:
    if not isinstance(shape_, dict):
        return repr(shape_)
    inner = shape_.get("assistantMessageEvent")
    sub = inner.get("type") if isinstance(inner, dict) else None
    role = (shape_.get("message") or {}).get("role") if isinstance(shape_.get("message"), dict) else None
    return ":".join(str(p) for p in (shape_.get("type"), sub, role) if p)


def differences(theirs: list[Any], ours: list[Any]) -> list[str]:
    """Readable differences between two shape lists (Pi's first): records are lined up by their
    type (and stream event type), so one extra record shows as itself, not as a shift of all."""
    import difflib

    a, b = [_event_key(x) for x in theirs], [_event_key(x) for x in ours]
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                out += _diff(theirs[i], ours[j], f"[{i}|{j}] {a[i]}")
            continue
        for i in range(i1, i2):
            out.append(f"[{i}|-] only Pi: {a[i]} {json.dumps(theirs[i])[:160]}")
        for j in range(j1, j2):
            out.append(f"[-|{j}] only pi: {b[j]} {json.dumps(ours[j])[:160]}")
    return out


def _main(names: list[str]) -> None:
    import tempfile

    reference = os.environ["PI_REFERENCE"]
    ours = str(Path(sys.executable).parent / "pi")
    out = Path(os.environ.get("PI_SIDE_OUT") or tempfile.mkdtemp(prefix="pi-side-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"session files and stdout of each run: {out}")
    for name in names or list(SCENARIOS):
        scenario = SCENARIOS[name]
        runs = {}
        for who, binary in (("Pi", reference), ("pi", ours)):
            runs[who] = run(binary, scenario, Path(tempfile.mkdtemp(prefix=f"side-{name}-{who}-")))
            (out / f"{name}.{who}.session.jsonl").write_text("".join(json.dumps(e) + "\n" for e in runs[who].entries))
            (out / f"{name}.{who}.stdout.jsonl").write_text(runs[who].stdout)
        print(f"== {name}: exit Pi {runs['Pi'].returncode} pi {runs['pi'].returncode}")
        for line in differences(session_shape(runs["Pi"]), session_shape(runs["pi"])):
            print("  session", line)
        for line in differences(event_shape(runs["Pi"]), event_shape(runs["pi"])):
            print("  events ", line)


if __name__ == "__main__":
    _main(sys.argv[1:])
