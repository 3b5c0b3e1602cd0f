"""Responses-API stream events for the Azure and Codex loopback tests (what the servers send)."""

from __future__ import annotations

from typing import Any

from pi_runtime.testing.loopback import Reply


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def sse(events: list[dict[str, Any]], **kwargs: Any) -> Reply:
    """Responses SSE: each event carries an ``event:`` line and its type in the data."""
    return Reply.sse(events, event_names=[e.get("type") for e in events], **kwargs)


def created(response_id: str = "resp_1") -> dict[str, Any]:
    return ev("response.created", response={"id": response_id, "status": "in_progress"})


def completed(status: str = "completed", usage: dict | None = None, **extra: Any) -> dict[str, Any]:
    response = {"id": "resp_1", "status": status,
                "usage": usage or {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}}
    response.update(extra)
    return ev("response.incomplete" if status == "incomplete" else "response.completed", response=response)


def message(text: str, item_id: str = "msg_1", index: int = 0, size: int = 4, phase: str | None = None) -> list[dict]:
    item: dict[str, Any] = {"type": "message", "id": item_id, "role": "assistant", "content": []}
    if phase:
        item["phase"] = phase
    out = [ev("response.output_item.added", output_index=index, item=item)]
    out += [ev("response.output_text.delta", item_id=item_id, output_index=index, content_index=0,
               delta=text[i:i + size]) for i in range(0, len(text), size)]
    done = {**item, "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}
    out.append(ev("response.output_item.done", output_index=index, item=done))
    return out


def function_call(name: str, arguments: str, call_id: str = "call_1", item_id: str = "fc_1",
                  index: int = 0) -> list[dict]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name, "arguments": ""}
    half = len(arguments) // 2
    return [ev("response.output_item.added", output_index=index, item=item),
            ev("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=arguments[:half]),
            ev("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=arguments[half:]),
            ev("response.function_call_arguments.done", item_id=item_id, output_index=index, arguments=arguments),
            ev("response.output_item.done", output_index=index,
               item={**item, "arguments": arguments, "status": "completed"})]


def reasoning(summary: list[str], item_id: str = "rs_1", index: int = 0, encrypted: str | None = "ENC==") -> list[dict]:
    item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
    out = [ev("response.output_item.added", output_index=index, item=item)]
    for n, text in enumerate(summary):
        out.append(ev("response.reasoning_summary_text.delta", item_id=item_id, output_index=index,
                      summary_index=n, delta=text))
        out.append(ev("response.reasoning_summary_part.done", item_id=item_id, output_index=index, summary_index=n))
    done = {**item, "summary": [{"type": "summary_text", "text": t} for t in summary]}
    if encrypted is not None:
        done["encrypted_content"] = encrypted
    out.append(ev("response.output_item.done", output_index=index, item=done))
    return out
