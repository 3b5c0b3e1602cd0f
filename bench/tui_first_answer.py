"""Benchmark: launch to the first answer on screen when the user types at once (pi and Pi 1.6).

Starts the app in a 120x40 pseudo-terminal with a fresh agent dir whose models.json points a
custom provider at a loopback OpenAI-compatible server (``pi_runtime.testing.loopback``) that
answers at once. As soon as the app shows its first frame (its header's version) with the
terminal in raw mode, the bench types ``h``, ``i`` and Enter, 30 ms apart, and times until
the answer's text is on screen. (Keys typed before raw mode would be echoed by the terminal
itself, Enter turned into a newline.) The bench answers the terminal queries both programs
send at start-up (device attributes, colours, mode reports) as an xterm-like terminal
would; without answers Pi waits for its own time-outs and drops what is typed meanwhile.
The same runs against the real Pi (``--reference``; default ``$PI_REFERENCE`` or
/work/ref/node_modules/.bin/pi, with the Node beside it on PATH).

A run that shows no answer within ``--timeout`` seconds is reported, not waited for: "typed
text lost" when no request reached the server (the keys were taken before the session was
ready and dropped), "answer not shown" when the server answered but the screen never showed it.

Figures are medians since process start: raw mode, keys typed, the prompt's request at the
server, the answer on screen, and the median of each run's typed-to-request time; then the CPU
time the program had used by the moments typed, request and answer (all its threads, from /proc
on Linux: a wall time close to it means the moment is CPU-bound). ``--delay S`` types S seconds
after the first frame instead; ``--after-footer`` types once the footer shows the model (``m1``),
as a user who waits for the app to look ready does. pi's bytecode is compiled
first (``side_by_side.compile_bytecode``: an installed pi has it). Both programs run with
PI_OFFLINE=1 (Pi would otherwise try to download fd and ripgrep on a fresh agent dir).

Run: ``.venv/bin/python bench/tui_first_answer.py [--runs 7] [--timeout 15] [--delay 0] [--after-footer] [--only pi|Pi]``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply  # noqa: E402

KEYS = (b"h", b"i", b"\r")
KEY_GAP = 0.03


@dataclass
class Outcome:
    raw_mode: float | None = None
    """Seconds until the terminal was in raw mode."""
    typed: float | None = None
    """Seconds until the keys were typed: raw mode and the first frame on screen."""
    request: float | None = None
    """Seconds until the prompt's request reached the server."""
    answer: float | None = None
    """Seconds until the answer's text was on screen."""
    problem: str | None = None
    cpu: list[tuple[float, float]] = field(default_factory=list)
    """(seconds since start, CPU seconds the program has used: all its threads, user + system)."""

    def cpu_at(self, moment: float | None) -> float | None:
        """CPU seconds used by ``moment`` (the last reading before it; ticks of 10 ms)."""
        if moment is None:
            return None
        used = [cpu for when, cpu in self.cpu if when <= moment]
        return used[-1] if used else None


@dataclass
class Server:
    """The loopback model: answers every request at once with this run's marker."""

    marker: str = ""
    requested_at: list[float] = field(default_factory=list)
    loop: LoopbackServer | None = None

    def reply(self, request: RecordedRequest) -> Reply:
        self.requested_at.append(time.perf_counter())
        model = (request.json() or {}).get("model", "m1")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "cmpl-1", "object": "chat.completion.chunk", "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        usage = {"id": "cmpl-1", "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}}
        return Reply.sse([chunk({"role": "assistant", "content": f"{self.marker} is the answer."}),
                          chunk({}, "stop"), usage, "[DONE]"])


def agent_dir(url: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix="pi-first-answer-"))
    agent = root / "agent"
    agent.mkdir()
    (root / "project").mkdir()
    models = {"providers": {"loop": {"baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "loop-key",
                                     "models": [{"id": "m1", "name": "Loop", "contextWindow": 128000, "maxTokens": 4096}]}}}
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "loop", "defaultModel": "m1"}), encoding="utf-8")
    return root


# What a terminal emulator (xterm-like, no kitty keyboard protocol) answers to the queries
# both programs send at start-up; without answers a program waits for its own time-outs.
ANSWERS = (
    (re.compile(rb"\x1b\[0?c"), lambda m: b"\x1b[?62;22c"),                     # primary device attributes
    (re.compile(rb"\x1b\[5n"), lambda m: b"\x1b[0n"),                            # status report
    (re.compile(rb"\x1b\[6n"), lambda m: b"\x1b[1;1R"),                          # cursor position
    (re.compile(rb"\x1b\[\?(\d+)\$p"), lambda m: b"\x1b[?" + m.group(1) + b";2$y"),  # DECRQM: known, reset
    (re.compile(rb"\x1b\](1[01]);\?(\x07|\x1b\\)"),                               # foreground/background colour
     lambda m: b"\x1b]" + m.group(1) + (b";rgb:d8d8/dbdb/e2e2" if m.group(1) == b"10" else b";rgb:1616/1818/1d1d")
     + b"\x1b\\"),
)


def answers(output: bytes) -> bytes:
    """The terminal's replies to the queries in ``output``."""
    return b"".join(reply(m) for pattern, reply in ANSWERS for m in pattern.finditer(output))


def in_raw_mode(fd: int) -> bool:
    # On Linux the master side reports the terminal's (the slave's) settings.
    return not termios.tcgetattr(fd)[3] & termios.ICANON


def stop(pid: int) -> None:
    """End the program and its children (its process group: pty.fork made it a session leader)."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass
        deadline = time.perf_counter() + wait
        while time.perf_counter() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG) != (0, 0):
                    return
            except ChildProcessError:
                return
            time.sleep(0.02)


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """CPU time the process has used so far (its threads, finished ones too), or None off Linux."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime


def one_run(argv: list[str], path_prefix: str, server: Server, marker: str, timeout: float,
            frame: bytes, delay: float = 0.0) -> Outcome:
    server.marker = marker
    server.requested_at.clear()
    assert server.loop is not None
    root = agent_dir(server.loop.url)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
    env.update(TERM="xterm-256color", HOME=str(root), PI_CODING_AGENT_DIR=str(root / "agent"), PI_OFFLINE="1",
               PATH=path_prefix + env.get("PATH", "/usr/bin:/bin"))
    outcome = Outcome()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(root / "project")
        os.execvpe(argv[0], argv, env)
    start = time.perf_counter()
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    pending: list[tuple[float, bytes]] = []
    window = b""
    needle = marker.encode()
    try:
        while time.perf_counter() - start < timeout:
            now = time.perf_counter()
            used = cpu_seconds(pid)
            if used is not None:
                outcome.cpu.append((now - start, used))
            if outcome.raw_mode is None and in_raw_mode(fd):
                outcome.raw_mode = now - start
            if outcome.typed is None and outcome.raw_mode is not None and frame in window:
                outcome.typed = now - start
                pending = [(now + delay + i * KEY_GAP, key) for i, key in enumerate(KEYS)]
            while pending and pending[0][0] <= now:
                os.write(fd, pending.pop(0)[1])
            ready, _, _ = select.select([fd], [], [], 0.005)
            if ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except OSError:
                    outcome.problem = "the program exited"
                    break
                if not chunk:
                    outcome.problem = "the program exited"
                    break
                reply = answers(chunk)
                if reply:
                    os.write(fd, reply)
                window = (window + chunk)[-100_000:]
                if needle in window:
                    outcome.answer = time.perf_counter() - start
                    break
    finally:
        stop(pid)
        os.close(fd)
    if server.requested_at:
        outcome.request = server.requested_at[0] - start
    if outcome.answer is None and outcome.problem is None:
        if outcome.typed is None:
            outcome.problem = "never took keys (no raw mode or no first frame)"
        elif outcome.request is None:
            outcome.problem = "answer never appeared: typed text lost (no request reached the server)"
        else:
            outcome.problem = "answer not shown (the server answered)"
    return outcome


def median(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{statistics.median(known):.3f}s" if known else "—"


def report(name: str, outcomes: list[Outcome]) -> str:
    answered = [o for o in outcomes if o.answer is not None]
    lines = [f"{name}: {len(answered)}/{len(outcomes)} runs showed the answer"]
    if answered:
        times = [o.answer for o in answered if o.answer is not None]
        lines.append(f"  answer on screen   median {statistics.median(times):.3f}s  min {min(times):.3f}s  max {max(times):.3f}s")
    lines.append(f"  raw mode           median {median([o.raw_mode for o in outcomes])}")
    lines.append(f"  typed (1st frame)  median {median([o.typed for o in outcomes])}")
    lines.append(f"  request at server  median {median([o.request for o in outcomes])}")
    lines.append(f"  typed -> request   median {median([o.request - o.typed for o in outcomes if o.request and o.typed])}")
    # On 2 cores Node runs its compiler and collector beside the program; pi's Python holds one
    # core at a time: a wall time close to the CPU time means the moment is CPU-bound.
    cpu = [(o.cpu_at(o.typed), o.cpu_at(o.request), o.cpu_at(o.answer)) for o in outcomes]
    lines.append(f"  CPU used by typed / request / answer (all threads)  median "
                 f"{median([c[0] for c in cpu])} / {median([c[1] for c in cpu])} / {median([c[2] for c in cpu])}")
    problems: dict[str, int] = {}
    for o in outcomes:
        if o.problem:
            problems[o.problem] = problems.get(o.problem, 0) + 1
    lines.extend(f"  {count} x {problem}" for problem, count in problems.items())
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for the answer in one run")
    parser.add_argument("--reference", default=os.environ.get("PI_REFERENCE", "/work/ref/node_modules/.bin/pi"),
                        help="the real Pi's pi executable")
    parser.add_argument("--only", choices=("pi", "Pi"), help="run one program only")
    parser.add_argument("--delay", type=float, default=0.0,
                        help="seconds to wait after raw mode before typing (0: type at once)")
    parser.add_argument("--after-footer", action="store_true", help="type once the footer shows the model")
    args = parser.parse_args()
    from side_by_side import compile_bytecode, load

    from pi_runtime import __version__

    compile_bytecode()
    print(load())

    targets: list[tuple[str, list[str], str, bytes]] = [
        ("pi (this repository)", [sys.executable, "-m", "pi_runtime.cli"], "", f"v{__version__}".encode())]
    reference = Path(args.reference)
    if reference.exists():
        node = reference.parent.parent / "node" / "bin"  # npm's node package beside Pi, when installed so
        prefix = f"{node}{os.pathsep}" if node.is_dir() else ""
        targets.append(("Pi 1.6 (reference)", [str(reference)], prefix, b"v1.6"))
    else:
        print(f"reference Pi not found at {reference}: pi only")
    if args.after_footer:  # the footer's model: the same mark for both
        targets = [(name, argv, prefix, b"m1") for name, argv, prefix, _ in targets]
    if args.only:
        targets = [t for t in targets if t[0].startswith(args.only + " ")]
    server = Server()
    with LoopbackServer(server.reply) as loop:
        server.loop = loop
        for name, argv, prefix, frame in targets:
            outcomes = [one_run(argv, prefix, server, f"Pong{run:02d}x{os.getpid()}", args.timeout, frame,
                                args.delay) for run in range(args.runs)]
            print(report(name, outcomes), flush=True)
    print(load())


if __name__ == "__main__":
    main()
