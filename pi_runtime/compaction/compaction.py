"""Generate compaction summaries with one model request each and record them in the session.

``run_compaction`` is what the kernel calls: it prepares the cut on the active branch,
asks the model for the summary (two requests when the cut splits a turn: the older history and
the turn's beginning), appends a ``compaction`` entry (with the read/modified file lists in
``details`` and the summary's usage) and returns Pi's ``CompactionResult`` shape.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..ai.abort import AbortSignal
from ..ai.options import StreamOptions
from ..ai.stream import complete
from ..ai.types import Context, Model, TextContent, UserMessage
from . import prompts
from .estimate import CHARS_PER_TOKEN
from .prepare import CompactionPreparation, prepare_compaction
from .serialize import serialize_conversation
from .settings import CompactionSettings

MIN_SUMMARY_TOKENS = 1_024


class NothingToCompact(Exception):
    """The session is too small (or was just compacted)."""

    def __init__(self, message: str = "Nothing to compact") -> None:
        super().__init__(message)


class CompactionError(Exception):
    """The summary request failed or was aborted."""

    def __init__(self, message: str, *, aborted: bool = False) -> None:
        super().__init__(message)
        self.aborted = aborted


def _max_tokens(model: Model, prompt_chars: int) -> int:
    # The model's output limit, reduced so that prompt and answer fit in the window.
    room = model.context_window - (prompt_chars // CHARS_PER_TOKEN) - 256
    return max(MIN_SUMMARY_TOKENS, min(model.max_tokens, room)) if model.context_window else model.max_tokens


async def summarize(transcript: str, instruction: str, model: Model, *, previous_summary: str | None = None,
                    instructions: str | None = None, api_key: str | None = None,
                    headers: dict[str, str | None] | None = None, signal: AbortSignal | None = None,
                    label: str = "Summarization") -> tuple[str, dict[str, Any]]:
    """One summary request: no tools, the summariser system prompt, the transcript.

    Args:
        transcript: Output of ``serialize_conversation``.
        instruction: What to produce (one of the ``prompts`` templates).
        model: Model to ask.
        previous_summary: An earlier summary to update.
        instructions: The user's custom focus.
        api_key: Credential for the request.
        headers: Extra request headers.
        signal: Abort signal.
        label: What the summary is, for the error messages (Pi's wording).

    Returns:
        (summary text, usage wire dict).

    Raises:
        CompactionError: The request ended in an error, was aborted, called a tool (none was
            offered: such a reply is not a summary, even with text beside the call), or
            returned no text.
    """
    text = f"<conversation>\n{transcript}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    text += instruction + prompts.focus(instructions)
    context = Context(system_prompt=prompts.SYSTEM_PROMPT, messages=[UserMessage(content=[TextContent(text=text)])])
    options = StreamOptions(api_key=api_key, signal=signal, headers=dict(headers or {}),
                            max_tokens=_max_tokens(model, len(text) + len(prompts.SYSTEM_PROMPT)))
    response = await complete(model, context, options)
    if response.stop_reason in ("error", "aborted"):
        aborted = response.stop_reason == "aborted"
        raise CompactionError(response.error_message or ("Summary aborted" if aborted else "Summary failed"),
                              aborted=aborted)
    if response.tool_calls():
        raise CompactionError(f"{label} attempted to call a tool")
    summary = response.text().strip()
    if not summary:
        raise CompactionError("The model returned an empty summary")
    return summary, response.usage.to_wire()


def _add_usage(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    if a is None:
        return b
    out = dict(a)
    for key in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"):
        out[key] = (a.get(key) or 0) + (b.get(key) or 0)
    cost = dict(a.get("cost") or {})
    for key, value in (b.get("cost") or {}).items():
        cost[key] = (cost.get(key) or 0) + (value or 0)
    out["cost"] = cost
    return out


async def compact(prep: CompactionPreparation, model: Model, *, instructions: str | None = None,
                  api_key: str | None = None, headers: dict[str, str | None] | None = None,
                  signal: AbortSignal | None = None) -> dict[str, Any]:
    """Summarise a prepared compaction.

    Args:
        prep: From ``prepare_compaction``.
        model: Model for the summary.
        instructions: Custom focus (``/compact <instructions>``).
        api_key: Credential.
        headers: Extra headers.
        signal: Abort signal.

    Returns:
        ``{"summary", "firstKeptEntryId", "tokensBefore", "details", "usage"}``.
    """
    def request(messages: list[dict[str, Any]], instruction: str, previous: str | None = None):
        return summarize(serialize_conversation(messages), instruction, model, previous_summary=previous,
                         instructions=instructions, api_key=api_key, headers=headers, signal=signal)

    jobs = []
    if prep.messages_to_summarize:
        jobs.append(request(prep.messages_to_summarize,
                            prompts.UPDATE if prep.previous_summary else prompts.SUMMARIZE, prep.previous_summary))
    if prep.is_split_turn and prep.turn_prefix_messages:
        jobs.append(request(prep.turn_prefix_messages, prompts.TURN_PREFIX))
    results = await asyncio.gather(*jobs)
    usage: dict[str, Any] | None = None
    for _, u in results:
        usage = _add_usage(usage, u)
    if prep.messages_to_summarize:
        summary = results[0][0]
    else:
        summary = prep.previous_summary or "No earlier history."
    if prep.is_split_turn and prep.turn_prefix_messages:
        summary += prompts.SPLIT_TURN_JOIN + results[-1][0]
    files = prep.file_ops.render()
    if files:
        summary += "\n\n" + files
    result: dict[str, Any] = {"summary": summary, "firstKeptEntryId": prep.first_kept_entry_id,
                              "tokensBefore": prep.tokens_before, "details": prep.file_ops.details()}
    if usage is not None:
        result["usage"] = usage
    return result


async def run_compaction(session_manager: Any, model: Model, *,
                         settings: CompactionSettings | None = None,
                         api_key: str | None = None, headers: dict[str, str | None] | None = None,
                         instructions: str | None = None, signal: AbortSignal | None = None,
                         preparation: CompactionPreparation | None = None) -> dict[str, Any]:
    """Compact the active branch of a session and append the ``compaction`` entry.

    Args:
        session_manager: The ``SessionManager``.
        model: Model that writes the summary.
        settings: Compaction settings (``keepRecentTokens`` is used here).
        api_key: Credential.
        headers: Extra request headers.
        instructions: Custom focus for the summary.
        signal: Abort signal.
        preparation: The cut already worked out by ``prepare_compaction`` on this branch
            (worked out here when None).

    Returns:
        The result dict (see ``compact``) plus ``entryId``.

    Raises:
        NothingToCompact: Too little history.
        CompactionError: The summary request failed or was aborted.
    """
    prep = preparation or prepare_compaction(session_manager.raw_branch(), settings or CompactionSettings())
    if prep is None:
        raise NothingToCompact()
    result = await compact(prep, model, instructions=instructions, api_key=api_key, headers=headers, signal=signal)
    if signal is not None and signal.aborted:
        raise CompactionError("Compaction aborted", aborted=True)
    result["entryId"] = session_manager.append_compaction(
        result["summary"], result["firstKeptEntryId"], result["tokensBefore"], result["details"],
        usage=result.get("usage"), system_message=prep.system_message)
    return result
