"""Responses input built from Pi's transcript: tool changes in place, prompt updates, Codex efforts."""

from __future__ import annotations

from typing import Any

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers._responses_input import convert_input
from pi_runtime.ai.providers.openai_codex_responses import build_body
from pi_runtime.ai.transcript import current_system_message, request_tools, transcript
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    Model,
    SystemMessage,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

FAMILY = frozenset({"openai-codex"})
CHANGES = {"supportsMidConvoSystemMessages": True, "supportsAdditionalTools": True}


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"{name} tool", "parameters": {"type": "object", "properties": {}}}


def model(**compat: Any) -> Model:
    return Model(id="gpt-x", api="openai-codex-responses", provider="openai-codex", reasoning=True, compat=compat)


def history() -> list[Any]:
    call = AssistantMessage(api="openai-codex-responses", provider="openai-codex", model="gpt-x", stop_reason="toolUse",
                            content=[ToolCall(id="call_1|fc_1", name="a", arguments={})])
    return [
        SystemMessage(content="", sections={"preamble": "Be brief.", "cwd": "<cwd>\n/p\n</cwd>"}, timestamp=1,
                      tools_added=[tool("a"), tool("b")]),
        UserMessage(content="go", timestamp=2),
        call,
        # Declared while the call waited for its result: it moves after the result (Pi's rule).
        SystemMessage(content="", sections={"cwd": None}, tools_removed=[{"name": "b"}], timestamp=3),
        ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="a", content=[TextContent(text="ok")]),
        SystemMessage(content="", tools_added=[tool("c")], timestamp=4),
        UserMessage(content="next", timestamp=5),
    ]


def test_tool_changes_travel_in_place_with_their_notices():
    items, listed = convert_input(model(**CHANGES), Context(messages=history()), FAMILY)
    assert listed == []
    assert [i.get("type") or i["role"] for i in items] == [
        "additional_tools", "developer", "user", "function_call", "function_call_output", "developer",
        "developer", "additional_tools", "user"]
    assert [t["name"] for t in items[0]["tools"]] == ["a", "b"]
    assert items[1]["content"] == "Be brief.\n\n<cwd>\n/p\n</cwd>"
    assert items[5]["content"] == ('Removed system prompt section "cwd".\n\n'
                                   "The following tools are no longer available. Do not call them:\n- b")
    assert items[6]["content"].startswith("This is an incremental tools update.")
    assert items[6]["content"].endswith("\nStill unavailable: b.")
    assert items[7]["tools"][0]["name"] == "c"


def test_without_mid_conversation_messages_the_transcript_collapses():
    items, listed = convert_input(model(), Context(messages=history()), FAMILY)
    assert [t.name for t in listed] == ["a", "c"]
    assert items[0] == {"role": "developer", "content": "Be brief."}
    assert [i.get("type") or i["role"] for i in items[1:]] == ["user", "function_call", "function_call_output", "user"]


def test_tool_search_additions_keep_the_first_declaration_in_the_tool_list():
    items, listed = convert_input(model(supportsToolSearch=True, supportsMidConvoSystemMessages=True),
                                  Context(messages=history()), FAMILY)
    # The removal of b is a change additions cannot express: the list is the state after it.
    assert [t.name for t in listed] == ["a"]
    search = [i for i in items if i.get("type") in ("tool_search_call", "tool_search_output")]
    assert [i["type"] for i in search] == ["tool_search_call", "tool_search_output"]
    assert search[0]["arguments"] == {"query": "c", "limit": 1} and search[0]["call_id"].startswith("pi_tool_load_")
    assert search[1]["tools"][0]["defer_loading"] is True


def test_a_forced_prompt_leads_with_the_current_tools():
    messages = history()[:2]
    context = Context(system_prompt="Forced prompt.", messages=messages)
    head = transcript(context)[0]
    assert head["content"] == "Forced prompt." and [t["name"] for t in head["toolsAdded"]] == ["a", "b"]
    # The prompt the transcript declares is not forced: the transcript stays as it is.
    same = Context(system_prompt="Be brief.\n\n<cwd>\n/p\n</cwd>", messages=messages)
    assert transcript(same) == messages
    assert current_system_message(messages)["sections"] == {"preamble": "Be brief.", "cwd": "<cwd>\n/p\n</cwd>"}
    assert request_tools(transcript(same), "changes") == ([], 0)


def test_codex_mid_conversation_effort():
    codex = model(supportsMidConvoEffort=True, **CHANGES)
    earlier = AssistantMessage(api="openai-codex-responses", provider="openai-codex", model="gpt-x",
                               provider_thinking_level="low", stop_reason="stop",
                               content=[TextContent(text="hi", text_signature='{"v":1,"id":"msg_1"}')])
    context = Context(system_prompt="S", tools=[Tool(name="a")],
                      messages=[UserMessage(content="q"), earlier, UserMessage(content="again")])
    body = build_body(codex, context, StreamOptions(reasoning="high"))
    assert body["reasoning"] == {"effort": "medium", "summary": "auto"}
    kinds = [i.get("type") or i["role"] for i in body["input"]]
    assert kinds == ["additional_tools", "developer", "user", "configuration_update", "message", "user",
                     "configuration_update"]
    assert body["input"][3]["reasoning"] == {"effort": "low"} and body["input"][-1]["reasoning"] == {"effort": "high"}
    assert "tools" not in body
    assert earlier.to_wire()["providerThinkingLevel"] == "low"
    assert list(earlier.to_wire())[:5] == ["role", "content", "api", "provider", "model"]
