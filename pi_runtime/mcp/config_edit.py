"""Changing ``mcp.json``: add, remove or update one server and keep everything else in the file,
its indentation included. A file that is not valid JSON, or holds a value pi could not write back,
is refused rather than rewritten, so nothing the user wrote is lost.

:func:`switch_server` is what ``/mcp``'s Enable, Disable and Exposure save: to the file that
defines the server, or to the project override, or nowhere for a server an extension registered
(that change lasts for the session).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config_files import ConfigJsonError, atomic_write_json, parse_config_json, read_config_text
from .config import DEFAULT_EXPOSURE, McpConfigError, McpServerEntry, is_override


def _edit(path: Path, change: Callable[[dict[str, Any], dict[str, Any]], bool]) -> None:
    """Read ``path`` (empty when missing), let ``change(servers, whole)`` edit it, write it back
    with its own indentation when ``change`` returns True.

    Raises:
        McpConfigError: The file cannot be read or written, or is not an ``mcpServers`` object.
    """
    try:
        text: str | None = read_config_text(path)
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(str(exc)) from exc
    try:
        data, dropped = parse_config_json(text or "")
    except ConfigJsonError as exc:
        raise McpConfigError(str(exc)) from exc
    if dropped:  # written back without it, the user's text would be lost
        raise McpConfigError(f"it holds a value pi cannot keep ({dropped[0]})")
    data = {} if data is None else data
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise McpConfigError('expected an object with an "mcpServers" object')
    servers = data.setdefault("mcpServers", {})
    if not change(servers, data):
        return
    found = re.search(r"^([ \t]+)\S", text or "", re.MULTILINE)
    try:
        atomic_write_json(path, data, indent=found.group(1) if found else "  ")
    except OSError as exc:
        raise McpConfigError(str(exc)) from exc


def add_server(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """Add or replace ``name`` in ``path`` (created when missing). Returns True when it replaced one."""
    replaced = False

    def change(servers: dict[str, Any], _data: dict[str, Any]) -> bool:
        nonlocal replaced
        replaced = name in servers
        servers[name] = entry
        return True

    _edit(path, change)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    """Remove ``name`` from ``path``. Returns False when the file does not define it."""
    if not path.is_file():
        return False
    removed = False

    def change(servers: dict[str, Any], _data: dict[str, Any]) -> bool:
        nonlocal removed
        removed = servers.pop(name, None) is not None
        return removed

    _edit(path, change)
    return removed


def update_server(path: Path, name: str, *, enabled: bool | None = None, exposure: str | None = None,
                  as_override: bool = False) -> None:
    """Change ``enabled``/``exposure`` of ``name`` in the file that defines (or overrides) it.

    With ``as_override`` a missing entry is added as a project override. A full entry drops a
    value equal to the default; an override keeps it, since it replaces the global value.

    Raises:
        McpConfigError: The file does not define ``name`` (and ``as_override`` is False), or cannot be edited.
    """

    def change(servers: dict[str, Any], _data: dict[str, Any]) -> bool:
        server = servers.get(name)
        if server is None and as_override:
            server = servers[name] = {}
        if not isinstance(server, dict):
            raise McpConfigError(f'{path} does not define MCP server "{name}"')
        keep_defaults = is_override(server)
        if enabled is not None:
            if enabled and not keep_defaults:
                server.pop("enabled", None)
            else:
                server["enabled"] = enabled
        if exposure is not None:
            if exposure == DEFAULT_EXPOSURE and not keep_defaults:
                server.pop("exposure", None)
            else:
                server["exposure"] = exposure
        return True

    _edit(path, change)


def saved_where(entry: McpServerEntry, project_config: Path | None, *, in_project: bool = False) -> Path | None:
    """The file a change to ``entry`` is saved to (None: a registered server, this session only).

    ``in_project`` saves it as an override in the trusted project's ``.pi/mcp.json``; a server a
    project file already overrides is changed in that override.
    """
    if entry.scope == "extension":
        return None
    if in_project:
        if project_config is None:
            raise McpConfigError("the project is not trusted, so it has no mcp.json of its own")
        return project_config
    return Path(entry.override or entry.source)


def switch_server(entry: McpServerEntry, project_config: Path | None, *, enabled: bool | None = None,
                  exposure: str | None = None, in_project: bool = False) -> McpServerEntry:
    """Save ``enabled`` and/or ``exposure`` for ``entry`` (see :func:`saved_where`) and return the
    entry as it reads now.

    Raises:
        McpConfigError: The file cannot be changed (it is not valid JSON, or cannot be written).
    """
    path = saved_where(entry, project_config, in_project=in_project)
    if path is not None:
        update_server(path, entry.name, enabled=enabled, exposure=exposure,
                      as_override=in_project or entry.override is not None)
    patch = {key: value for key, value in (("enabled", enabled), ("exposure", exposure)) if value is not None}
    override = str(path) if in_project else entry.override
    return replace(entry, config={**entry.config, **patch}, override=override)
