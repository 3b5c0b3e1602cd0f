"""The compaction cut chosen as Pi 1.6 chooses it, on the context the model sees (issue #37).

Each case is a small session file; the expected cut is what Pi's own ``prepareCompaction``
returned for it (recorded here, and checked again against the installed Pi when
``PI_REFERENCE`` names it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_runtime.compaction.prepare import prepare_compaction
from pi_runtime.compaction.settings import CompactionSettings
from pi_runtime.session import SessionManager

TEXT = "word " * 100  # 500 characters: 125 estimated tokens
USAGE = {"input": 10, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 11,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def session_lines(spec: list[tuple[str, str, str | None]]) -> list[dict]:
    lines: list[dict] = [{"type": "session", "version": 3, "id": "hdr", "timestamp": "2026-01-01T00:00:00.000Z",
                          "cwd": "/tmp"}]
    parent = None
    for n, (entry_id, kind, arg) in enumerate(spec):
        ms = 1767225600000 + n * 1000
        entry: dict
        if kind == "user":
            entry = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": arg}],
                                                    "timestamp": ms}}
        elif kind == "assistant":
            entry = {"type": "message", "message": {
                "role": "assistant", "content": [{"type": "text", "text": arg}], "api": "x", "provider": "p",
                "model": "m", "usage": USAGE, "stopReason": "stop", "timestamp": ms}}
        elif kind == "system":
            entry = {"type": "message", "message": {"role": "system", "content": arg, "timestamp": ms}}
        elif kind == "model":
            entry = {"type": "model_change", "provider": "p", "modelId": "m2"}
        else:
            entry = {"type": "compaction", "summary": "earlier", "firstKeptEntryId": arg, "tokensBefore": 100}
        entry.update(id=entry_id, parentId=parent, timestamp=f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z")
        lines.append(entry)
        parent = entry_id
    return lines


CASES = {
    # The system message an earlier compaction kept is not in the model's context (the compaction's
    # checkpoint stands for it), so it adds nothing on the way back: pi counted it and cut at u2.
    "kept-system-message": (
        [("u1", "user", TEXT), ("a1", "assistant", TEXT), ("s1", "system", TEXT * 2), ("u2", "user", TEXT),
         ("a2", "assistant", TEXT), ("c1", "compaction", "u1"), ("u3", "user", TEXT), ("a3", "assistant", TEXT)],
        600, {"firstKept": "a1", "split": True, "summarized": 0, "prefix": 1}),
    # A model change just before the user message the budget ends at stays with the kept part, and
    # then the cut does not start a turn: Pi summarises the turn before it as a split turn's prefix.
    "model-change-before-the-cut": (
        [("s0", "system", "sys"), ("u1", "user", TEXT), ("a1", "assistant", TEXT), ("m1", "model", None),
         ("u2", "user", TEXT), ("a2", "assistant", TEXT)],
        200, {"firstKept": "m1", "split": True, "summarized": 0, "prefix": 2}),
    "plain": (
        [("s0", "system", "sys"), ("u1", "user", TEXT), ("a1", "assistant", TEXT), ("u2", "user", TEXT),
         ("a2", "assistant", TEXT)],
        300, {"firstKept": "a1", "split": True, "summarized": 0, "prefix": 1}),
}


def write_session(tmp_path: Path, spec) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in session_lines(spec)))
    return path


def ours(path: Path, keep: int) -> dict | None:
    manager = SessionManager.open(path)
    try:
        prepared = prepare_compaction(manager.raw_branch(), CompactionSettings(keep_recent_tokens=keep))
    finally:
        manager.close()
    if prepared is None:
        return None
    return {"firstKept": prepared.first_kept_entry_id, "split": prepared.is_split_turn,
            "summarized": len(prepared.messages_to_summarize), "prefix": len(prepared.turn_prefix_messages)}


@pytest.mark.parametrize("name", list(CASES))
def test_the_cut_is_where_pi_puts_it(tmp_path, name):
    spec, keep, expected = CASES[name]
    assert ours(write_session(tmp_path, spec), keep) == expected


def _pi_dist() -> Path | None:
    binary = os.environ.get("PI_REFERENCE")
    if not binary or not Path(binary).exists() or shutil.which("node") is None:
        return None
    cli = Path(binary).resolve()  # .../pi-coding-agent/dist/(bundle/)cli.js
    for dist in (cli.parent, cli.parent.parent):
        if (dist / "core" / "compaction" / "compaction.js").exists():
            return dist
    return None


@pytest.mark.skipif(_pi_dist() is None, reason="real Pi not installed (set PI_REFERENCE, node on PATH)")
@pytest.mark.parametrize("name", list(CASES))
def test_pi_itself_cuts_there(tmp_path, name):
    spec, keep, expected = CASES[name]
    path = write_session(tmp_path, spec)
    script = Path(__file__).with_name("pi_prepare.mjs")
    done = subprocess.run(["node", str(script), str(_pi_dist()), str(path), str(keep)], capture_output=True,
                          text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == expected
