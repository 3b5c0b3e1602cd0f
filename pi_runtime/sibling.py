"""A second session in the same process, built like one that is already open.

A front end that holds several sessions at once (the app's tabs) opens each further one with
:func:`open_sibling_session`: same folder, settings, model registry, resources, model,
thinking level, active tools and extensions as ``session``, but its own session file (and
lock), its own agent and its own extension runner, so the two run side by side without
sharing a turn, a queue or an extension's state. Nothing here replaces ``session``'s file
the way ``new_session``/``fork``/``clone`` do: the original keeps running untouched.

What the two share on purpose, because they are the user's configuration and not a
session's state: the ``SettingsManager`` (a setting changed in one applies to both, as in
two Pi processes reading the same files), the ``ModelRegistry`` and its credentials, and the
``ResourceLoader`` (skills, prompt templates, context files of the same folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .kernel.navigator import message_text
from .kernel.session import AgentSession

SiblingKind = Literal["new", "resume", "fork", "clone"]


@dataclass
class Sibling:
    """A session opened beside another one."""

    session: AgentSession
    editor_text: str = ""
    """For a fork: the user message it was forked before (goes back into the editor, as ``/fork``)."""


def open_sibling_session(session: AgentSession, kind: SiblingKind = "new", *, path: str | None = None,
                         entry_id: str | None = None) -> Sibling:
    """Build a session beside ``session`` (blocking: extensions are imported; run it in a thread).

    Args:
        session: The open session whose configuration the new one takes.
        kind: ``new`` (an empty session), ``resume`` (the file at ``path``), ``fork`` (the history
            before the user message ``entry_id``) or ``clone`` (the active branch as it is now).
        path: The session file to open (``resume``).
        entry_id: The user message to fork before (``fork``).

    Returns:
        The new session (its extensions not yet started: the front end starts them with its UI).

    Raises:
        SessionLockedError: ``resume`` of a file another session (of this process or another) holds.
        KeyError: ``entry_id`` is not a user message of ``session``.
        ValueError: ``clone`` of an empty session; ``resume`` without ``path``.
    """
    manager = session.session_manager
    editor_text = ""
    if kind == "new":
        fresh = manager.branched_copy(None)
    elif kind == "clone":
        if manager.leaf_id is None:
            raise ValueError("Nothing to clone: the session is empty")
        fresh = manager.branched_copy(manager.leaf_id)
    elif kind == "fork":
        entry = manager.get_entry(entry_id) if entry_id else None
        message = getattr(entry, "message", None)
        if entry is None or getattr(message, "role", None) != "user":
            raise KeyError(f"Entry {entry_id} is not a user message")
        editor_text = message_text(message)
        fresh = manager.branched_copy(entry.parent_id)
    elif kind == "resume":
        if not path:
            raise ValueError("resume needs a session file")
        from .session.manager import SessionManager

        fresh = SessionManager.open(path, manager.session_dir, cwd=session.cwd)
    else:
        raise ValueError(f"Unknown kind of session: {kind}")
    try:
        return Sibling(_build_beside(session, fresh, keep_model=kind != "resume"), editor_text)
    except BaseException:
        fresh.close()
        raise


def _build_beside(session: AgentSession, manager: Any, *, keep_model: bool) -> AgentSession:
    from .extensions.load_configured import load_extensions
    from .paths import agent_dir as default_agent_dir
    from .sdk import create_agent_session

    old_runner = session.extension_runner
    agent_dir = str(getattr(old_runner, "agent_dir", None) or getattr(session.resources, "agent_dir", None)
                    or default_agent_dir())
    runner = None
    if old_runner is not None:
        # The same extensions as the first session (``-e`` paths, discovered ones, packages), loaded
        # again: each runner gets fresh module objects, so no extension state is shared.
        paths = [ext.path for ext in old_runner.extensions]
        runner = load_extensions(session.cwd, agent_dir, session.settings, session.model_registry,
                                 bool(old_runner.project_trusted), paths, True, keep_tool_filter=True)
        on_demand = old_runner.mcp_servers.builtin_on_demand
        if runner is not None and on_demand:
            runner.mcp_servers.builtin_on_demand = on_demand
    if keep_model and not manager.raw_entries():
        # As ``new_session`` does: the new file starts with the model and level in use.
        manager.append_model_change(session.model.provider, session.model.id)
        manager.append_thinking_level_change(session.thinking_level)  # "off" too, as Pi
    from .tools import ALL_TOOL_NAMES

    active = session.actions.active_tools()
    tools = [tool.name for tool in active]
    extension_tools = {tool.name for tool in old_runner.registered_tools()} if old_runner is not None else set()
    # Tools an SDK caller gave the first session (neither built in nor an extension's) are the
    # caller's objects: the second session gets the same ones.
    custom = [tool for tool in active if tool.name not in ALL_TOOL_NAMES and tool.name not in extension_tools]
    return create_agent_session(
        cwd=session.cwd, agent_dir=agent_dir,
        model=session.model if keep_model else None,
        thinking_level=session.thinking_level if keep_model else None,
        tools=tools, no_tools=not tools, custom_tools=custom,
        session_manager=manager, settings=session.settings, resource_loader=session.resources,
        model_registry=session.model_registry, scoped_models=list(session.scoped_models),
        extension_runner=runner, no_extensions=True,
    )
