"""Wall time and peak RSS of the ``pi`` command, ours next to Pi's when Pi is installed.

Cases (each run a few times, ours and Pi's interleaved; the median wall time, the median CPU
time (user + system of all threads: steadier than wall time on a busy machine), the largest
peak RSS and ours as a fraction of Pi's median wall time are shown):
  --version              start-up floor
  --list-models          the whole catalogue (a placeholder in every provider variable: 1,688 models)
  -p "say hi"            a one-line answer from a loopback OpenAI-compatible server
  -p (2,000 tokens)      a long streamed answer (~2,000 deltas)
  --session (20k) -p     open a generated 20,000-message session file and answer
  -c -p (20k msgs)       the same through --continue (newest session of the folder)

Our package's bytecode is compiled first (``compileall``): an installed pi has it, and with
``PYTHONDONTWRITEBYTECODE`` set every run would compile the sources again (~0.1 s).

Pi is looked up as ``$PI_REAL_BIN``, else ``$PI_REFERENCE`` (default /work/ref/node_modules/.bin/pi)
with the Node installed beside it, else the npm global ``@earendil-works/pi-coding-agent``
(needs Node >= 22.19). Peak RSS is the command's own ``ru_maxrss`` (``os.wait4`` in a small
launcher: spawned from the bench itself, a command's peak read at least as the bench's RSS).

A last line gives the floor under every case: the interpreter importing asyncio and httpx2, which
pi needs for any answer, as a fraction of Pi's 20k time.

Run: ``.venv/bin/python bench/cli_bench.py [--runs N] [--only 20k]`` (with ``PI_REAL_BIN`` pointing at Pi's
``pi`` and Node on ``PATH``). Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_runtime.testing.loopback import LoopbackServer, Reply

LONG_TOKENS = 2000
SESSION_MESSAGES = 20_000


def _chunk(content: str | None = None, finish: str | None = None) -> dict:
    delta = {"content": content} if content is not None else {}
    return {"id": "c", "object": "chat.completion.chunk", "model": "bench-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _reply(words: int) -> Reply:
    pieces = [_chunk(f"word{i} ") for i in range(words)]
    usage = {"id": "c", "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": words,
                                                 "total_tokens": 50 + words}}
    return Reply.sse([*pieces, _chunk(finish="stop"), usage, "[DONE]"])


def responder(request) -> Reply:
    body = request.json() or {}
    last = json.dumps(body.get("messages", [])[-1:])
    return _reply(LONG_TOKENS if "long answer" in last else 3)


def write_session(path: Path, cwd: str, count: int) -> None:
    """A Pi v3 session file with ``count`` alternating user/assistant messages in one chain."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = "2025-01-01T00:00:00.000Z"
    lines = [json.dumps({"type": "session", "version": 3, "id": path.stem.split("_", 1)[1],
                         "timestamp": stamp, "cwd": cwd})]
    parent = None
    usage = {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    for i in range(count):
        entry_id = f"{i:08x}"
        if i % 2 == 0:
            message = {"role": "user", "content": f"Question number {i}: what about item {i}?", "timestamp": 1735689600000 + i}
        else:
            message = {"role": "assistant", "content": [{"type": "text", "text": f"Answer {i}: item {i} is fine. " * 3}],
                       "api": "openai-completions", "provider": "bench", "model": "bench-model", "usage": usage,
                       "stopReason": "stop", "timestamp": 1735689600000 + i}
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
                                 "message": message}))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# Started by a small Python (``-S``) that forks and execs the command: Linux gives a process the
# peak RSS of the image it was exec'ed from, and spawned straight from this bench (which keeps
# every request the loopback server received, 100 MB and more by the 20k cases) the command's
# peak would read as the bench's own. Figures come back on a pipe: wall, status, rusage.
_LAUNCHER = """
import os, sys, time
fd = int(sys.argv[1])
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.close(fd)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - start
os.write(fd, repr((wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime)).encode())
os.close(fd)
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def measure(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, int, float]:
    """(wall seconds, peak RSS in MB, exit status, CPU seconds: user + system, all threads) of one run."""
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, str(write_end), *cmd], env=env, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            pass_fds=(write_end,))
    os.close(write_end)
    with os.fdopen(read_end, "rb") as figures:
        report = figures.read()
    proc.wait()
    if proc.returncode != 0 and proc.stderr is not None:
        sys.stderr.write(f"  ({' '.join(cmd[-3:])}: exit {proc.returncode}: {proc.stderr.read().decode()[:200]})\n")
    if proc.stderr is not None:
        proc.stderr.close()
    wall, maxrss_kb, cpu = ast.literal_eval(report.decode()) if report else (0.0, 0, 0.0)
    return wall, maxrss_kb // 1024, proc.returncode, cpu


def real_pi() -> list[str] | None:
    override = os.environ.get("PI_REAL_BIN")
    if override:
        return override.split()
    reference = Path(os.environ.get("PI_REFERENCE", "/work/ref/node_modules/.bin/pi"))
    beside = reference.parent.parent / "node" / "bin" / "node"  # npm's node package beside Pi
    if reference.exists() and beside.exists():
        return [str(beside), str(reference.resolve())]
    node = shutil.which("node")
    npm = shutil.which("npm")
    if not node or not npm:
        return None
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")
    major, minor = (int(x) for x in (version.split(".") + ["0", "0"])[:2])
    if (major, minor) < (22, 19):
        return None
    root = subprocess.run([npm, "root", "-g"], capture_output=True, text=True).stdout.strip()
    cli = Path(root) / "@earendil-works" / "pi-coding-agent" / "dist" / "cli.js"
    return [node, str(cli)] if cli.exists() else None


def bench_home(tmp: str, server_url: str, settings: dict | None = None) -> tuple[Path, Path, dict[str, str]]:
    """An agent dir whose one model, ``bench/bench-model``, is the loopback server at
    ``server_url``, a project folder, and the environment that points pi (and Pi) at them."""
    agent, project = Path(tmp, "agent"), Path(tmp, "project")
    agent.mkdir()
    project.mkdir()
    models = {"providers": {"bench": {"baseUrl": server_url + "/v1", "api": "openai-completions",
                                      "apiKey": "bench-key", "models": [{"id": "bench-model"}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    if settings is not None:
        (agent / "settings.json").write_text(json.dumps(settings))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1", HOME=tmp)
    return agent, project, env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="run only the cases whose label contains this text (e.g. 20k)")
    options = parser.parse_args()
    runs = options.runs
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "pi_runtime"), quiet=1)
    ours = [str(Path(sys.executable).parent / "pi")]
    theirs = real_pi()
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(responder) as server:
        agent, project, env = bench_home(tmp, server.url, {"compaction": {"enabled": False}})
        from pi_runtime.session.paths import encode_cwd

        big = agent / "sessions" / encode_cwd(str(project)) / "2025-01-01T00-00-00-000Z_bench-20k.jsonl"
        model = ["--model", "bench/bench-model"]
        # A placeholder in every provider's variables: --list-models shows the whole catalogue.
        from pi_runtime.ai.env_keys import ENV_KEYS

        every_key = {**env, **{name: "placeholder" for names in ENV_KEYS.values() for name in names}}
        cases = [
            ("pi --version", ["--version"]),
            ("--list-models (all keys)", ["--list-models"]),
            ('pi -p "say hi"', ["-p", "say hi", "--no-session", *model]),
            ("2,000-token answer", ["-p", "long answer please", "--no-session", *model]),
            ("--session (20k) -p", ["--session", str(big), "-p", "say hi", *model]),
            ("-c -p on 20k messages", ["-c", "-p", "say hi", *model]),
        ]
        cases = [case for case in cases if options.only in case[0]]
        rows = []
        pi_medians: dict[str, float] = {}
        commands = [c for c in (ours, theirs) if c is not None]
        for label, args in cases:
            walls: dict[int, list[float]] = {i: [] for i in range(len(commands))}
            cpus: dict[int, list[float]] = {i: [] for i in range(len(commands))}
            peaks = dict.fromkeys(range(len(commands)), 0)
            for _ in range(runs):
                for i, cmd in enumerate(commands):  # interleaved, so load changes hit both alike
                    if "20k" in label:
                        write_session(big, str(project), SESSION_MESSAGES)
                    case_env = every_key if label.startswith("--list-models") else env
                    wall, rss, _code, cpu = measure([*cmd, *args], case_env, str(project))
                    walls[i].append(wall)
                    cpus[i].append(cpu)
                    peaks[i] = max(peaks[i], rss)
            medians = [statistics.median(walls[i]) for i in range(len(commands))]
            if theirs is not None:
                pi_medians[label] = medians[1]
            row = [label] + [f"{medians[i]:6.3f} s  {statistics.median(cpus[i]):5.2f} s CPU  {peaks[i]:4d} MB"
                             for i in range(len(commands))]
            row.append(f"{medians[0] / medians[1]:.2f}x" if theirs is not None else "Pi not installed")
            rows.append(row)
        # What no pi code can go below: the interpreter with asyncio and the HTTP library imported.
        floor = statistics.median(measure([sys.executable, "-c", "import asyncio, httpx2"], env, str(project))[0]
                                  for _ in range(runs))
    header = ["case", "pi (ours)"] + (["Pi"] if theirs is not None else []) + ["ours / Pi"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    pi_20k = pi_medians.get("--session (20k) -p")
    against = f" ({floor / pi_20k:.2f}x Pi's --session 20k time)" if pi_20k else ""
    print(f"floor: python -c 'import asyncio, httpx2' {floor:.3f} s{against}")


if __name__ == "__main__":
    main()
