"""Anthropic message threads, as Pi 1.6 uses them on api.anthropic.com.

A session's request opens a thread (``"thread": {"type": "create"}``); once a clean answer came
back, the next request whose history starts with everything the server already holds sends only
what is new (``{"type": "continue", "previous_message_id": <the answer's id>}``) and leaves out the
system prompt and the tools, which the thread keeps. Whether the history still matches is checked
with a hash of the fixed request settings and the messages (cache markers set aside, a string
content counted as one text block). Each answer can be continued once. A server that refuses a
thread is handled as Pi does: a stale thread starts a new one; a server without threads gets the
request again without ``thread``, and the session stops asking.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any, Literal, NamedTuple

NEW_THREAD_ERRORS = frozenset({"thread_not_found", "thread_already_continued", "thread_continue_in_flight",
                               "thread_fingerprint_mismatch"})
"""Refusals a new thread cures (expired, raced, or a fixed setting changed)."""
_LIMIT = 10_000


class ThreadPoint(NamedTuple):
    """Where a session's next request can continue."""

    prefix_count: int
    prefix_hash: str
    reply_id: str


_states: OrderedDict[str, ThreadPoint | Literal["off"]] = OrderedDict()


def _set(session_id: str, value: ThreadPoint | Literal["off"]) -> None:
    _states.pop(session_id, None)
    _states[session_id] = value
    while len(_states) > _LIMIT:
        _states.popitem(last=False)


def forget(session_id: str | None = None) -> None:
    """Drop a session's thread (all sessions' with None)."""
    if session_id is None:
        _states.clear()
    else:
        _states.pop(session_id, None)


def _normalized(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _normalized(v, k) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    if key == "content" and isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


def prefix_hash(base: str, body: dict[str, Any], features: list[str], messages: list[dict[str, Any]]) -> str:
    """The fingerprint of what a continuation builds on: the fixed settings and the messages."""
    settings = [base, body.get("model"), body.get("system"), body.get("tools"), body.get("thinking"),
                body.get("output_config"), body.get("tool_choice"), features, body.get("fallbacks")]
    text = json.dumps([settings, _normalized(messages)], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def prepare(session_id: str, base: str, body: dict[str, Any], features: list[str]) -> dict[str, Any] | None:
    """The body to send for ``session_id``: a continuation, a new thread, or None when the session's
    server refused threads (send ``body`` as it is)."""
    state = _states.get(session_id)
    if state == "off":
        return None
    messages = body["messages"]
    if (isinstance(state, ThreadPoint) and len(messages) > state.prefix_count
            and prefix_hash(base, body, features, messages[:state.prefix_count]) == state.prefix_hash):
        del _states[session_id]  # an answer is continued once (a concurrent request starts a new thread)
        rest = {k: v for k, v in body.items() if k not in ("system", "tools")}
        rest["messages"] = messages[state.prefix_count:]
        return {**rest, "thread": {"type": "continue", "previous_message_id": state.reply_id}}
    return created(body)


def created(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` opening a new thread."""
    return {**body, "thread": {"type": "create"}}


def refused(error_code: str | None, status: int | None, message: str) -> Literal["new", "without", None]:
    """What a refused thread request calls for: a new thread, the request without ``thread``, or
    nothing (the refusal is not about the thread)."""
    if error_code in NEW_THREAD_ERRORS:
        return "new"
    if error_code == "thread_unsupported_request" or (error_code is None and status == 400 and "thread" in message):
        return "without"
    return None


def turn_off(session_id: str) -> None:
    """The session's server does not keep threads: stop asking for them."""
    _set(session_id, "off")


def record_reply(session_id: str, base: str, body: dict[str, Any], features: list[str],
                 reply: list[dict[str, Any]], reply_id: str | None) -> None:
    """After a clean answer ``reply_id`` (converted as the next request will send it, ``reply``) to a
    thread request whose full body was ``body``: where the next request can continue."""
    if not reply_id:
        return
    prefix = [*body["messages"], *reply]
    _set(session_id, ThreadPoint(prefix_count=len(prefix), prefix_hash=prefix_hash(base, body, features, prefix),
                                 reply_id=reply_id))
