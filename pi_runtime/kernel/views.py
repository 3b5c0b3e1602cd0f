"""Read-only views of a session for front ends and RPC: state, entries, tree, last answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..session.entries import entry_to_wire

# ``results`` (ten frozen records, ~6 ms to define) is imported where a result is made: a plain prompt
# (``pi -p``) makes none.
if TYPE_CHECKING:
    from .results import SessionStats


def tree_to_wire(nodes: list[Any]) -> list[dict[str, Any]]:
    """Pi's ``get_tree`` shape; iterative, since a long linear session is a very deep tree."""
    out: list[dict[str, Any]] = []
    stack: list[tuple[Any, list[dict[str, Any]]]] = [(n, out) for n in reversed(nodes)]
    while stack:
        node, into = stack.pop()
        raw = getattr(node, "raw", None)
        # The stored dict when there is one: what Pi wrote and pi does not know goes out too.
        entry = dict(raw) if raw is not None else entry_to_wire(node.entry)
        item: dict[str, Any] = {"entry": entry, "children": []}
        if node.label:
            item["label"] = node.label
        into.append(item)
        stack.extend((child, item["children"]) for child in reversed(node.children))
    return out


def entries_since(raw: list[dict[str, Any]], since: str | None) -> list[dict[str, Any]]:
    """Entries in append order, strictly after the entry ``since`` (all when None).

    Raises:
        KeyError: ``since`` is not an entry id of this session.
    """
    start = 0
    if since is not None:
        for i, entry in enumerate(raw):
            if entry.get("id") == since:
                start = i + 1
                break
        else:
            raise KeyError(f"Entry {since} not found")
    return [dict(e) for e in raw[start:]]


def last_assistant_text(messages: list[Any]) -> str | None:
    """Text of the latest assistant message that has any (tool-only and failed ones skipped)."""
    for message in reversed(messages):
        if getattr(message, "role", None) != "assistant":
            continue
        text = message.text()
        if text:
            return str(text)
    return None


def session_state(session: Any) -> dict[str, Any]:
    """Pi's RPC ``get_state`` data for ``session``."""
    agent = session.agent
    # Pi's key order: the model first, the session name after the session id.
    state: dict[str, Any] = {"model": session.model.to_public_wire()} if session.model is not None else {}
    state.update({
        "thinkingLevel": session.thinking_level,
        "isStreaming": session.is_streaming,
        "isCompacting": session.is_compacting,
        "steeringMode": agent.steering_mode,
        "followUpMode": agent.follow_up_mode,
    })
    if session.session_file:  # Pi leaves the key out for a session not saved (--no-session)
        state["sessionFile"] = session.session_file
    state["sessionId"] = session.session_id
    if session.session_name:
        state["sessionName"] = session.session_name
    state.update({
        "autoCompactionEnabled": session.auto_compaction_enabled,
        # Every message get_messages returns, the system message included (Pi's messages.length).
        "messageCount": len(agent.state.messages),
        # What the queue shows (Pi counts the user's queued messages; extensions' are not listed).
        "pendingMessageCount": len(session.queued_messages()),
    })
    return state


def session_stats(session: Any, ledger: Any) -> SessionStats:
    """``get_session_stats``: counts and usage from the ledger (the whole file), context now."""
    from .results import SessionStats

    usage = ledger.totals()  # catches the counts up too
    counts = ledger.counts
    return SessionStats(
        session_file=session.session_file, session_id=session.session_id,
        user_messages=counts["user"], assistant_messages=counts["assistant"], tool_calls=counts["toolCalls"],
        tool_results=counts["toolResult"], total_messages=counts["messages"], usage=usage,
        context_usage=session.context_usage(), cost_by_model=ledger.cost_by_model(),
    )
