"""Where Pi keeps its files: the agent dir and the well-known files inside it.

The agent dir is ``~/.pi/agent`` unless ``PI_CODING_AGENT_DIR`` says otherwise (a leading
``~`` is expanded, as Pi does). Every helper resolves the environment at call time, so a test
can point ``PI_CODING_AGENT_DIR`` at a temporary folder with ``monkeypatch.setenv``.
Nothing here creates directories: callers that write create what they need.
"""

from __future__ import annotations

import os
from pathlib import Path

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"
PROJECT_DIR_NAME = ".pi"


def agent_dir() -> Path:
    """The user-level config directory.

    Returns:
        ``$PI_CODING_AGENT_DIR`` (``~`` expanded) when set and non-empty, else ``~/.pi/agent``.
    """
    override = os.environ.get(AGENT_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return Path.home() / ".pi" / "agent"


def settings_path() -> Path:
    """``<agent dir>/settings.json`` (user-level settings)."""
    return agent_dir() / "settings.json"


def models_path() -> Path:
    """``<agent dir>/models.json`` (custom providers, models and overrides)."""
    return agent_dir() / "models.json"


def auth_path() -> Path:
    """``<agent dir>/auth.json`` (saved API keys; mode 0600)."""
    return agent_dir() / "auth.json"


def keybindings_path() -> Path:
    """``<agent dir>/keybindings.json``."""
    return agent_dir() / "keybindings.json"


def sessions_dir() -> Path:
    """Where sessions are stored unless the CLI or settings choose another place.

    Returns:
        ``$PI_CODING_AGENT_SESSION_DIR`` when set, else ``<agent dir>/sessions``.
    """
    override = os.environ.get(SESSION_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return agent_dir() / "sessions"


def themes_dir() -> Path:
    """``<agent dir>/themes`` (user theme files)."""
    return agent_dir() / "themes"


def skills_dir() -> Path:
    """``<agent dir>/skills``."""
    return agent_dir() / "skills"


def prompts_dir() -> Path:
    """``<agent dir>/prompts`` (prompt templates)."""
    return agent_dir() / "prompts"


def extensions_dir() -> Path:
    """``<agent dir>/extensions``."""
    return agent_dir() / "extensions"


def project_dir(cwd: str | os.PathLike[str] | None = None) -> Path:
    """The project config directory ``<cwd>/.pi``.

    Args:
        cwd: Working directory; the process cwd when omitted.

    Returns:
        The path (which may not exist).
    """
    return Path(cwd if cwd is not None else os.getcwd()) / PROJECT_DIR_NAME
