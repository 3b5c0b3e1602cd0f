"""Putting extension messages and entries into the session (``pi.send_message`` and friends).

Custom messages reach the model as user text and are stored as ``custom_message`` entries;
``append_entry`` stores ``custom`` entries the model never sees. Delivery follows Pi:

- ``deliver_as="nextTurn"``: held until the next prompt starts a run;
- while the agent runs, ``trigger_turn`` unset (None) or True: steered (``steer``) or queued as a
  follow-up (``followUp``); ``trigger_turn=False``: stored when the current turn ends, right
  after its tool results, with ``message_start``/``message_end`` events, so the next model
  call of the same run sees it;
- while idle, ``trigger_turn=True`` starts a run with it; otherwise it is stored (with events).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..background import spawn
from .events import result_field
from .json_values import json_value

if TYPE_CHECKING:
    from ..ai.types import CustomMessage
    from ..kernel.extension_port import SessionActions

DELIVERY = ("steer", "followUp", "nextTurn")


class ExtensionMessages:
    """Messages extensions queued for the next prompt (``deliver_as="nextTurn"``)."""

    def __init__(self) -> None:
        self._next_turn: list[Any] = []

    def hold(self, message: Any) -> None:
        self._next_turn.append(message)

    def take_next_turn(self) -> list[Any]:
        taken, self._next_turn = self._next_turn, []
        return taken


def custom_message(message: Any) -> CustomMessage:
    """A ``CustomMessage`` from a dict with Pi's fields (``customType``, ``content``, ``display``, ``details``).

    Raises:
        ValueError: Not a dict/CustomMessage, or no ``customType``.
    """
    from ..ai.types import CustomMessage
    from .tools import content_blocks

    if isinstance(message, CustomMessage):
        return message
    if not isinstance(message, dict):
        raise ValueError("a custom message is a dict with customType and content")
    custom_type = result_field(message, "custom_type")
    if not custom_type:
        raise ValueError("a custom message needs a customType")
    content = result_field(message, "content", "")
    return CustomMessage(
        custom_type=str(custom_type),
        content=content if isinstance(content, str) else content_blocks(content),
        display=bool(result_field(message, "display", True)),
        details=json_value(result_field(message, "details")),  # stored in the session file
    )


def send_custom_message(actions: SessionActions, held: ExtensionMessages, message: Any, *, deliver_as: str,
                        trigger_turn: bool | None) -> None:
    """See ``ExtensionAPI.send_message`` and the module docstring.

    Raises:
        ValueError: Unknown ``deliver_as`` or a malformed message.
        PromptError: ``trigger_turn`` while idle and no run can start (no model or key).
    """
    if deliver_as not in DELIVERY:
        raise ValueError(f"deliver_as must be one of {', '.join(DELIVERY)}, not {deliver_as!r}")
    custom = custom_message(message)
    if deliver_as == "nextTurn":
        held.hold(custom)
    elif actions.is_streaming and trigger_turn is not False:
        if deliver_as == "followUp":
            actions.follow_up_message(custom)
        else:
            actions.steer_message(custom)
    elif trigger_turn:
        actions.check_ready()
        actions.start_run([custom])
    elif actions.is_streaming:
        actions.defer_to_turn_end(custom)
    else:
        actions.store_message(custom)


def user_message_parts(content: Any) -> tuple[str, list[Any] | None]:
    """Text and images of what ``send_user_message`` was given (no image list for a string; the
    message is stored as blocks either way, as Pi stores every user message)."""
    from ..ai.types import ImageContent
    from .tools import content_blocks

    if isinstance(content, str):
        return content, None
    blocks = content_blocks(content)
    # Pi joins the text blocks with a newline.
    text = "\n".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", "") == "text")
    return text, [b for b in blocks if isinstance(b, ImageContent)]


def append_entry(session: Any, actions: SessionActions, custom_type: str, data: Any) -> str:
    """Append a ``custom`` entry and announce it with ``entry_appended``. Returns the entry id.

    ``data`` is made JSON first (``json_values.py``), as Pi's ``JSON.stringify`` would see it."""
    from ..kernel.events import EntryAppendedEvent

    if not custom_type or not isinstance(custom_type, str):
        raise ValueError("append_entry needs a custom_type string")
    entry_id: str = session.session_manager.append_custom(custom_type, json_value(data))
    actions.emit_soon(EntryAppendedEvent(session.session_manager.get_entry(entry_id)))
    return entry_id


async def send_user_message(session: Any, reporter: Any, owner: str, content: Any, deliver_as: str | None,
                            expand: bool) -> str | None:
    """See ``ExtensionAPI.send_user_message``; a refusal is reported under ``owner``, never raised."""
    from .kernel_hooks import EXPAND_TEMPLATES, INPUT_SOURCE
    from .loader import summarize_error

    text, images = user_message_parts(content)
    if expand and deliver_as is None and getattr(session, "is_settling", False):
        # From an agent_settled handler a command must wait for the handlers to finish (Pi):
        # it may reload the extensions whose handler is still running.
        async def after_settle() -> None:
            await session.wait_for_idle()
            await send_user_message(session, reporter, owner, content, deliver_as, expand)

        spawn(after_settle(), name="send-user-message-after-settle")
        return "queued"
    source = INPUT_SOURCE.set("extension")
    # Queued text is plain (Pi): only an idle prompt expands commands and templates.
    expanding = EXPAND_TEMPLATES.set(bool(expand) and deliver_as is None)
    try:
        if session.is_streaming and deliver_as is None:
            raise RuntimeError("the agent is running: send_user_message needs deliver_as='steer' or 'followUp'")
        return str(await session.prompt(text, images, streaming_behavior=deliver_as, wait=False))
    except Exception as exc:  # noqa: BLE001 - reported like any extension failure
        await reporter.report(owner, "send_user_message", summarize_error(exc))
        return None
    finally:
        EXPAND_TEMPLATES.reset(expanding)
        INPUT_SOURCE.reset(source)
