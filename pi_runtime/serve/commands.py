"""The session commands ``pi serve`` answers: ``pi --mode rpc``'s (Pi's and pi's, unchanged), and
``get_snapshot``, which needs the session's stream (its cursor and the message being streamed), and
``set_scoped_models`` (the models Ctrl+P cycles through, which the app's ``/scoped-models`` edits;
every viewer is told with a ``scoped_models`` record), and ``get_shortcuts``/``run_shortcut`` (the
extensions' key bindings: a viewer binds the keys and runs the handlers here), and
``complete_command`` (an extension command's argument completions)."""

from __future__ import annotations

from typing import Any

from ..modes.rpc_commands import COMMANDS, CommandError
from .live import LiveSession


async def run_session_command(live: LiveSession, cmd: dict[str, Any]) -> Any:
    """Run one session command and return its data.

    Raises:
        CommandError: No such command, or a malformed argument; any kernel error as raised.
    """
    name = cmd["type"]
    if name == "get_snapshot":
        return live.hub.snapshot()
    if name == "set_scoped_models":
        return set_scoped_models(live, cmd)
    if name in ("get_shortcuts", "run_shortcut"):
        return await _shortcut_command(live, cmd)
    if name == "complete_command":
        return await _complete_command(live, cmd)
    handler = COMMANDS.get(name)
    if handler is None:
        raise CommandError(f"Unknown command: {name}")
    return await handler(live.session, cmd)


def scoped_models_wire(session: Any) -> list[dict[str, Any]]:
    """The session's scoped models as the protocol gives them (``provider``, ``modelId``, ``thinkingLevel``)."""
    return [{"provider": model.provider, "modelId": model.id, "thinkingLevel": level}
            for model, level in session.scoped_models]


def set_scoped_models(live: LiveSession, cmd: dict[str, Any]) -> None:
    """``{"models": [{"provider", "modelId", "thinkingLevel"?}, ...]}``: the models to cycle through
    (an empty list: every model with credentials, as without ``--models``).

    Raises:
        CommandError: A malformed list, or a model this server's registry does not know.
    """
    wanted = cmd.get("models")
    registry = live.session.model_registry
    if not isinstance(wanted, list) or registry is None:
        raise CommandError("'models' must be a list of {provider, modelId, thinkingLevel?}")
    scoped = []
    for item in wanted:
        if not isinstance(item, dict) or not isinstance(item.get("provider"), str) or not isinstance(item.get("modelId"), str):
            raise CommandError("'models' must be a list of {provider, modelId, thinkingLevel?}")
        model = registry.find(item["provider"], item["modelId"])
        if model is None:
            raise CommandError(f"Model not found: {item['provider']}/{item['modelId']}")
        level = item.get("thinkingLevel")
        scoped.append((model, level if isinstance(level, str) else None))
    live.session.scoped_models = scoped
    live.hub.publish({"type": "scoped_models", "models": scoped_models_wire(live.session)})


async def _shortcut_command(live: LiveSession, cmd: dict[str, Any]) -> dict[str, Any]:
    """``get_shortcuts``: ``{"shortcuts": [{"key", "description"}]}`` (Pi's key syntax);
    ``run_shortcut`` with ``key``: ``{"handled": bool}`` (False: no extension has that key)."""
    runner = live.session.extension_runner
    if cmd["type"] == "get_shortcuts":
        shortcuts = runner.shortcuts() if runner is not None else {}
        return {"shortcuts": [{"key": key, "description": shortcut.description} for key, shortcut in shortcuts.items()]}
    key = cmd.get("key")
    if not isinstance(key, str) or not key:
        raise CommandError("'key' must be a key in Pi's syntax (ctrl+shift+p)")
    return {"handled": bool(runner is not None and await runner.run_shortcut(key))}


async def _complete_command(live: LiveSession, cmd: dict[str, Any]) -> dict[str, Any]:
    """``complete_command`` with ``name`` and ``prefix`` (the text after ``/name ``):
    ``{"items": [...]}``, each a string or ``{value, label?, description?}``; null when the command
    has no completions."""
    name, prefix = cmd.get("name"), cmd.get("prefix", "")
    if not isinstance(name, str) or not isinstance(prefix, str):
        raise CommandError("'name' and 'prefix' must be strings")
    runner = live.session.extension_runner
    items = await runner.complete_command(name, prefix) if runner is not None else None
    if items is None:
        return {"items": None}
    keep = ("value", "label", "description")
    return {"items": [item if isinstance(item, str) else {k: str(item[k]) for k in keep if item.get(k) is not None}
                      for item in items if isinstance(item, str) or (isinstance(item, dict) and "value" in item)]}
