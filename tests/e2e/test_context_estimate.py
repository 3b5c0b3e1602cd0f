"""The context figure when the server reports no usage (llama.cpp): what was actually sent.

Pi estimates the replayed system prompt, the tool declarations and the messages at chars/4;
the footer, ``get_session_stats`` and auto-compaction all read that figure.
"""

from __future__ import annotations

import json

from e2e_support import MODEL, Reply, chunk
from rpc_client import RpcClient


def _answer_without_usage(text: str) -> Reply:
    return Reply.sse([chunk({"content": text}), chunk(finish="stop"), "[DONE]"])


def _sent_chars(request: dict) -> int:
    """Characters of what the request carries to the model: prompt, tool schemas, messages."""
    chars = len(json.dumps([t["function"] for t in request.get("tools", [])], separators=(",", ":")))
    for message in request["messages"]:
        content = message.get("content")
        chars += len(content) if isinstance(content, str) else sum(len(p.get("text", "")) for p in content or ())
    return chars


def test_context_estimate_counts_system_prompt_and_tools_without_usage(env, loopback):
    loopback.push(_answer_without_usage("Hello back."))
    client = RpcClient(env, "--model", MODEL, "--no-session")
    try:
        client.ok({"type": "prompt", "message": "hello there"})
        client.wait_event("agent_end")
        context = client.ok({"type": "get_session_stats"})["contextUsage"]
    finally:
        client.kill()
    sent = _sent_chars(loopback.requests[0].json()) + len("Hello back.")
    # chars/4 of what was sent; Pi's own estimate differs from it only by JSON punctuation.
    assert abs(context["tokens"] - sent / 4) < sent / 4 * 0.1, (context, sent / 4)
    assert context["contextWindow"] == 128000
