"""The status line under the editor: where, which session, tokens, cost, context, model.

The app pushes numbers down (``set_stats``, ``set_model``, ``set_working``); the footer
only formats them. A spinner with elapsed time runs while the agent works, unless the app
is in static mode (snapshots and screenshots must not depend on the clock).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from .figures import format_cost, format_duration, format_tokens

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_INTERVAL = 0.1
"""Seconds per frame of pi's spinner."""


@dataclass
class FooterStats:
    """Figures the footer shows."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    cache_hit_rate: float | None = None
    """Percent of the last answer's prompt read from cache (shown with the cache figures)."""
    context_tokens: int | None = None
    context_window: int | None = None
    auto_compaction: bool = False
    """Shown as ``(auto)`` after the context figure."""
    provider: str | None = None
    """Shown before the model when more than one provider has credentials."""


class FooterBar(Static):
    """One or two lines of status."""

    def __init__(self, *, cwd: str, static: bool = False, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.cwd = cwd
        self.static = static
        """No spinner animation or elapsed time (deterministic rendering)."""
        self.session_name: str | None = None
        self.branch: str | None = None
        """Git branch of ``cwd`` (set by the app)."""
        self.working_message: str | None = None
        """An extension's text for the working indicator (``ctx.ui.set_working_message``)."""
        self.working_visible = True
        """False hides the working indicator (``ctx.ui.set_working_visible``)."""
        self.spinner_frames: list[str | Text] | None = None
        """An extension's spinner frames, plain or Rich text (``[]`` hides the spinner; None: pi's)."""
        self.spinner_interval = SPINNER_INTERVAL
        """Seconds per spinner frame (an extension's ``interval_ms``)."""
        self.stats = FooterStats()
        self.model = ""
        self.thinking = "off"
        self.reasoning = False
        self.routed = ""
        """Under a virtual model: where the latest response went (``gpt-5.6-luna • medium``)."""
        self.working = False
        self.status = ""
        """Short transient text (e.g. "compacting")."""
        self._started = 0.0
        self._frame = 0
        self._timer: Timer | None = None
        self.palette: dict[str, str] = {}
        """Theme colours: muted, success, warning, error, accent (set by the app)."""
        self._shown: Text | None = None
        """What the footer shows now."""

    def on_mount(self) -> None:
        self._timer = self.set_interval(self.spinner_interval, self._tick, pause=True)
        self._render_footer()

    def set_palette(self, palette: dict[str, str]) -> None:
        """Theme colours (muted, dim, accent, success, warning, error)."""
        self.palette = palette
        self._render_footer()

    def set_stats(self, stats: FooterStats) -> None:
        self.stats = stats
        self._render_footer()

    def set_model(self, model: str, thinking: str, reasoning: bool, routed: str = "") -> None:
        """``routed``: the physical model (and level) a virtual model sent the latest request to."""
        if (model, thinking, reasoning, routed) != (self.model, self.thinking, self.reasoning, self.routed):
            self.model, self.thinking, self.reasoning, self.routed = model, thinking, reasoning, routed
            self._render_footer()

    def set_cwd(self, cwd: str, branch: str | None) -> None:
        """The folder (and its git branch) of the session shown."""
        if (cwd, branch) != (self.cwd, self.branch):
            self.cwd, self.branch = cwd, branch
            self._render_footer()

    def set_session_name(self, name: str | None) -> None:
        self.session_name = name
        self._render_footer()

    def set_working_look(self, **changes: object) -> None:
        """Extensions' ``working_message``, ``working_visible``, ``spinner_frames`` or
        ``spinner_interval`` (seconds; None: pi's); redraws."""
        for name, value in changes.items():
            setattr(self, name, value)
        if "spinner_interval" in changes:
            self.spinner_interval = float(changes["spinner_interval"] or SPINNER_INTERVAL)  # type: ignore[arg-type]
            if self._timer is not None:
                self._timer.stop()
                self._timer = self.set_interval(self.spinner_interval, self._tick,
                                                pause=not self.working or self.static)
        self._render_footer()

    def set_working(self, working: bool, status: str = "", *, since: float | None = None) -> None:
        """``since``: when the work began (``time.monotonic()``), for a session shown mid-run."""
        if since is not None:
            self._started = since
        elif working and not self.working:
            self._started = time.monotonic()
        self.working, self.status = working, status
        if self._timer is not None and not self.static:
            if working:
                self._timer.resume()
            else:
                self._timer.pause()
        self._render_footer()

    def _tick(self) -> None:
        self._frame += 1
        self._render_footer()

    def _short_cwd(self) -> str:
        import os

        home = os.path.expanduser("~")
        path = self.cwd
        if home and home != "/" and (path == home or path.startswith(home + os.sep)):
            path = "~" + path[len(home):]
        return path

    def _render_footer(self) -> None:
        # Pi's footer: the folder (branch) • session name, then the figures that are not zero,
        # the context fill and the model on the right; all dim but the context warnings.
        c = self.palette
        muted = c.get("muted", "")
        s = self.stats
        line1 = Text(self._short_cwd(), style=muted)
        if self.branch:
            line1.append(f" ({self.branch})", style=muted)
        if self.session_name:
            line1.append(f" • {self.session_name}", style=muted)
        line2 = Text()
        if self.working and self.working_visible:
            frames = SPINNER if self.spinner_frames is None else self.spinner_frames
            if frames:
                glyph = frames[self._frame % len(frames)] if not self.static else "•"
                if isinstance(glyph, Text):  # an extension's own colours
                    line2.append_text(glyph)
                    line2.append(" ")
                else:
                    line2.append(f"{glyph} ", style=c.get("accent", ""))
            line2.append(self.status or self.working_message or "Working", style=c.get("accent", ""))
            if not self.static:
                line2.append(f" {format_duration(time.monotonic() - self._started)}", style=muted)
            line2.append("  ")
        parts = []
        for mark, value in (("↑", s.input), ("↓", s.output), ("R", s.cache_read), ("W", s.cache_write)):
            if value:
                parts.append(f"{mark}{format_tokens(value)}")
        if (s.cache_read or s.cache_write) and s.cache_hit_rate is not None:
            parts.append(f"CH{s.cache_hit_rate:.1f}%")
        if s.cost:  # like Pi, no cost shown for free or local models
            parts.append(format_cost(s.cost))
        if parts:
            line2.append(" ".join(parts) + " ", style=muted)
        if s.context_window:
            auto = " (auto)" if s.auto_compaction else ""
            if s.context_tokens is None:
                # Right after a compaction the old usage no longer describes the context.
                line2.append(f"?/{format_tokens(s.context_window)}{auto}", style=muted)
            else:
                percent = s.context_tokens * 100 / s.context_window
                colour = c.get("error", "") if percent > 90 else c.get("warning", "") if percent > 70 else muted
                line2.append(f"{percent:.1f}%/{format_tokens(s.context_window)}{auto}", style=colour)
        # While the session is still being built the model is unknown, not missing.
        starting = self.working and self.status.startswith("Starting")
        model = self.model or ("" if starting else "no-model")
        if self.reasoning:
            model += " • thinking off" if self.thinking == "off" else f" • {self.thinking}"
        if self.routed and self.model:
            model += f" → {self.routed}"  # Pi: a virtual model shows where the latest response went
        width = max(20, self.size.width or 80)
        right = Text(model, style=muted)
        with_provider = Text(f"({s.provider}) {model}", style=muted) if s.provider and self.model else None
        if with_provider is not None and line2.cell_len + 2 + with_provider.cell_len <= width:
            right = with_provider
        gap = width - line2.cell_len - right.cell_len
        if gap >= 2:
            line2.append(" " * gap, style=muted)
            line2.append_text(right)
        else:
            right.truncate(max(0, width - line2.cell_len - 2))
            if right.cell_len:
                line2.append("  ", style=muted)
                line2.append_text(right)
        shown = Text("\n").join([line1, line2])
        if shown == self._shown:  # same words and styles: a repaint would draw the same cells
            return
        self._shown = shown
        # Always two lines (``#footer``'s height): new text never moves anything else, so no layout
        # pass of the whole screen (each update asked for one; a start-up ran several).
        self.update(shown, layout=False)

    def on_resize(self) -> None:
        self._render_footer()
