"""pi's RPC commands for the session tree and for front ends in another process (docs/rpc.md).

Pi's RPC protocol can fork, clone and switch, but not move in the tree or label an entry, and its
``cycle_model``/``set_model``/``clone`` take fewer fields than the app's calls. These commands let a
front end that holds a session through ``pi --mode rpc`` or ``pi serve`` do what the app does. A Pi
client never sends them and sees nothing new; the extra fields are optional.
"""

from __future__ import annotations

from typing import Any

from .rpc_commands import CommandError, command


def _id(cmd: dict[str, Any], key: str) -> str:
    value = cmd.get(key)
    if not isinstance(value, str) or not value:
        raise CommandError(f"'{key}' must be a non-empty string")
    return value


def _optional_id(cmd: dict[str, Any], key: str) -> str | None:
    return None if cmd.get(key) is None else _id(cmd, key)


@command("navigate_tree")
async def _navigate(s: Any, cmd: dict[str, Any]) -> Any:
    summarize = cmd.get("summarize", False)
    if not isinstance(summarize, bool | str):
        raise CommandError("'summarize' must be true, false or custom instructions")
    try:
        return await s.navigate_tree(_id(cmd, "entryId"), summarize)
    except KeyError as exc:
        raise CommandError(exc.args[0] if exc.args else str(exc)) from exc


@command("set_label")
async def _set_label(s: Any, cmd: dict[str, Any]) -> Any:
    label = cmd.get("label")
    if label is not None and not isinstance(label, str):
        raise CommandError("'label' must be a string or null")
    try:
        return {"entryId": s.set_label(_id(cmd, "entryId"), label)}
    except KeyError as exc:
        raise CommandError(exc.args[0] if exc.args else str(exc)) from exc


@command("cycle_model")
async def _cycle_model(s: Any, cmd: dict[str, Any]) -> Any:
    direction = cmd.get("direction", 1)
    if direction not in (1, -1) or isinstance(direction, bool):
        raise CommandError("'direction' must be 1 or -1")
    return await s.cycle_model(direction)


@command("set_model")
async def _set_model(s: Any, cmd: dict[str, Any]) -> Any:
    provider, model_id = _id(cmd, "provider"), _id(cmd, "modelId")
    model = s.model_registry.find(provider, model_id) if s.model_registry else None
    if model is None:
        raise CommandError(f"Model not found: {provider}/{model_id}")
    await s.set_model(model, persist_default=cmd.get("persistDefault") is True)
    return model.to_public_wire()


@command("clone")
async def _clone(s: Any, cmd: dict[str, Any]) -> Any:
    return await s.clone(_optional_id(cmd, "entryId"))


@command("sibling_allowed")
async def _sibling_allowed(s: Any, cmd: dict[str, Any]) -> Any:
    return {"allowed": await s.sibling_allowed(_id(cmd, "kind"), _optional_id(cmd, "entryId"))}


@command("switch_allowed")
async def _switch_allowed(s: Any, cmd: dict[str, Any]) -> Any:
    return {"allowed": await s.switch_allowed(_id(cmd, "sessionPath"))}
