"""Every setting ``/settings`` offers, grouped as in Pi's settings reference, with what changing
it does to the running app.

A row's ``key`` is its dotted settings.json key; ``apply`` makes the running app follow at once
(rows without one take effect where they are read: the next ``/tree``, the next start...).
Settings Pi reads but pi does not (yet) are offered too, since the file is shared with Pi; their
help says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort


class _Themes(Protocol):
    @property
    def themes(self) -> dict[str, Any]: ...
    def apply(self, name: str, *, persist: bool = False, force: bool = False) -> bool: ...


class _ThinkingBlocks(Protocol):
    def set_thinking_collapsed(self, collapsed: bool) -> None: ...


class SettingsApp(Protocol):
    """What the settings rows read and change in the running app."""

    @property
    def session(self) -> SessionPort | None: ...
    @property
    def themes(self) -> _Themes: ...
    @property
    def transcript(self) -> _ThinkingBlocks: ...
    def apply_display_settings(self) -> None: ...

NOT_IN_PI = " Saved for Pi, which shares this file; pi itself does not use it."

IDLE_TIMEOUTS = [300000, 600000, 1800000, 60000, "disabled"]
"""``httpIdleTimeoutMs`` choices (5, 10, 30 min, 1 min, never)."""


@dataclass(frozen=True)
class SettingRow:
    """One editable setting."""

    key: str
    """Dotted settings key (camelCase, as in settings.json)."""
    label: str
    choices: list[Any]
    help: str
    apply: Callable[[SettingsApp, Any], Any] | None = None
    """``apply(app, value)``: make the running app follow (may return a coroutine)."""
    global_only: bool = False
    """Pi reads it only from the agent-directory file."""


def _session(app: SettingsApp) -> Any:
    assert app.session is not None  # the settings screen opens only with a session
    return app.session


def _thinking(app: SettingsApp, level: str) -> Any:
    return _session(app).set_thinking_level(level)


def _model_thinking(app: SettingsApp, level: str) -> None:
    """``modelThinkingLevels[provider/id]``: this model's start-up level (``default``: none)."""
    session = _session(app)
    ref = session.model.ref
    levels = dict(session.settings.settings.model_thinking_levels or {})
    if level == "default":
        levels.pop(ref, None)
    else:
        levels[ref] = level
    session.settings.set("modelThinkingLevels", levels or None)


def groups(app: SettingsApp) -> list[tuple[str, list[SettingRow]]]:
    """The settings by group, with choices for this app (its themes, the model's levels)."""
    session = _session(app)
    levels = session.available_thinking_levels()
    display = lambda a, v: a.apply_display_settings()
    return [
        ("Model and thinking", [
            SettingRow("defaultThinkingLevel", "Thinking level", levels,
                       "Reasoning effort for this session and the start-up default.", _thinking),
            SettingRow("modelThinkingLevels", "This model's level", ["default", *levels],
                       f"Start-up thinking level for {session.model.ref} only (overrides the default).",
                       lambda a, v: _model_thinking(a, v)),
            SettingRow("hideThinkingBlock", "Hide thinking", [False, True],
                       "Fold thinking blocks in the transcript (Ctrl+T toggles for the moment).",
                       lambda a, v: a.transcript.set_thinking_collapsed(v)),
            SettingRow("showCacheMissNotices", "Cache miss notices", [False, True],
                       "Notices for significant prompt-cache misses and provider recovery." + NOT_IN_PI),
            SettingRow("cacheWarming", "Cache warming", ["idle", "streaming", "off"],
                       "Keep provider prompt caches warm during and between runs." + NOT_IN_PI, global_only=True),
        ]),
        ("Interaction", [
            SettingRow("steeringMode", "Steering mode", ["one-at-a-time", "all"],
                       "How queued steering messages (Enter while the agent works) are delivered.",
                       lambda a, v: _session(a).set_steering_mode(v)),
            SettingRow("followUpMode", "Follow-up mode", ["one-at-a-time", "all"],
                       "How queued follow-up messages (Alt+Enter) are delivered.",
                       lambda a, v: _session(a).set_follow_up_mode(v)),
            SettingRow("doubleEscapeAction", "Double Esc", ["tree", "fork", "none"],
                       "What pressing Esc twice on an empty editor opens."),
            SettingRow("treeFilterMode", "Tree filter", ["default", "no-tools", "user-only", "labeled-only", "all"],
                       "The filter /tree opens with."),
            SettingRow("enableSkillCommands", "Skill commands", [True, False],
                       "Offer each skill as a /skill:name command."),
        ]),
        ("Context and sessions", [
            SettingRow("compaction.enabled", "Auto-compaction", [True, False],
                       "Summarise old context automatically when the window fills up.",
                       lambda a, v: _session(a).set_auto_compaction(v)),
            SettingRow("retry.enabled", "Auto-retry", [True, False],
                       "Retry transient provider errors (rate limits, overload) with back-off.",
                       lambda a, v: _session(a).set_auto_retry(v)),
            SettingRow("branchSummary.skipPrompt", "Skip branch summary", [False, True],
                       "Leaving a branch in /tree makes no summary and asks nothing."),
            SettingRow("sessionShareDestination", "Share destination", ["auto", "gist", "radius"],
                       "Where /share uploads a session." + NOT_IN_PI),
        ]),
        ("Display", [
            SettingRow("theme", "Theme", sorted(app.themes.themes),
                       "Colours of the whole app; the screen repaints as you change it.",
                       lambda a, v: a.themes.apply(v)),
            SettingRow("quietStartup", "Quiet start-up", [False, True, "header"],
                       "Hide the key hints and the loaded resources of a new session ('header' keeps the hints)."),
            SettingRow("fullscreenExitOutput", "Exit output", ["transcript", "resume-hint"],
                       "What quitting leaves in the terminal: the conversation and the resume command, or only the latter."),
            SettingRow("fullscreenScrollbar", "Scrollbar", ["auto", "always", "hidden"],
                       "The transcript's scrollbar: hidden while following the answer (auto), always, or never.",
                       display),
            SettingRow("editorPaddingX", "Editor padding", [0, 1, 2, 3],
                       "Extra columns on each side of the prompt editor.", display),
            SettingRow("outputPad", "Output padding", [1, 0],
                       "A column of padding inside messages, tool output and summaries.", display),
            SettingRow("autocompleteMaxVisible", "Menu height", [5, 3, 7, 10, 15, 20],
                       "How many completions the / @ and Tab menu shows at once.", display),
            SettingRow("markdown.mermaid", "Mermaid diagrams", ["streaming", "final", "off"],
                       "Render Mermaid code blocks as diagrams." + NOT_IN_PI),
            SettingRow("collapseChangelog", "Short changelog", [False, True],
                       "Show a condensed changelog after an update."),
            SettingRow("tuiMode", "UI mode", ["fullscreen", "regular"],
                       "Pi's regular mode keeps the terminal's scrollback; pi is always full-screen." + NOT_IN_PI),
            SettingRow("fullscreenCopyOnSelect", "Copy on select", [True, False],
                       "Copy text selected with the mouse at once." + NOT_IN_PI),
            SettingRow("terminal.showTerminalProgress", "Terminal progress", [False, True],
                       "OSC 9;4 progress in the terminal tab while the agent works." + NOT_IN_PI),
            SettingRow("showHardwareCursor", "Hardware cursor", [False, True],
                       "Use the terminal's cursor instead of a drawn one." + NOT_IN_PI),
        ]),
        ("Images", [
            SettingRow("images.autoResize", "Auto-resize images", [True, False],
                       "Shrink images to at most 2000×2000 pixels before a model sees them."),
            SettingRow("images.blockImages", "Block images", [False, True],
                       "Never send images to models (read and pasted images become a note)."),
        ]),
        ("Network", [
            SettingRow("httpIdleTimeoutMs", "HTTP idle timeout", IDLE_TIMEOUTS,
                       "Give up on a provider that sends nothing for this long (ms); disable for slow local models."),
            SettingRow("transport", "Transport", ["auto", "sse", "websocket", "websocket-cached"],
                       "Preferred transport where a provider offers several; pi streams over SSE." + NOT_IN_PI),
        ]),
        ("Trust and telemetry", [
            SettingRow("defaultProjectTrust", "Project trust", ["ask", "always", "never"],
                       "Whether a project's .pi settings, extensions and context are used when nothing else decides.",
                       global_only=True),
            SettingRow("enableInstallTelemetry", "Install telemetry", [True, False],
                       "Anonymous install/update pings; pi sends none." + NOT_IN_PI),
        ]),
    ]
