"""Rebuild the model context from the active path of a session tree.

``build_session_context`` walks from the leaf up to the root through ``parentId`` links, so its
cost is proportional to the path, not to the file. On that path:

- the latest ``compaction`` wins: its system checkpoint (if any) and a ``compactionSummary``
  come first, then the non-system entries from ``firstKeptEntryId`` up to the compaction, then
  everything after it;
- ``branch_summary`` becomes a ``branchSummary`` message, ``custom_message`` a ``custom``
  message; ``custom``, ``usage``, ``label``, ``session_info``, ``model_change``,
  ``thinking_level_change`` and ``context_edit`` produce none;
- ``context_edit``: for each target the latest edit on the path wins; ``replacement: null``
  drops the target's message, anything else replaces only its content (a string becomes one
  text block for assistant and tool-result messages, whose content must be a list);
- the model in force is the latest ``model_change`` or assistant message on the path, the
  thinking level the latest ``thinking_level_change`` (``off`` when there is none).

Only the path's messages are ever validated into typed objects, in one batch, the first
time ``SessionContext.messages`` is read; ``message_dicts`` gives the wire dicts without that
cost (what a picker preview or a token estimate needs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
from typing import Any, cast

from ..records import record
from .entries import parse_messages
from .paths import parse_iso

Entry = dict[str, Any]
_LIST_CONTENT_ROLES = {"assistant", "toolResult"}


@record
class SessionContext:
    """What the next request is built from."""

    message_dicts: list[dict[str, Any]] = field(default_factory=list)
    """The context messages as wire dicts (camelCase), oldest first. Do not modify."""
    entry_ids: list[str] = field(default_factory=list)
    """For each message, the id of the entry it came from."""
    thinking_level: str = "off"
    model: dict[str, str] | None = None
    """``{"provider": ..., "modelId": ...}`` in force on the path, if any."""
    model_change: dict[str, str] | None = None
    """The latest ``model_change`` on the path: a virtual model it names stays selected past the
    responses (they name the physical models it routed to) while it is registered."""
    left_out: list[str] = field(default_factory=list)
    """Ids of message entries on the path left out for a malformed message (``readable``)."""
    _messages: list[Any] | None = field(default=None, repr=False)

    @property
    def messages(self) -> list[Any]:
        """Validated ``AgentMessage`` objects, oldest first (validated once, on first use)."""
        if self._messages is None:
            self._messages = parse_messages(self.message_dicts)
        return self._messages


def path_to(by_id: dict[str, Entry], leaf_id: str | None) -> list[Entry]:
    """The entries from the root down to ``leaf_id`` (empty when the leaf is None or unknown).

    Args:
        by_id: Entry dicts by id.
        leaf_id: Where the path ends.

    Returns:
        Root-first list of entry dicts.
    """
    # The walk of ``walk_up`` written out: on a 20,000-entry path the generator's resumption per
    # entry was a third of the cost.
    path: list[Entry] = []
    add = path.append
    # Called with a parent id that may be None or not a string (a damaged file): no key, the walk ends.
    get = cast("Callable[[object], Entry | None]", by_id.get)
    current = get(leaf_id) if leaf_id is not None else None
    # A damaged file could link entries in a cycle: no path is longer than the entry count.
    for _ in range(len(by_id)):
        if current is None:
            break
        add(current)
        current = get(current.get("parentId"))
    path.reverse()
    return path


def walk_up(by_id: dict[str, Entry], leaf_id: str | None) -> Iterator[Entry]:
    """The entries from ``leaf_id`` up to the root, one at a time: a caller looking for the latest
    entry of some kind reads only as far as it needs."""
    get = by_id.get
    current = get(leaf_id) if leaf_id is not None else None
    # A damaged file could link entries in a cycle: no path is longer than the entry count.
    budget = len(by_id)
    while current is not None and budget > 0:
        yield current
        budget -= 1
        parent = current.get("parentId")
        current = get(parent) if parent is not None else None


def _ms(entry: Entry) -> int:
    moment = parse_iso(entry.get("timestamp", ""))
    return int(moment.timestamp() * 1000) if moment else 0


def _with_content(message: dict[str, Any], replacement: Any) -> dict[str, Any]:
    if isinstance(replacement, str) and message.get("role") in _LIST_CONTENT_ROLES:
        replacement = [{"type": "text", "text": replacement}]
    return {**message, "content": replacement}


def entry_message(entry: Entry, edits: dict[str, Entry] | None = None) -> dict[str, Any] | None:
    """The context message dict an entry contributes, with its context edit applied.

    Args:
        entry: An entry dict.
        edits: Latest ``context_edit`` per target id on the same path.

    Returns:
        A message dict, or None when the entry contributes nothing.
    """
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return None
    elif kind == "custom_message":
        message = {
            "role": "custom",
            "customType": entry.get("customType", ""),
            "content": entry.get("content", ""),
            "display": entry.get("display", True),
            "timestamp": _ms(entry),
        }
        if entry.get("details") is not None:
            message["details"] = entry["details"]
    elif kind == "branch_summary":
        if not entry.get("summary"):
            return None
        return {"role": "branchSummary", "summary": entry["summary"], "fromId": entry.get("fromId"),
                "timestamp": _ms(entry)}
    else:
        return None
    if edits:
        edit = edits.get(entry.get("id", ""))
        if edit is not None:
            replacement = edit.get("replacement")
            if replacement is None:
                return None
            return _with_content(message, replacement)
    return message


def context_edits(path: list[Entry]) -> dict[str, Entry]:
    """The latest ``context_edit`` for each target on a path (later entries win)."""
    edits: dict[str, Entry] = {}
    for entry in path:
        if entry.get("type") == "context_edit" and isinstance(entry.get("targetId"), str):
            edits[entry["targetId"]] = entry
    return edits


def select_entries(path: list[Entry]) -> tuple[list[Entry], Entry | None]:
    """The entries of a path that feed the context once the latest compaction is applied.

    Args:
        path: Root-first entry dicts.

    Returns:
        (selected entries in order, the compaction entry in force or None). The compaction
        entry itself is not in the list.
    """
    compaction_index = -1
    for i in range(len(path) - 1, -1, -1):
        if path[i].get("type") == "compaction":
            compaction_index = i
            break
    return _select_from(path, compaction_index)


def _select_from(path: list[Entry], compaction_index: int) -> tuple[list[Entry], Entry | None]:
    """``select_entries`` once the index of the latest compaction (-1: none) is known."""
    if compaction_index < 0:
        return path, None
    compaction = path[compaction_index]
    first_kept = compaction.get("firstKeptEntryId")
    kept: list[Entry] = []
    found = False
    for entry in path[:compaction_index]:
        if not found and entry.get("id") == first_kept:
            found = True
        if found and not _is_system(entry):
            kept.append(entry)
    return kept + path[compaction_index + 1 :], compaction


_NUMBER = (int, float, type(None))


def readable(message: dict[str, Any]) -> bool:
    """Whether a stored message has the shape the kernel reads (a damaged or hand-edited file
    may hold ``"content": 5`` or ``"usage": "x"``; such a message is left out of the context
    and reported, never sent or summed). A cheap check of the fields read everywhere, not a
    validation: it runs for every message of a resumed session, so it is written flat."""
    role = message.get("role")
    content = message.get("content")
    if role == "user" or role == "custom":
        if type(content) is str:
            return True
    elif role == "assistant":
        usage = message.get("usage")
        if usage is not None:
            if type(usage) is not dict:
                return False
            get = usage.get
            if (type(get("input")) not in _NUMBER or type(get("output")) not in _NUMBER
                    or type(get("totalTokens")) not in _NUMBER or type(get("cacheRead")) not in _NUMBER
                    or type(get("cacheWrite")) not in _NUMBER):
                return False
        if content is None:
            return True
    elif role == "toolResult":
        if content is None:
            return True
    else:
        return type(role) is str
    if type(content) is not list:
        return False
    for block in content:
        if type(block) is not dict:
            return False
        kind = block.get("type")
        if kind == "text":
            if type(block.get("text", "")) is not str:
                return False
        elif kind == "toolCall":
            arguments = block.get("arguments")
            if type(block.get("name")) is not str or not (arguments is None or type(arguments) is dict):
                return False
        elif kind == "thinking":
            if type(block.get("thinking", "")) is not str:
                return False
        elif kind == "image":
            if type(block.get("data", "")) is not str:
                return False
        elif type(kind) is not str:
            return False
    return True


def _is_system(entry: Entry) -> bool:
    message = entry.get("message")
    return entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "system"


def build_session_context(by_id: dict[str, Entry], leaf_id: str | None) -> SessionContext:
    """Rebuild the context for the path ending at ``leaf_id``.

    Args:
        by_id: Every entry dict of the session by id, in file order.
        leaf_id: The active leaf (None: before the first entry, empty context). An id that is
            not in the session falls back to the last entry, as in Pi.

    Returns:
        The messages with their source entry ids, the model and the thinking level.
    """
    if leaf_id is not None and leaf_id not in by_id and by_id:
        leaf_id = next(reversed(by_id))
    return context_of_path(path_to(by_id, leaf_id))


def context_of_path(path: list[Entry]) -> SessionContext:
    """``build_session_context`` once the path is known (a session that never branched has the
    file's entries for its path: see ``SessionManager``).

    Args:
        path: Root-first entry dicts (only read).

    Returns:
        The messages with their source entry ids, the model and the thinking level.
    """
    context = SessionContext()
    edits: dict[str, Entry] = {}
    model_change: Entry | None = None
    model_change_index = compaction_index = -1
    # One pass for the settings in force, the context edits and the latest compaction; these
    # are rare entries, the messages (nearly all of a long path) are only stepped over.
    for index, entry in enumerate(path):
        kind = entry.get("type")
        if kind == "message":
            continue
        if kind == "thinking_level_change" and isinstance(entry.get("thinkingLevel"), str):
            context.thinking_level = entry["thinkingLevel"]
        elif kind == "model_change":
            model_change, model_change_index = entry, index
        elif kind == "context_edit" and isinstance(entry.get("targetId"), str):
            edits[entry["targetId"]] = entry
        elif kind == "compaction":
            compaction_index = index
    # The model in force: the latest assistant message after the latest model change, else that change.
    # A failed routing attempt (its message names the virtual model, api "pi-virtual") is stepped over.
    for index in range(len(path) - 1, model_change_index, -1):
        entry = path[index]
        message = entry.get("message") if entry.get("type") == "message" else None
        if (type(message) is dict and message.get("role") == "assistant" and message.get("model")
                and message.get("api") != "pi-virtual"):
            context.model = {"provider": message.get("provider", ""), "modelId": message["model"]}
            break
    else:
        if model_change is not None:
            context.model = {"provider": model_change.get("provider", ""), "modelId": model_change.get("modelId", "")}
    if model_change is not None:
        context.model_change = {"provider": model_change.get("provider", ""),
                                "modelId": model_change.get("modelId", "")}
    selected, compaction = _select_from(path, compaction_index)
    dicts: list[dict[str, Any]] = []
    ids: list[str] = []
    if compaction is not None:
        checkpoint = compaction.get("systemMessage")
        if isinstance(checkpoint, dict):
            dicts.append({"role": "system", **checkpoint} if "role" not in checkpoint else checkpoint)
            ids.append(compaction["id"])
        dicts.append({"role": "compactionSummary", "summary": compaction.get("summary", ""),
                      "tokensBefore": compaction.get("tokensBefore", 0), "timestamp": _ms(compaction)})
        ids.append(compaction["id"])
    add_message, add_id = dicts.append, ids.append
    edited = bool(edits)  # (nearly always False: no look into the empty edits per message)
    for entry in selected:
        entry_id: str = entry.get("id", "")
        if entry.get("type") == "message" and not (edited and entry_id in edits):
            message = entry.get("message")  # the common case, inlined
            if type(message) is dict:
                if readable(message):
                    add_message(message)
                    add_id(entry_id)
                else:
                    context.left_out.append(entry_id)
            continue
        message = entry_message(entry, edits)
        if message is not None:
            add_message(message)
            add_id(entry_id)
    context.message_dicts = dicts
    context.entry_ids = ids
    return context
