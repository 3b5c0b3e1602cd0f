"""A resumed session's first request, built from the stored wire dicts (the fast path of a resume),
is byte for byte the request built once every stored message is validated into an object."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.agent.transcript import Transcript
from pi_runtime.ai.types import Model

PNG = "iVBORw0KGgo="


def answer(content: list[dict[str, Any]], *, model: str = "m1", stop: str = "stop", stamp: int = 2) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "openai-completions", "provider": "lab", "model": model,
            "usage": {"input": 5, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": stop, "timestamp": stamp}


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def stored_messages(leading_system: bool) -> list[dict[str, Any]]:
    """The shapes a resume meets, the plain ones (most of a long session) among the rare ones."""
    system = [{"role": "system", "content": "", "sections": {"intro": "You help."}, "timestamp": 1}]
    return [
        *(system if leading_system else []),
        {"role": "user", "content": "plain question", "timestamp": 1},
        answer(text("plain answer")),
        {"role": "user", "content": "to another model", "timestamp": 3},
        answer(text("plain answer from another model"), model="other-model", stamp=4),
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image", "data": PNG, "mimeType": "image/png"}], "timestamp": 5},
        answer(text("   "), stamp=6),  # blank: no assistant turn is sent
        answer([{"type": "text", "text": "signed", "textSignature": "sig"}], model="other-model", stamp=7),
        answer([{"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning_content"},
                {"type": "text", "text": "thought first"}], stamp=8),
        answer([{"type": "toolCall", "id": "call_a", "name": "read", "arguments": {"path": "a"}}], stamp=9),
        answer(text("answer while call_a waits"), stamp=10),  # call_a gets its synthetic result first
        {"role": "toolResult", "toolCallId": "call_a", "toolName": "read", "content": text("late"),
         "isError": False, "timestamp": 11},
        answer(text("a failed attempt"), stop="error", stamp=12),
        answer(text("an aborted one"), stop="aborted", stamp=13),
        answer([{"type": "toolCall", "id": "call_b", "name": "ls", "arguments": {}}], stamp=14),
        {"role": "toolResult", "toolCallId": "call_b", "toolName": "ls",
         "content": [{"type": "image", "data": PNG, "mimeType": "image/png"}], "isError": False, "timestamp": 15},
        {"role": "user", "content": "after the tool", "timestamp": 16},
        {"role": "bashExecution", "command": "make", "output": "ok\n", "exitCode": 0, "cancelled": False,
         "truncated": False, "timestamp": 17},
        {"role": "custom", "customType": "note", "content": "an extension's note", "display": True, "timestamp": 18},
        answer(text("last stored answer"), stamp=19),
    ]


def write_session(folder: Path, leading_system: bool) -> Path:
    from pi_runtime.session.manager import SessionManager

    manager = SessionManager.create(str(folder), folder / "sessions")
    for message in stored_messages(leading_system):
        manager.append_message(message)
    path = manager.session_file
    manager.close()
    assert path is not None
    return path


async def first_request(tmp_path: Path, source: Path, name: str, compat: dict[str, Any], validate: bool) -> bytes:
    """The body of the request a resumed copy of ``source`` sends for one more question."""
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager
    from pi_runtime.testing.loopback import LoopbackServer, Reply

    path = tmp_path / name
    shutil.copy(source, path)
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m1",
             "choices": [{"index": 0, "delta": {"content": "fine"}, "finish_reason": "stop"}]}
    with LoopbackServer() as server:
        server.push(Reply.sse([chunk, "[DONE]"]))
        target = Model.model_validate({"id": "m1", "api": "openai-completions", "provider": "lab",
                                       "baseUrl": server.url + "/v1", "input": ["text", "image"],
                                       "reasoning": True, "compat": compat or None})
        session = create_agent_session(
            cwd=str(tmp_path), agent_dir=str(tmp_path / "agent"), model=target,
            session_manager=SessionManager.open(path), no_extensions=True,
            settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
        try:
            messages = session.agent.state.messages
            assert isinstance(messages, Transcript) and messages.pending
            if validate:
                list(messages)  # every stored message becomes an object: the request is built from those
            await session.prompt("one more question")
            assert messages.pending is not validate
            return server.requests[0].body
        finally:
            session.session_manager.close()


@pytest.mark.parametrize("leading_system", [False, True])
@pytest.mark.parametrize("compat", [{}, {"requiresAssistantAfterToolResult": True,
                                         "requiresReasoningContentOnAssistantMessages": True,
                                         "requiresToolResultName": True}])
async def test_the_request_from_stored_dicts_is_the_request_from_objects(tmp_path, leading_system, compat) -> None:
    source = write_session(tmp_path / "made", leading_system)
    from_dicts = await first_request(tmp_path, source, "dicts.jsonl", compat, validate=False)
    from_objects = await first_request(tmp_path, source, "objects.jsonl", compat, validate=True)
    assert b"plain answer from another model" in from_dicts and b"a failed attempt" not in from_dicts
    assert from_dicts == from_objects


async def test_the_check_for_compaction_before_a_prompt_reads_the_stored_dicts(tmp_path) -> None:
    # Auto-compaction on (the default): the threshold check before the prompt and after the run
    # reads the stored part as it is, and the request goes out without a message validated.
    from loopback_resume import resumed_on_loopback

    source = write_session(tmp_path / "made", leading_system=False)
    with resumed_on_loopback(tmp_path, source, {}) as (server, session):
        messages = session.agent.state.messages
        assert isinstance(messages, Transcript) and messages.pending
        assert session.settings.settings.compaction.enabled is not False
        await session.prompt("one more question")
        assert len(server.requests) == 1 and b"one more question" in server.requests[0].body
        assert messages.pending
        assert [m.role for m in messages[-2:]] == ["user", "assistant"]  # the turn is there all the same
