"""MCP servers: ``mcp.json`` configuration, connections through the ``mcp`` SDK, tools and resources.

Pi's built-in MCP support, in Python (mcp.md). The parts, each owning its state:

- :mod:`.config` reads and edits ``<agent dir>/mcp.json`` and a trusted project's ``.pi/mcp.json``
  (the ``mcpServers`` shape other MCP clients use); no SDK import;
- :mod:`.connection` keeps one server connected (stdio or streamable HTTP) in a task of its own;
- :mod:`.manager` owns a session's connections and the tools they offer;
- :mod:`.tools` and :mod:`.resources` turn server tools and resources into agent tools;
- :mod:`.extension` is the built-in extension (``builtin:mcp``) that wires a manager to a session;
- :mod:`.cli` is ``pi mcp add|remove|list``.

Only :mod:`.connection` imports the ``mcp`` SDK (about half a second), and only when a server
is actually connected, so ``pi --version`` and sessions without servers never pay for it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..paths import PROJECT_DIR_NAME

CONFIG_FILE = "mcp.json"


def global_path(agent_dir: str | os.PathLike[str]) -> Path:
    """``<agent dir>/mcp.json``."""
    return Path(agent_dir) / CONFIG_FILE


def project_path(cwd: str | os.PathLike[str]) -> Path:
    """``<cwd>/.pi/mcp.json``."""
    return Path(cwd) / PROJECT_DIR_NAME / CONFIG_FILE


def has_config(agent_dir: str | os.PathLike[str], cwd: str | os.PathLike[str], project_trusted: bool) -> bool:
    """Whether any ``mcp.json`` pi would read exists: two ``stat`` calls and nothing imported, since
    every session start asks (the rest of the package loads only when the answer is yes)."""
    if global_path(agent_dir).is_file():
        return True
    return project_trusted and project_path(cwd).is_file()
