"""The RPC command table: one handler per command of rpc-commands.md.

A handler gets the session and the command object and returns the response ``data`` (or
``NO_DATA`` for commands whose response has none). Raising any exception turns into a
``success: false`` response carrying its message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..ai.types import THINKING_LEVELS

if TYPE_CHECKING:
    from .rpc_ui import RpcExtensionUI

NO_DATA = object()
"""Marker: the response has no ``data`` field."""

QUEUE_MODES = ("all", "one-at-a-time")

Handler = Callable[[Any, dict[str, Any]], Awaitable[Any]]
COMMANDS: dict[str, Handler] = {}

CLIENT_UI: ContextVar[RpcExtensionUI | None] = ContextVar("rpc_client_ui", default=None)
"""The RPC client's extension UI (``RpcExtensionUI``) while a command runs: what a command that
answers as one of Pi's built-in extensions would (a notification) speaks through."""


class CommandError(Exception):
    """A command was understood but cannot be done; the message goes to the client."""


def command(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = fn
        return fn

    return register


def _str(cmd: dict[str, Any], key: str) -> str:
    value = cmd.get(key)
    if not isinstance(value, str):
        raise CommandError(f"'{key}' must be a string")
    return value


def _optional_str(cmd: dict[str, Any], key: str) -> str | None:
    return None if cmd.get(key) is None else _str(cmd, key)


def _bool(cmd: dict[str, Any], key: str) -> bool:
    value = cmd.get(key)
    if not isinstance(value, bool):
        raise CommandError(f"'{key}' must be true or false")
    return value


def _images(cmd: dict[str, Any]) -> list[Any] | None:
    images = cmd.get("images")
    if images is None:
        return None
    if not isinstance(images, list):
        raise CommandError("'images' must be a list of image contents")
    from ..ai.types import ImageContent

    try:
        return [ImageContent.model_validate(i) for i in images]
    except Exception as exc:
        raise CommandError(f"Invalid image: {exc}".splitlines()[0]) from exc


# --------------------------------------------------------------------------- prompting


@command("prompt")
async def _prompt(s: Any, cmd: dict[str, Any]) -> Any:
    behavior = _optional_str(cmd, "streamingBehavior")
    if behavior not in (None, "steer", "followUp"):
        raise CommandError("streamingBehavior must be 'steer' or 'followUp'")
    from ..mcp.command import unowned_reply

    mcp_reply = unowned_reply(_str(cmd, "message"), s)
    if mcp_reply is not None:
        # /mcp with no MCP extension loaded (no mcp.json): answered here, not sent to the model, as
        # Pi's built-in extension answers it: a notification, and the prompt handled.
        ui = CLIENT_UI.get()
        if ui is None:
            raise CommandError(mcp_reply.text)
        ui.notify(mcp_reply.text, "info" if mcp_reply.ok else "error")
        return {"disposition": "handled"}
    disposition = await s.prompt(_str(cmd, "message"), _images(cmd), behavior, wait=False)
    return {"disposition": disposition}


@command("steer")
async def _steer(s: Any, cmd: dict[str, Any]) -> Any:
    return {"disposition": await s.steer(_str(cmd, "message"), _images(cmd))}


@command("follow_up")
async def _follow_up(s: Any, cmd: dict[str, Any]) -> Any:
    return {"disposition": await s.follow_up(_str(cmd, "message"), _images(cmd))}


@command("abort")
async def _abort(s: Any, cmd: dict[str, Any]) -> Any:
    await s.abort()
    return NO_DATA


@command("clear_queue")
async def _clear_queue(s: Any, cmd: dict[str, Any]) -> Any:
    steering, follow_up = s.clear_queue()
    return {"steering": steering, "followUp": follow_up}


# --------------------------------------------------------------------------- the queue as a list (pi's addition)


def _queue_wire(items: list[Any]) -> dict[str, Any]:
    return {"queue": [item.to_wire() for item in items]}


def _queued(edit: Callable[[], list[Any]]) -> dict[str, Any]:
    from ..kernel.message_queue import QueueEditError

    try:
        return _queue_wire(edit())
    except QueueEditError as exc:
        raise CommandError(str(exc)) from exc


def _kind(cmd: dict[str, Any]) -> str | None:
    kind = _optional_str(cmd, "kind")
    if kind not in (None, "steer", "followUp"):
        raise CommandError("kind must be 'steer' or 'followUp'")
    return None if kind is None else ("follow_up" if kind == "followUp" else "steer")


@command("get_queue")
async def _get_queue(s: Any, cmd: dict[str, Any]) -> Any:
    return _queue_wire(s.queued_messages())


@command("edit_queued")
async def _edit_queued(s: Any, cmd: dict[str, Any]) -> Any:
    message_id, text = _str(cmd, "messageId"), _str(cmd, "message")
    return _queued(lambda: s.edit_queued(message_id, text))


@command("remove_queued")
async def _remove_queued(s: Any, cmd: dict[str, Any]) -> Any:
    message_id = _str(cmd, "messageId")
    return _queued(lambda: s.remove_queued(message_id))


@command("move_queued")
async def _move_queued(s: Any, cmd: dict[str, Any]) -> Any:
    message_id, index, kind = _str(cmd, "messageId"), cmd.get("index", -1), _kind(cmd)
    if not isinstance(index, int) or isinstance(index, bool):
        raise CommandError("'index' must be an integer")
    return _queued(lambda: s.move_queued(message_id, index, kind))


@command("new_session")
async def _new_session(s: Any, cmd: dict[str, Any]) -> Any:
    return await s.new_session(parent_session=_optional_str(cmd, "parentSession"))


# --------------------------------------------------------------------------- state and models


@command("get_state")
async def _get_state(s: Any, cmd: dict[str, Any]) -> Any:
    return s.get_state()


@command("get_messages")
async def _get_messages(s: Any, cmd: dict[str, Any]) -> Any:
    return {"messages": s.get_messages()}


@command("get_available_models")
async def _available_models(s: Any, cmd: dict[str, Any]) -> Any:
    models = s.model_registry.available() if s.model_registry else []
    if s.model is not None and all(m.ref != s.model.ref for m in models):
        models = [s.model, *models]
    return {"models": [m.to_public_wire() for m in models]}


@command("set_thinking_level")
async def _set_thinking(s: Any, cmd: dict[str, Any]) -> Any:
    level = _str(cmd, "level")
    if level not in THINKING_LEVELS:
        raise CommandError(f"Unknown thinking level '{level}'")
    await s.set_thinking_level(level)
    return NO_DATA


@command("cycle_thinking_level")
async def _cycle_thinking(s: Any, cmd: dict[str, Any]) -> Any:
    level = await s.cycle_thinking_level()
    return None if level is None else {"level": level}


@command("get_available_thinking_levels")
async def _thinking_levels(s: Any, cmd: dict[str, Any]) -> Any:
    return {"levels": s.available_thinking_levels()}


@command("set_steering_mode")
async def _steering_mode(s: Any, cmd: dict[str, Any]) -> Any:
    mode = _str(cmd, "mode")
    if mode not in QUEUE_MODES:
        raise CommandError("mode must be 'all' or 'one-at-a-time'")
    s.set_steering_mode(mode)
    return NO_DATA


@command("set_follow_up_mode")
async def _follow_up_mode(s: Any, cmd: dict[str, Any]) -> Any:
    mode = _str(cmd, "mode")
    if mode not in QUEUE_MODES:
        raise CommandError("mode must be 'all' or 'one-at-a-time'")
    s.set_follow_up_mode(mode)
    return NO_DATA


# --------------------------------------------------------------------------- compaction, retry, bash


@command("compact")
async def _compact(s: Any, cmd: dict[str, Any]) -> Any:
    return await s.compact(_optional_str(cmd, "customInstructions"))


@command("set_auto_compaction")
async def _auto_compaction(s: Any, cmd: dict[str, Any]) -> Any:
    s.set_auto_compaction(_bool(cmd, "enabled"))
    return NO_DATA


@command("set_auto_retry")
async def _auto_retry(s: Any, cmd: dict[str, Any]) -> Any:
    s.set_auto_retry(_bool(cmd, "enabled"))
    return NO_DATA


@command("abort_retry")
async def _abort_retry(s: Any, cmd: dict[str, Any]) -> Any:
    s.abort_retry()
    return NO_DATA


@command("bash")
async def _bash(s: Any, cmd: dict[str, Any]) -> Any:
    request_id = cmd.get("id")
    return await s.execute_bash(
        _str(cmd, "command"),
        bool(cmd.get("excludeFromContext", False)),
        request_id=request_id if isinstance(request_id, str) else None,
    )


@command("abort_bash")
async def _abort_bash(s: Any, cmd: dict[str, Any]) -> Any:
    s.abort_bash()
    return NO_DATA


# --------------------------------------------------------------------------- session


@command("get_session_stats")
async def _stats(s: Any, cmd: dict[str, Any]) -> Any:
    return s.get_session_stats()


@command("export_html")
async def _export_html(s: Any, cmd: dict[str, Any]) -> Any:
    return {"path": s.export_html(_optional_str(cmd, "outputPath"))}


@command("switch_session")
async def _switch_session(s: Any, cmd: dict[str, Any]) -> Any:
    import os

    path = _str(cmd, "sessionPath")
    if not os.path.isfile(path):
        raise CommandError(f"Session file not found: {path}")
    return await s.switch_session(path)


@command("fork")
async def _fork(s: Any, cmd: dict[str, Any]) -> Any:
    try:
        return await s.fork(_str(cmd, "entryId"))
    except KeyError as exc:
        raise CommandError(exc.args[0] if exc.args else str(exc)) from exc


@command("get_fork_messages")
async def _fork_messages(s: Any, cmd: dict[str, Any]) -> Any:
    return {"messages": s.get_fork_messages()}


@command("get_entries")
async def _entries(s: Any, cmd: dict[str, Any]) -> Any:
    try:
        return s.get_entries(_optional_str(cmd, "since"))
    except KeyError as exc:
        raise CommandError(exc.args[0] if exc.args else str(exc)) from exc


@command("get_tree")
async def _tree(s: Any, cmd: dict[str, Any]) -> Any:
    return s.get_tree()


@command("get_last_assistant_text")
async def _last_text(s: Any, cmd: dict[str, Any]) -> Any:
    text = s.get_last_assistant_text()
    # Pi leaves the field out when there is no text (its data is then ``{}``).
    return {} if text is None else {"text": text}


@command("set_session_name")
async def _set_name(s: Any, cmd: dict[str, Any]) -> Any:
    name = _str(cmd, "name").strip()
    if not name:
        raise CommandError("Session name cannot be empty")
    await s.set_session_name(name)
    return NO_DATA


@command("get_commands")
async def _commands(s: Any, cmd: dict[str, Any]) -> Any:
    # One list for RPC and pi.get_commands(): extension commands, prompt templates, then skills.
    from ..extensions.commands import resource_commands

    runner = getattr(s, "extension_runner", None)
    if runner is not None:
        return {"commands": runner.get_commands()}
    return {"commands": resource_commands(getattr(s.resources, "resources", s.resources))}


# pi's tree commands and the fields it adds to Pi's set_model, cycle_model and clone: registered here,
# after the names they use exist, so the one command table has them.
from . import rpc_tree_commands  # noqa: E402, F401
