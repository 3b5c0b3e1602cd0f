"""Scenes of the navigation screens (``/tree``, ``/resume``) for snapshots and ``screenshots/``.

The session files are written here with fixed ids and timestamps and ages are measured from
a fixed ``NOW``, so the pictures are the same on every run. Run
``python -m pi_tui.screenshots.nav_scenes [--out screenshots]`` to write ``tree`` and ``resume`` as
SVG and, when ``rsvg-convert`` is installed, PNG.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
START = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
PROJECT = "/home/dev/webshop"
USAGE = {"input": 1200, "output": 300, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1500,
         "cost": {"input": 0.0036, "output": 0.0045, "cacheRead": 0, "cacheWrite": 0, "total": 0.0081}}


class _Writer:
    """Builds entries with fixed ids (``e0000001``…) and times one minute apart."""

    def __init__(self, start: datetime) -> None:
        self.entries: list[dict[str, Any]] = []
        self.leaf: str | None = None
        self.time = start
        self.count = 0

    def add(self, kind: str, **fields: Any) -> str:
        self.count += 1
        entry_id = f"e{self.count:07d}"
        self.time += timedelta(minutes=1)
        stamp = self.time.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        if "message" in fields:
            fields["message"] = {**fields["message"], "timestamp": int(self.time.timestamp() * 1000)}
        self.entries.append({"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": stamp, **fields})
        self.leaf = entry_id
        return entry_id

    def user(self, text: str) -> str:
        return self.add("message", message={"role": "user", "content": text})

    def assistant(self, text: str = "", calls: Sequence[tuple[str, str, dict[str, Any]]] = ()) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
        return self.add("message", message={"role": "assistant", "content": content, "api": "anthropic-messages",
                                            "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": USAGE,
                                            "stopReason": "toolUse" if calls else "stop"})

    def result(self, call_id: str, name: str, text: str, error: bool = False) -> str:
        return self.add("message", message={"role": "toolResult", "toolCallId": call_id, "toolName": name,
                                            "content": [{"type": "text", "text": text}], "isError": error})

    def write(self, path: Path, session_id: str, cwd: str, created: datetime, parent: Path | None = None) -> Path:
        header = {"type": "session", "version": 3, "id": session_id,
                  "timestamp": created.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "cwd": cwd}
        if parent is not None:
            header["parentSession"] = str(parent)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in [header, *self.entries]]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path


def write_tree_session(path: Path) -> tuple[Path, dict[str, str]]:
    """A branched session with labels, a branch summary and tool calls.

    Returns:
        The file and the ids worth knowing (``first_user``, ``flag_done``, ``leaf``, ``abandoned``).
    """
    w = _Writer(START)
    w.add("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    w.add("thinking_level_change", thinkingLevel="medium")
    first = w.user("Add a --verbose flag to the CLI")
    w.assistant("Let me look at the entry point first.", [("c1", "read", {"path": "shop/cli.py"})])
    w.result("c1", "read", "import argparse\n\ndef main(argv=None):\n    parser = argparse.ArgumentParser()")
    w.assistant("", [("c2", "edit", {"path": "shop/cli.py", "edits": []})])
    w.result("c2", "edit", "Applied 1 edit to shop/cli.py")
    flag_done = w.assistant("Added `--verbose`: it sets the log level to DEBUG.")
    w.user("Also print every SQL query")
    w.assistant("", [("c3", "bash", {"command": "grep -rn 'execute(' shop/db"})])
    w.result("c3", "bash", "shop/db/session.py:41:        return self.conn.execute(sql, params)")
    abandoned = w.assistant("Wrapped `execute` with a print of each statement.")
    w.leaf = flag_done
    w.add("branch_summary", fromId=abandoned, summary="Printing SQL from db/session.py was too noisy.")
    w.user("Log SQL through the logging module instead")
    w.assistant("", [("c4", "bash", {"command": "pytest -q"})])
    w.result("c4", "bash", "14 passed in 0.82s")
    leaf = w.assistant("Queries now go to the `shop.sql` logger at DEBUG; all 14 tests pass.")
    w.leaf = first
    w.assistant("Should the flag also be settable from an environment variable?")
    w.user("Yes, SHOP_VERBOSE=1")
    w.assistant("Done: `SHOP_VERBOSE=1` has the same effect as `--verbose`.")
    w.leaf = leaf
    w.add("label", targetId=first, label="start")
    w.add("label", targetId=flag_done, label="flag done")
    return w.write(path, "0195a1b2-0000-7000-8000-000000000ee1", PROJECT, START), {
        "first_user": first, "flag_done": flag_done, "leaf": leaf, "abandoned": abandoned}


SESSIONS = [
    # (id suffix, cwd, name, first message, user turns, hours before NOW)
    ("01", PROJECT, "Checkout refactor", "Split checkout.py into cart, payment and receipt modules", 9, 0.5),
    ("02", PROJECT, None, "Why does test_discounts fail on Mondays?", 3, 3.2),
    ("03", PROJECT, None, "Add a --verbose flag to the CLI", 6, 26),
    ("04", PROJECT, "SQL logging", "Log every SQL query at debug level", 4, 50),
    ("05", PROJECT, None, "Bump Django to 5.1 and fix the deprecations", 12, 24 * 9),
    ("06", PROJECT, None, "Write a README section about running the shop locally", 2, 24 * 40),
    ("07", "/home/dev/dotfiles", "tmux config", "Make tmux use vi keys in copy mode", 2, 5),
    ("08", "/home/dev/blog", None, "Draft a post about session trees", 5, 24 * 3),
]
FORKS = {"04": "03"}
"""Session forked from another (``/fork``): the picker threads it under its parent."""


def write_picker_sessions(root: Path) -> dict[str, Path]:
    """Session files for the picker under ``root`` (a sessions root), by id suffix."""
    from pi_runtime.frontend import project_session_dir

    files: dict[str, Path] = {}
    for suffix, cwd, name, first, turns, hours in SESSIONS:
        created = NOW - timedelta(hours=hours, minutes=turns * 2 + 5)
        w = _Writer(created)
        w.user(first)
        w.assistant("Looking into it.")
        for turn in range(turns - 1):
            w.user(f"Next step {turn + 1}")
            w.assistant("Done.")
        if name:
            w.add("session_info", name=name)
        session_id = f"0195a1b2-0000-7000-8000-0000000000{suffix}"
        stamp = created.strftime("%Y-%m-%dT%H-%M-%S-000Z")
        path = project_session_dir(cwd, root) / f"{stamp}_{session_id}.jsonl"
        parent = files.get(FORKS[suffix]) if suffix in FORKS else None
        files[suffix] = w.write(path, session_id, cwd, created, parent)
    return files


def tree_screen(folder: Path) -> tuple[Any, Any]:
    """(screen factory, session) showing the branched demo session in ``/tree``."""
    from pi_runtime.frontend import ScriptedProvider, SessionManager, SettingsManager, create_agent_session

    from ..tree.tree_browser import TreeBrowser

    path, _ids = write_tree_session(folder / "tree.jsonl")
    provider = ScriptedProvider("nav-screens")
    session = create_agent_session(cwd=PROJECT, agent_dir=str(folder / "agent"), model=provider.model(),
                                   session_manager=SessionManager.open(path),
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
    return (lambda: TreeBrowser(session)), session


def resume_screen(folder: Path) -> Any:
    """A screen factory showing the picker over the demo sessions."""
    from pi_runtime.frontend import project_session_dir

    from ..sessions.session_picker import SessionPicker

    root = folder / "sessions"
    files = write_picker_sessions(root)
    return lambda: SessionPicker(PROJECT, session_dir=project_session_dir(PROJECT, root), sessions_root=root,
                                 current_path=files["01"], now=NOW, system_trash=False)


async def _tree_prepare(pilot: Any) -> None:
    await pilot.press("up", "up")
    await pilot.pause()


async def _resume_prepare(pilot: Any) -> None:
    await pilot.press("down")
    await pilot.pause()


def make_scene(name: str, folder: Path) -> tuple[Any, Any]:
    """(app, prepare coroutine function) for scene ``tree`` or ``resume``."""
    from ..tree.nav_host import NavHostApp

    if name == "tree":
        factory, _session = tree_screen(folder)
        return NavHostApp(factory, exit_on_dismiss=False), _tree_prepare
    if name == "resume":
        return NavHostApp(resume_screen(folder), exit_on_dismiss=False), _resume_prepare
    raise ValueError(f"unknown scene '{name}' (tree or resume)")


SCENE_NAMES = ("tree", "resume")
SIZE = (120, 32)


async def capture(name: str) -> str:
    """Run scene ``name`` headless and return its SVG."""
    with tempfile.TemporaryDirectory(prefix="pi-nav-") as tmp:
        app, prepare = make_scene(name, Path(tmp))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await prepare(pilot)
            return app.export_screenshot(title=f"pi — {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="screenshots", help="output folder")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from .scenes import save

    for name in SCENE_NAMES:
        print(save(out, name, asyncio.run(capture(name)), SIZE[0]))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    raise SystemExit(main())
