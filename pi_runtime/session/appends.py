"""The typed ``append_*`` methods of ``SessionManager``: one per entry type Pi writes.

Each builds the entry's fields in Pi's JSON shape and hands them to ``_append``, which adds
the id, ``parentId`` (the current leaf) and timestamp, indexes the entry, moves the leaf and
persists it. Every method returns the new entry's id.
"""

from __future__ import annotations

from typing import Any


def _wire(value: Any) -> Any:
    return value.to_wire() if hasattr(value, "to_wire") else value


class EntryAppends:
    """Mixin; the host class provides ``_append``, ``_by_id``, ``_leaf_id``, ``branch``, ``reset_leaf``."""

    _by_id: dict[str, Any]
    _leaf_id: str | None

    def _append(self, kind: str, fields: dict[str, Any], *,
                lead: dict[str, Any] | None = None) -> str:  # pragma: no cover - provided by host
        raise NotImplementedError

    def branch(self, entry_id: str) -> None:  # pragma: no cover - provided by host
        raise NotImplementedError

    def reset_leaf(self) -> None:  # pragma: no cover - provided by host
        raise NotImplementedError

    def append_message(self, message: Any) -> str:
        """Append an ``AgentMessage`` (typed object or wire dict). Returns the entry id."""
        return self._append("message", {"message": _wire(message)})

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append("model_change", {"provider": provider, "modelId": model_id})

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def append_usage(self, kind: str, provider: str, model: str, usage: Any) -> str:
        """Usage outside any assistant message (e.g. ``cache_warm``)."""
        return self._append("usage", {"kind": kind, "provider": provider, "model": model, "usage": _wire(usage)})

    def append_compaction(self, summary: str, first_kept_entry_id: str, tokens_before: int, details: Any = None,
                          from_hook: bool | None = None, *, usage: Any = None,
                          system_message: Any = None) -> str:
        """Record a compaction. ``first_kept_entry_id`` must name an entry on the path."""
        fields: dict[str, Any] = {"summary": summary, "firstKeptEntryId": first_kept_entry_id,
                                  "tokensBefore": tokens_before}
        for key, value in (("systemMessage", system_message), ("usage", usage), ("details", details),
                           ("fromHook", from_hook)):
            if value is not None:
                fields[key] = _wire(value)
        return self._append("compaction", fields)

    def append_branch_summary(self, from_id: str, summary: str, details: Any = None, from_hook: bool | None = None,
                              *, usage: Any = None) -> str:
        """Append a summary of the abandoned branch ending at ``from_id`` at the current leaf."""
        fields: dict[str, Any] = {"fromId": from_id, "summary": summary}
        for key, value in (("usage", usage), ("details", details), ("fromHook", from_hook)):
            if value is not None:
                fields[key] = _wire(value)
        return self._append("branch_summary", fields)

    def branch_with_summary(self, branch_from_id: str | None, summary: str, details: Any = None,
                            from_hook: bool | None = None, *, usage: Any = None) -> str:
        """Move the leaf to ``branch_from_id`` (None: a new root) and attach a branch summary."""
        old_leaf = self._leaf_id
        if branch_from_id is None:
            self.reset_leaf()
        else:
            self.branch(branch_from_id)
        return self.append_branch_summary(old_leaf or "", summary, details, from_hook, usage=usage)

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        """Extension state that stays out of the model context."""
        lead: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            lead["data"] = data
        return self._append("custom", {}, lead=lead)  # Pi's key order: type, customType, data, id, ...

    def append_custom_message(self, custom_type: str, content: Any, display: bool = True, details: Any = None) -> str:
        """An extension message that is part of the model context."""
        if isinstance(content, list):
            content = [_wire(block) for block in content]
        fields: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        return self._append("custom_message", fields)

    def append_label(self, target_id: str, label: str | None) -> str:
        """Set (or with None/"" clear) the label of an entry."""
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        return self._append("label", {"targetId": target_id, **({"label": label} if label else {})})

    def append_session_info(self, name: str) -> str:
        """Name the session (an empty name clears it)."""
        return self._append("session_info", {"name": name.strip()})

    def append_context_edit(self, target_id: str, replacement: Any) -> str:
        """Replace (None: omit) an earlier entry's content in future model context only."""
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        if isinstance(replacement, list):
            replacement = [_wire(block) for block in replacement]
        return self._append("context_edit", {"targetId": target_id, "replacement": replacement})
