"""What pi leaves in the terminal when the full-screen app exits.

A full-screen app draws on the terminal's alternate screen, so quitting would leave nothing in
the scrollback. Like Pi (``fullscreenExitOutput``), pi prints the conversation of the current
branch as plain text, then the command that resumes the session; ``"resume-hint"`` prints only
the latter. Long sessions print their last ``MAX_MESSAGES`` messages.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .history import user_text
from .render import result_text, tool_title

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

MAX_MESSAGES = 200
"""Messages printed at most (the newest); the resume line brings back the rest."""
TOOL_LINES = 6
"""Lines of a tool's output printed under its call."""
_CONTROL = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)?|[\x00-\x08\x0b-\x1f\x7f]")
"""Escape sequences and control characters: printed to the user's terminal they would clear it,
recolour it or retitle it (a command's output, a model's text)."""


def exit_output(session: SessionPort | None, mode: str, *, cwd: str | None = None) -> str:
    """The text to print after the app's screen is gone ("" when there is nothing to say).

    Args:
        session: The session the app showed (None if it never started).
        mode: ``"transcript"`` or ``"resume-hint"`` (the ``fullscreenExitOutput`` setting).
        cwd: Shortens paths in tool calls.
    """
    if session is None:
        return ""
    parts: list[str] = []
    if mode == "transcript":
        parts.append(_CONTROL.sub("", transcript_text(session.messages, cwd=cwd)))
    # Only a session that was written can be resumed: one quit before any answer has no file
    # (Pi prints nothing for it either).
    if session.session_file and Path(session.session_file).is_file():
        parts.append(f"To resume this session:\npi --session {shlex.quote(session.session_id)}")
    return "\n\n".join(p for p in parts if p) + ("\n" if any(parts) else "")


def transcript_text(messages: list[Any], *, cwd: str | None = None) -> str:
    """The conversation as plain text: prompts, answers, tool calls with the start of their output."""
    shown = [m for m in messages if getattr(m, "role", None) != "system"]
    skipped = max(0, len(shown) - MAX_MESSAGES)
    blocks = [f"… {skipped} earlier messages" ] if skipped else []
    results = {m.tool_call_id: m for m in shown if getattr(m, "role", None) == "toolResult"}
    for message in shown[skipped:]:
        blocks.extend(_message_blocks(message, results, cwd))
    return "\n\n".join(b for b in blocks if b.strip())


def _message_blocks(message: Any, results: dict[str, Any], cwd: str | None) -> list[str]:
    role = getattr(message, "role", None)
    if role == "user":
        return [_prefixed("> ", user_text(message.content))]
    if role == "assistant":
        out = []
        for block in message.content:
            if block.type == "text" and block.text.strip():
                out.append(block.text.strip())
            elif block.type == "toolCall":
                out.append(_tool_call(block, results.get(block.id), cwd))
        if message.stop_reason == "error":
            out.append(f"Error: {message.error_message or 'the request failed'}")
        elif message.stop_reason == "aborted":
            out.append("Aborted")
        return out
    if role == "bashExecution":
        return [_prefixed("  ", f"! {message.command}\n{message.output.rstrip()}")]
    if role == "compactionSummary":
        return ["[earlier conversation compacted]"]
    if role == "branchSummary":
        return ["[branch summary]"]
    if role == "custom" and getattr(message, "display", False):
        return [_prefixed("  ", f"[{message.custom_type}] {user_text(message.content)}")]
    return []


def _tool_call(call: Any, result: Any, cwd: str | None) -> str:
    lines = [f"● {tool_title(call.name, call.arguments, cwd)}"]
    if result is not None:
        output = result_text(result.content).rstrip().splitlines()
        for line in output[:TOOL_LINES]:
            lines.append(f"  {line}")
        if len(output) > TOOL_LINES:
            lines.append(f"  … {len(output) - TOOL_LINES} more lines")
        if result.is_error:
            lines[0] += "  (error)"
    return "\n".join(lines)


def _prefixed(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())
