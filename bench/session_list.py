"""Benchmark: list_all() over 1,000 session files.

Generates 1,000 Pi-format sessions spread over 25 project folders (40 messages each, a few
named), then times ``SessionManager.list_all()`` (cheap metadata scan) against opening every
file with full parsing and validation, which is what a naive picker would do.

Usage: python bench/session_list.py [--sessions N] [--messages M]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_runtime.session import SessionManager  # noqa: E402
from pi_runtime.session.paths import encode_cwd, iso_now, new_session_id, session_file_name  # noqa: E402


def generate(root: Path, sessions: int, messages: int) -> int:
    total = 0
    filler = "some words about the code " * 8
    for s in range(sessions):
        cwd = f"/home/user/project{s % 25}"
        folder = root / encode_cwd(cwd)
        folder.mkdir(parents=True, exist_ok=True)
        sid = new_session_id()
        stamp = iso_now(1_750_000_000 + s)
        lines = [{"type": "session", "version": 3, "id": sid, "timestamp": stamp, "cwd": cwd}]
        parent = None
        for i in range(messages):
            if i % 2 == 0:
                message = {"role": "user", "content": f"task {s}.{i} {filler}", "timestamp": 1_750_000_000_000 + i}
            else:
                message = {"role": "assistant", "content": [{"type": "text", "text": filler}], "api": "x",
                           "provider": "p", "model": "m", "usage": {"input": 1, "output": 1, "cacheRead": 0,
                           "cacheWrite": 0, "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                           "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 1_750_000_000_000 + i}
            eid = f"{i:08x}"
            lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": stamp, "message": message})
            parent = eid
        if s % 10 == 0:
            lines.append({"type": "session_info", "id": "ffffffff", "parentId": parent, "timestamp": stamp,
                          "name": f"named {s}"})
        path = folder / session_file_name(stamp, sid)
        path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
        total += path.stat().st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--messages", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        size = generate(root, args.sessions, args.messages)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            infos = SessionManager.list_all(root)
            best = min(best, time.perf_counter() - t0)
        assert len(infos) == args.sessions
        t0 = time.perf_counter()
        for info in infos:
            m = SessionManager.open(info.path, read_only=True)
            len(m.build_session_context().messages)
        full = time.perf_counter() - t0
    print(f"{args.sessions} sessions x {args.messages} messages, {size / 2**20:.1f} MB in 25 folders")
    print(f"list_all():                       {best * 1000:7.1f} ms  (best of 3)")
    print(f"open + validate every file:       {full * 1000:7.1f} ms  (what a naive picker would pay)")
    print(f"named sessions found:             {sum(1 for i in infos if i.name)}")


if __name__ == "__main__":
    main()
