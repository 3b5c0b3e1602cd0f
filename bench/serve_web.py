"""Benchmark: a browser page of ``pi serve --web`` (issue 38), measured from a websocket client.

Starts the installed ``pi serve --web`` (this checkout's .venv) on a fresh agent dir whose
models.json points a provider at a loopback server, pairs, and for each of ``--runs`` pages:

1. page: GET ``/`` and the files it loads (textual.js, CSS, the font), with the cookie;
2. first frame: websocket open to the first screen output, and to the app's footer drawn (the
   model's name), i.e. what a user waits for after opening the page (the app's start-up);
3. echo: a key sent as the browser sends it (``["stdin", "x"]``) to the frame that draws it, 20
   keys one after the other (the bridge's and the app's share of typing latency);
4. memory: the resident size of the page's app process.

Run: ``.venv/bin/python bench/serve_web.py [--runs 5]``. Give ``uptime`` with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from pi_runtime.testing.loopback import LoopbackServer  # noqa: E402

PI = str(Path(sys.executable).parent / "pi")
PAIRING = re.compile(r"(http://[^\s/]+)/\?token=([A-Za-z0-9_-]+)")


def _env(root: Path, loopback: LoopbackServer) -> dict[str, str]:
    agent = root / "agent"
    agent.mkdir()
    models = {"providers": {"loop": {"baseUrl": loopback.url + "/v1", "api": "openai-completions",
                                     "apiKey": "k", "models": [{"id": "loop-model", "name": "Loop Model"}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "loop", "defaultModel": "loop-model"}))
    (root / "project").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_CODING_AGENT_DIR": str(agent), "HOME": str(root), "XDG_RUNTIME_DIR": str(root)})
    return env


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listing:
            out += [int(w) for w in listing.read().split()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    from web_support import get, open_ws, pair

    root = Path(tempfile.mkdtemp(prefix="pi-web-bench-"))
    with LoopbackServer() as loopback:
        env = _env(root, loopback)
        proc = subprocess.Popen([PI, "serve", "--web", "--model", "loop/loop-model"], cwd=root / "project", env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        lines: list[str] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if " listening on " in line:
                break
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        found = next(m for m in map(PAIRING.search, lines) if m)
        origin, token = found.group(1), found.group(2)
        cookie = pair(origin, token)
        page_ms, first_ms, ready_ms, echo_ms, rss = [], [], [], [], []
        for _ in range(runs):
            start = time.perf_counter()
            for path in ("/", "/static/textual.js", "/static/xterm.css", "/static/page.css",
                         "/static/fonts/RobotoMono-VariableFont_wght.ttf"):
                assert get(origin, path, cookie=cookie).status == 200
            page_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            with open_ws(origin, cookie=cookie, page_origin=origin) as ws:
                drawn = b""
                while not drawn:
                    frame = ws.recv(timeout=60)
                    drawn += frame if isinstance(frame, bytes) else b""
                first_ms.append((time.perf_counter() - start) * 1000)
                while b"loop-model" not in drawn:
                    frame = ws.recv(timeout=60)
                    drawn += frame if isinstance(frame, bytes) else b""
                ready_ms.append((time.perf_counter() - start) * 1000)
                # Let the first screen settle: read until a quiet moment, then type.
                while True:
                    try:
                        ws.recv(timeout=0.3)
                    except TimeoutError:
                        break
                for key in "abcdefghijklmnopqrst":
                    sent = time.perf_counter()
                    ws.send(json.dumps(["stdin", key]))
                    while True:
                        frame = ws.recv(timeout=30)
                        if isinstance(frame, bytes) and key.encode() in frame:
                            break
                    echo_ms.append((time.perf_counter() - sent) * 1000)
                rss += [_rss_mb(pid) for pid in _children(proc.pid)]
        proc.terminate()
        proc.wait(30)

    def show(name: str, values: list[float], unit: str = "ms") -> None:
        print(f"{name:<34} median {statistics.median(values):7.1f} {unit}   min {min(values):7.1f}   "
              f"max {max(values):7.1f}   (n={len(values)})")

    show("page + its files (5 GETs)", page_ms)
    show("websocket open -> first frame", first_ms)
    show("websocket open -> app footer drawn", ready_ms)
    show("key sent -> frame drawing it", echo_ms)
    show("app process resident size", rss, "MB")


if __name__ == "__main__":
    main()
