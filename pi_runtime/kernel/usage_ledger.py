"""``UsageLedger``: the one place tokens, cost and context fill are computed (footer, stats, RPC).

Pi's footer semantics: totals count every entry of the session file, on every branch, with the
summary calls of compactions and branch summaries included, so moving in the tree or compacting
never makes the spend shrink. The context figure is the last answer's provider-reported usage
plus an estimate of what followed (everything estimated when the server reports no usage, or
when a failed attempt was taken out of the context after that report), against the window of
the model in use now. Right after a compaction the old usage describes
a context that no longer exists, so the figure is unknown until the next answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# ``results`` (ten frozen records, ~6 ms to define) is imported where a result is made: a plain prompt
# (``pi -p``) makes none.
if TYPE_CHECKING:
    from .results import ContextUsage, ModelSpend, UsageTotals


TOOLS_AND_SUMMARIES = "Tools/summaries"
"""The breakdown's key for spend no model answer carries (tool results, compactions, branch summaries)."""


class UsageLedger:
    """Running totals over the session file, read incrementally as entries are appended.

    Args:
        manager: Returns the current ``SessionManager`` (it changes on new, switch and fork).
    """

    def __init__(self, manager: Any) -> None:
        self._manager = manager
        self._source: Any = None
        self._seen = 0
        self._sums = [0, 0, 0, 0]
        self._cost = 0.0
        self._hit_rate: float | None = None
        self.counts = {"user": 0, "assistant": 0, "toolResult": 0, "toolCalls": 0, "messages": 0}
        """Message counts over the file (system messages left out)."""
        self._by_model: dict[str, list[float]] = {}
        """``provider/model`` -> [cost, tokens] (Pi's usage breakdown)."""

    # ------------------------------------------------------------------ totals

    def totals(self) -> UsageTotals:
        """Tokens and cost over every entry of the current file."""
        from .results import UsageTotals

        self._catch_up()
        i, o, cr, cw = self._sums
        return UsageTotals(input=i, output=o, cache_read=cr, cache_write=cw, cost=self._cost,
                           latest_cache_hit_rate=self._hit_rate)

    def _catch_up(self) -> None:
        manager = self._manager()
        # A fork or clone switches the same manager to a new file (a new session id): its
        # entries are counted from the start, as a restart on that file would.
        source = (manager, getattr(manager, "session_id", None))
        if source != self._source:
            self._source, self._seen = source, 0
            self._sums, self._cost, self._hit_rate = [0, 0, 0, 0], 0.0, None
            self.counts = dict.fromkeys(self.counts, 0)
            self._by_model = {}
        entries = manager.raw_entries()
        self._add_entries(entries[self._seen:])
        self._seen = len(entries)

    def cost_by_model(self) -> tuple[ModelSpend, ...]:
        """Cost and tokens per ``provider/model`` over the whole file, dearest first (as Pi sorts it);
        keys that spent nothing are left out."""
        from .results import ModelSpend

        self._catch_up()
        spends = [ModelSpend(key, cost, int(tokens)) for key, (cost, tokens) in self._by_model.items()
                  if cost > 0 or tokens > 0]
        return tuple(sorted(spends, key=lambda spend: -spend.cost))

    def _spend(self, key: str, usage: dict[str, Any]) -> None:
        tokens = 0
        for name in ("input", "output", "cacheRead", "cacheWrite"):
            value = usage.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                tokens += int(value)
        cost = usage.get("cost")
        total = cost.get("total") if isinstance(cost, dict) else None
        spent = float(total) if isinstance(total, (int, float)) and not isinstance(total, bool) else 0.0
        slot = self._by_model.get(key)
        if slot is None:
            self._by_model[key] = [spent, tokens]
        else:
            slot[0] += spent
            slot[1] += tokens

    def _add_entries(self, entries: list[dict[str, Any]]) -> None:
        """``_add_entry`` for each entry, with the common shapes read flat (a session just opened
        has 20,000 of them): user, assistant and tool-result messages whose usage, if any, holds
        plain integers. Any other entry goes through ``_add_entry``, in its place."""
        s_in, s_out, s_read, s_write = self._sums
        cost, hit_rate = self._cost, self._hit_rate
        tally = {"user": 0, "assistant": 0, "toolResult": 0}
        by_model = self._by_model
        calls = 0
        message: Any
        prompt: Any
        output: Any
        read: Any
        write: Any
        for entry in entries:
            message = entry.get("message") if entry.get("type") == "message" else None
            role = message.get("role") if type(message) is dict else None
            usage = message.get("usage") if role == "assistant" or role == "toolResult" else None
            if type(usage) is not dict:
                if usage is not None:
                    role = None  # not an object: the general way below
            else:
                prompt, output = usage.get("input"), usage.get("output")
                read, write = usage.get("cacheRead"), usage.get("cacheWrite")
                total = usage.get("cost")
                total = total.get("total") if type(total) is dict else None
                if not (type(prompt) is int and type(output) is int and type(read) is int and type(write) is int
                        and (total is None or type(total) is float or type(total) is int)):
                    role = None  # an odd figure: the general way below
            if role not in tally:
                # The general way, with the running figures handed over and back (the cost is
                # a float sum and the hit rate the latest: both depend on the order).
                self._sums, self._cost, self._hit_rate = [s_in, s_out, s_read, s_write], cost, hit_rate
                self._add_entry(entry)
                (s_in, s_out, s_read, s_write), cost, hit_rate = self._sums, self._cost, self._hit_rate
                continue
            tally[role] += 1
            if usage is not None:
                s_in += prompt
                s_out += output
                s_read += read
                s_write += write
                if total is not None:
                    cost += float(total)
                if role == "assistant":
                    hit_rate = read / (prompt + read + write) * 100 if prompt + read + write > 0 else None
                    key = f"{message.get('provider')}/{message.get('responseModel') or message.get('model')}"
                else:
                    key = TOOLS_AND_SUMMARIES
                slot = by_model.get(key)
                if slot is None:
                    by_model[key] = [0.0 if total is None else float(total), prompt + output + read + write]
                else:
                    slot[0] += 0.0 if total is None else float(total)
                    slot[1] += prompt + output + read + write
            if role == "assistant":
                content = message.get("content")
                for block in content if type(content) is list else ():
                    if isinstance(block, dict) and block.get("type") == "toolCall":
                        calls += 1
        self._sums, self._cost, self._hit_rate = [s_in, s_out, s_read, s_write], cost, hit_rate
        counts = self.counts
        for role, count in tally.items():
            counts[role] += count
        counts["messages"] += sum(tally.values())
        counts["toolCalls"] += calls

    def _add_entry(self, entry: dict[str, Any]) -> None:
        kind = entry.get("type")
        if kind == "message":
            message = entry.get("message")
            if not isinstance(message, dict):
                return  # not a message pi can read (a foreign or hand-edited line): nothing to count
            role = message.get("role")
            self.counts["messages"] += 1  # the session's system message too, as Pi counts it
            if role == "system":
                return
            if role in ("user", "assistant", "toolResult"):
                self.counts[role] += 1
            if role == "assistant":
                content = message.get("content")
                self.counts["toolCalls"] += sum(
                    1 for b in (content if isinstance(content, list) else ()) if isinstance(b, dict) and b.get("type") == "toolCall"
                )
            if role in ("assistant", "toolResult"):
                self._add_usage(message.get("usage"))
            usage = message.get("usage")
            if role == "assistant":
                self._note_cache_hits(usage)
                if isinstance(usage, dict):
                    self._spend(f"{message.get('provider')}/{message.get('responseModel') or message.get('model')}",
                                usage)
            elif role == "toolResult" and isinstance(usage, dict):
                self._spend(TOOLS_AND_SUMMARIES, usage)
        elif kind in ("compaction", "branch_summary", "usage"):
            # "usage": calls an extension or tool made on the side (Pi records them as entries).
            self._add_usage(entry.get("usage"))
            usage = entry.get("usage")
            if isinstance(usage, dict):
                key = f"{entry.get('provider')}/{entry.get('model')}" if kind == "usage" else TOOLS_AND_SUMMARIES
                self._spend(key, usage)

    def _note_cache_hits(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        numbers = [usage.get(k) for k in ("input", "cacheRead", "cacheWrite")]
        prompt = sum(n for n in numbers if isinstance(n, (int, float)) and not isinstance(n, bool))
        read = usage.get("cacheRead")
        self._hit_rate = (read / prompt * 100) if prompt > 0 and isinstance(read, (int, float)) else None

    def _add_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        for i, key in enumerate(("input", "output", "cacheRead", "cacheWrite")):
            value = usage.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self._sums[i] += int(value)
        cost = usage.get("cost")
        if isinstance(cost, dict) and isinstance(cost.get("total"), (int, float)):
            self._cost += float(cost["total"])

    # ------------------------------------------------------------------ context

    def context(self, messages: list[Any], model: Any) -> ContextUsage | None:
        """Context fill of ``messages`` for ``model`` (None without a model or a window)."""
        from ..compaction.estimate import estimate_projected_tokens, usage_standing
        from .results import ContextUsage

        if model is None or not model.context_window:
            return None
        # Read from the branch each time, not kept as a flag: a fork, a switch or a move in the
        # tree changes which compaction or edit comes after the last answer.
        standing = usage_standing(self._manager().walk_back())
        if standing == "unknown":
            return ContextUsage(None, model.context_window)
        tokens = estimate_projected_tokens(messages, lambda: standing == "outdated")
        return ContextUsage(tokens or 0, model.context_window)
