"""What pi leaves in the terminal when the full-screen app exits.

A full-screen app draws on the terminal's alternate screen, so quitting would leave nothing in
the scrollback. Like Pi (``fullscreenExitOutput``), pi prints the conversation of the current
branch, then the command that resumes the session; ``"resume-hint"`` prints only the latter.
Long sessions print their last ``MAX_MESSAGES`` messages.

As in Pi, answers are rendered markdown (tables drawn, lists numbered, emphasis shown as style
rather than asterisks) and every line is wrapped by words at the terminal's width: the
terminal's own wrapping would cut words in two.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_runtime.frontend import terminal_safe

from .history import TRUNCATED_REPLY, aborted_text, user_text
from .render import result_text, tool_title

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

MAX_MESSAGES = 200
"""Messages printed at most (the newest); the resume line brings back the rest."""
TOOL_LINES = 6
"""Lines of a tool's output printed under its call."""
_CONTROL = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)?|[\x00-\x08\x0b-\x1f\x7f]")
"""Escape sequences and control characters, to see whether a rendered line holds any text. (What a
command or a model wrote is cleaned with ``terminal_safe`` before it is rendered.)"""
_TRAILING_BLANKS = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")
"""Blanks at a line's end, before any colour resets (Rich pads lines to the width)."""


@dataclass(frozen=True)
class _Markdown:
    """An answer's text: rendered as markdown, not printed as its source."""

    source: str

    def strip(self) -> str:
        return self.source.strip()


def exit_output(session: SessionPort | None, mode: str, *, cwd: str | None = None, width: int = 80,
                color: bool = False) -> str:
    """The text to print after the app's screen is gone ("" when there is nothing to say).

    Args:
        session: The session the app showed (None if it never started).
        mode: ``"transcript"`` or ``"resume-hint"`` (the ``fullscreenExitOutput`` setting).
        cwd: Shortens paths in tool calls.
        width: The terminal's columns: lines are wrapped by words to fit.
        color: Style the markdown with ANSI colours (the output is a terminal).
    """
    if session is None:
        return ""
    parts: list[str] = []
    if mode == "transcript":
        parts.append(transcript_text(session.messages, cwd=cwd, width=width, color=color))
    # Only a session that was written can be resumed: one quit before any answer has no file
    # (Pi prints nothing for it either).
    if session.session_file and Path(session.session_file).is_file():
        parts.append(f"To resume this session:\n{resume_command(session)}")
    return "\n\n".join(p for p in parts if p) + ("\n" if any(parts) else "")


def resume_command(session: SessionPort) -> str:
    """``pi --session <id>``, with Pi's ``--session-dir <folder>`` when the file is not in the
    project's default folder (a session opened by path): ``--session <id>`` alone looks only
    under the sessions folder and would not find it."""
    from pi_runtime.frontend import project_session_dir

    folder = Path(str(session.session_file)).resolve().parent
    words = ["pi"]
    if folder != project_session_dir(session.cwd or os.getcwd()).resolve():
        words += ["--session-dir", shlex.quote(str(folder))]
    return " ".join([*words, "--session", shlex.quote(session.session_id)])


def transcript_text(messages: list[Any], *, cwd: str | None = None, width: int = 80, color: bool = False) -> str:
    """The conversation as text: prompts, answers (rendered markdown), tool calls with the start
    of their output, each line wrapped by words to ``width``."""
    shown = [m for m in messages if getattr(m, "role", None) != "system"]
    skipped = max(0, len(shown) - MAX_MESSAGES)
    blocks: list[str | _Markdown] = [f"… {skipped} earlier messages"] if skipped else []
    results = {m.tool_call_id: m for m in shown if getattr(m, "role", None) == "toolResult"}
    for message in shown[skipped:]:
        blocks.extend(_message_blocks(message, results, cwd))
    width = max(20, width)
    rendered = [_render_markdown(b.source, width, color) if isinstance(b, _Markdown) else _wrap(_clean(b), width)
                for b in blocks if b.strip()]
    return "\n\n".join(rendered)


def _clean(text: str) -> str:
    return terminal_safe(text, multiline=True)


def _wrap(text: str, width: int) -> str:
    """Each line wrapped by words, its indent (``> ``, ``  ``) repeated on the lines it wraps to."""
    out: list[str] = []
    for line in text.split("\n"):
        indent = line[:len(line) - len(line.lstrip(" >"))]
        if len(line) <= width or len(indent) >= width // 2:
            out.append(line)
            continue
        out.extend(textwrap.wrap(line, width, initial_indent="", subsequent_indent=indent, break_on_hyphens=False,
                                 drop_whitespace=True, replace_whitespace=False) or [line])
    return "\n".join(out)


def _render_markdown(source: str, width: int, color: bool) -> str:
    from rich.console import Console

    from .markdown_render import markdown_renderable, markdown_theme

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, color_system="standard" if color else None,
                      no_color=not color, theme=markdown_theme({}), highlight=False, emoji=False,
                      legacy_windows=False, force_jupyter=False)
    # ANSI code colours take the terminal's own palette and background, not a painted slab.
    console.print(markdown_renderable(_clean(source), "ansi_dark" if color else "default"))
    lines: list[str] = []
    for line in buffer.getvalue().split("\n"):
        line = _TRAILING_BLANKS.sub(r"\1", line)  # Rich pads lines to the width
        # Rich surrounds code blocks and tables with up to three blank lines; one is enough.
        if not _CONTROL.sub("", line).strip() and (not lines or not _CONTROL.sub("", lines[-1]).strip()):
            continue
        lines.append(line)
    while lines and not _CONTROL.sub("", lines[-1]).strip():
        lines.pop()
    return "\n".join(lines)


def _message_blocks(message: Any, results: dict[str, Any], cwd: str | None) -> list[str | _Markdown]:
    role = getattr(message, "role", None)
    if role == "user":
        return [_prefixed("> ", user_text(message.content))]
    if role == "assistant":
        out: list[str | _Markdown] = []
        for block in message.content:
            if block.type == "text" and block.text.strip():
                out.append(_Markdown(block.text.strip()))
            elif block.type == "toolCall":
                out.append(_tool_call(block, results.get(block.id), cwd))
        if message.stop_reason == "error":
            out.append(f"Error: {message.error_message or 'the request failed'}")
        elif message.stop_reason == "length":
            out.append(TRUNCATED_REPLY)
        elif message.stop_reason == "aborted":
            out.append(aborted_text(message.error_message))
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
        content = list(result.content)
        if call.name == "codemode":  # what the script printed, as its box shows it (codemode_view)
            from .codemode_view import without_header

            content = without_header(content)
        output = result_text(content).rstrip().splitlines()
        for line in output[:TOOL_LINES]:
            lines.append(f"  {line}")
        if len(output) > TOOL_LINES:
            lines.append(f"  … {len(output) - TOOL_LINES} more lines")
        if result.is_error:
            lines[0] += "  (error)"
    return "\n".join(lines)


def _prefixed(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())
