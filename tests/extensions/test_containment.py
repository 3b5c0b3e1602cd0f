"""Misbehaving extensions (issue 14 item 11): nothing a handler does ends pi or the run, or holds up abort."""

from __future__ import annotations

import asyncio
import time

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call

from .conftest import errors, module_of


def tool_results(session):
    return [m for m in session.messages if getattr(m, "role", None) == "toolResult"]


@pytest.mark.parametrize("returned, reported", [
    ('{"block": True, "reason": 42}', False),  # crashed the run with no agent_end before
    ('{"block": True, "reason": ["not", "text"]}', False),
    ('"block"', True),  # silently ran the tool before
    ("7", True),
    ("[1, 2]", True),
])
async def test_tool_call_wrong_type_blocks_and_the_run_ends_properly(make_session, write_ext, returned, reported):
    path = write_ext("wrong", f"""
        def extension(pi):
            pi.on("tool_call", lambda event, ctx: {returned})
    """)
    session = make_session(extensions=[path], tools="ls")
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("done"))
    await asyncio.wait_for(session.prompt("go"), 10)
    kinds = [e.type for e in session.events]
    assert "agent_end" in kinds and kinds[-1] == "agent_settled"
    [result] = tool_results(session)
    assert result.is_error  # fail closed: the call never ran
    assert session.get_last_assistant_text() == "done"
    assert bool(errors(session)) is reported
    if reported:
        assert "ResultShapeError" in errors(session)[0]["error"]


@pytest.mark.parametrize("raising", [
    "sys.exit(3)", "raise SystemExit(0)", "raise KeyboardInterrupt()", "raise asyncio.CancelledError()",
])
@pytest.mark.parametrize("event", ["turn_start", "tool_call", "input", "message_end", "context"])
async def test_base_exceptions_in_handlers_are_contained(make_session, write_ext, raising, event):
    path = write_ext("exiting", f"""
        import asyncio, sys
        def extension(pi):
            async def handler(event, ctx):
                {raising}
            pi.on({event!r}, handler)
    """)
    session = make_session(extensions=[path], tools="ls")
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("still here"))
    await asyncio.wait_for(session.prompt("go"), 10)
    assert session.get_last_assistant_text() == "still here"
    assert session.events[-1].type == "agent_settled"
    reported = errors(session)
    assert reported and {e["event"] for e in reported} == {event}
    assert any(word in reported[0]["error"] for word in ("SystemExit", "KeyboardInterrupt", "CancelledError"))


@pytest.mark.parametrize("where", ["module", "factory", "async_factory"])
@pytest.mark.parametrize("raising", ["sys.exit(1)", "raise KeyboardInterrupt()", "raise asyncio.CancelledError()"])
async def test_exits_while_loading_are_load_failures(make_session, write_ext, where, raising):
    source = {
        "module": f"import asyncio, sys\n{raising}\ndef extension(pi):\n    pass\n",
        "factory": f"import asyncio, sys\ndef extension(pi):\n    {raising}\n",
        "async_factory": f"import asyncio, sys\nasync def extension(pi):\n    {raising}\n",
    }[where]
    bad = write_ext("bad_load", source)
    good = write_ext("good_load", "def extension(pi):\n    pi.on('input', lambda e, ctx: {'action': 'transform', 'text': e.text + '!'})\n")
    session = make_session(extensions=[bad, good])
    session.provider.push(scripted_text("fine"))
    await session.prompt("hi")
    assert session.provider.requests[0][0].messages[-1].content[0].text == "hi!"
    [error] = errors(session)
    assert error["event"] == "load" and error["extensionPath"] == bad


NEVER_RETURNS = """
    import asyncio
    started = []
    def extension(pi):
        async def hang(event, ctx):
            started.append({event!r})
            await asyncio.Event().wait()
        pi.on({event!r}, hang)
"""


@pytest.mark.parametrize("event", ["tool_call", "before_agent_start", "input", "context", "message_update",
                                   "turn_start", "tool_result"])
async def test_abort_wins_over_a_handler_that_never_returns(make_session, write_ext, event):
    path = write_ext("hang", NEVER_RETURNS.format(event=event))
    session = make_session(extensions=[path], tools="ls")
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("never seen"))
    prompt = asyncio.ensure_future(session.prompt("go"))
    for _ in range(500):
        if module_of(path).started:
            break
        await asyncio.sleep(0.01)
    assert module_of(path).started == [event]
    # The handler never returns: an abort that waited for it would never end (the bound only stops a
    # failing test; a wall-clock figure here failed on a loaded machine).
    await asyncio.wait_for(session.abort(), 30)
    await asyncio.wait_for(prompt, 30)
    assert not session.is_streaming


async def test_a_handler_past_its_time_is_cancelled_and_reported(make_session, write_ext):
    path = write_ext("slow", """
        import asyncio
        def extension(pi):
            async def slow(event, ctx):
                await asyncio.sleep(30)
            pi.on("turn_start", slow)
    """)
    session = make_session(extensions=[path])
    session.extension_runner.dispatcher.timeout = 0.2
    session.provider.push(scripted_text("went on"))
    await asyncio.wait_for(session.prompt("go"), 10)
    assert session.get_last_assistant_text() == "went on"
    [error] = errors(session)
    assert error["event"] == "turn_start" and "did not return within 0.2 s" in error["error"]


async def test_time_waiting_on_a_dialog_does_not_count(make_session, write_ext):
    from .conftest import AnsweringUI

    path = write_ext("asks", """
        def extension(pi):
            async def gate(event, ctx):
                if not await ctx.ui.confirm("Run it?", event.tool_name):
                    return {"block": True, "reason": "no"}
            pi.on("tool_call", gate)
    """)

    class SlowUI(AnsweringUI):
        async def confirm(self, title, message="", *, timeout=None):
            await asyncio.sleep(0.6)  # the user takes longer than the handler's time limit
            return True

    session = make_session(extensions=[path], tools="ls")
    session.extension_runner.set_ui(SlowUI(), "rpc")
    session.extension_runner.dispatcher.timeout = 0.2
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("ok"))
    await session.prompt("go")
    [result] = tool_results(session)
    assert not result.is_error and errors(session) == []


async def test_extension_tool_that_ignores_abort_is_cut_off(make_session, write_ext):
    path = write_ext("stubborn", """
        import asyncio
        running = []
        def extension(pi):
            async def execute(call_id, params, signal, on_update, ctx):
                running.append(call_id)
                while True:
                    try:
                        await asyncio.sleep(10)
                    except asyncio.CancelledError:
                        pass  # ignores the signal, swallows the first cancel too
                    break
                return "too late"
            pi.register_tool(name="stubborn", description="never stops", params=None, execute=execute)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_tool_call("stubborn", {}), scripted_text("unused"))
    prompt = asyncio.ensure_future(session.prompt("go"))
    for _ in range(500):
        if module_of(path).running:
            break
        await asyncio.sleep(0.01)
    begun = time.monotonic()
    await asyncio.wait_for(session.abort(), 30)
    # Well before the tool's own 10 s, with room for a loaded machine (a 3 s figure is too tight there).
    assert time.monotonic() - begun < 8
    await prompt
    [result] = tool_results(session)
    assert result.is_error and result.content[0].text == "Aborted"


async def test_shutdown_handler_that_hangs_does_not_keep_pi(make_session, write_ext, monkeypatch):
    from pi_runtime.extensions import dispatch

    monkeypatch.setattr(dispatch, "SHUTDOWN_TIMEOUT", 0.2)
    monkeypatch.setattr("pi_runtime.extensions.runner.SHUTDOWN_TIMEOUT", 0.2)
    path = write_ext("stay", """
        import asyncio
        def extension(pi):
            async def stay(event, ctx):
                await asyncio.Event().wait()
            pi.on("session_shutdown", stay)
    """)
    session = make_session(extensions=[path])
    await session.extension_runner.start()
    await asyncio.wait_for(session.dispose(), 3)
    assert [e[1] for e in session.extension_runner.errors] == ["session_shutdown"]


async def test_suspending_handlers_keep_asyncio_semantics(make_session, write_ext):
    # The dispatcher runs a handler's first step in place; what suspends must still behave.
    path = write_ext("suspends", """
        import asyncio
        seen = []
        def extension(pi):
            async def transform(event, ctx):
                await asyncio.sleep(0)                      # a bare yield
                await asyncio.sleep(0.01)                   # a timer future
                out = await pi.exec("echo", ["deep"])        # a task (ExtensionCall)
                try:
                    await asyncio.wait_for(asyncio.Event().wait(), 0.01)
                except TimeoutError:
                    seen.append("timed out inside")
                return {"action": "transform", "text": event.text + " " + out.stdout.strip()}
            pi.on("input", transform)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("ok"))
    await session.prompt("go")
    assert session.provider.requests[0][0].messages[-1].content[0].text == "go deep"
    assert module_of(path).seen == ["timed out inside"] and errors(session) == []
