"""The ``pi serve`` protocol's constants and record shapes (docs/serve.md is the description).

It is Pi's RPC protocol (JSONL, LF framing, commands with an optional ``id`` echoed in their
``response``) with a versioned ``hello``, a ``session`` field naming which live session a command,
response or event belongs to, and a per-session ``cursor`` on every record a session sends.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

PROTOCOL_VERSION = 1
"""What ``hello`` negotiates. Additions (commands, record types, fields) keep the number; a client
ignores what it does not know."""

REPLAY_RECORDS = 10_000
"""Records of a session kept for viewers that reconnect with their cursor."""
REPLAY_BYTES = 32 << 20
"""And at most this many bytes of them: past either limit the oldest go (a viewer then resyncs)."""

MAX_PENDING_BYTES = 64 << 20
"""Bytes waiting for a viewer that does not read; past this its connection is closed (it reconnects
with its cursor): one stalled viewer never holds up a run or the others."""

SERVE_ONLY = frozenset({"session_entries", "session_state", "extension_ui_resolved", "session_closed",
                        "session_changed", "scoped_models", "session_notice", "extension_ui_render"})
"""Records of a session's stream that Pi's RPC shape does not have: left out for an ``rpc`` viewer
(``session_changed`` is the kernel's in-process event, which Pi's JSON and RPC modes leave out too)."""


def serve_only(record: dict[str, Any]) -> bool:
    """Whether Pi's RPC shape lacks ``record``: pi's own record types, and the requests that show an
    extension's component (``ctx.ui.custom``, a widget component), which Pi's RPC mode never sends."""
    return (record["type"] in SERVE_ONLY or record.get("method") == "custom"
            or "widgetComponent" in record)

SERVER_COMMANDS = frozenset({"hello", "list_sessions", "open_session", "attach", "detach", "close_session"})
"""Commands addressed to the server rather than to one session."""


def response(command: str, cmd_id: Any, *, data: Any = None, error: BaseException | str | None = None,
             session: str | None = None, has_data: bool = True) -> dict[str, Any]:
    """A ``response`` record: Pi's shape, plus ``session`` (which session answered) and, on failure,
    ``errorType`` (the kernel's error class, so a client raises the same type)."""
    out: dict[str, Any] = {}
    if isinstance(cmd_id, float) and not math.isfinite(cmd_id):
        cmd_id = None  # JSON has no Infinity
    if cmd_id is not None:
        out["id"] = cmd_id
    out.update({"type": "response", "command": command, "success": error is None})
    if error is not None:
        if isinstance(error, BaseException):
            out["error"] = error_text(error)
            out["errorType"] = type(error).__name__
        else:
            out["error"] = error
    elif has_data:
        out["data"] = data.to_wire() if hasattr(data, "to_wire") else data
    if session is not None:
        out["session"] = session
    return out


def error_text(exc: BaseException) -> str:
    """The one-line message of a failed command (a ``KeyError`` without its quotes)."""
    message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return str(message) or type(exc).__name__


_ENCODER = msgspec.json.Encoder()


def encode_record(record: Any) -> bytes:
    """One JSONL line. msgspec's encoder is five times faster than ``json`` (a 20,000-message
    snapshot: 25 ms against 130 ms); what it refuses (a lone surrogate, nesting past its limit)
    goes through ``pi --mode rpc``'s encoder, which writes everything."""
    try:
        return _ENCODER.encode(record) + b"\n"
    except (msgspec.EncodeError, TypeError, ValueError, RecursionError, OverflowError):
        from ..modes.writer import encode

        return encode(record)


_DECODER = msgspec.json.Decoder()


def decode_record(line: bytes) -> Any:
    """A JSONL line's value (msgspec, with ``json`` for what it refuses: integers past 64 bits)."""
    try:
        return _DECODER.decode(line)
    except msgspec.DecodeError:
        import json

        return json.loads(line)
