"""Putting extension messages and entries into the session (``pi.send_message`` and friends).

Custom messages reach the model as user text and are stored as ``custom_message``
entries; ``append_entry`` stores ``custom`` entries the model never sees.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .loader import summarize_error

if TYPE_CHECKING:
    from .runner import Extension, ExtensionRunner

DELIVERY = ("steer", "followUp", "nextTurn")


def send_custom_message(runner: ExtensionRunner, message: Any, *, deliver_as: str, trigger_turn: bool) -> None:
    """See ``ExtensionAPI.send_message``.

    Raises:
        ValueError: Unknown ``deliver_as`` or a malformed message.
    """
    if deliver_as not in DELIVERY:
        raise ValueError(f"deliver_as must be one of {', '.join(DELIVERY)}, not {deliver_as!r}")
    actions = runner.require_session().actions
    custom = runner.custom_message(message)
    if deliver_as == "nextTurn":
        runner._next_turn.append(custom)
    elif actions.is_streaming:
        if not trigger_turn:
            actions.defer_message(custom)  # appended when the run has settled
        elif deliver_as == "steer":
            actions.steer_message(custom)
        else:
            actions.follow_up_message(custom)
    elif trigger_turn:
        actions.check_ready()
        actions.start_run([custom])
    else:
        actions.store_message(custom)


def send_user_message(runner: ExtensionRunner, ext: Extension, content: Any, deliver_as: str | None) -> asyncio.Future[Any]:
    """See ``ExtensionAPI.send_user_message``."""
    from ..ai.types import ImageContent
    from .runner import INPUT_SOURCE
    from .tools import content_blocks

    session = runner.require_session()
    if isinstance(content, str):
        text, images = content, None
    else:
        blocks = content_blocks(content)
        text = "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", "") == "text")
        images = [b for b in blocks if isinstance(b, ImageContent)] or None

    async def run() -> Any:
        token = INPUT_SOURCE.set("extension")
        try:
            if session.is_streaming and deliver_as is None:
                raise RuntimeError("the agent is running: send_user_message needs deliver_as='steer' or 'followUp'")
            return await session.prompt(text, images, streaming_behavior=deliver_as, wait=False)
        except Exception as exc:  # noqa: BLE001 - reported like any extension failure
            await runner.report_error(ext.path, "send_user_message", summarize_error(exc))
            return None
        finally:
            INPUT_SOURCE.reset(token)

    return asyncio.ensure_future(run())


def append_entry(runner: ExtensionRunner, custom_type: str, data: Any) -> str:
    """Append a ``custom`` entry and announce it with ``entry_appended``. Returns the entry id."""
    from ..kernel.events import EntryAppendedEvent

    if not custom_type or not isinstance(custom_type, str):
        raise ValueError("append_entry needs a custom_type string")
    session = runner.require_session()
    entry_id = session.session_manager.append_custom(custom_type, data)
    session.actions.emit_soon(EntryAppendedEvent(session.session_manager.get_entry(entry_id)))
    return entry_id
