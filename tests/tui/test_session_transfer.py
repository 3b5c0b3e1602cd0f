"""``/export name.jsonl``, ``/import`` and ``/share`` as Pi has them (issue #37: the export wrote HTML
into a .jsonl name, /import did not exist, /share was sent to the model)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.session import SessionManager
from pi_tui.dialogs.text_prompt import ConfirmPrompt
from pi_tui.launch import create_app
from pi_tui.transcript.notice import Notice

from .conftest import wait_for
from .test_commands_models import file_session, type_command


def statuses(app) -> list[str]:
    return [str(n.render()) for n in app.transcript.query(Notice) if n.kind == "status"]


async def test_export_jsonl_writes_the_branch_as_a_session_file(provider, workdir, agent_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = file_session(provider, workdir, agent_dir)
    provider.push(scripted_text("one"), scripted_text("two"), scripted_text("other"))
    await session.prompt("first")
    first_answer = session.session_manager.leaf_id
    await session.prompt("second")
    await session.navigate_tree(first_answer)
    await session.prompt("a branch")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        await type_command(pilot, "/export out.jsonl")
        target = tmp_path / "out.jsonl"
        assert await wait_for(pilot, lambda: statuses(app) == [f"Session exported to: {target}"])
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["id"] == session.session_id
    assert lines[1]["parentId"] is None
    assert all(b["parentId"] == a["id"] for a, b in zip(lines[1:], lines[2:], strict=False))
    texts = [e["message"]["content"][0]["text"] for e in lines
             if e["type"] == "message" and e["message"]["role"] == "user"]
    assert texts == ["first", "a branch"]  # the active branch only
    reopened = SessionManager.open(target)  # a session file pi (and Pi) open as any other
    try:
        assert len(reopened.build_session_context().messages) == len(session.messages)
    finally:
        reopened.close()


async def test_import_continues_a_copy_of_the_file(provider, workdir, agent_dir, tmp_path):
    other = SessionManager.create(str(workdir), tmp_path / "elsewhere")
    other.append_message({"role": "user", "content": "imported question", "timestamp": 1})
    other.append_message({"role": "assistant", "content": [{"type": "text", "text": "imported answer"}],
                          "api": "x", "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 2,
                          "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}})
    source = Path(other.session_file)
    other.close()
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, f"/import {source}")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: statuses(app) == [f"Session imported from: {source}"])
        assert Path(app.session.session_file).parent == agent_dir / "sessions"  # this project's sessions folder
        assert Path(app.session.session_file) != source and source.exists()
        assert [m.role for m in app.session.messages if m.role != "system"] == ["user", "assistant"]


async def test_share_makes_a_secret_gist_with_gh(provider, workdir, agent_dir, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "gh-calls"
    gh = bin_dir / "gh"  # the GitHub CLI as far as pi can tell: it records its arguments
    gh.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n"
                  "if [ \"$1\" = gist ]; then echo https://gist.github.com/someone/0123abcd; fi\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("PI_SHARE_VIEWER_URL", raising=False)
    session = file_session(provider, workdir, agent_dir)
    provider.push(scripted_text("an answer"))
    await session.prompt("a question")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        await type_command(pilot, "/share")
        assert await wait_for(pilot, lambda: statuses(app) == [
            "Share URL: https://pi.dev/session/#0123abcd\nGist: https://gist.github.com/someone/0123abcd"])
    recorded = calls.read_text().splitlines()
    assert recorded[0] == "auth status" and recorded[1].startswith("gist create --public=false ")
    assert recorded[1].endswith("session.html")
    assert provider.requests and all("/share" not in str(ctx.messages[-1]) for ctx, _ in provider.requests)
