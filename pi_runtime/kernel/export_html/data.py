"""The session object an export page embeds, and its transport encoding.

The shape is Pi's: ``header`` (the file's first line), ``entries`` (every entry in file order,
as stored: unknown types and fields included), ``leafId`` (the branch shown first), and for a
live session ``systemPrompt`` and ``tools``. It travels as base64 of its UTF-8 JSON, so no
text in the session can end the ``<script>`` element that holds it.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

_DATA = re.compile(r'<script id="session-data" type="application/json">\s*([A-Za-z0-9+/=]*)\s*</script>')


def session_data(manager: Any, *, system_prompt: str | None = None,
                 tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the page embeds for the session ``manager`` holds.

    Args:
        manager: A ``SessionManager`` (its header, raw entries and current leaf are read).
        system_prompt: The prompt in force, for a live session.
        tools: ``{"name", "description", "parameters"}`` of the tools in force, for a live session.
    """
    data: dict[str, Any] = {"header": manager.header, "entries": list(manager.raw_entries()),
                            "leafId": manager.leaf_id}
    if system_prompt is not None:
        data["systemPrompt"] = system_prompt
    if tools is not None:
        data["tools"] = tools
    return data


def encode_session_data(data: dict[str, Any]) -> str:
    """Base64 of the compact UTF-8 JSON of ``data``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def decode_session_data(page: str) -> dict[str, Any]:
    """The session object embedded in an export page (the way back to a session's entries).

    Raises:
        ValueError: The page holds no session data.
    """
    match = _DATA.search(page)
    if match is None:
        raise ValueError("not a pi session export: no session-data element")
    result: dict[str, Any] = json.loads(base64.b64decode(match.group(1)).decode("utf-8"))
    return result
