"""Widgets for messages already in the session (resume, re-mount after pruning, rebuild).

Live streaming builds the same widgets step by step in ``transcript.py``; this module
builds them in one go from finished messages.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget

from ..extension_ui.extension_render import custom_message_widget, tool_renderer_lookup
from .message_panel import MessagePanel, cut_output_note
from .notice import Notice
from .streaming_markdown import StreamingMarkdown
from .thinking_block import ThinkingBlock
from .tool_box import ToolBox
from .user_message import UserMessage

TRUNCATED_REPLY = "Response was truncated before completion."
"""Pi's line under an answer the model stopped at its output limit (``stopReason: "length"``)."""

_PLAIN_ABORTS = frozenset({"Request was aborted", "This operation was aborted"})
"""What the kernel records for a run stopped by the user, before or during the request."""


def aborted_text(error_message: str | None = None, retries: int = 0) -> str:
    """The line under an answer the user stopped, in Pi's words: "Operation aborted" ("Aborted
    after N retry attempts" when it was stopped while retrying), or a message of its own that
    the answer recorded (an extension's reason, Pi's own "Operation aborted")."""
    if retries:
        return f"Aborted after {retries} retry attempt{'s' if retries > 1 else ''}"
    if error_message and error_message not in _PLAIN_ABORTS:
        return error_message
    return "Operation aborted"


def user_text(content: Any) -> str:
    """The text of a user message's content (string or blocks; each image as a line such
    as ``[image/png 12 KB]``)."""
    from ..editor.images import describe_content

    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if getattr(block, "type", None) == "text":
            parts.append(block.text)
        elif getattr(block, "type", None) == "image":
            parts.append(describe_content(block))
    return "\n".join(parts)


def tool_results_by_id(messages: list[Any]) -> dict[str, Any]:
    return {m.tool_call_id: m for m in messages if getattr(m, "role", None) == "toolResult"}


def bash_panel(message: Any, expanded: bool = False) -> MessagePanel:
    """A user ``!command`` and its output."""
    status = ""
    if message.cancelled:
        status = " (cancelled)"
    elif message.exit_code not in (0, None):
        status = f" (exit {message.exit_code})"
    prefix = "!!" if message.exclude_from_context else "!"
    return MessagePanel(f"{prefix} {message.command}{status}", message.output.rstrip("\n"), "bash", message=message,
                        expanded=expanded, note=cut_output_note(message.truncated, message.full_output_path))


def widgets_for(message: Any, results: dict[str, Any], *, cwd: str, tools_expanded: bool,
                thinking_collapsed: bool, session: Any = None, theme: Any = None,
                hidden_thinking_label: str | None = None) -> list[Widget]:
    """The transcript blocks of one finished message (tool results attach to their call).

    ``session`` gives extensions' renderers (tools, custom messages), drawn with ``theme``.
    """
    role = getattr(message, "role", None)
    if role == "user":
        return [UserMessage(user_text(message.content), message=message)]
    if role == "assistant":
        out: list[Widget] = []
        for block in message.content:
            kind = block.type
            if kind == "text" and block.text.strip():
                out.append(StreamingMarkdown(block.text, live=False, classes="assistant-text"))
            elif kind == "thinking" and block.thinking.strip():
                out.append(ThinkingBlock(block.thinking, message=message, collapsed=thinking_collapsed,
                                         hidden_label=hidden_thinking_label))
            elif kind == "toolCall":
                box = ToolBox(block.id, block.name, block.arguments, cwd=cwd, message=message, expanded=tools_expanded,
                              renderer=tool_renderer_lookup(session)(block.name))
                result = results.get(block.id)
                if result is not None:
                    # The result message keeps how long the tool ran (Pi's durationMs): "Took 0.1s" again.
                    box.set_result(result.content, result.details, result.is_error,
                                   getattr(result, "duration_ms", None))
                out.append(box)
        if message.stop_reason == "error":
            out.append(Notice(f"Error: {message.error_message or 'the request failed'}", "error"))
        elif message.stop_reason == "length":
            out.append(Notice(TRUNCATED_REPLY, "error"))
        elif message.stop_reason == "aborted":
            out.append(Notice(aborted_text(message.error_message), "error"))
        for widget in out:
            # Every block knows the message it shows (selection, copy, cutting the window at turns).
            widget.message = message  # type: ignore[attr-defined]
        return out
    if role == "bashExecution":
        return [bash_panel(message, tools_expanded)]
    if role == "compactionSummary":
        from .compaction_panel import compaction_panel

        return [compaction_panel(message, tools_expanded)]
    if role == "branchSummary":
        from .compaction_panel import branch_panel

        return [branch_panel(message, tools_expanded)]
    if role == "custom":
        if not message.display:
            return []
        drawn = custom_message_widget(session, message, expanded=tools_expanded, theme=theme) if session else None
        return [drawn or MessagePanel(f"[{message.custom_type}]", user_text(message.content), "custom",
                                      message=message)]
    return []


def summary_last(messages: list[Any]) -> list[Any]:
    """The context just after a compaction, as Pi shows it then: the kept messages first and
    the summary below them, where the compaction happened in time (the context puts it first;
    a resumed session shows it first too)."""
    for index, message in enumerate(messages):
        if getattr(message, "role", None) == "compactionSummary":
            return [*messages[:index], *messages[index + 1:], message]
    return messages
