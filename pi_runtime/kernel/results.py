"""Typed results of the session's commands.

Front ends and extensions read attributes; ``to_wire()`` gives Pi's JSON shape for the RPC
edge (camelCase keys, absent values left out where Pi leaves them out).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..ai.types import js_number
from ..records import record


@record(frozen=True, slots=True)
class BashResult:
    """A user shell command (``!cmd``, RPC ``bash``) once it has finished."""

    output: str
    """The output's tail (truncated like the bash tool's)."""
    exit_code: int | None
    """None when the command was cancelled."""
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    """The whole output, kept in a temp file when it was truncated."""

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"output": self.output}
        if self.exit_code is not None:  # a cancelled command has none: left out, as Pi leaves it out
            out["exitCode"] = self.exit_code
        out.update(cancelled=self.cancelled, truncated=self.truncated)
        if self.full_output_path:
            out["fullOutputPath"] = self.full_output_path
        return out

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> BashResult:
        exit_code = data.get("exitCode")
        return cls(str(data.get("output", "")), exit_code if isinstance(exit_code, int) else None,
                   bool(data.get("cancelled", False)), bool(data.get("truncated", False)), data.get("fullOutputPath"))


@record(frozen=True, slots=True)
class CompactionResult:
    """What a compaction wrote (Pi's CompactionResult)."""

    summary: str
    first_kept_entry_id: str | None
    tokens_before: int
    entry_id: str | None = None
    details: Any = None
    estimated_tokens_after: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Other fields the summariser reported (usage, ...), kept for the wire."""

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> CompactionResult:
        known = {"summary", "firstKeptEntryId", "tokensBefore", "entryId", "details", "estimatedTokensAfter"}
        return cls(
            summary=str(data.get("summary", "")),
            first_kept_entry_id=data.get("firstKeptEntryId"),
            tokens_before=int(data.get("tokensBefore") or 0),
            entry_id=data.get("entryId"),
            details=data.get("details"),
            estimated_tokens_after=data.get("estimatedTokensAfter"),
            extra={k: v for k, v in data.items() if k not in known},
        )

    def to_wire(self) -> dict[str, Any]:
        out = {
            **self.extra,
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            "details": self.details,
        }
        if self.entry_id is not None:
            out["entryId"] = self.entry_id
        if self.estimated_tokens_after is not None:
            out["estimatedTokensAfter"] = self.estimated_tokens_after
        return out


@record(frozen=True, slots=True)
class NavigateResult:
    """``navigate_tree``: where the leaf went and what goes back into the editor."""

    cancelled: bool = False
    editor_text: str | None = None
    """The text of a selected user message (the leaf moves to its parent)."""
    summary_entry_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {"cancelled": self.cancelled, "editorText": self.editor_text, "summaryEntryId": self.summary_entry_id}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> NavigateResult:
        return cls(bool(data.get("cancelled", False)), data.get("editorText"), data.get("summaryEntryId"))


@record(frozen=True, slots=True)
class ForkResult:
    """``fork``: the new session holds the history before the chosen user message."""

    text: str = ""
    """That message's text, for the editor."""
    cancelled: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"text": self.text, "cancelled": self.cancelled}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ForkResult:
        return cls(str(data.get("text", "")), bool(data.get("cancelled", False)))


@record(frozen=True, slots=True)
class SwitchResult:
    """``new_session``, ``switch_session`` and ``clone``: whether an extension vetoed it."""

    cancelled: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"cancelled": self.cancelled}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SwitchResult:
        return cls(bool(data.get("cancelled", False)))


@record(frozen=True, slots=True)
class CycleModelResult:
    model: Any
    """The ``Model`` now in use."""
    thinking_level: str
    is_scoped: bool

    def to_wire(self) -> dict[str, Any]:
        return {"model": self.model.to_public_wire(), "thinkingLevel": self.thinking_level, "isScoped": self.is_scoped}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> CycleModelResult:
        from ..ai.types import Model

        return cls(Model.model_validate(data["model"]), str(data["thinkingLevel"]), bool(data.get("isScoped", False)))


@record(frozen=True, slots=True)
class UsageTotals:
    """Tokens and cost summed over every entry of the session file (all branches, summaries too)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    latest_cache_hit_rate: float | None = None
    """Percent of the last answer's prompt read from the provider's cache (None: no prompt tokens)."""

    @property
    def total_tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def to_wire(self) -> dict[str, Any]:
        return {
            "input": self.input, "output": self.output, "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write, "total": self.total_tokens,
        }


@record(frozen=True, slots=True)
class ModelSpend:
    """Cost and tokens of the calls one ``provider/model`` answered (Pi's usage breakdown in ``/session``).

    ``key`` is ``provider/model`` as the answers name them (the server's own model name when it
    gave one), or ``Tools/summaries`` for what tools, compactions and branch summaries spent.
    """

    key: str
    cost: float
    tokens: int

    def to_wire(self) -> dict[str, Any]:
        return {"key": self.key, "cost": round(self.cost, 6), "tokens": self.tokens}


@record(frozen=True, slots=True)
class ContextUsage:
    """How full the model's context window is."""

    tokens: int | None
    """Provider-reported usage of the last answer plus an estimate of what followed; None when unknown
    (right after a compaction, until the next answer)."""
    context_window: int

    @property
    def percent(self) -> float | None:
        """Unrounded, as Pi's RPC ``get_session_stats`` sends it (75.015, not 75.0); displays round it."""
        if self.tokens is None or not self.context_window:
            return None
        return self.tokens * 100 / self.context_window

    def to_wire(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "contextWindow": self.context_window, "percent": self.percent}


@record(frozen=True, slots=True)
class SessionStats:
    """``get_session_stats``: counts, tokens and cost over the whole file."""

    session_file: str | None
    session_id: str
    user_messages: int
    assistant_messages: int
    tool_calls: int
    tool_results: int
    total_messages: int
    usage: UsageTotals
    context_usage: ContextUsage | None
    cost_by_model: tuple[ModelSpend, ...] = ()
    """What each physical model cost, dearest first (a virtual model spreads a session over several)."""

    def to_wire(self) -> dict[str, Any]:
        # Pi leaves sessionFile out for a session not saved (--no-session).
        out: dict[str, object] = {"sessionFile": self.session_file} if self.session_file else {}
        out.update({
            "sessionId": self.session_id,
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "totalMessages": self.total_messages,
            "tokens": self.usage.to_wire(),
            "cost": js_number(round(self.usage.cost, 6)),
        })
        if self.context_usage is not None:
            out["contextUsage"] = self.context_usage.to_wire()
        if self.cost_by_model:
            # pi's addition to Pi's RPC shape: the breakdown Pi's /session shows.
            out["costByModel"] = [spend.to_wire() for spend in self.cost_by_model]
        return out
