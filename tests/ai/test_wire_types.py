"""The wire types on msgspec: tags pick the class, errors name the field, unknown keys survive."""

from __future__ import annotations

import copy

import msgspec
import pytest

from pi_runtime.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    UnknownMessage,
    Usage,
    UserMessage,
    parse_message,
    parse_message_list,
)
from pi_runtime.session.entries import parse_messages


def test_messages_pick_their_class_by_role_and_blocks_by_type():
    assert isinstance(parse_message({"role": "user", "content": "hi", "timestamp": 1}), UserMessage)
    assistant = parse_message({"role": "assistant", "content": [{"type": "text", "text": "yo"}], "timestamp": 1})
    assert isinstance(assistant, AssistantMessage) and isinstance(assistant.content[0], TextContent)
    assert assistant.role == "assistant" and assistant.content[0].type == "text"
    unknown = parse_message({"role": "plugin-x", "data": 1})
    assert isinstance(unknown, UnknownMessage) and unknown.role == "plugin-x"
    assert unknown.to_wire() == {"role": "plugin-x", "data": 1}
    assert assistant.to_wire()["content"] == [{"type": "text", "text": "yo"}]


def test_a_bad_message_names_the_field_it_fails_at():
    with pytest.raises(ValueError, match=r"Invalid value 'picture' - at `\$.content\[0\].type`"):
        parse_message({"role": "assistant", "content": [{"type": "picture"}], "timestamp": 1})
    with pytest.raises(ValueError, match=r"Expected `str`, got `int` - at `\$.content\[0\].text`"):
        parse_message({"role": "user", "content": [{"type": "text", "text": 5}], "timestamp": 1})


def test_a_list_with_one_bad_message_keeps_the_others_and_says_why():
    items = [
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": 5, "timestamp": 2},
        {"role": "newer-role", "x": 1},
    ]
    parsed = parse_messages(items)
    assert isinstance(parsed[0], UserMessage)
    assert isinstance(parsed[1], UnknownMessage) and parsed[1].role == "unreadable"
    assert "$.content" in parsed[1].problem
    assert isinstance(parsed[2], UnknownMessage) and parsed[2].to_wire() == items[2]


def test_unknown_keys_of_a_stored_message_come_back_on_the_wire():
    stored = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"p": None}}],
              "timestamp": 3, "stopReason": "toolUse", "futureField": {"a": None}}
    [message] = parse_message_list([stored])
    assert message.model_extra == {"futureField": {"a": None}}
    wire = message.to_wire()
    assert wire["futureField"] == {"a": None}
    assert wire["content"] == [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"p": None}}]
    # Nested ones too (Pi 1.6 writes usage.cost.totalFromProvider), and in content blocks.
    stored["usage"] = {"input": 1, "cost": {"total": 0, "totalFromProvider": False}}
    stored["content"][0]["blockField"] = 1
    [message] = parse_message_list([stored])
    wire = message.to_wire()
    assert wire["usage"]["cost"]["totalFromProvider"] is False and wire["content"][0]["blockField"] == 1
    # A copy keeps them too; the copy is independent of the original.
    changed = message.model_copy(update={"stop_reason": "stop"}, deep=True)
    assert changed.to_wire()["futureField"] == {"a": None} and message.stop_reason == "toolUse"


def test_to_wire_leaves_out_unset_optionals_and_new_structs_have_no_extras():
    block = ToolCall(id="1", name="x")
    assert block.to_wire() == {"type": "toolCall", "id": "1", "name": "x", "arguments": {}}
    assert ImageContent(data="AA", mime_type="image/png").to_wire() == {"type": "image", "data": "AA", "mimeType": "image/png"}
    usage = Usage(input=3)
    assert usage.to_wire()["cost"] == {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}
    assert usage.model_extra == {}
    assert copy.deepcopy(usage) == usage and copy.deepcopy(usage) is not usage


def test_lax_numbers_are_accepted_as_pydantic_did():
    # A hand-edited file may say "3" or 3.0 where a whole number belongs.
    message = parse_message({"role": "user", "content": "hi", "timestamp": "17"})
    assert message.timestamp == 17
    with pytest.raises(msgspec.ValidationError):
        parse_message({"role": "user", "content": "hi", "timestamp": "soon"})
