"""Typed views of the lines in a session file (Pi's session format, version 3).

The store keeps every line as the JSON dict it was read from, so an entry type or field this
version does not know is written back exactly as it came (fork, clone and export copy those
dicts). These msgspec structs (``ai.wire.WireStruct``, tagged on ``type``) are the typed view
callers get from ``SessionManager.get_entry()`` and friends: ``parse_entry`` turns a dict into
the matching class (``UnknownEntry``, holding the dict, for types it does not know or lines
that do not validate) and ``entry_to_wire`` turns a struct back into Pi's JSON shape.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, Literal

import msgspec
from msgspec import field

from ..ai.types import UnknownMessage, UserContent, parse_message, parse_message_list
from ..ai.wire import WireStruct, attach_wire

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


class SessionHeader(WireStruct, tag_field="type", tag="session", kw_only=True):
    """First line of a session file; not part of the tree."""

    type: ClassVar[Literal["session"]] = "session"
    version: int | str | None = None
    """Missing in version-1 files; kept as written (a file may say ``"3"``, which Pi reads as 3)."""
    id: str
    timestamp: str
    cwd: str = ""
    parent_session: str | None = None
    """Path of the session this one was forked or cloned from."""


class SessionEntryBase(WireStruct, tag_field="type", kw_only=True):
    type: ClassVar[str]
    id: str
    parent_id: str | None = None
    """None for a root entry."""
    timestamp: str = ""
    """ISO 8601 time the entry was written."""


class MessageEntry(SessionEntryBase, tag="message", kw_only=True):
    type: ClassVar[Literal["message"]] = "message"
    message: Any
    """An AgentMessage (``UnknownMessage`` for a role this version does not know)."""


class ModelChangeEntry(SessionEntryBase, tag="model_change", kw_only=True):
    type: ClassVar[Literal["model_change"]] = "model_change"
    provider: str
    model_id: str


class ThinkingLevelChangeEntry(SessionEntryBase, tag="thinking_level_change", kw_only=True):
    type: ClassVar[Literal["thinking_level_change"]] = "thinking_level_change"
    thinking_level: str


class UsageEntry(SessionEntryBase, tag="usage", kw_only=True):
    """Usage not tied to an assistant message (cache warming); never in the context."""

    type: ClassVar[Literal["usage"]] = "usage"
    kind: str
    provider: str | None = None
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)


class CompactionEntry(SessionEntryBase, tag="compaction", kw_only=True):
    type: ClassVar[Literal["compaction"]] = "compaction"
    summary: str
    first_kept_entry_id: str
    """First entry kept verbatim; the entry's own id for a retain-none compaction."""
    tokens_before: int = 0
    system_message: dict[str, Any] | None = None
    """Prompt/tool checkpoint at the boundary (newer Pi)."""
    usage: dict[str, Any] | None = None
    details: Any = None
    from_hook: bool | None = None


class ContextEditEntry(SessionEntryBase, tag="context_edit", kw_only=True):
    """Replaces (or with ``replacement=None`` omits) one earlier entry's content in the context."""

    type: ClassVar[Literal["context_edit"]] = "context_edit"
    target_id: str
    replacement: str | list[dict[str, Any]] | None = None


class BranchSummaryEntry(SessionEntryBase, tag="branch_summary", kw_only=True):
    type: ClassVar[Literal["branch_summary"]] = "branch_summary"
    from_id: str
    """The leaf whose abandoned path was summarised."""
    summary: str
    usage: dict[str, Any] | None = None
    details: Any = None
    from_hook: bool | None = None


class CustomEntry(SessionEntryBase, tag="custom", kw_only=True):
    """Extension state; never in the model context."""

    type: ClassVar[Literal["custom"]] = "custom"
    custom_type: str
    data: Any = None


class CustomMessageEntry(SessionEntryBase, tag="custom_message", kw_only=True):
    """Extension message that is part of the model context."""

    type: ClassVar[Literal["custom_message"]] = "custom_message"
    custom_type: str
    content: str | list[UserContent] = ""
    display: bool = True
    details: Any = None


class LabelEntry(SessionEntryBase, tag="label", kw_only=True):
    type: ClassVar[Literal["label"]] = "label"
    target_id: str
    label: str | None = None
    """None (absent) clears the label."""


class SessionInfoEntry(SessionEntryBase, tag="session_info", kw_only=True):
    type: ClassVar[Literal["session_info"]] = "session_info"
    name: str | None = None


class UnknownEntry(msgspec.Struct, kw_only=True):
    """An entry type this version does not know, or a line of a known type whose fields do not
    validate (``problem`` says why): ``data`` is the line's dict, written back verbatim."""

    type: str
    id: str
    parent_id: str | None = None
    timestamp: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return dict(self.data)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup failed: a key of the kept line.
        if not name.startswith("__"):
            data = object.__getattribute__(self, "data")
            if name in data:
                return data[name]
        raise AttributeError(f"'UnknownEntry' object has no attribute {name!r}")


_CLASSES: dict[str, type[SessionEntryBase]] = {
    cls.type: cls for cls in (MessageEntry, ModelChangeEntry, ThinkingLevelChangeEntry, UsageEntry, CompactionEntry,
                              ContextEditEntry, BranchSummaryEntry, CustomEntry, CustomMessageEntry, LabelEntry,
                              SessionInfoEntry)
}

SessionEntry = (
    MessageEntry | ModelChangeEntry | ThinkingLevelChangeEntry | UsageEntry | CompactionEntry
    | ContextEditEntry | BranchSummaryEntry | CustomEntry | CustomMessageEntry | LabelEntry
    | SessionInfoEntry | UnknownEntry
)


def parse_entry(data: dict[str, Any]) -> SessionEntry:
    """Validate one entry dict into its typed struct.

    Args:
        data: An entry as read from the file (camelCase keys).

    Returns:
        The typed entry; ``UnknownEntry`` for types this version does not know, or for a
        known type whose fields do not validate (it is still kept, never dropped).
    """
    kind = data.get("type")
    cls = _CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is not None:
        try:
            entry = msgspec.convert(data, cls, strict=False)
            if cls is MessageEntry:
                entry.message = parse_message(entry.message)  # type: ignore[attr-defined]
            return attach_wire(entry, data)
        except msgspec.ValidationError as exc:
            return _unknown(data, str(exc))
    return _unknown(data, None)


def _unknown(data: dict[str, Any], problem: str | None) -> UnknownEntry:
    entry_id, parent, stamp = data.get("id"), data.get("parentId"), data.get("timestamp")
    kind = data.get("type")
    return UnknownEntry(type=kind if isinstance(kind, str) else "unknown",
                        id=entry_id if isinstance(entry_id, str) else "",
                        parent_id=parent if isinstance(parent, str) else None,
                        timestamp=stamp if isinstance(stamp, str) else "", data=data, problem=problem)


def parse_header(data: dict[str, Any]) -> SessionHeader:
    """Validate the header line."""
    return attach_wire(msgspec.convert(data, SessionHeader, strict=False), data)


# Fields whose explicit null carries meaning and must survive serialisation.
_KEEP_NULL = ("parentId", "replacement")


def entry_to_wire(entry: SessionEntryBase | SessionHeader | UnknownEntry) -> dict[str, Any]:
    """A typed entry back to Pi's JSON dict (unset optionals left out, ``parentId`` kept).

    Args:
        entry: A typed entry or header.

    Returns:
        The dict to write as one JSON line.
    """
    if isinstance(entry, UnknownEntry):
        return entry.to_wire()
    data = entry.model_dump(by_alias=True, exclude_none=True)
    # In field order, with the nulls that carry meaning put back where they belong.
    leading: tuple[str, ...] = _LEADING.get(str(data.get("type")), ())
    order = ["type", *leading, *entry.__struct_encode_fields__, *entry.model_extra]
    return {key: data.get(key) for key in dict.fromkeys(order) if key in data or key in _KEEP_NULL}


_LEADING: dict[str, tuple[str, ...]] = {"custom": ("customType", "data")}
"""Fields Pi writes before the ids and time, by entry type (its ``appendCustomEntry``)."""


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
    """Validate many message dicts in one msgspec call.

    A message that does not validate (a damaged or hand-edited file) becomes an
    ``UnknownMessage`` with role ``unreadable`` and the problem, in its place: the list keeps
    one object per dict, and no front end or provider is handed a half-typed message.
    """
    with gc_paused():
        try:
            return parse_message_list(items)
        except msgspec.ValidationError:
            return [_one_message(item) for item in items]


def _one_message(item: Any) -> Any:
    try:
        return parse_message(item)
    except msgspec.ValidationError as exc:
        return UnknownMessage(role="unreadable", data={"role": "unreadable", "problem": str(exc)})
