"""The scrolling conversation: turns kernel events into blocks and keeps a bounded window.

One widget per block (prompt, text, thinking, tool call, notice). Live events grow the
last assistant message's blocks in place; tool boxes are found by their tool-call id.
The view is anchored to the bottom and follows output until the user scrolls up. Which
messages are mounted at all is decided by its ``HistoryWindow`` (``transcript_window.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widget import Widget

from pi_runtime.frontend import events as ev

from ..extension_ui.extension_render import (
    custom_entry_widget,
    custom_message_widget,
    redraw_extension_blocks,
    tool_renderer_lookup,
)
from .history import TRUNCATED_REPLY, aborted_text, summary_last, user_text
from .jump_hint import EndOutOfSight, scrolled_away
from .message_panel import MessagePanel, cut_output_note
from .notice import Notice
from .start_hints import StartHints
from .streaming_markdown import StreamingMarkdown
from .thinking_block import ThinkingBlock
from .tool_box import ToolBox, tool_dom_id
from .transcript_window import INITIAL_MESSAGES, REMOUNT_MESSAGES, HistoryWindow
from .user_message import UserMessage

_code_warmed = False
"""Code highlighting was warmed up (once per process, whichever transcript saw the first answer)."""

if TYPE_CHECKING:
    from pi_runtime.frontend import BashResult, SessionPort



class Transcript(VerticalScroll, can_focus=False):
    """The conversation view; the app feeds it kernel events through ``handle``."""

    def __init__(self, session: SessionPort | None, *, cwd: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.cwd = cwd
        self.tools_expanded = False
        """Ctrl+O state, applied to new tool boxes too."""
        self.thinking_collapsed = False
        self.hidden_thinking_label: str | None = None
        """What collapsed thinking blocks say instead of pi's marker (an extension's)."""
        """Ctrl+T state, applied to new thinking blocks too."""
        self.window = HistoryWindow(self)
        """Which messages are mounted."""
        self._blocks: dict[int, Widget] = {}
        """Content index -> widget for the assistant message being streamed."""
        self._retry_notice: Notice | None = None
        self._retries = 0
        """The retry attempt under way, if any (the line under a stopped answer counts it)."""
        self._compaction_notice: Notice | None = None
        self._bash_panels: dict[str, MessagePanel] = {}
        self._tools: dict[str, ToolBox] = {}
        """Tool boxes by call id (a cache over the DOM; stale entries are re-checked)."""
        self._streaming = False
        self.scrollbar_mode = "auto"
        """``fullscreenScrollbar``: hidden while following a stream (auto), always, or never (hidden)."""
        self._away = False
        """Scrolled away from the end (the app shows "Jump to latest message" then)."""
        self._status_text: str | None = None
        """The last status line (``show_status``), until the user sends something."""
        self._status_notice: Notice | None = None
        self._warm_up_at_answer = False
        """The Markdown warm-up waits for the first answer to start (``warm_up``)."""
        self.messages_when: Callable[[Any], list[Any]] | None = None
        """The session's messages as they were when an event was emitted (``Bridge.messages_when``):
        a view rebuilt for a compaction or a move must not already hold the messages whose own
        events are still waiting in the same batch (they would be drawn twice)."""

    def on_mount(self) -> None:
        self.anchor()

    def on_resize(self) -> None:
        if self._away:
            self.post_message(EndOutOfSight(self))  # the label moves with the bottom row

    def warm_up(self, *, at_answer: bool = False) -> None:
        """Load the Markdown stack before the first answer needs it, in a thread. The app calls
        this once the session is attached: earlier, it would compete for the interpreter with
        the session build, which the first answer waits for too. Code highlighting (Pygments,
        twice the cost) waits until it is about to be needed (``_warm_up_code``).

        ``at_answer``: a prompt was just sent (typed while pi started); the warm-up (25 ms of CPU)
        starts once its answer's first frame is drawn instead, rather than compete with the
        request's last steps (measured: typed -> request at the server) or with that frame.
        """
        if at_answer:
            self._warm_up_at_answer = True
            return
        self._warm_up_at_answer = False
        from .markdown_render import warm_up

        self.run_worker(functools.partial(warm_up, code=False), thread=True, name="markdown-warm-up",
                        group="startup", exit_on_error=False)

    def _warm_up_code(self) -> None:
        """Load code highlighting in a thread, once: when an answer writes a backtick or a tilde
        (a fence may follow), when a tool starts (its box may show code) or when a run settles.
        Started with every answer, it competed with drawing the first one (and, before that, with
        the first prompt's request: measured 40-70 ms later)."""
        global _code_warmed
        if _code_warmed:
            return
        _code_warmed = True
        from .markdown_render import warm_up

        self.run_worker(warm_up, thread=True, name="code-warm-up", group="startup", exit_on_error=False)

    # ------------------------------------------------------------------ history

    @property
    def is_anchor_released(self) -> bool:
        return bool(getattr(self, "_anchor_released", False))

    @property
    def is_streaming(self) -> bool:
        """The agent is working (the newest blocks must stay mounted)."""
        return self._streaming

    @property
    def first_index(self) -> int:
        """Index in ``session.messages`` of the oldest mounted message."""
        return self.window.first_index

    @property
    def end_index(self) -> int | None:
        """One past the newest mounted message; None while the end of the history is mounted."""
        return self.window.end_index

    async def load_messages(self, messages: list[Any]) -> None:
        """Replace the view with the last window of ``messages`` (the last screenful first)."""
        self._status_notice = None
        await self.window.load_messages(messages)
        await self._restore_status()

    async def show_preview(self, messages: list[Any]) -> None:
        """Show ``messages`` (the end of a resumed session) until ``load_messages`` replaces them."""
        await self.window.show_preview(messages)

    async def restore_start(self) -> None:
        """Mount the start of the history (Ctrl+Home goes to the very first message)."""
        await self.window.restore_start()

    async def restore_end(self) -> None:
        """Mount the end of the history again if it was unmounted (before adding to it)."""
        await self.window.restore_end()

    def follow(self) -> None:
        """Back to the end and following it (the user just sent something)."""
        self.anchor()
        self.scroll_end(animate=False)

    def forget_live_blocks(self) -> None:
        """The view was replaced: the streamed message's blocks are gone."""
        self._blocks.clear()

    # ------------------------------------------------------------------ scrollbar while following

    def set_streaming(self, streaming: bool) -> None:
        """The agent started or stopped working (the scrollbar hides while it is followed)."""
        self._streaming = streaming
        self._sync_scrollbar()

    def _sync_scrollbar(self) -> None:
        # While output streams and the view follows it, the thumb only says "at the bottom",
        # yet redrawing it cost as much as the text each frame. Scrolling up brings it back;
        # its column stays reserved, so nothing reflows either way. An inline style, not a class:
        # a class change restyled every block mounted below (Textual matches the stylesheet again
        # over the subtree) at each run's start and end, about twice the CPU of the switch and its
        # frame with 40 to 100 blocks mounted (bench/tui_run_start_restyle.py).
        mode = self.scrollbar_mode
        hidden = mode == "hidden" or (mode == "auto" and self._streaming and not self.is_anchor_released)
        if hidden != self.scrollbar_hidden:
            self.styles.scrollbar_visibility = "hidden" if hidden else "visible"

    @property
    def scrollbar_hidden(self) -> bool:
        """Whether the scrollbar is hidden now (following a stream, or ``fullscreenScrollbar`` hidden)."""
        return self.styles.scrollbar_visibility == "hidden"

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._sync_scrollbar()
        away = scrolled_away(self)
        if away != self._away:
            self._away = away
            self.post_message(EndOutOfSight(self))
        self.window.check_window(new)

    async def _add(self, widget: Widget) -> Widget:
        await self.window.restore_end()
        await self.mount(widget)
        await self.window.prune()
        return widget

    # ------------------------------------------------------------------ live events

    async def handle(self, event: ev.SessionEvent) -> None:
        """Apply one kernel event to the view."""
        if getattr(event, "parent_tool_call_id", None) is not None:
            return  # a call another tool made (a codemode script's): that tool's box reports it
        match event:
            case ev.MessageUpdateEvent():
                await self._on_update(event)
            case ev.MessageStartEvent(message=message):
                await self._on_message_start(message)
            case ev.MessageEndEvent(message=message):
                await self._on_message_end(message)
            case ev.ToolExecutionStartEvent(tool_call_id=call_id, tool_name=name, args=args):
                self._warm_up_code()
                box = await self._tool_box(call_id, name, args)
                box.set_args(args)
                box.set_running()
            case ev.ToolExecutionUpdateEvent(tool_call_id=call_id, tool_name=name, args=args):
                box = await self._tool_box(call_id, name, args)
                box.set_partial(event.partial_result)
            case ev.ToolExecutionEndEvent(tool_call_id=call_id, tool_name=name, result=result):
                box = await self._tool_box(call_id, name, None)
                box.set_result(result.content, result.details, event.is_error, event.duration_ms)
            case ev.AutoRetryStartEvent():
                self._retries = event.attempt
                text = (f"Retrying in {event.delay_ms / 1000:.0f} s ({event.attempt}/{event.max_attempts})… "
                        f"{event.error_message}")
                if self._retry_notice is not None and self._retry_notice.is_attached:
                    self._retry_notice.set_text(text, "retry")
                else:
                    self._retry_notice = await self._add(Notice(text, "retry"))  # type: ignore[assignment]
            case ev.AutoRetryEndEvent():
                notice, self._retry_notice = self._retry_notice, None
                self._retries = 0
                if event.success:
                    if notice is not None:
                        notice.set_text(f"Retry {event.attempt} succeeded", "info")
                else:
                    # Last, below the final attempt's error (Pi's order and words), not up where
                    # the first "Retrying…" line was.
                    if notice is not None and notice.is_attached:
                        await notice.remove()
                    attempts = f"{event.attempt} attempt{'s' if event.attempt != 1 else ''}"
                    await self._add(Notice(f"Error: Retry failed after {attempts}: {event.final_error or 'Unknown error'}", "error"))
            case ev.CompactionStartEvent(reason=reason):
                self._compaction_notice = await self._add(Notice(f"Compacting context ({reason})…", "info"))  # type: ignore[assignment]
            case ev.CompactionEndEvent():
                # The "Compacting…" line becomes the outcome, as Pi's status line does.
                notice, self._compaction_notice = self._compaction_notice, None
                if event.error_message or event.aborted:
                    text, variant = (event.error_message, "error") if event.error_message else ("Compaction cancelled", "warning")
                    if notice is not None and notice.is_attached:
                        notice.set_text(text, variant)  # already worded by the kernel (Pi's text)
                    else:
                        await self._add(Notice(text, variant))
                elif self.session is not None:
                    await self.load_messages(summary_last(self._messages_at(event)))
            case ev.BashExecutionUpdateEvent(id=request_id) if request_id in self._bash_panels:
                self._bash_panels[request_id].append_output(event.delta)
            case ev.AgentSettledEvent():
                # Once the run's last frame is out: started here, the warm-up thread took the
                # interpreter from the drawing of a short answer that had just arrived.
                self.call_after_refresh(self._warm_up_code)
                await self._finish_blocks()
                self._retries = 0
            case ev.SessionChangedEvent() if self.session is not None:
                await self.load_messages(self._messages_at(event))
            case ev.EntryAppendedEvent(entry=entry) if getattr(entry, "type", None) == "custom":
                await self._on_custom_entry(entry)
            case ev.BudgetExceededEvent(message=text) | ev.ExtensionErrorEvent(error=text):
                await self._add(Notice(text, "error"))
            case _:
                pass

    def _messages_at(self, event: Any) -> list[Any]:
        assert self.session is not None
        return self.messages_when(event) if self.messages_when is not None else self.session.messages

    async def _on_message_start(self, message: Any) -> None:
        role = getattr(message, "role", None)
        if role == "user":
            self._status_text = None  # from here on the status line is history, not news
            # Whatever the user was reading, what they just sent (and its answer) comes into view.
            self.anchor()
            await self._add(UserMessage(user_text(message.content), message=message))
            self.follow()
        elif role == "assistant":
            if self._warm_up_at_answer:
                # After the frame with the answer's first words: when they are plain prose they
                # are drawn without the Markdown stack, and the warm-up must not delay that frame.
                self._warm_up_at_answer = False
                self.call_after_refresh(self.warm_up)
            await self._finish_blocks()
            self._blocks = {}
            self._tools.clear()
        elif role == "custom" and message.display:
            from ..extension_ui.extension_theme import AppTheme

            drawn = custom_message_widget(self.session, message, expanded=self.tools_expanded, theme=AppTheme(self.app))
            await self._add(drawn or MessagePanel(f"[{message.custom_type}]", user_text(message.content), "custom",
                                                  message=message))

    async def _on_custom_entry(self, entry: Any) -> None:
        """``pi.append_entry``: drawn by the extension's entry renderer (nothing without one, as in Pi)."""
        from ..extension_ui.extension_theme import AppTheme

        self.window.note_entry(entry)
        drawn = custom_entry_widget(self.session, entry, expanded=self.tools_expanded, theme=AppTheme(self.app))
        if drawn is not None:
            await self._add(drawn)

    async def _on_update(self, event: Any) -> None:
        sub = event.assistant_message_event
        kind = sub.type
        if kind == "text_delta":
            widget = self._blocks.get(sub.content_index)
            if widget is None:
                widget = await self._start_block(event.message, sub.content_index, "text")
            widget.write(sub.delta)  # type: ignore[attr-defined]
            if not _code_warmed and ("`" in sub.delta or "~" in sub.delta):
                self._warm_up_code()
        elif kind == "thinking_delta":
            widget = self._blocks.get(sub.content_index)
            if widget is None:
                widget = await self._start_block(event.message, sub.content_index, "thinking")
            widget.append(sub.delta)  # type: ignore[attr-defined]
        elif kind == "text_start":
            await self._start_block(event.message, sub.content_index, "text")
        elif kind == "thinking_start":
            await self._start_block(event.message, sub.content_index, "thinking")
        elif kind in ("toolcall_start", "toolcall_delta", "toolcall_end"):
            call = getattr(sub, "tool_call", None) or event.message.content[sub.content_index]
            box = await self._tool_box(call.id, call.name, call.arguments, message=event.message)
            box.set_args(call.arguments)
        elif kind in ("text_end",):
            widget = self._blocks.get(sub.content_index)
            if isinstance(widget, StreamingMarkdown):
                await widget.finish()

    async def _start_block(self, message: Any, index: int, kind: str) -> Widget:
        if kind == "text":
            widget: Widget = StreamingMarkdown("", live=True, classes="assistant-text")
        else:
            widget = ThinkingBlock("", message=message, collapsed=self.thinking_collapsed,
                                   hidden_label=self.hidden_thinking_label)
        widget.message = message  # type: ignore[attr-defined]
        self._blocks[index] = widget
        await self._add(widget)
        return widget

    async def _tool_box(self, call_id: str, name: str, args: Any, *, message: Any = None) -> ToolBox:
        box = self._tools.get(call_id)
        if box is not None and box.parent is self:
            return box
        try:  # drawn from the history (every block is a child of the transcript): by id, not a search
            box = self.get_child_by_id(tool_dom_id(call_id), ToolBox)
        except NoMatches:
            box = ToolBox(call_id, name, args, cwd=self.cwd, message=message, expanded=self.tools_expanded,
                          renderer=tool_renderer_lookup(self.session)(name))
            await self.window.restore_end()
            # Not awaited: a box is one leaf widget whose setters only store and refresh, so the
            # next event need not wait for its mount to finish. A reply with 200 tool calls
            # waited for 200 mounts in turn (0.8 s in the app for a 0.17 s run).
            self.mount(box)
        self._tools[call_id] = box
        return box

    async def _on_message_end(self, message: Any) -> None:
        if getattr(message, "role", None) != "assistant":
            return
        await self._finish_blocks()
        if message.stop_reason == "error":
            await self._add(Notice(f"Error: {message.error_message or 'the request failed'}", "error"))
        elif message.stop_reason == "length":
            await self._add(Notice(TRUNCATED_REPLY, "error"))
        elif message.stop_reason == "aborted":
            # Under the answer the user stopped, as Pi draws it; a retry under way ends with it
            # (the kernel then reports the retries as ended, which is not a success to show).
            notice, self._retry_notice = self._retry_notice, None
            if notice is not None and notice.is_attached:
                await notice.remove()
            await self._add(Notice(aborted_text(retries=self._retries), "error"))
            self._retries = 0

    async def _finish_blocks(self) -> None:
        for widget in self._blocks.values():
            if isinstance(widget, StreamingMarkdown) and widget.live:
                await widget.finish()

    # ------------------------------------------------------------------ app-driven changes

    async def add_notice(self, text: str, kind: str = "info") -> Notice:
        """An inline message from the app (prompt refused, command output...)."""
        return await self._add(Notice(text, kind))  # type: ignore[return-value]

    async def show_status(self, text: str) -> None:
        """What the app just did ("Switched to …", "Forked to new session"), as Pi's status line:
        a dim line in the transcript, so it can be found later (a toast is gone in seconds). A
        status right after another replaces it; it is drawn again after the rebuild that a fork,
        clone or resume brings, until the user sends something."""
        self._status_text = text
        last = self.children[-1] if self.children else None
        if last is not None and last is self._status_notice:
            self._status_notice.set_text(text, "status")
            return
        self._status_notice = await self.add_notice(text, "status")

    async def _restore_status(self) -> None:
        if self._status_text is not None:
            self._status_notice = await self.add_notice(self._status_text, "status")

    async def start_bash(self, request_id: str, command: str, exclude: bool) -> MessagePanel:
        """A panel for a user ``!command`` that fills as output arrives."""
        prefix = "!!" if exclude else "!"
        panel = MessagePanel(f"{prefix} {command}  running…", "", "bash", expanded=self.tools_expanded)
        self._bash_panels[request_id] = panel
        await self._add(panel)
        return panel

    def finish_bash(self, request_id: str, command: str, result: BashResult, exclude: bool) -> None:
        panel = self._bash_panels.pop(request_id, None)
        if panel is None:
            return
        prefix = "!!" if exclude else "!"
        status = " (cancelled)" if result.cancelled else (
            f" (exit {result.exit_code})" if result.exit_code not in (0, None) else "")
        panel.set_label(f"{prefix} {command}{status}")
        panel.set_output(result.output.rstrip("\n"))
        panel.set_note(cut_output_note(result.truncated, result.full_output_path))

    def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = expanded
        for box in self.query(ToolBox):
            box.expanded = expanded
        for panel in self.query(MessagePanel):
            panel.set_expanded(expanded)
        for hints in self.query(StartHints):
            hints.expanded = expanded
        from ..extension_ui.extension_block import ExtensionBlock
        from ..extension_ui.extension_theme import AppTheme

        redraw_extension_blocks(self.session, self.query(ExtensionBlock), expanded=expanded, theme=AppTheme(self.app))

    def set_hidden_thinking_label(self, label: str | None) -> None:
        self.hidden_thinking_label = label
        for block in self.query(ThinkingBlock):
            block.hidden_label = label

    def set_thinking_collapsed(self, collapsed: bool) -> None:
        self.thinking_collapsed = collapsed
        for block in self.query(ThinkingBlock):
            block.collapsed = collapsed


__all__ = ["INITIAL_MESSAGES", "REMOUNT_MESSAGES", "Transcript"]
