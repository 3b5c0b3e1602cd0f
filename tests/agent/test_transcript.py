"""``Transcript``: stored messages stay wire dicts until needed, and a request built from the
dicts is the request built from the validated messages, byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_runtime.agent.convert import convert_to_llm
from pi_runtime.agent.transcript import Transcript, has_role
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers.openai_completions import build_request
from pi_runtime.ai.stream import with_objects
from pi_runtime.ai.types import AssistantMessage, Context, Model, TextContent, UserMessage, parse_message_list

PNG = "iVBORw0KGgo="


def assistant(content: list[dict[str, Any]], *, model: str = "m1", stop: str = "stop", **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "openai-completions", "provider": "lab", "model": model,
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": stop, "timestamp": 2, **extra}


def history() -> list[dict[str, Any]]:
    """Stored messages of every shape the conversion treats differently."""
    return [
        {"role": "system", "content": "leading system message", "timestamp": 1},
        {"role": "user", "content": "plain text question", "timestamp": 1},
        {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
         "timestamp": 1},
        assistant([{"type": "thinking", "thinking": "same-model thought", "thinkingSignature": "reasoning"},
                   {"type": "text", "text": "answer with signature", "textSignature": "sig-1"},
                   {"type": "toolCall", "id": "call_a", "name": "read", "arguments": {"path": "a.txt"},
                    "thoughtSignature": "ts"}]),
        {"role": "toolResult", "toolCallId": "call_a", "toolName": "read",
         "content": [{"type": "text", "text": "file body"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
         "isError": False, "timestamp": 3},
        assistant([{"type": "thinking", "thinking": "other model's thought", "thinkingSignature": "x"},
                   {"type": "thinking", "thinking": "hidden", "redacted": True},
                   {"type": "text", "text": "from another model", "textSignature": "sig-2"},
                   {"type": "toolCall", "id": "call_b", "name": "bash", "arguments": {"command": "ls"},
                    "thoughtSignature": "ts2"}], model="other-model"),
        # call_b never got a result: a synthetic error result is added before the next user turn.
        {"role": "bashExecution", "command": "make", "output": "ok\n", "exitCode": 2, "cancelled": False,
         "truncated": False, "timestamp": 4},
        assistant([{"type": "toolCall", "id": "call_c", "name": "edit", "arguments": {}}], stop="error",
                  errorMessage="500"),
        {"role": "toolResult", "toolCallId": "call_c", "toolName": "edit", "content": [{"type": "text", "text": "x"}],
         "isError": True, "timestamp": 5},  # the result of a dropped call is dropped too
        {"role": "toolResult", "toolCallId": "call_zz", "toolName": "edit", "content": [], "isError": False,
         "timestamp": 5},  # a result whose call is not in the history
        {"role": "compactionSummary", "summary": "earlier work", "tokensBefore": 10, "timestamp": 6},
        {"role": "custom", "customType": "note", "content": "an extension's note", "display": True, "timestamp": 6},
        {"role": "someFutureRole", "content": "kept in the file, never sent", "timestamp": 7},
        assistant([{"type": "text", "text": "   "}, {"type": "toolCall", "id": "call_d", "name": "ls", "arguments": {}}]),
        {"role": "toolResult", "toolCallId": "call_d", "toolName": "ls", "content": [{"type": "image", "data": PNG,
                                                                                  "mimeType": "image/png"}],
         "isError": False, "timestamp": 8},
        {"role": "user", "content": [{"type": "text", "text": "last question"}], "timestamp": 9},
    ]


def model(**compat: Any) -> Model:
    return Model.model_validate({"id": "m1", "api": "openai-completions", "provider": "lab", "baseUrl": "http://x/v1",
                                 "input": ["text", "image"], "reasoning": True, "compat": compat or None})


def body(messages: list[Any], target: Model) -> str:
    context = Context.model_construct(system_prompt="be brief", messages=convert_to_llm(messages), tools=None)
    return json.dumps(build_request(target, context, StreamOptions(reasoning="low"))[0])  # key order too


@pytest.mark.parametrize("compat", [{}, {"requiresThinkingAsText": True, "requiresToolResultName": True,
                                         "requiresAssistantAfterToolResult": True,
                                         "requiresReasoningContentOnAssistantMessages": True},
                                    {"cacheControlFormat": "anthropic"}])
def test_a_request_from_wire_dicts_equals_the_request_from_validated_messages(compat: dict[str, Any]) -> None:
    stored = history()
    objects = parse_message_list(stored)
    target = model(**compat)
    assert body(stored, target) == body(objects, target)
    # Mixed, as in a run: stored dicts, then new messages as objects.
    new = [UserMessage(content="and now?"), AssistantMessage(content=[TextContent(text="fine")], api="openai-completions",
                                                             provider="lab", model="m1", stop_reason="stop")]
    assert body([*stored, *new], target) == body([*objects, *new], target)
    # Without image support, images are left out alike.
    text_only = model(**compat).model_copy(update={"input": ["text"]})
    assert body(stored, text_only) == body(objects, text_only)
    assert stored == history()  # the stored dicts are never modified


def test_other_providers_get_objects() -> None:
    stored = history()[:3]
    context = Context.model_construct(system_prompt=None, messages=[*stored, UserMessage(content="x")], tools=None)
    converted = with_objects(context).messages
    assert [type(m).__name__ for m in converted] == ["SystemMessage", "UserMessage", "UserMessage", "UserMessage"]
    assert converted[2].content[1].mime_type == "image/png"


def test_transcript_validates_only_when_something_needs_objects() -> None:
    calls: list[int] = []

    def materialize(dicts: list[dict[str, Any]]) -> list[Any]:
        calls.append(len(dicts))
        return parse_message_list(dicts)

    stored = history()
    transcript = Transcript(stored, materialize)
    added = UserMessage(content="new")
    transcript.append(added)
    # What a run does every time: count, look at the newest messages, check for a role.
    assert len(transcript) == len(stored) + 1 and transcript.pending
    assert transcript[-1] is added and next(reversed(transcript)) is added
    assert has_role(transcript, "system") and not has_role(transcript, "nope")
    assert transcript.wire_view()[-1] == added.to_wire() and transcript.stored_dicts() is stored
    assert calls == []
    # Reading the stored part validates it, once, and keeps identities stable after.
    first = transcript[0]
    assert calls == [len(stored)] and not transcript.pending
    assert transcript[0] is first and list(transcript)[-1] is added and len(transcript) == len(stored) + 1
    assert [m.role for m in reversed(transcript)][-1] == "system"
    del transcript[-1]
    transcript.append(added)
    assert transcript == list(transcript) and calls == [len(stored)]


def test_a_window_into_the_stored_part_validates_only_what_it_reads() -> None:
    # The app shows the last screenful of a long history: reading those messages must not
    # validate the other thousands, and the objects it got are the ones kept afterwards.
    whole: list[int] = []
    one: list[int] = []
    stored = history()

    def materialize(dicts: list[dict[str, Any]], known: dict[int, Any]) -> list[Any]:
        whole.append(len(dicts))
        messages = parse_message_list(dicts)
        for index, message in known.items():
            messages[index] = message
        return messages

    def materialize_one(index: int) -> Any:
        one.append(index)
        return parse_message_list([stored[index]])[0]

    transcript = Transcript(stored, materialize, materialize_one)
    added = UserMessage(content="new")
    transcript.append(added)
    last_stored = transcript[len(stored) - 1]
    window = transcript[-4:]
    assert window[-1] is added and window[-2] is last_stored and transcript[2].role == "user"
    assert transcript.pending and whole == [] and sorted(set(one)) == [2, len(stored) - 3, len(stored) - 2, len(stored) - 1]
    assert transcript[len(stored) - 1] is last_stored and one.count(len(stored) - 1) == 1  # validated once
    everything = list(transcript)
    assert whole == [len(stored)] and not transcript.pending
    assert everything[len(stored) - 1] is last_stored and everything[-3:] == window[1:] and everything[-1] is added
    assert [m.role for m in everything] == [m.role for m in parse_message_list(stored)] + ["user"]


def test_a_long_slice_validates_everything_at_once() -> None:
    calls: list[str] = []
    stored = [{"role": "user", "content": f"q{i}", "timestamp": i} for i in range(1_500)]

    def materialize(dicts: list[dict[str, Any]], known: dict[int, Any]) -> list[Any]:
        calls.append("all")
        return parse_message_list(dicts)

    def materialize_one(index: int) -> Any:
        calls.append("one")
        return parse_message_list([stored[index]])[0]

    transcript = Transcript(stored, materialize, materialize_one)
    assert [m.content for m in transcript[:1_200:400]] == ["q0", "q400", "q800"] and calls == ["one"] * 3
    assert len(transcript[100:1_300]) == 1_200 and calls[-1] == "all" and not transcript.pending


def test_reversed_past_the_new_messages_gives_the_stored_ones_as_objects() -> None:
    transcript = Transcript(history()[:2], lambda d: parse_message_list(d))
    transcript.append(UserMessage(content="new"))
    roles = [m.role for m in reversed(transcript)]
    assert roles == ["user", "user", "system"]


def resumed_session(tmp_path, turns: list[tuple[str, str]], name: str):
    """(an AgentSession over a saved session file of ``turns``, reopened as a resume does; its provider)."""
    from pi_runtime.ai.providers.scripted import ScriptedProvider
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    first = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    for question, answer in turns:
        first.append_message(UserMessage(content=question))
        first.append_message(AssistantMessage(content=[TextContent(text=answer)], api="scripted",
                                              provider="p", model="m", stop_reason="stop"))
    path = first.session_file
    first.close()
    provider = ScriptedProvider(name)
    session = create_agent_session(cwd=str(tmp_path), agent_dir=str(tmp_path / "agent"), model=provider.model(),
                                   session_manager=SessionManager.open(path), no_extensions=True,
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
    return session, provider


async def test_a_resumed_session_on_a_provider_without_wire_input_validates_once(tmp_path) -> None:
    # The scripted provider takes objects: the transcript is validated at the first request,
    # once, and later requests reuse the same objects.
    from pi_runtime.ai.providers.scripted import scripted_text

    session, provider = resumed_session(tmp_path, [("stored question", "stored answer")], "transcript-once")
    try:
        messages = session.agent.state.messages
        assert isinstance(messages, Transcript) and messages.pending
        provider.push(scripted_text("one"), scripted_text("two"))
        await session.prompt("first new")
        assert not messages.pending
        stored = messages[0]
        await session.prompt("second new")
        assert session.agent.state.messages[0] is stored
        texts = [m.text() if m.role == "assistant" else m.content for m in session.agent.state.messages
                 if m.role in ("user", "assistant")]
        assert texts[:2] == ["stored question", "stored answer"] and texts[-1] == "two"
    finally:
        session.session_manager.close()


@pytest.mark.parametrize("block_images", [False, True])
async def test_a_resumed_session_on_openai_completions_sends_the_stored_dicts(tmp_path, block_images) -> None:
    # The fast path of a resume: no message is validated to build the request, whatever the
    # session's settings add around the conversion (images.blockImages included).
    from loopback_resume import resumed_on_loopback

    from pi_runtime.session.manager import SessionManager

    first = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    for message in history()[1:4]:
        first.append_message(message)
    path = first.session_file
    first.close()
    settings = {"compaction": {"enabled": False}, "images": {"blockImages": block_images}}
    with resumed_on_loopback(tmp_path, path, settings) as (server, session):
        messages = session.agent.state.messages
        assert isinstance(messages, Transcript) and messages.pending
        await session.prompt("new question")
        assert messages.pending  # the stored part was never validated
        sent = json.dumps(server.requests[0].json()["messages"])
        assert ("image_url" in sent) is (not block_images)
        assert ("Image reading is disabled." in sent) is block_images


async def test_a_resumed_session_shows_its_last_messages_without_validating_the_rest(tmp_path) -> None:
    # What the app does on a resume: read the last messages by index. The rest stays wire dicts
    # until a run needs objects, and the objects shown are the ones the run then uses.
    from pi_runtime.ai.providers.scripted import scripted_text

    session, provider = resumed_session(tmp_path, [(f"question {i}", f"answer {i}") for i in range(50)],
                                        "transcript-window")
    try:
        messages = session.agent.state.messages
        shown = messages[-4:]
        assert [m.role for m in shown] == ["user", "assistant", "user", "assistant"] and messages.pending
        assert shown[-1].text() == "answer 49" and messages[-1] is shown[-1]
        provider.push(scripted_text("fine"))
        await session.prompt("one more")
        assert not messages.pending and messages[99] is shown[-1] and messages[-1].text() == "fine"
    finally:
        session.session_manager.close()


@pytest.mark.parametrize("keep_system", [False, True])
@pytest.mark.parametrize("kind", ["every shape", "plain", "plain with system messages"])
def test_converting_a_transcript_by_its_stored_roles_is_converting_every_message(keep_system: bool, kind: str) -> None:
    from pi_runtime.agent.convert import convert_transcript

    every = history()
    plain = [m for m in every if m["role"] in ("user", "assistant", "toolResult")]
    stored = {"every shape": every, "plain": plain, "plain with system messages": [every[0], *plain, every[0]]}[kind]
    transcript = Transcript(stored, parse_message_list)
    added = [UserMessage(content="and now?"), *parse_message_list(every[-5:-3])]  # a custom and an unknown role
    converted = convert_transcript(stored, transcript.stored_roles(), added, keep_system=keep_system)
    assert converted == convert_to_llm([*stored, *added], keep_system=keep_system)
    assert transcript.pending and stored == {"every shape": history()}.get(kind, stored)
