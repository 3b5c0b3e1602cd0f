"""``pi --mode json``: the session header, then every session event as one JSON line.

Shapes are Pi's (``to_wire()``): ``message_update`` carries usage and the delta only, the
run ends with ``agent_end`` then ``agent_settled``. In-process-only events
(``session_changed``) are not written. A failed response does not change the exit status
(as in Pi); only an error before the run does, or the reader of stdout going away (the run is
then aborted and pi exits 141; see ``cli_main``).
"""

from __future__ import annotations

from typing import Any

from .inputs import PromptInput
from .writer import JsonlWriter

IN_PROCESS_ONLY = frozenset({"session_changed"})
"""Kernel events that are not part of Pi's wire protocol."""


def event_listener(writer: JsonlWriter) -> Any:
    """A session listener that writes each wire event, waiting when stdout is full."""

    async def listener(event: Any) -> None:
        if event.type in IN_PROCESS_ONLY:
            return
        await writer.send(event.to_wire())

    return listener


async def run_json(session: Any, prompts: list[PromptInput], writer: JsonlWriter) -> int:
    """Run ``prompts`` and stream their events.

    Args:
        session: The ``AgentSession``.
        prompts: Prompts to run in order.
        writer: Where the JSON lines go (stdout).

    Returns:
        The process exit status.
    """
    runner = getattr(session, "extension_runner", None)
    if runner is not None:
        runner.mode = "json"  # ctx.mode, as Pi names it (it said "sdk")
    header = session.session_manager.get_header()
    await writer.send(header.to_wire() if hasattr(header, "to_wire") else dict(header))
    unsubscribe = session.subscribe(event_listener(writer))
    try:
        for prompt in prompts:
            await session.prompt(prompt.text, prompt.images or None)
    finally:
        unsubscribe()
        await writer.flush()
    return 0
