"""Read-only views of a session for front ends and RPC: state, stats, entries, tree, text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..session.entries import entry_to_wire

if TYPE_CHECKING:
    from .session import AgentSession


def _tree_to_wire(nodes: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    # Iterative: a long linear session is a very deep tree.
    stack: list[tuple[Any, list[dict[str, Any]]]] = [(n, out) for n in reversed(nodes)]
    while stack:
        node, into = stack.pop()
        item: dict[str, Any] = {"entry": entry_to_wire(node.entry), "children": []}
        if node.label:
            item["label"] = node.label
        into.append(item)
        stack.extend((child, item["children"]) for child in reversed(node.children))
    return out


class InspectMixin:
    def get_state(self: "AgentSession") -> dict[str, Any]:
        state: dict[str, Any] = {
            "thinkingLevel": self.thinking_level,
            "isStreaming": self.is_streaming,
            "isCompacting": self.is_compacting,
            "steeringMode": self.agent.steering_mode,
            "followUpMode": self.agent.follow_up_mode,
            "sessionFile": self.session_file,
            "sessionId": self.session_id,
            "autoCompactionEnabled": self.auto_compaction_enabled,
            "messageCount": sum(1 for m in self.agent.state.messages if getattr(m, "role", None) != "system"),
            "pendingMessageCount": len(self.agent.steering_queue) + len(self.agent.follow_up_queue),
        }
        if self.model is not None:
            state["model"] = self.model.to_wire()
        if self.session_name:
            state["sessionName"] = self.session_name
        return state

    def get_messages(self: "AgentSession") -> list[dict[str, Any]]:
        return [m.to_wire() for m in self.agent.state.messages]

    def context_usage(self: "AgentSession") -> dict[str, Any] | None:
        """Tokens in the current context (last usage + estimate of what followed) vs the window."""
        from ..compaction.estimate import estimate_context_tokens

        model = self.model
        if model is None or not model.context_window:
            return None
        tokens = None if self._usage_stale else estimate_context_tokens(self.agent.state.messages)
        if tokens is None:
            return {"tokens": None, "contextWindow": model.context_window, "percent": None}
        return {
            "tokens": tokens,
            "contextWindow": model.context_window,
            "percent": round(tokens * 100 / model.context_window, 1),
        }

    def get_session_stats(self: "AgentSession") -> dict[str, Any]:
        """Message counts, tokens and cost over the whole file (every branch, summaries too)."""
        counts = {"user": 0, "assistant": 0, "toolResult": 0}
        tool_calls = 0
        total_messages = 0
        tokens = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
        cost = 0.0

        def add_usage(usage: Any) -> None:
            nonlocal cost
            if not isinstance(usage, dict):
                return
            for key in tokens:
                value = usage.get(key)
                if isinstance(value, (int, float)):
                    tokens[key] += int(value)
            c = usage.get("cost")
            if isinstance(c, dict) and isinstance(c.get("total"), (int, float)):
                cost += float(c["total"])

        for entry in self.session_manager.raw_entries():
            kind = entry.get("type")
            if kind == "message":
                message = entry.get("message") or {}
                role = message.get("role")
                if role == "system":
                    continue
                total_messages += 1
                if role in counts:
                    counts[role] += 1
                if role == "assistant":
                    tool_calls += sum(1 for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "toolCall")
                    add_usage(message.get("usage"))
                elif role == "toolResult":
                    add_usage(message.get("usage"))
            elif kind in ("compaction", "branch_summary"):
                add_usage(entry.get("usage"))
        stats: dict[str, Any] = {
            "sessionFile": self.session_file,
            "sessionId": self.session_id,
            "userMessages": counts["user"],
            "assistantMessages": counts["assistant"],
            "toolCalls": tool_calls,
            "toolResults": counts["toolResult"],
            "totalMessages": total_messages,
            "tokens": {**tokens, "total": sum(tokens.values())},
            "cost": round(cost, 6),
        }
        usage = self.context_usage()
        if usage is not None:
            stats["contextUsage"] = usage
        return stats

    def get_entries(self: "AgentSession", since: str | None = None) -> dict[str, Any]:
        """Entries in append order, optionally strictly after the entry ``since``.

        Raises:
            KeyError: ``since`` is not an entry id of this session.
        """
        raw = self.session_manager.raw_entries()
        start = 0
        if since is not None:
            for i, entry in enumerate(raw):
                if entry.get("id") == since:
                    start = i + 1
                    break
            else:
                raise KeyError(f"Entry {since} not found")
        return {"entries": [dict(e) for e in raw[start:]], "leafId": self.session_manager.leaf_id}

    def get_tree(self: "AgentSession") -> dict[str, Any]:
        return {"tree": _tree_to_wire(self.session_manager.get_tree()), "leafId": self.session_manager.leaf_id}

    def get_last_assistant_text(self: "AgentSession") -> str | None:
        """Text of the latest assistant message that has any (tool-only and failed ones skipped)."""
        for message in reversed(self.agent.state.messages):
            if getattr(message, "role", None) != "assistant":
                continue
            if message.stop_reason in ("error", "aborted") and not message.text():
                continue
            text = message.text()
            if text:
                return text
        return None

    def export_html(self: "AgentSession", path: str | None = None) -> str:
        """Write a standalone HTML transcript of the session; returns its path."""
        from .export_html import export_session_html

        return export_session_html(self, path)
