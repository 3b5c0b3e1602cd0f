"""Values extensions hand pi that are not JSON (a dataclass, a pydantic model, a set) in tool
details, entries and custom messages: stored as JSON, as Pi's JSON.stringify would, instead of
failing the run when the session is written."""

from __future__ import annotations

import json
from pathlib import Path

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.extensions.json_values import json_value
from pi_runtime.tools.truncate import truncate_head

from .conftest import errors

SOURCE = """
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from pi_runtime.extensions import truncate_head


@dataclass
class Counter:
    count: int


class Choice(BaseModel):
    value: str


def extension(pi):
    async def tool(call_id, params, signal, on_update):
        return {"content": "ok", "details": {"truncation": truncate_head("a\\nb", max_lines=1),
                                             "choices": [Choice(value="x")], "tags": {"t"}, "where": Path("/tmp")}}

    async def save(args, ctx):
        pi.append_entry("state", {"counter": Counter(3)})
        pi.send_message({"customType": "note", "content": "remember", "details": Counter(4)}, deliver_as="nextTurn")

    pi.register_tool(name="odd", description="returns odd details", params=None, execute=tool)
    pi.register_command("save", save)
"""


def stored(session):
    return [json.loads(line) for line in Path(session.session_manager.session_file).read_text().splitlines()]


async def test_tool_details_entries_and_custom_messages_are_stored_as_json(make_session, write_ext):
    session = make_session(extensions=[write_ext("odd", SOURCE)], tools="odd", persist=True)
    await session.prompt("/save")
    session.provider.push(scripted_tool_call("odd", {}), scripted_text("done"))
    await session.prompt("go")
    assert errors(session) == []
    entries = stored(session)
    details = next(e["message"]["details"] for e in entries
                   if e["type"] == "message" and e["message"]["role"] == "toolResult")
    assert details["truncation"]["truncated"] is True and details["truncation"]["outputLines"] == 1
    assert details["choices"] == [{"value": "x"}] and details["tags"] == ["t"] and details["where"] == "/tmp"
    assert next(e["data"] for e in entries if e["type"] == "custom") == {"counter": {"count": 3}}
    note = next(e for e in entries if e["type"] == "custom_message")
    assert note["details"] == {"count": 4}
    assert session.messages[-1].role == "assistant" and session.messages[-1].content[0].text == "done"


def test_json_value_keeps_json_and_converts_the_rest():
    assert json_value({"a": [1, 2.5, None, True, "s"]}) == {"a": [1, 2.5, None, True, "s"]}
    assert json_value({1: (1, 2)}) == {"1": [1, 2]}
    assert json_value(truncate_head("x"))["totalLines"] == 1
    assert json_value(object()).startswith("<object object")
