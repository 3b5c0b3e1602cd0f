"""Benchmark: ``pi serve`` viewers (issue 38): attaching a long running session, fan-out, first answer.

Starts the installed ``pi serve`` (this checkout's .venv) on a fresh agent dir whose models.json
points a provider at a loopback OpenAI-compatible server (``pi_runtime.testing.loopback``), with a
generated 20,000-message session (``bench/session_open.py``'s generator) opened at start and a run
in progress in it (its answer held at a gate). Then:

1. attach: a new client connects, says hello and attaches that session, until it holds the state
   (``RemoteSession`` built: the replica of the tree, the transcript's context, the partial answer);
   also until the last message is read and until the whole transcript is validated. Goal < 0.5 s.
1b. attach in the app: ``pi attach <id>`` (the installed command, on a 120x40 pseudo-terminal) until
   its first frame, until a key typed at that moment shows in the editor (ready to type: goal
   < 0.5 s), and until the answer being streamed is on screen; ``pi --session`` of a copy of the
   file as the baseline; and the app in this process (Pilot, headless) from its construction until
   every tab is in place (``AttachedApp.ready``), which leaves out the interpreter's start and imports.
2. fan-out: five viewers (one process each, blocking sockets) attached to a session while a 2,000-delta
   answer streams; for each record, the spread between the first and the last viewer to read it.
   Goal: within 5 ms. Its floor: the same five viewers fed by a bare socket writer (no pi) at the
   same pace, which measures the machine's scheduling of six processes.
3. first answer: prompt to first text delta, a local ``AgentSession`` in this process against the same
   loopback server vs the same prompt through the server (``RemoteSession``). Goal: no slower.
   And from a new process's start: ``pi --mode rpc`` (a local session) vs ``pi attach --new --mode
   rpc`` (a session the server opens), each sent a prompt at once, until the first text delta.

Run: ``.venv/bin/python bench/serve_attach.py [--messages 20000] [--runs 7] [--app-runs 5]``. Give ``uptime``
with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from pi_runtime.testing.loopback import LoopbackServer, Reply  # noqa: E402

PI = str(Path(sys.executable).parent / "pi")
MODEL = "loop/loop-model"


def _chunk(content: str | None = None, finish: str | None = None) -> dict[str, Any]:
    delta = {"content": content} if content is not None else {}
    return {"id": "c", "object": "chat.completion.chunk", "model": "loop-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _reply(pieces: list[str], gate: threading.Event | None = None, delay: float = 0.0) -> Reply:
    events: list[Any] = [_chunk(p) for p in pieces] + [_chunk(finish="stop"), "[DONE]"]
    return Reply.sse(events, gate_at=1 if gate else None, gate=gate, delay=delay)


def _setup(root: Path, loopback: LoopbackServer, messages: int) -> tuple[dict[str, str], Path]:
    from session_open import generate

    agent, project, runtime = root / "agent", root / "project", Path(tempfile.mkdtemp(prefix="pi-run-"))
    agent.mkdir()
    project.mkdir()
    models = {"providers": {"loop": {"baseUrl": loopback.url + "/v1", "api": "openai-completions", "apiKey": "k",
                                     "models": [{"id": "loop-model", "contextWindow": 10_000_000}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "loop", "defaultModel": "loop-model",
                                                      "compaction": {"enabled": False}}))
    session_file = project / "long.jsonl"
    generate(session_file, messages)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_") and not k.endswith("_API_KEY")}
    env.update({"PI_CODING_AGENT_DIR": str(agent), "XDG_RUNTIME_DIR": str(runtime), "HOME": str(root)})
    return env, session_file


def _start_server(env: dict[str, str], cwd: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
    proc = subprocess.Popen([PI, "serve", "--model", MODEL, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    for raw in proc.stdout:
        line = raw.decode()
        if " listening on " in line:
            return proc, Path(line.split(" listening on ", 1)[1].rsplit(" (folder ", 1)[0])
    raise SystemExit("pi serve did not start")


async def _attach_once(sock: Path, handle: str) -> dict[str, float]:
    from pi_runtime.remote.client import ServeClient

    t0 = time.perf_counter()
    client = await ServeClient.connect(sock)
    session = await client.attach(handle)
    t_state = time.perf_counter()
    last = session.messages[-1]
    t_last = time.perf_counter()
    assert last is not None and session.streaming_message is not None, "the run should be streaming"
    n = len(list(session.messages))  # validates every stored message
    t_all = time.perf_counter()
    await session.dispose()
    await client.close()
    return {"state": t_state - t0, "last_message": t_last - t0, "all_validated": t_all - t0, "messages": n}


def _app_attach(sock: Path, handle: str, env: dict[str, str], cwd: Path, runs: int) -> dict[str, list[float]]:
    """``pi attach <id>`` on a pseudo-terminal, ``runs`` times, from the process's start: until its
    first frame (the editor's box drawn), until a key typed at that moment is echoed (ready to
    type), and until the streaming answer is drawn (the app quits on SIGTERM: it only detaches)."""
    from tui_resume import TYPED, Terminal

    figures: dict[str, list[float]] = {"frame": [], "typed": [], "painted": []}
    for _ in range(runs):
        # As installed: byte-compiled modules are read, not compiled again at each start.
        app_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        term = Terminal([PI, "attach", handle], {**app_env, "TERM": "xterm-256color"}, cwd)
        seen, output = {}, b""
        try:
            while len(seen) < 3 and time.perf_counter() - term.start < 30:
                output += term.read(0.005)
                now = time.perf_counter() - term.start
                if "frame" not in seen and "╭".encode() in output:
                    seen["frame"] = now
                    os.write(term.fd, TYPED)
                if "frame" in seen and "typed" not in seen and TYPED in output:
                    seen["typed"] = now
                if "painted" not in seen and b"Half an answer" in output:
                    seen["painted"] = now
            if len(seen) < 3:
                raise SystemExit(f"pi attach never showed everything (saw {sorted(seen)})")
            for key, value in seen.items():
                figures[key].append(value)
        finally:
            term.close()
    return figures


def _local_resume(session_file: Path, env: dict[str, str], cwd: Path, runs: int, last: str) -> list[float]:
    """The baseline: ``pi --session`` of a copy of the same file (no server), until its last
    message is on screen, ``runs`` times."""
    from tui_resume import Terminal

    copy = cwd / "local-copy.jsonl"
    shutil.copyfile(session_file, copy)
    app_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    painted: list[float] = []
    for _ in range(runs):
        term = Terminal([PI, "--session", str(copy)], {**app_env, "TERM": "xterm-256color"}, cwd)
        try:
            took = term.wait_for(last.encode(), timeout=60)
            if took is None:
                raise SystemExit("pi --session never showed the last message")
            painted.append(took)
        finally:
            term.close()
    return painted


async def _app_in_process(sock: Path, handle: str) -> float:
    """The app (headless, Pilot) from its construction until every tab is attached and shown."""
    from pi_tui.attach_app import AttachedApp

    t0 = time.perf_counter()
    app = AttachedApp(sock, [handle])
    async with app.run_test(size=(120, 40)):
        await app.ready.wait()
        ready = time.perf_counter() - t0
        assert app.session is not None and app.session.streaming_message is not None
    return ready


WATCHER = r"""
import json, socket, sys, time
conn = socket.socket(socket.AF_UNIX)
conn.connect(sys.argv[1])
reader = conn.makefile("rb")
for command in ({"type": "hello", "protocol": 1}, {"type": "attach", "session": sys.argv[2]}):
    conn.sendall(json.dumps(command).encode() + b"\n")
    while json.loads(reader.readline()).get("type") != "response":
        pass
print("ready", flush=True)
seen = {}
for line in reader:
    now = time.perf_counter()  # CLOCK_MONOTONIC: comparable between processes
    record = json.loads(line)
    if "cursor" in record:
        seen[record["cursor"]] = now
    if record.get("type") == "agent_settled":
        break
print(json.dumps(seen), flush=True)
"""


def _watcher(sock: Path, handle: str) -> subprocess.Popen[str]:
    """One viewer in a process of its own (threads of one process would queue on its GIL)."""
    proc = subprocess.Popen([sys.executable, "-c", WATCHER, str(sock), handle], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _fanout(sock: Path, loopback: LoopbackServer, deltas: int, pace: float = 0.0) -> dict[str, float]:
    """``pace``: deltas a second the model sends (0: as fast as the loopback server can)."""
    control = socket.socket(socket.AF_UNIX)
    control.connect(str(sock))
    reader = control.makefile("rb")

    def ask(command: dict[str, Any]) -> Any:
        control.sendall(json.dumps(command).encode() + b"\n")
        while (record := json.loads(reader.readline())).get("type") != "response":
            pass
        return record["data"]

    ask({"type": "hello", "protocol": 1})
    handle = ask({"type": "open_session"})["session"]
    watchers = [_watcher(sock, handle) for _ in range(5)]
    loopback.push(_reply([f"word{i} " for i in range(deltas)], delay=1 / pace if pace else 0.0))
    ask({"type": "prompt", "session": handle, "message": "stream a long answer"})
    seen = [{int(k): v for k, v in json.loads(w.communicate(timeout=120)[0]).items()} for w in watchers]
    control.close()
    return _spreads(seen)


def _spreads(seen: list[dict[int, float]]) -> dict[str, float]:
    """For each record every viewer read, the spread between the first and the last to read it."""
    spreads = []
    for cursor in seen[0]:
        times = [s[cursor] for s in seen if cursor in s]
        if len(times) == len(seen):
            spreads.append((max(times) - min(times)) * 1000)
    spreads.sort()
    first, last = min(seen[0].values()), max(seen[0].values())
    return {"records": len(spreads), "median_ms": statistics.median(spreads), "seconds": last - first,
            "p99_ms": spreads[int(len(spreads) * 0.99) - 1], "max_ms": spreads[-1]}


def _fanout_floor(records: int, seconds: float) -> dict[str, float]:
    """The floor under the fan-out figure: the same five viewer processes fed by a bare socket
    writer in this process (no pi), as many records of a streamed delta's size over the same time.
    What it shows is the machine's scheduling of six processes, which pi cannot go below."""
    folder = Path(tempfile.mkdtemp(prefix="fan-floor-"))
    path = folder / "floor.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(8)
    viewers: list[socket.socket] = []

    def handshake() -> None:
        for _ in range(5):
            conn, _ = listener.accept()
            lines = conn.makefile("rb")
            for _ in range(2):  # hello, attach: one response each
                lines.readline()
                conn.sendall(b'{"type":"response","success":true}\n')
            viewers.append(conn)

    accepting = threading.Thread(target=handshake)
    accepting.start()
    watchers = [_watcher(path, "floor") for _ in range(5)]
    accepting.join()
    delta = {"type": "message_update", "session": "s1", "assistantMessageEvent": {
        "type": "text_delta", "contentIndex": 0, "delta": "word1234 "}}
    gap = seconds / max(1, records)
    start = time.perf_counter()
    for cursor in range(records):
        line = json.dumps({**delta, "cursor": cursor}).encode() + b"\n"
        for conn in viewers:
            conn.sendall(line)
        pause = start + (cursor + 1) * gap - time.perf_counter()
        if pause > 0:
            time.sleep(pause)  # the pace of pi's own run, not a wait for a condition
    for conn in viewers:
        conn.sendall(b'{"type":"agent_settled"}\n')
    seen = [{int(k): v for k, v in json.loads(w.communicate(timeout=120)[0]).items()} for w in watchers]
    for conn in viewers:
        conn.close()
    listener.close()
    shutil.rmtree(folder, ignore_errors=True)
    return _spreads(seen)


async def _first_answer(sock: Path, loopback: LoopbackServer, runs: int) -> dict[str, float]:
    from pi_runtime.frontend import SessionManager, create_agent_session
    from pi_runtime.frontend.events import MessageUpdateEvent
    from pi_runtime.remote.client import ServeClient

    async def timed(session: Any) -> float:
        first = asyncio.get_running_loop().create_future()

        def on_event(event: Any) -> None:
            is_text = isinstance(event, MessageUpdateEvent) and event.assistant_message_event.type == "text_delta"
            if is_text and not first.done():
                first.set_result(time.perf_counter())

        unsubscribe = session.subscribe(on_event)
        loopback.push(_reply(["Hello", " there."]))
        t0 = time.perf_counter()
        await session.prompt("hi", wait=False)
        t1 = await first
        await session.wait_for_idle()
        unsubscribe()
        return (t1 - t0) * 1000

    local = create_agent_session(cwd=os.getcwd(), session_manager=SessionManager.in_memory(), no_extensions=True)
    client = await ServeClient.connect(sock)
    remote = await client.attach((await client.open_session())["session"])
    figures: dict[str, list[float]] = {"local_ms": [], "served_ms": []}
    for _ in range(runs):
        figures["local_ms"].append(await timed(local))
        figures["served_ms"].append(await timed(remote))
    await local.dispose()
    await client.close()
    return {name: statistics.median(values) for name, values in figures.items()}


def _first_answer_from_start(env: dict[str, str], cwd: Path, loopback: LoopbackServer, runs: int) -> dict[str, float]:
    """A new ``pi`` process's first answer, from its start to its first text delta: a local session
    (``pi --mode rpc``) against one the server opens (``pi attach --new --mode rpc``), alternated."""
    app_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}  # byte-compiled, as installed

    def once(command: list[str]) -> float:
        loopback.push(_reply(["Hello", " there."]))
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=app_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"type": "prompt", "message": "hi"}).encode() + b"\n")
        proc.stdin.flush()
        took = None
        for line in proc.stdout:
            record = json.loads(line)
            if took is None and record.get("type") == "message_update" \
                    and record["assistantMessageEvent"].get("type") == "text_delta":
                took = (time.perf_counter() - t0) * 1000
            if record.get("type") == "agent_end":
                break
        proc.stdin.close()
        proc.wait(20)
        if took is None:
            raise SystemExit(f"{command[1]} never answered")
        return took

    figures: dict[str, list[float]] = {"local_ms": [], "served_ms": []}
    for _ in range(runs):
        figures["local_ms"].append(once([PI, "--mode", "rpc", "--model", MODEL, "--no-session"]))
        figures["served_ms"].append(once([PI, "attach", "--new", "--mode", "rpc"]))
    return {name: statistics.median(values) for name, values in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--deltas", type=int, default=2000)
    parser.add_argument("--app-runs", type=int, default=5)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pi-serve-bench-"))
    with LoopbackServer() as loopback:
        env, session_file = _setup(root, loopback, options.messages)
        os.environ.update(env)
        proc, sock = _start_server(env, root / "project", "--session", str(session_file))
        try:
            # A run in progress in the long session: its answer waits at a gate while viewers attach.
            gate = threading.Event()
            loopback.push(_reply(["Half an answer", " and the rest."], gate))
            starter = socket.socket(socket.AF_UNIX)
            starter.connect(str(sock))
            rfile = starter.makefile("rb")
            for command in ({"type": "hello", "protocol": 1}, {"type": "list_sessions", "id": "l"}):
                starter.sendall(json.dumps(command).encode() + b"\n")
                record = json.loads(rfile.readline())
            handle = record["data"]["sessions"][0]["session"]
            starter.sendall(json.dumps({"type": "attach", "session": handle}).encode() + b"\n")
            starter.sendall(json.dumps({"type": "prompt", "session": handle, "message": "go on"}).encode() + b"\n")
            while json.loads(rfile.readline()).get("type") != "message_update":
                pass
            attaches = [asyncio.run(_attach_once(sock, handle)) for _ in range(options.runs)]
            app = _app_attach(sock, handle, env, root / "project", options.app_runs)
            in_process = [asyncio.run(_app_in_process(sock, handle)) for _ in range(options.app_runs)]
            local = _local_resume(session_file, env, root / "project", options.app_runs,
                                  f"Done {options.messages - 1}.")
            gate.set()
            print(f"attach a running {attaches[0]['messages']:,}-message session (median of {options.runs}):")
            for key in ("state", "last_message", "all_validated"):
                print(f"  until {key.replace('_', ' ')}: {statistics.median(a[key] for a in attaches) * 1000:.0f} ms")
            print(f"pi attach <id> into the full app (median of {options.app_runs}, from the process's start):")
            for key, what in (("frame", "first frame (the editor on screen)"),
                              ("typed", "a key typed at the first frame is in the editor (ready to type)"),
                              ("painted", "the running answer on screen")):
                print(f"  {what}: {statistics.median(app[key]) * 1000:.0f} ms (max {max(app[key]) * 1000:.0f} ms)")
            print(f"  baseline, pi --session of a copy of the file (no server), its last message on screen: "
                  f"{statistics.median(local) * 1000:.0f} ms (max {max(local) * 1000:.0f} ms)")
            print(f"  the app in this process, constructed until every tab is shown: "
                  f"{statistics.median(in_process) * 1000:.0f} ms (max {max(in_process) * 1000:.0f} ms)")
            fan = _fanout(sock, loopback, options.deltas)
            print(f"fan-out to 5 viewers over {fan['records']:,} records: spread median {fan['median_ms']:.3f} ms, "
                  f"p99 {fan['p99_ms']:.3f} ms, max {fan['max_ms']:.3f} ms")
            floor = _fanout_floor(fan["records"], fan["seconds"])
            print(f"  floor, the same viewers fed by a bare socket writer at that pace ({floor['seconds']:.2f} s): "
                  f"median {floor['median_ms']:.3f} ms, p99 {floor['p99_ms']:.3f} ms, max {floor['max_ms']:.3f} ms")
            paced = _fanout(sock, loopback, 1_000, pace=200)
            print(f"  at a fast model's pace (200 deltas/s, {paced['records']:,} records): median "
                  f"{paced['median_ms']:.3f} ms, p99 {paced['p99_ms']:.3f} ms, max {paced['max_ms']:.3f} ms")
            first = asyncio.run(_first_answer(sock, loopback, options.runs))
            print(f"prompt to first text delta (median of {options.runs}): local session {first['local_ms']:.1f} ms, "
                  f"through pi serve {first['served_ms']:.1f} ms "
                  f"(difference {first['served_ms'] - first['local_ms']:+.1f} ms)")
            started = _first_answer_from_start(env, root / "project", loopback, options.app_runs)
            print(f"a new pi's first answer, from its start to the first text delta (median of {options.app_runs}): "
                  f"pi --mode rpc {started['local_ms']:.0f} ms, pi attach --new --mode rpc {started['served_ms']:.0f} ms")
        finally:
            proc.terminate()
            proc.wait(20)
            shutil.rmtree(env["XDG_RUNTIME_DIR"], ignore_errors=True)
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
