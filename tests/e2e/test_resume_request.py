"""Resuming a session: the request built from the stored messages (kept as the file's dicts,
see ``agent/transcript.py``) is the one built from validated messages, retries included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e_support import MODEL, error_reply, run_pi, text_reply

from pi_runtime.agent.convert import convert_to_llm
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers.openai_completions import build_request
from pi_runtime.ai.types import Context, Model, parse_message_list

PNG = "iVBORw0KGgo="


def assistant(content: list[dict[str, Any]], *, model: str = "loop-model") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "openai-completions", "provider": "loop", "model": model,
            "usage": {"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 12,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": 2}


def stored_messages() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "first question", "timestamp": 1},
        assistant([{"type": "text", "text": "first answer"},
                   {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a"}}]),
        {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
         "content": [{"type": "text", "text": "body"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
         "isError": False, "timestamp": 3},
        assistant([{"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning_content"},
                   {"type": "text", "text": "done"}]),
        assistant([{"type": "text", "text": "from elsewhere", "textSignature": "s"}], model="other"),
        {"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 0, "cancelled": False,
         "truncated": False, "timestamp": 5},
    ]


def write_session(path: Path, cwd: str, messages: list[dict[str, Any]]) -> None:
    lines = [{"type": "session", "version": 3, "id": "0198c0de-0000-7000-8000-000000000001",
              "timestamp": "2025-01-01T00:00:00.000Z", "cwd": cwd}]
    parent = None
    for i, message in enumerate(messages):
        lines.append({"type": "message", "id": f"e{i:07d}", "parentId": parent,
                      "timestamp": "2025-01-01T00:00:00.000Z", "message": message})
        parent = f"e{i:07d}"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def expected_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's messages as the validated-objects path builds them (system prompt left out)."""
    model = Model.model_validate({"id": "loop-model", "api": "openai-completions", "provider": "loop",
                                  "baseUrl": "http://x/v1", "input": ["text", "image"]})
    objects = parse_message_list(messages)
    context = Context.model_construct(system_prompt=None, messages=convert_to_llm(objects), tools=None)
    return build_request(model, context, StreamOptions())[0]["messages"]


def test_a_resumed_session_sends_what_validated_messages_would_and_retries_alike(loopback, env, tmp_path):
    # Compaction stays on (its estimate reads the stored dicts), retries are quick.
    settings = Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "compaction": {"enabled": True}}))
    session = tmp_path / "resume.jsonl"
    stored = stored_messages()
    write_session(session, env["PI_TEST_PROJECT"], stored)
    loopback.push(error_reply(500, "upstream hiccup"), text_reply("resumed fine"))
    result = run_pi(["--session", str(session), "-p", "next question", "--model", MODEL], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "resumed fine\n"
    assert len(loopback.requests) == 2
    first, second = (r.json()["messages"] for r in loopback.requests)
    assert first == second  # the failed attempt was taken out of the context before the retry
    sent = [m for m in first if m["role"] not in ("system", "developer")]
    want = [*expected_history(stored), {"role": "user", "content": [{"type": "text", "text": "next question"}]}]
    assert sent == want
    # The file still holds everything, the new turn appended after the stored messages.
    roles = [json.loads(line).get("message", {}).get("role") for line in session.read_text().splitlines()[1:]]
    assert roles[: len(stored)] == [m["role"] for m in stored] and roles[-1] == "assistant"
