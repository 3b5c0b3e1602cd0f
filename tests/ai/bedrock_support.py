"""Shared helpers for the Bedrock tests (the clean AWS environment is the `aws_env` fixture): models, replies, a runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import AssistantMessage, Context, Model, ModelCost, UserMessage
from pi_runtime.testing.loopback import LoopbackServer, Reply, bedrock_event

ACCESS = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def make_model(server: LoopbackServer, model_id: str = SONNET, **kwargs: Any) -> Model:
    fields: dict[str, Any] = dict(
        id=model_id, name="Claude Sonnet 4.5", api="bedrock-converse-stream", provider="amazon-bedrock",
        base_url=server.url, reasoning=True, input=["text", "image"], max_tokens=64000,
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    )
    fields.update(kwargs)
    return Model(**fields)


def ctx(text: str = "hi", **kwargs: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kwargs)


def text_reply(*pieces: str, stop: str = "end_turn", usage: dict[str, Any] | None = None, **kwargs: Any) -> Reply:
    frames = [bedrock_event("messageStart", {"role": "assistant", "p": "abcdef"})]
    frames += [bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": p}}) for p in pieces]
    frames += [bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
               bedrock_event("messageStop", {"stopReason": stop}),
               bedrock_event("metadata", {"usage": usage or {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13},
                                          "metrics": {"latencyMs": 120}})]
    return Reply.event_stream(frames, **kwargs)


async def run(model: Model, context: Context, **options: Any) -> tuple[list[Any], AssistantMessage]:
    s = stream(model, context, StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]



def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
