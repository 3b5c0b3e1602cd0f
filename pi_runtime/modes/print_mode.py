"""``pi -p``: run the prompts in order, print the final assistant text, exit.

Exit status as Pi: 0 on success; 1 when the last response ended in an error or was
aborted (its message goes to stderr); 1 with a warning on stderr when it was cut off at
the output-token limit (the partial text is still printed).
"""

from __future__ import annotations

import sys
from typing import Any

from .inputs import PromptInput
from .output_guard import real_stdout


def _last_assistant(session: Any) -> Any:
    for message in reversed(session.messages):
        if getattr(message, "role", None) == "assistant":
            return message
    return None


def _run_crash(session: Any, last: Any) -> str | None:
    """The error a run ended with when it was not the model's (the kernel records it on the agent)."""
    agent = getattr(session, "agent", None)
    error = getattr(getattr(agent, "state", None), "error_message", None)
    if not error or (last is not None and last.error_message == error):
        return None
    return str(error)


async def run_print(session: Any, prompts: list[PromptInput]) -> int:
    """Run ``prompts`` one after the other and report the final answer.

    Args:
        session: The ``AgentSession``.
        prompts: At least one prompt.

    Returns:
        The process exit status.
    """
    if not prompts:
        print("pi: no prompt given (pass a message, @file or pipe text on stdin)", file=sys.stderr)
        return 1

    def report_extension_errors(event: Any) -> None:
        # Print mode's one channel for extension failures is stderr.
        if event.type == "extension_error":
            print(f"pi: extension {event.extension_path} failed in {event.event}: {event.error}", file=sys.stderr)

    session.subscribe(report_extension_errors)
    runner = getattr(session, "extension_runner", None)
    if runner is not None:
        runner.mode = "print"  # ctx.mode, as Pi names it (it said "sdk")
        await runner.start()
    handled = 0
    for prompt in prompts:
        mcp_reply = None
        if prompt.text.lstrip().startswith("/mcp"):  # the MCP command module loads only for an /mcp prompt
            from ..mcp.command import unowned_reply

            mcp_reply = unowned_reply(prompt.text, session)
        if mcp_reply is not None:
            # /mcp with no MCP extension loaded (no mcp.json): pi answers, the model is not asked.
            print(mcp_reply.text, file=real_stdout() if mcp_reply.ok else sys.stderr)
            handled += 1
            continue
        disposition = await session.prompt(prompt.text, prompt.images or None)
        handled += disposition == "handled"
        last = _last_assistant(session)
        if last is not None and last.stop_reason in ("error", "aborted"):
            break
        crash = _run_crash(session, last)
        if crash is not None:
            # The run itself failed (not the model): without this, pi printed nothing and exited 0.
            print(f"pi: {crash}", file=sys.stderr)
            return 1
    last = _last_assistant(session)
    if last is None:
        if handled == len(prompts):
            return 0  # an extension command or input handler took every prompt: nothing to print (as Pi)
        print("pi: the model gave no answer", file=sys.stderr)
        return 1
    if last.stop_reason == "aborted":
        print(f"pi: {last.error_message or 'Request was aborted'}", file=sys.stderr)
        return 1
    if last.stop_reason == "error":
        print(f"pi: {last.error_message or 'The request failed'}", file=sys.stderr)
        return 1
    text = last.text()
    if text:
        out = real_stdout()
        out.write(text if text.endswith("\n") else text + "\n")
        out.flush()
    if last.stop_reason == "length":
        print("pi: warning: the response was cut off at the model's output token limit", file=sys.stderr)
        return 1
    return 0
