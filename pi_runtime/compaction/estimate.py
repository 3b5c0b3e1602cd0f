"""Token estimates for the context and the auto-compaction threshold.

The context size is the provider-reported usage of the last valid assistant message plus a
chars/4 estimate of everything after it (an image counts as 4,800 characters). Usage reported
before the latest compaction describes a context that no longer exists, so it is ignored:
that includes the kept messages after the summary, which are older than the compaction.

Without a usable report (a llama.cpp server sends none) everything is estimated, as Pi does:
the system prompt and the tool declarations as the request carries them (the system messages
replayed into one: text, current sections, current tools as JSON), plus every other message.
Leaving out the prompt and the tools under-counts a fresh session by two thirds, and
auto-compaction then starts late on exactly the small local models that need it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .. import deep_json
from ..records import record
from .settings import CompactionSettings

IMAGE_CHARS = 4_800
CHARS_PER_TOKEN = 4


def as_dict(message: Any) -> dict[str, Any]:
    """A message as its wire dict (typed messages are converted)."""
    if isinstance(message, dict):
        return message
    return message.to_wire()


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for block in content or ():
        if not isinstance(block, dict):
            block = as_dict(block)
        kind = block.get("type")
        if kind == "text":
            chars += len(block.get("text", ""))
        elif kind == "thinking":
            chars += len(block.get("thinking", ""))
        elif kind == "toolCall":
            chars += len(block.get("name", "")) + len(_compact_json(block.get("arguments", {})))
        elif kind == "image":
            chars += IMAGE_CHARS
    return chars


def _compact_json(value: Any) -> str:
    """JSON as Pi measures it (``JSON.stringify``: no spaces, characters not escaped)."""
    return deep_json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def estimate_message_tokens(message: Any) -> int:
    """chars/4 (rounded up) of what a message puts in the context.

    Args:
        message: An ``AgentMessage`` or its wire dict.

    Returns:
        The estimate; 0 for messages that add nothing.
    """
    m = as_dict(message)
    role = m.get("role")
    if role in ("compactionSummary", "branchSummary"):
        chars = len(m.get("summary", ""))
    elif role == "bashExecution":
        chars = 0 if m.get("excludeFromContext") else len(m.get("command", "")) + len(m.get("output", ""))
    else:
        chars = _content_chars(m.get("content"))
        if role == "system":
            if isinstance(m.get("sections"), dict):
                chars += sum(len(v) for v in m["sections"].values() if isinstance(v, str))
            if m.get("toolsAdded"):
                # The declarations travel with every request (the request's ``tools``).
                chars += len(_compact_json(m["toolsAdded"]))
    return -(-chars // CHARS_PER_TOKEN)


def current_system_message(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The system messages replayed into the one the model currently has (None when there are none).

    Texts are joined, sections patched by name (``None`` removes one), tools added and
    removed by name, as Pi's ``getCurrentSystemMessage`` does.
    """
    texts: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, Any] = {}
    seen = False
    for m in messages:
        if m.get("role") != "system":
            continue
        seen = True
        content = m.get("content")
        text = content if isinstance(content, str) else "".join(
            b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text")
        if text:
            texts.append(text)
        for name, value in (m.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            elif isinstance(value, str):
                sections[name] = value
        for tool in m.get("toolsRemoved") or ():
            if isinstance(tool, dict):
                tools.pop(str(tool.get("name")), None)
        for tool in m.get("toolsAdded") or ():
            if isinstance(tool, dict):
                tools[str(tool.get("name"))] = tool
    if not seen:
        return None
    replayed: dict[str, Any] = {"role": "system", "content": "\n\n".join(texts)}
    if sections:
        replayed["sections"] = sections
    if tools:
        replayed["toolsAdded"] = list(tools.values())
    return replayed


def usage_tokens(usage: Any) -> int:
    """Context tokens a usage report stands for (``totalTokens``, else the sum of its parts).

    A report of the wrong shape (a hand-edited file's raw entry: a string, a text count) stands
    for nothing rather than failing whoever asked.
    """
    if usage is None:
        return 0
    if not isinstance(usage, dict):
        if not hasattr(usage, "to_wire"):
            return 0
        usage = usage.to_wire()

    def number(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    return number("totalTokens") or sum(number(k) for k in ("input", "output", "cacheRead", "cacheWrite"))


@record
class ContextEstimate:
    tokens: int
    usage_tokens: int
    """From the last valid assistant message's usage (0 when none was usable)."""
    trailing_tokens: int
    """Estimated for the messages after it."""
    last_usage_index: int
    """Index of that assistant message, -1 when none."""


def estimate_context(messages: list[Any]) -> ContextEstimate:
    """Estimate the context size of a message list.

    Args:
        messages: ``AgentMessage`` objects or wire dicts, oldest first.

    Returns:
        The estimate and how it was made.
    """
    wire_view = getattr(messages, "wire_view", None)  # a Transcript: its stored dicts, unvalidated
    dicts = wire_view() if callable(wire_view) else [as_dict(m) for m in messages]
    floor, compacted_at = -1, -1
    for i in range(len(dicts) - 1, -1, -1):
        if dicts[i].get("role") == "compactionSummary":
            floor, compacted_at = i, dicts[i].get("timestamp") or 0
            break
    index = -1
    for i in range(len(dicts) - 1, floor, -1):
        m = dicts[i]
        if m.get("role") == "assistant" and m.get("stopReason") not in ("error", "aborted") \
                and usage_tokens(m.get("usage")) > 0 and (m.get("timestamp") or 0) > compacted_at:
            index = i
            break
    if index < 0:
        return _estimate_everything(dicts)
    reported = usage_tokens(dicts[index].get("usage"))
    trailing = sum(estimate_message_tokens(m) for m in dicts[index + 1 :])
    return ContextEstimate(reported + trailing, reported, trailing, index)


def _estimate_everything(dicts: list[dict[str, Any]]) -> ContextEstimate:
    system = current_system_message(dicts)
    estimated = estimate_message_tokens(system) if system is not None else 0
    estimated += sum(estimate_message_tokens(m) for m in dicts if m.get("role") != "system")
    return ContextEstimate(estimated, 0, estimated, -1)


def usage_standing(branch_back: Iterable[Mapping[str, Any]]) -> str:
    """How far the branch's latest usage report can be trusted, as Pi 1.6 judges it.

    Walking back from the leaf to the first answer whose usage counts (not failed, not aborted,
    not taken out of the context, tokens reported):

    - ``"current"``: nothing changed the context since (or there is no report at all);
    - ``"outdated"``: a failed attempt was taken out of the context (a ``context_edit``) after it,
      so the provider measured a context that no longer exists: Pi estimates it all
      (``estimateProjectedContextTokens``);
    - ``"unknown"``: a compaction came after it: Pi shows no figure until the next answer.

    Args:
        branch_back: The branch's entry dicts from the leaf up (``SessionManager.walk_back``);
            read only as far as needed.
    """
    edited = False
    taken_out: set[Any] = set()
    for entry in branch_back:
        kind = entry.get("type")
        if kind == "compaction":
            return "unknown"
        if kind == "context_edit":
            edited = True
            if entry.get("replacement") is None:
                taken_out.add(entry.get("targetId"))
        elif kind == "message" and entry.get("id") not in taken_out:
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" \
                    and message.get("stopReason") not in ("error", "aborted") and usage_tokens(message.get("usage")) > 0:
                return "outdated" if edited else "current"
    return "current"


def usage_outdated(branch_back: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the latest usage report is not to be trusted (see ``usage_standing``)."""
    return usage_standing(branch_back) != "current"


def edited_since_compaction(branch_back: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the context holds a ``context_edit`` (one after the latest compaction, if any)."""
    for entry in branch_back:
        kind = entry.get("type")
        if kind == "context_edit":
            return True
        if kind == "compaction":
            return False
    return False


def estimate_projected_tokens(messages: list[Any], outdated: Callable[[], bool]) -> int | None:
    """``estimate_context_tokens``, but everything estimated when the usage report it would use is
    outdated (``outdated()``, asked only when there is a report; see ``usage_standing``); None for an
    empty context."""
    if not messages:
        return None
    estimate = estimate_context(messages)
    if estimate.last_usage_index >= 0 and outdated():
        wire_view = getattr(messages, "wire_view", None)
        dicts = wire_view() if callable(wire_view) else [as_dict(m) for m in messages]
        return _estimate_everything(dicts).tokens
    return estimate.tokens


def estimate_context_tokens(messages: list[Any]) -> int | None:
    """Tokens the context holds, or None for an empty context.

    Args:
        messages: The current context messages.

    Returns:
        The estimate (see the module docstring).
    """
    if not messages:
        return None
    return estimate_context(messages).tokens


def should_compact(tokens: int | None, context_window: int,
                   settings: CompactionSettings | Mapping[str, Any] | None = None) -> bool:
    """Whether auto-compaction should run: ``tokens > context_window - reserveTokens``.

    Args:
        tokens: Estimated context tokens (None: unknown, never compacts).
        context_window: The model's window.
        settings: The effective settings (defaults when None), or Pi's plain settings object
            (``{"enabled", "reserveTokens", "keepRecentTokens"}``).

    Returns:
        True when enabled and over the threshold. As in Pi, a window no larger than the reserve
        (an 8k local model) is over it at once; whether anything is then summarised is up to
        the cut (``prepare_compaction``), which with the default ``keepRecentTokens`` keeps
        everything such a window can hold. An unknown window (0) never compacts.
    """
    resolved = CompactionSettings.coerce(settings)
    if not resolved.enabled or tokens is None or context_window <= 0:
        return False
    return tokens > context_window - resolved.reserve_tokens
