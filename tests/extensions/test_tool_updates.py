"""A tool's progress as Pi's extensions report it: ``on_update({...})`` with a plain dict."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call

from .conftest import errors

PROGRESS = """
    def extension(pi):
        async def crunch(call_id, params, signal, on_update, ctx):
            on_update({"content": [{"type": "text", "text": "50%"}], "details": {"done": 1, "of": 2}})
            on_update({"content": "100%", "details": {"done": 2, "of": 2}})
            on_update("just text")
            return {"content": [{"type": "text", "text": "crunched"}], "details": {"done": 2}}
        pi.register_tool(name="crunch", description="Crunch numbers", params=None, execute=crunch)
"""


async def test_plain_dict_updates_reach_subscribers_as_partial_results(make_session, write_ext):
    session = make_session(extensions=[write_ext("progress", PROGRESS)])
    session.provider.push(scripted_tool_call("crunch", {}), scripted_text("ok"))
    await session.prompt("go")
    updates = [e for e in session.events if getattr(e, "type", "") == "tool_execution_update"]
    texts = [e.partial_result.content[0].text for e in updates]
    assert texts == ["50%", "100%", "just text"]
    assert updates[0].partial_result.details == {"done": 1, "of": 2}
    assert not errors(session)
