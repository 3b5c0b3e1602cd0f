"""HTML export of a whole session: one self-contained page a reader can browse.

The page embeds the session as Pi's export does (``{"header", "entries", "leafId"}`` as base64
JSON in ``<script id="session-data" type="application/json">``, plus the live system prompt and
tools for ``/export``), so every entry of the file travels with it: other branches, turns that
were compacted away, labels, summaries. The viewer (``SCRIPTS`` and ``viewer.css``, package data
beside this module, no outside assets) draws the session tree in a sidebar, shows one branch
at a time with branch switching in the page, and collapses tool output, thinking and summaries.

``data`` builds and reads the embedded object; this module fills the template and writes files.
"""

from __future__ import annotations

import html
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from .data import decode_session_data, encode_session_data, session_data

__all__ = ["decode_session_data", "export_file", "export_session_html", "render_html", "session_data"]

SCRIPTS = ("text.js", "session.js", "transcript.js", "tree.js", "viewer.js")
"""The viewer's parts, in the order they load (each later one uses the earlier ones)."""
_SLOT = re.compile(r"\{\{([A-Z_]+)\}\}")


@cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def page_title(data: dict[str, Any]) -> str:
    """The session's name (its latest ``session_info``), else ``Session <id>``."""
    name = None
    for entry in data.get("entries") or ():
        if entry.get("type") == "session_info":
            name = entry.get("name") or None
    return name or f"Session {data.get('header', {}).get('id', '')}".strip()


def render_html(data: dict[str, Any]) -> str:
    """The complete page for ``data`` (see ``data.session_data``)."""
    values = {
        "TITLE": html.escape(page_title(data)),
        "CSS": _asset("viewer.css"),
        "SESSION_DATA": encode_session_data(data),
        "JS": "\n".join(_asset(name) for name in SCRIPTS),
    }
    # The template is cut at its slots first, so text inside one value never fills another slot.
    parts = _SLOT.split(_asset("template.html"))
    for i in range(1, len(parts), 2):
        parts[i] = values[parts[i]]
    return "".join(parts)


def default_output(session_file: str | Path | None, session_id: str, folder: str | Path) -> Path:
    """Pi's name for an export written without a path: ``pi-session-<session file stem>.html``."""
    stem = Path(session_file).stem if session_file else session_id
    return Path(folder) / f"pi-session-{stem}.html"


def export_session_html(session: Any, path: str | None = None) -> str:
    """Write the live session (``/export``, RPC ``export_html``); returns the path written.

    Args:
        session: The ``AgentSession``: its manager's entries and leaf, its system prompt and tools.
        path: Where to write; ``pi-session-<file stem>.html`` in the session's folder when None.
    """
    manager = session.session_manager
    tools = [
        {"name": t.name, "description": t.description, "parameters": t.parameters_schema()}
        for t in session.agent.state.tools
        if hasattr(t, "parameters_schema")
    ]
    data = session_data(manager, system_prompt=session.system_prompt or None, tools=tools or None)
    out = Path(path) if path else default_output(manager.session_file, manager.session_id, session.cwd)
    out.write_text(render_html(data), encoding="utf-8")
    return str(out)


def export_file(source: str | Path, out: str | Path | None = None, *, folder: str | Path = ".") -> Path:
    """Write the export of a session file (``pi --export``), opened read-only; returns the path.

    Raises:
        SessionFileError: The file cannot be read as a session.
    """
    from ...session.manager import SessionManager

    manager = SessionManager.open(source, read_only=True)
    try:
        data = session_data(manager)
    finally:
        manager.close()
    target = Path(out) if out else default_output(source, str(data["header"].get("id", "")), folder)
    target.write_text(render_html(data), encoding="utf-8")
    return target
