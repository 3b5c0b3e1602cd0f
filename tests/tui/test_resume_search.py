"""``/resume`` search looks through every message, as Pi's does, and shows under each hit the line
it matched in (issue #37: only the name and the first message were searched)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_runtime.session import SessionManager
from pi_tui.sessions.session_picker import SessionPicker
from pi_tui.tree.nav_host import NavHostApp

from .conftest import screen_text, wait_for

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def write_session(folder: Path, n: int, texts: list[str], name: str | None = None) -> Path:
    sid = f"0195a1b2-0000-7000-8000-{n:012d}"
    lines: list[dict] = [{"type": "session", "version": 3, "id": sid, "timestamp": f"2025-01-0{n}T00:00:00.000Z",
                          "cwd": "/work/project"}]
    parent = None
    for m, text in enumerate(texts):
        role = "user" if m % 2 == 0 else "assistant"
        message: dict = {"role": role, "timestamp": 1735689600000 + n * 86400000 + m}
        if role == "user":
            message["content"] = text
        else:
            message.update(content=[{"type": "text", "text": text}], api="x", provider="p", model="m",
                           usage=USAGE, stopReason="stop")
        lines.append({"type": "message", "id": f"{n:04x}{m:04x}", "parentId": parent,
                      "timestamp": f"2025-01-0{n}T00:00:0{m}.000Z", "message": message})
        parent = f"{n:04x}{m:04x}"
    if name:
        lines.append({"type": "session_info", "id": f"{n:04x}ffff", "parentId": parent,
                      "timestamp": f"2025-01-0{n}T00:00:09.000Z", "name": name})
    path = folder / f"2025-01-0{n}T00-00-00-000Z_{sid}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


async def test_search_finds_a_later_message_and_shows_where(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    write_session(folder, 1, ["set up the project", "done", "now fix the flaky websocket reconnect test", "fixed"])
    write_session(folder, 2, ["write the changelog", "written"], name="websocket notes")
    write_session(folder, 3, ["unrelated work", "ok"])
    assert len(SessionManager.list("/work/project", folder)) == 3
    picker = SessionPicker("/work/project", session_dir=folder, system_trash=False)
    app = NavHostApp(lambda: picker, exit_on_dismiss=False)
    async with app.run_test(size=(110, 30)) as pilot:
        assert await wait_for(pilot, lambda: picker.is_mounted and "set up the project" in screen_text(app))
        await pilot.press(*"websocket")
        assert await wait_for(pilot, lambda: len(picker.state.visible) == 2)
        # The name match ranks first (Pi's order); the other hit matched in its third message.
        assert [info.name for info in picker.state.visible] == ["websocket notes", None]
        text = screen_text(app)
        assert "↳ now fix the flaky websocket reconnect test" in text
        await pilot.press("escape")  # clears the search
        await pilot.press(*'"flaky websocket"')
        assert await wait_for(pilot, lambda: [i.first_message for i in picker.state.visible] == ["set up the project"])
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.results and app.results[-1].endswith("000000000001.jsonl"))
