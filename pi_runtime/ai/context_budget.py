"""Fitting a request's output limit into the model's context window, as Pi 1.6 does for every wire API.

A model whose output limit is as large as its window (many are: 262,144 of 262,144) would have
every request refused once the input is counted in, so the limit sent is at most the window
minus the input and a margin: the larger of 4,096 tokens and 15 % of the input (OpenRouter counts
the input with its own tokenizer, up to 12 % higher), the 15 % only while at least 32,768 tokens
of output remain. The input is estimated as Pi estimates it: the usage the last answer reported
plus 3.5 characters a token for what came after it, or everything estimated when no answer
reported usage (the system prompt with its tool declarations included).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import accumulate, chain, repeat
from typing import Any, cast

from .. import deep_json

CHARS_PER_TOKEN = 3.5
IMAGE_CHARS = 4_800
SAFETY_TOKENS = 4_096
SAFETY_RATIO = 0.15
MIN_OUTPUT_WITH_RATIO_MARGIN = 32_768


def _wire(message: Any) -> dict[str, Any]:
    return message if isinstance(message, dict) else message.to_wire()


def _json_chars(value: Any) -> int:
    return len(deep_json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for block in content or ():
        block = _wire(block)
        kind = block.get("type")
        if kind == "text":
            chars += len(block.get("text") or "")
        elif kind == "image":
            chars += IMAGE_CHARS
    return chars


def _tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def message_tokens(message: Any) -> int:
    """The estimate for one message of the context (Pi's ``estimateMessageTokens``)."""
    wire = _wire(message)
    role = wire.get("role")
    if role in ("user", "toolResult"):
        return _tokens(_content_chars(wire.get("content")))
    if role == "system":
        text = [_content_text(wire.get("content"))]
        text += [v for v in (wire.get("sections") or {}).values() if isinstance(v, str)]
        tools = sum(_tokens(_json_chars(wire[key])) for key in ("toolsAdded", "toolsRemoved") if wire.get(key))
        return _tokens(len("\n\n".join(t for t in text if t))) + tools
    chars = 0
    for block in wire.get("content") or ():
        block = _wire(block)
        kind = block.get("type")
        if kind == "text":
            chars += len(block.get("text") or "")
        elif kind == "thinking":
            chars += len(block.get("thinking") or "")
        elif kind == "toolCall":
            chars += len(block.get("name") or "") + _json_chars(block.get("arguments") or {})
    return _tokens(chars)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in map(_wire, content or ()) if b.get("type") == "text")


def _field(message: Any, wire_name: str, attr: str) -> Any:
    return message.get(wire_name) if isinstance(message, dict) else getattr(message, attr, None)


def _reported(message: Any) -> int:
    """The context size the provider reported with an answer (0: none)."""
    usage = _field(message, "usage", "usage")
    if usage is None:
        return 0
    if isinstance(usage, dict):
        total = usage.get("totalTokens") or 0
        parts = [usage.get(k) or 0 for k in ("input", "output", "cacheRead", "cacheWrite")]
    else:
        total = usage.total_tokens
        parts = [usage.input, usage.output, usage.cache_read, usage.cache_write]
    return int(total or sum(int(p) for p in parts))


def _stamps(messages: list[Any]) -> list[float]:
    raw: list[object] = [m.get("timestamp") if isinstance(m, dict) else getattr(m, "timestamp", None) for m in messages]
    if set(map(type, raw)) <= _PLAIN_NUMBERS:
        return cast("list[float]", raw)  # the norm, checked in one C-level pass instead of two isinstance calls per message
    # A hand-edited line's text stamp counts as the oldest rather than crashing the request.
    return [s if isinstance(s, (int, float)) and not isinstance(s, bool) else 0 for s in raw]


_PLAIN_NUMBERS = frozenset({int, float})


def _stamp(message: object) -> float:
    """One message's stamp as ``_stamps`` gives it."""
    stamp = message.get("timestamp") if isinstance(message, dict) else getattr(message, "timestamp", None)
    return stamp if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) else 0


def _newest_stamp(messages: list[object], end: int) -> float | None:
    """``max`` of ``_stamps(messages)[:end]`` (-inf first) in one C-level pass, when those messages
    are stored dicts (the history before the latest answer); None when one is an object or its
    stamp is no plain number (``_stamps`` then)."""
    try:
        # (-inf first, as the running maxima below start: max() then steps over a NaN stamp alike.)
        stamps: Iterable[float] = map(dict.get, messages[:end], repeat("timestamp"))  # type: ignore[arg-type]  # checked below
        newest = max(chain((_NEVER,), stamps))
    except TypeError:  # an object among the dicts; a stamp of text, null or a list beside the numbers
        return None
    # A bool stamp counts as 0: one that came out on top (only True beside stamps up to 1) is
    # redone; one that did not leaves the maximum as it is.
    return newest if type(newest) in _PLAIN_NUMBERS else None


def _last_answer_with_usage(messages: list[Any]) -> int | None:
    """The index of the last completed answer with usage that no earlier-stamped message follows.

    A message inserted after the answer but stamped later than it (a compaction summary) would
    make its usage stale, so an answer counts only when no message before it is newer. Scanned
    from the end: the latest answer (the one that counts, nearly always) is checked against the
    newest stamp before it in one C-level ``max``; the newest stamp before every message is made
    in one pass only when an earlier answer must be looked at.
    """
    answers = (i for i in range(len(messages) - 1, -1, -1) if _field(messages[i], "role", "role") == "assistant")
    latest = next(answers, None)
    if latest is None:
        return None
    newest = _newest_stamp(messages, latest)
    if newest is None:
        stamps = _stamps(messages)
        newest = max((_NEVER, *stamps[:latest]))
    if _answer_counts(messages[latest], _stamp(messages[latest]), newest):
        return latest
    stamps = _stamps(messages)
    newest_before = list(accumulate(stamps, max, initial=_NEVER))
    for index in answers:
        if _answer_counts(messages[index], stamps[index], newest_before[index]):
            return index
    return None


_NEVER = float("-inf")


def _answer_counts(message: object, stamp: float, newest_before: float) -> bool:
    """Whether an answer's reported usage measures the context: nothing before it is newer, it
    completed, and it reported a size."""
    return (stamp >= newest_before and _field(message, "stopReason", "stop_reason") not in ("aborted", "error")
            and _reported(message) > 0)


def context_tokens(system_prompt: str | None, tools: list[Any] | None, messages: list[Any]) -> int:
    """The estimated size of a request's input (Pi's ``estimateContextTokens`` over its transcript).

    Only the messages after the last answer with usage are converted and measured, so a long
    session costs a scan of roles and timestamps.
    """
    last = _last_answer_with_usage(messages)
    if last is not None:
        return _reported(messages[last]) + sum(message_tokens(m) for m in messages[last + 1:])
    system: dict[str, Any] = {"role": "system", "content": system_prompt or ""}
    if tools:
        system["toolsAdded"] = [t if isinstance(t, dict) else t.to_wire() for t in tools]
    head = message_tokens(system) if system_prompt or tools else 0
    return head + sum(message_tokens(m) for m in messages if _field(m, "role", "role") != "system")


def clamp_max_tokens(context_window: int, max_tokens: int, input_tokens: int) -> int:
    """``max_tokens`` fitted into ``context_window`` with ``input_tokens`` of input (Pi's
    ``clampMaxTokensToContext``); a model without a window keeps its limit."""
    if context_window <= 0:
        return max(1, max_tokens)
    margin = max(SAFETY_TOKENS, math.ceil(input_tokens * SAFETY_RATIO))
    room = context_window - input_tokens - margin
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = min(MIN_OUTPUT_WITH_RATIO_MARGIN, context_window - input_tokens - SAFETY_TOKENS)
    return min(max_tokens, max(1, room))


def request_max_tokens(model: Any, context: Any, max_tokens: int | None) -> int:
    """The output limit a request to ``model`` carries: the caller's (or the model's) fitted into the
    window left by ``context`` (a ``Context``: system prompt, tools, messages)."""
    wanted = max_tokens or model.max_tokens
    used = context_tokens(context.system_prompt, context.tools, list(context.messages))
    return clamp_max_tokens(model.context_window or 0, wanted, used)
