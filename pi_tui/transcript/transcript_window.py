"""The transcript's window over a long history: only a slice of the messages is mounted.

The kernel keeps every message; the view mounts ``messages[first_index:end_index]``. On a
resume the last screenful is mounted first, so the screen is painted before the rest of
the initial window arrives. Scrolling to the top of what is mounted brings older messages
in, scrolling to its bottom brings newer ones back, and the far side is unmounted past a
high-water mark, so a session of any length scrolls end to end with a bounded number of
widgets (and bounded memory). Cuts are made where a user message starts, so a tool call
and its result are never split. Anything new at the end (a prompt, a live answer) first
brings the end of the history back if it was unmounted.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from .history import tool_results_by_id, widgets_for
from .user_message import UserMessage

if TYPE_CHECKING:
    from .transcript import Transcript

HIGH_WATER = 200
"""Mounted blocks that trigger unmounting on the far side."""
LOW_WATER = 140
"""Blocks left after unmounting."""
REMOUNT_MESSAGES = 40
"""Messages mounted again per scroll near either end of the window."""
INITIAL_MESSAGES = 100
"""Messages mounted when a session is loaded."""
FIRST_PAINT_MESSAGES = 30
"""Of those, mounted before the first paint (more than a screenful); the rest follow."""
FILL_DELAY = 0.25
"""Seconds after a load before the rest of the initial window is mounted."""
_TURN_SEARCH = 200
"""How far to look for a user message to cut at before cutting anywhere."""


def turn_start(messages: list[Any], index: int) -> int:
    """``index`` moved back to the user message that starts its turn (if one is near)."""
    for i in range(index, max(-1, index - _TURN_SEARCH), -1):
        if getattr(messages[i], "role", None) == "user":
            return i
    return index


def turn_end(messages: list[Any], index: int) -> int:
    """``index`` moved forward to the next user message (the end of a slice), or the end."""
    for i in range(index, min(len(messages), index + _TURN_SEARCH)):
        if getattr(messages[i], "role", None) == "user":
            return i
    return min(index, len(messages))


def _cut_index(children: list[Widget], start: int) -> int | None:
    """The first block at or after ``start`` that begins a turn (else, a message) to cut at."""
    for i in range(start, len(children)):
        if isinstance(children[i], UserMessage):
            return i
    for i in range(max(start, 1), len(children)):
        message = getattr(children[i], "message", None)
        if message is not None and message is not getattr(children[i - 1], "message", None):
            return i
    return None


class HistoryWindow:
    """Which of a transcript's messages are mounted, and moving that window.

    The window owns its indexes and the loading lock; the transcript is its view (it mounts,
    removes and scrolls the blocks, and holds the session whose messages are shown).
    """

    def __init__(self, view: Transcript) -> None:
        self._view = view
        self.first_index = 0
        """Index in ``session.messages`` of the oldest mounted message."""
        self.end_index: int | None = None
        """One past the newest mounted message; None while the end of the history is mounted."""
        self._remounting = False
        self._loading = asyncio.Lock()
        """Held while the view is replaced (a session load, or the preview before it)."""
        self.entries_after: dict[int, list[Any]] = {}
        """Custom entries an entry renderer draws, by the index of the message they follow."""
        self._preview: list[Any] | None = None
        """The messages the preview shows (mounted before the session arrived), until it does."""
        self._loads = 0
        """Counts loads, so a fill scheduled for an earlier one does nothing."""

    @property
    def _messages(self) -> list[Any]:
        session = self._view.session
        return session.messages if session is not None else []

    async def load_messages(self, messages: list[Any]) -> None:
        """Replace the view with the last window of ``messages`` (the last screenful first)."""
        from .entry_placement import custom_entries_by_message

        self.entries_after = custom_entries_by_message(self._view.session, messages)
        preview, self._preview = self._preview, None
        async with self._loading:
            if preview is not None and await self._adopt_preview(preview, messages):
                self._schedule_older(messages)
                return
            with self._view.app.batch_update():  # no empty frame between the old view and the new
                await self._view.remove_children()
                self._view.forget_live_blocks()
                self.end_index = None
                self.first_index = turn_start(messages, max(0, len(messages) - FIRST_PAINT_MESSAGES)) if messages else 0
                await self._mount_range(messages, self.first_index, len(messages))
                self._view.anchor()
        self._schedule_older(messages)

    def _schedule_older(self, messages: list[Any]) -> None:
        """Soon after the first paint, the rest of the initial window (older messages) is mounted.

        Not at once: right after a resume the app is still starting (extensions, footer), and
        keys typed then should not wait behind blocks nobody scrolled to yet. Scrolling up
        before then mounts them as usual (``check_window``).
        """
        wanted = self.first_index - max(0, len(messages) - INITIAL_MESSAGES)
        if wanted <= 0:
            return
        self._loads += 1
        load = self._loads

        def fill() -> None:
            if load == self._loads and not self._remounting and self._view.session is not None:
                self._remounting = True
                self._view.call_later(self._remount_older, wanted)

        self._view.set_timer(FILL_DELAY, fill)

    async def show_preview(self, messages: list[Any]) -> None:
        """Show ``messages`` (the end of a resumed session) until ``load_messages`` replaces them."""
        self.entries_after = {}  # those of the session shown before, not of this one
        async with self._loading:
            if self._view.session is None and not self._view.children:
                await self._mount_range(messages, 0, len(messages))
                self._view.anchor()
                self._preview = list(messages)

    async def _adopt_preview(self, preview: list[Any], messages: list[Any]) -> bool:
        """Keep the preview's blocks when they show the session's last messages as they are.

        The preview was built from the same lines of the same file, so its blocks are what a
        reload would build again (rendering them twice was most of a resume's paint). They are
        kept only when nothing an extension draws could differ (entry, tool or message renderers).

        Returns:
            Whether the preview was kept (the view then shows ``messages``' last window).
        """
        count = len(preview)
        start = len(messages) - count
        if not count or start < 0 or self.entries_after:
            return False
        shown = messages[start:]
        if shown != preview or not self._drawn_by_pi(shown):
            return False
        by_preview = {id(old): new for old, new in zip(preview, shown)}
        for block in self._view.children:
            old = getattr(block, "message", None)
            if old is not None:
                block.message = by_preview.get(id(old), old)  # type: ignore[attr-defined]
        self.end_index = None
        self.first_index = start
        first = turn_start(messages, start) if start else 0
        if first < start:
            # The preview may begin inside a turn (a tool result without its call): the turn's
            # start goes above it, as a reload would have shown it.
            children = self._view.children
            with self._view.app.batch_update():
                await self._mount_range(messages, first, start, before=children[0] if children else None,
                                        results_until=len(messages))
            self.first_index = first
        return True

    def _drawn_by_pi(self, messages: list[Any]) -> bool:
        """Whether no extension renderer draws any of ``messages`` (their tools, their custom type)."""
        session = self._view.session
        if session is None or getattr(session, "extension_runner", None) is None:
            return True
        from ..extension_ui.extension_render import tool_renderer_lookup

        lookup = tool_renderer_lookup(session)
        for message in messages:
            role = getattr(message, "role", None)
            if role == "custom":
                return False
            if role == "assistant" and any(
                    block.type == "toolCall" and lookup(block.name) is not None for block in message.content):
                return False
        return True

    async def _mount_range(self, messages: list[Any], start: int, end: int, *,
                           before: Widget | None = None, results_until: int | None = None) -> None:
        """Mount the blocks of ``messages[start:end]`` (tool results found up to ``results_until``)."""
        from ..extension_ui.extension_theme import AppTheme

        results = tool_results_by_id(messages[start:max(end, results_until or end)])
        theme = AppTheme(self._view.app)
        widgets: list[Widget] = []
        if start == 0:
            widgets.extend(self._entry_widgets(-1, theme))
        for index, message in enumerate(messages[start:end], start):
            widgets.extend(widgets_for(message, results, cwd=self._view.cwd, tools_expanded=self._view.tools_expanded,
                                       thinking_collapsed=self._view.thinking_collapsed, session=self._view.session,
                                       theme=theme, hidden_thinking_label=self._view.hidden_thinking_label))
            widgets.extend(self._entry_widgets(index, theme))
        if widgets:
            await self._view.mount_all(widgets, before=before)

    def _entry_widgets(self, index: int, theme: Any) -> list[Widget]:
        """What entry renderers draw for the custom entries after message ``index``."""
        from ..extension_ui.extension_render import custom_entry_widget

        drawn = (custom_entry_widget(self._view.session, entry, expanded=self._view.tools_expanded, theme=theme)
                 for entry in self.entries_after.get(index, ()))
        return [widget for widget in drawn if widget is not None]

    def note_entry(self, entry: Any) -> None:
        """A custom entry appended now goes after the newest message (drawn again if remounted)."""
        self.entries_after.setdefault(len(self._messages) - 1, []).append(entry)

    def check_window(self, scroll_y: float) -> None:
        """Scrolled to either edge of what is mounted: bring the next messages in."""
        if self._remounting or self._view.session is None:
            return
        # Start a screen early, so the next messages are there before the user reaches the edge.
        margin = self._view.size.height
        if scroll_y <= margin and self.first_index > 0:
            self._remounting = True
            self._view.call_later(self._remount_older, REMOUNT_MESSAGES)
        elif self.end_index is not None and scroll_y >= self._view.max_scroll_y - margin:
            self._remounting = True
            self._view.call_later(self._remount_newer)

    async def _remount_older(self, count: int) -> None:
        try:
            messages = self._messages
            start = turn_start(messages, max(0, self.first_index - count))
            if start >= self.first_index:
                return
            following = not self._view.is_anchor_released
            first = self._view.children[0] if self._view.children else None
            mark = (first.virtual_region.y, self._view.scroll_y) if first is not None else None
            with self._view.app.batch_update():  # one layout for the whole change, not one per block
                await self._mount_range(messages, start, self.first_index, before=first)
                self.first_index = start
                if not following:
                    await self._unmount_newest()
                    if first is not None and mark is not None:
                        self._keep_in_view(first, *mark)
        finally:
            self._remounting = False

    async def _remount_newer(self) -> None:
        try:
            if self.end_index is None:
                return
            messages = self._messages
            end = turn_end(messages, min(len(messages), self.end_index + REMOUNT_MESSAGES))
            if end <= self.end_index:
                end = len(messages)
            with self._view.app.batch_update():
                await self._mount_range(messages, self.end_index, end)
                self.end_index = None if end >= len(messages) else end
                y = self._view.scroll_y
                kept = await self._unmount_oldest()
                if kept is not None:
                    self._keep_in_view(kept[0], kept[1], y)
        finally:
            self._remounting = False

    async def _unmount_newest(self) -> None:
        """Past the high-water mark while reading old history: unmount the newest turns."""
        children = list(self._view.children)
        if len(children) <= HIGH_WATER or self._view.is_streaming:
            return
        cut = _cut_index(children, LOW_WATER)
        if cut is None:
            return
        index = self._message_index(getattr(children[cut], "message", None), self.first_index)
        if index is None:
            return
        await self._view.remove_children(children[cut:])
        self.end_index = index

    async def _unmount_oldest(self) -> tuple[Widget, int] | None:
        """Past the high-water mark: unmount the oldest turns.

        Returns:
            The new first block and where it was before, or None when nothing was unmounted.
        """
        children = list(self._view.children)
        if len(children) <= HIGH_WATER:
            return None
        cut = _cut_index(children, len(children) - LOW_WATER)
        if cut is None:
            return None
        index = self._message_index(getattr(children[cut], "message", None), self.first_index)
        if index is None:
            return None
        kept = children[cut]
        before = kept.virtual_region.y
        await self._view.remove_children(children[:cut])
        self.first_index = index
        return kept, before

    def _keep_in_view(self, widget: Widget, before: int, y: float) -> None:
        """Blocks were added or removed above ``widget`` (which was at ``before`` with the view
        at ``y``): scroll by as much, so what the user was reading stays where it was."""

        def restore() -> None:
            if widget.is_attached:
                self._view.scroll_to(y=max(0, y + widget.virtual_region.y - before), animate=False)

        self._view.call_after_refresh(restore)

    def _message_index(self, message: Any, start: int) -> int | None:
        messages = self._messages
        for i in range(max(0, start), len(messages)):
            if messages[i] is message:
                return i
        return None

    async def restore_start(self) -> None:
        """Mount the start of the history (Ctrl+Home goes to the very first message)."""
        if self.first_index == 0:
            return
        messages = self._messages
        end = turn_end(messages, min(len(messages), INITIAL_MESSAGES))
        with self._view.app.batch_update():
            await self._view.remove_children()
            self._view.forget_live_blocks()
            self.first_index = 0
            self.end_index = None if end >= len(messages) else end
            await self._mount_range(messages, 0, end)

    async def restore_end(self) -> None:
        """Mount the end of the history again if it was unmounted (before adding to it)."""
        if self.end_index is not None:
            await self.load_messages(self._messages)

    async def prune(self) -> None:
        """New blocks at the live end: unmount the oldest turns past the high-water mark."""
        if not self._view.is_anchor_released:
            await self._unmount_oldest()  # following the end: nothing to keep in place
