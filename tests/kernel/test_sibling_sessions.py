"""Two sessions in one process (``pi_runtime.sibling``): each its own file, lock, agent and
extension runner; the first keeps running while the second is opened, prompted and closed."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.frontend import open_sibling_session
from pi_runtime.session.storage import SessionLockedError

from .test_message_queue import HoldTool


def file_entries(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


async def test_a_new_sibling_runs_while_the_first_is_held_mid_turn(make_session):
    hold = HoldTool()
    first = make_session(custom_tools=[hold])
    # One scripted provider serves both, in the order the requests come: the second asks next.
    first.provider.push(scripted_tool_call("hold", {}), scripted_text("second done"), scripted_text("first done"))
    run = asyncio.ensure_future(first.prompt("start"))
    await hold.started.wait()
    second = open_sibling_session(first, "new").session
    assert second.session_file != first.session_file
    assert second.model.ref == first.model.ref
    assert "hold" in [t.name for t in second.actions.active_tools()]  # the SDK caller's tools come along
    await second.prompt("hello")
    assert first.is_streaming and not second.is_streaming  # the second answered; the first still waits
    assert second.get_last_assistant_text() == "second done"
    hold.release.set()
    await run
    await first.wait_for_idle()
    assert first.get_last_assistant_text() == "first done"
    first_users = [e for e in file_entries(first.session_file) if e.get("message", {}).get("role") == "user"]
    second_users = [e for e in file_entries(second.session_file) if e.get("message", {}).get("role") == "user"]
    assert [e["message"]["content"] for e in first_users] == [[{"type": "text", "text": "start"}]]
    assert [e["message"]["content"] for e in second_users] == [[{"type": "text", "text": "hello"}]]
    second.session_manager.close()


async def test_clone_and_fork_leave_the_first_session_and_its_file_as_they_are(make_session):
    first = make_session()
    first.provider.push(scripted_text("one"), scripted_text("two"))
    await first.prompt("first question")
    await first.prompt("second question")
    before = open(first.session_file, encoding="utf-8").read()
    leaf = first.session_manager.leaf_id

    clone = open_sibling_session(first, "clone").session
    assert [m.role for m in clone.messages] == [m.role for m in first.messages]
    assert clone.session_file != first.session_file

    second_user = [p for p in first.get_fork_messages() if p["text"] == "second question"][0]
    fork = open_sibling_session(first, "fork", entry_id=second_user["entryId"])
    assert fork.editor_text == "second question"
    assert [m.role for m in fork.session.messages] == ["system", "user", "assistant"]  # before the second question

    assert first.session_manager.leaf_id == leaf
    assert open(first.session_file, encoding="utf-8").read() == before
    first.provider.push(scripted_text("three"))
    await first.prompt("third question")  # the first still writes its own file (its lock held)
    assert "third question" in open(first.session_file, encoding="utf-8").read()
    for sibling in (clone, fork.session):
        sibling.session_manager.close()


async def test_a_file_open_in_one_session_cannot_be_resumed_in_another(make_session):
    first = make_session()
    first.provider.push(scripted_text("one"))
    await first.prompt("hello")  # the file exists (and is locked) once the answer is saved
    with pytest.raises(SessionLockedError):
        open_sibling_session(first, "resume", path=first.session_file)


async def test_resume_opens_another_file_beside_the_first(make_session, workdir):
    other = make_session()
    other.provider.push(scripted_text("from before"))
    await other.prompt("earlier")
    path = other.session_file
    other.session_manager.close()  # as if it were a session of an earlier run
    first = make_session(provider=other.provider)
    resumed = open_sibling_session(first, "resume", path=path).session
    assert resumed.session_file == path
    assert resumed.get_last_assistant_text() == "from before"
    resumed.session_manager.close()


async def test_each_session_has_its_own_extension_runner_and_shuts_down_once(make_session, tmp_path):
    log = tmp_path / "events.log"
    ext = tmp_path / "recorder.py"
    ext.write_text(textwrap.dedent(f"""
        loads = []
        def extension(pi):
            loads.append(1)
            pi.on("session_shutdown", lambda event, ctx: open({str(log)!r}, "a").write(
                f"{{ctx.session_manager.session_id}} {{event.reason}} {{len(loads)}}\\n"))
    """))
    first = make_session(extensions=[str(ext)])
    second = open_sibling_session(first, "new").session
    assert second.extension_runner is not None and second.extension_runner is not first.extension_runner
    await first.extension_runner.start()
    await second.extension_runner.start()
    await second.dispose("quit")
    await first.dispose("quit")
    await first.dispose("quit")  # a second call does nothing
    lines = log.read_text().splitlines()
    # One shutdown per session, each from its own module object (its own `loads` list).
    assert sorted(lines) == sorted([f"{second.session_id} quit 1", f"{first.session_id} quit 1"])


async def test_the_mcp_tool_filter_of_the_command_line_survives_a_second_session(make_session):
    from pi_runtime.mcp import extension as mcp_extension
    from pi_runtime.mcp.manager import ToolFilter

    first = make_session(extensions=["builtin:mcp"])
    chosen = ToolFilter(["mcp__docs__search"], [])
    mcp_extension.set_tool_filter(chosen)
    try:
        second = open_sibling_session(first, "new").session
        assert mcp_extension._tool_filter is chosen
        second.session_manager.close()
    finally:
        mcp_extension.set_tool_filter(ToolFilter())


async def test_an_extension_may_cancel_a_fork_or_clone_into_a_new_session(make_session, tmp_path):
    # /open fork and /open clone ask session_before_fork first, as /fork and /clone do.
    ext = tmp_path / "no_forks.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            def before_fork(event, ctx):
                return {"cancel": event.position == "before"}
            pi.on("session_before_fork", before_fork)
    """))
    first = make_session(extensions=[str(ext)])
    await first.extension_runner.start()
    first.provider.push(scripted_text("one"))
    await first.prompt("question")
    user = first.get_fork_messages()[0]["entryId"]
    assert await first.sibling_allowed("fork", user) is False
    assert await first.sibling_allowed("clone") is True
    assert await first.sibling_allowed("new") is True
