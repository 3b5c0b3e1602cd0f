"""Typed views of the lines in a session file (Pi's session format, version 3).

The store keeps every line as the JSON dict it was read from, so an entry type or field this
version does not know is written back exactly as it came. These models (``pi_runtime.jsonmodel``) are the typed
view callers get from ``SessionManager.get_entry()`` and friends: ``parse_entry`` turns a dict
into the matching class (``UnknownEntry`` for types it does not know) and ``entry_to_wire``
turns a model back into Pi's JSON shape.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from ..ai.types import AgentMessage, UserContent, WireModel, message_list_adapter
from ..jsonmodel import Field

CURRENT_SESSION_VERSION = 3

ENTRY_TYPES: tuple[str, ...] = (
    "message", "model_change", "thinking_level_change", "usage", "compaction", "context_edit",
    "branch_summary", "custom", "custom_message", "label", "session_info",
)
"""Every entry type Pi documents (the header's ``session`` excluded)."""

REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "session": ("type", "id", "timestamp", "cwd"),
    "message": ("message",),
    "model_change": ("provider", "modelId"),
    "thinking_level_change": ("thinkingLevel",),
    "usage": ("kind", "usage"),
    "compaction": ("summary", "firstKeptEntryId", "tokensBefore"),
    "context_edit": ("targetId", "replacement"),
    "branch_summary": ("fromId", "summary"),
    "custom": ("customType",),
    "custom_message": ("customType", "content", "display"),
    "label": ("targetId",),
    "session_info": (),
}
"""Fields the documented shape requires beyond ``type``/``id``/``parentId``/``timestamp``."""


class SessionHeader(WireModel):
    """First line of a session file; not part of the tree."""

    type: Literal["session"] = "session"
    version: int | str | None = None
    """Missing in version-1 files; kept as written (a file may say ``"3"``, which Pi reads as 3)."""
    id: str
    timestamp: str
    cwd: str = ""
    parent_session: str | None = None
    """Path of the session this one was forked or cloned from."""


class SessionEntryBase(WireModel):
    type: str
    id: str
    parent_id: str | None = None
    """None for a root entry."""
    timestamp: str = ""
    """ISO 8601 time the entry was written."""


class MessageEntry(SessionEntryBase):
    type: Literal["message"] = "message"
    message: AgentMessage


class ModelChangeEntry(SessionEntryBase):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class ThinkingLevelChangeEntry(SessionEntryBase):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str


class UsageEntry(SessionEntryBase):
    """Usage not tied to an assistant message (cache warming); never in the context."""

    type: Literal["usage"] = "usage"
    kind: str
    provider: str | None = None
    model: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)


class CompactionEntry(SessionEntryBase):
    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    """First entry kept verbatim; the entry's own id for a retain-none compaction."""
    tokens_before: int = 0
    system_message: dict[str, Any] | None = None
    """Prompt/tool checkpoint at the boundary (newer Pi)."""
    usage: dict[str, Any] | None = None
    details: Any = None
    from_hook: bool | None = None


class ContextEditEntry(SessionEntryBase):
    """Replaces (or with ``replacement=None`` omits) one earlier entry's content in the context."""

    type: Literal["context_edit"] = "context_edit"
    target_id: str
    replacement: str | list[dict[str, Any]] | None = None


class BranchSummaryEntry(SessionEntryBase):
    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    """The leaf whose abandoned path was summarised."""
    summary: str
    usage: dict[str, Any] | None = None
    details: Any = None
    from_hook: bool | None = None


class CustomEntry(SessionEntryBase):
    """Extension state; never in the model context."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None


class CustomMessageEntry(SessionEntryBase):
    """Extension message that is part of the model context."""

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserContent] = ""
    display: bool = True
    details: Any = None


class LabelEntry(SessionEntryBase):
    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None
    """None (absent) clears the label."""


class SessionInfoEntry(SessionEntryBase):
    type: Literal["session_info"] = "session_info"
    name: str | None = None


class UnknownEntry(SessionEntryBase):
    """An entry type this version does not know; kept and written back verbatim."""


_CLASSES: dict[str, type[SessionEntryBase]] = {
    "message": MessageEntry,
    "model_change": ModelChangeEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "usage": UsageEntry,
    "compaction": CompactionEntry,
    "context_edit": ContextEditEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
}

SessionEntry = (
    MessageEntry | ModelChangeEntry | ThinkingLevelChangeEntry | UsageEntry | CompactionEntry
    | ContextEditEntry | BranchSummaryEntry | CustomEntry | CustomMessageEntry | LabelEntry
    | SessionInfoEntry | UnknownEntry
)


def parse_entry(data: dict[str, Any]) -> SessionEntry:
    """Validate one entry dict into its typed model.

    Args:
        data: An entry as read from the file (camelCase keys).

    Returns:
        The typed entry; ``UnknownEntry`` for types this version does not know, or for a
        known type whose fields do not validate (it is still kept, never dropped).
    """
    kind = data.get("type")
    cls = _CLASSES.get(kind, UnknownEntry) if isinstance(kind, str) else UnknownEntry
    try:
        return cls.model_validate(data)
    except ValueError:
        return UnknownEntry.model_validate(data)


def parse_header(data: dict[str, Any]) -> SessionHeader:
    """Validate the header line."""
    return SessionHeader.model_validate(data)


# Fields whose explicit null carries meaning and must survive serialisation.
_KEEP_NULL = {"parentId", "replacement"}


def entry_to_wire(entry: SessionEntryBase | SessionHeader) -> dict[str, Any]:
    """A typed entry back to Pi's JSON dict (unset optionals left out, ``parentId`` kept).

    Args:
        entry: A typed entry or header.

    Returns:
        The dict to write as one JSON line.
    """
    data = entry.model_dump(by_alias=True, mode="json")
    declared = {f.alias or name for name, f in type(entry).model_fields.items()}
    out: dict[str, Any] = {}
    for key, value in data.items():
        # An unset optional is left out; an unknown field keeps even an explicit null.
        if value is None and key in declared and key not in _KEEP_NULL:
            continue
        out[key] = value
    if isinstance(entry, MessageEntry) and hasattr(entry.message, "to_wire"):
        out["message"] = entry.message.to_wire()
    if isinstance(entry, SessionHeader):
        out.pop("parentId", None)
    return out


def shape_problems(data: dict[str, Any]) -> list[str]:
    """Check one line against the documented shape of its type.

    Args:
        data: A header or entry dict.

    Returns:
        Human-readable problems; empty when the line matches. Unknown types only need the
        entry base fields.
    """
    problems: list[str] = []
    kind = data.get("type")
    base: tuple[str, ...] = () if kind == "session" else ("id", "parentId", "timestamp")
    for key in base + (REQUIRED_FIELDS.get(kind, ()) if isinstance(kind, str) else ()):
        if key not in data:
            problems.append(f"{kind}: missing {key}")
    if kind != "session" and "id" in data and not isinstance(data["id"], str):
        problems.append(f"{kind}: id is not a string")
    if kind == "message":
        message = data.get("message")
        if not isinstance(message, dict) or "role" not in message:
            problems.append("message: no role")
        elif message["role"] != "system" and not isinstance(message.get("timestamp"), int):
            problems.append("message: timestamp is not Unix milliseconds")
    return problems




@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk load.

    Building tens of thousands of dicts or models triggers repeated full collections that
    rescan everything already loaded (in CPython 3.11 this doubled the time to open a large
    session); none of these objects form cycles, so pausing is safe.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_messages(items: list[dict[str, Any]]) -> list[Any]:
    """Validate many message dicts in one call (much faster than one call each).

    A message that does not validate (a damaged or hand-edited file) becomes an
    ``UnknownMessage`` with role ``unreadable`` and the problem, in its place: the list keeps
    one object per dict, and no front end or provider is handed a half-typed message.
    """
    from ..jsonmodel import ValidationError

    with gc_paused():
        try:
            return message_list_adapter().validate_python(items)
        except ValidationError:
            return [_one_message(item) for item in items]


def _one_message(item: dict[str, Any]) -> Any:
    from ..ai.types import UnknownMessage, parse_message
    from ..jsonmodel import ValidationError

    try:
        return parse_message(item)
    except ValidationError as exc:
        problem = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        return UnknownMessage.model_validate({"role": "unreadable", "problem": problem})
