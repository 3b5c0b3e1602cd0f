"""The chrome around the conversation that mirrors the session: header (model, loaded
resources), footer (model, thinking level, spend, context use, working state), the queue view
and the editor's thinking-level border.

``SessionChrome`` is told about each kernel event and reads what it shows from the session
port, so the figures are always the kernel's (the usage ledger's totals over the whole file,
the context window of the model in use the moment it changes).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_runtime.frontend import events as ev

from ..footer.footer_bar import FooterStats

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..editor.prompt_editor import PromptEditor
    from ..footer.footer_bar import FooterBar
    from ..footer.header_bar import HeaderBar
    from ..queue.queue_pane import QueuePane

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


class SessionChrome:
    """Keeps the header, footer, queue view and editor border in step with one session."""

    def __init__(self, header: HeaderBar, footer: FooterBar, queue: QueuePane, editor: PromptEditor) -> None:
        self._header, self._footer, self._queue, self._editor = header, footer, queue, editor
        self._providers = 0
        """Providers with credentials, counted when the session or its model changes (not per answer)."""
        self._stats_due = False
        """Messages ended since the footer's figures were worked out (``settle`` does it)."""

    def use_editor(self, editor: PromptEditor) -> None:
        """The editor whose border shows the thinking level (an extension replaced it)."""
        self._editor = editor

    def show(self, session: SessionPort) -> None:
        """Everything from scratch (a session was attached)."""
        if session.cwd:
            self._header.set_cwd(session.cwd)
            self._footer.set_cwd(session.cwd, self._header.branch)
        self.refresh_resources(session)
        self._providers = provider_count(session)
        self.refresh_model(session)
        self.refresh_stats(session)
        self._footer.set_session_name(session.session_name)
        self._queue.attach(session)

    def apply(self, event: ev.SessionEvent, session: SessionPort) -> None:
        """Update what ``event`` changes."""
        footer = self._footer
        match event:
            case ev.QueueUpdateEvent(items=items):
                self._queue.show_items(items)
            case ev.AgentStartEvent():
                footer.set_working(True)
            case ev.AgentSettledEvent():
                footer.set_working(False)
                self._stats_due = True
            case ev.MessageEndEvent():
                self._stats_due = True
            case ev.ModelChangedEvent() | ev.ThinkingLevelChangedEvent():
                self._providers = provider_count(session)
                self.refresh_model(session)
                self.refresh_stats(session)  # the context window is the new model's at once
            case ev.SessionInfoChangedEvent(name=name):
                footer.set_session_name(name)
            case ev.CompactionStartEvent():
                footer.set_working(True, "Compacting")
            case ev.CompactionEndEvent():
                footer.set_working(session.is_streaming)
                self._stats_due = True
            case ev.SessionChangedEvent():
                footer.set_session_name(session.session_name)
                self.refresh_stats(session)
            case _:
                pass

    def refresh_model(self, session: SessionPort) -> None:
        model, level = session.model, session.thinking_level
        self._header.set_model(model.ref if model is not None else "")
        self._footer.set_model(model.id if model else "", level, bool(model and model.reasoning), routed_text(session))
        # One restyle at most (each class added or removed on its own restyles the editor again).
        editor = self._editor
        wanted = {name for name in editor.classes if not name.startswith("thinking-")}
        if level in THINKING_LEVELS:
            wanted.add(f"thinking-{level}")
        if wanted != set(editor.classes):
            editor.set_classes(wanted)

    def refresh_resources(self, session: SessionPort) -> None:
        resources = getattr(session.resources, "resources", None)
        if resources is None:
            return
        self._header.set_loaded(loaded_resources(session), [str(w) for w in resources.warnings])

    def settle(self, session: SessionPort) -> None:
        """After a batch of events: the footer's figures, once for all the answers and tool
        results in it. (Working them out is linear in the context; once per message, a reply
        with 200 tool calls froze typing for 1.4-2.4 s.)"""
        if self._stats_due:
            self.refresh_stats(session)
            from pi_runtime.frontend import is_virtual

            if is_virtual(session.model):  # the latest answer may have come from another model
                self.refresh_model(session)

    def refresh_stats(self, session: SessionPort) -> None:
        self._stats_due = False
        self._footer.set_stats(footer_stats(session, self._providers))


def loaded_resources(session: SessionPort) -> list[tuple[str, list[str]]]:
    """(kind, names) of the context files, skills and prompt templates the session loaded."""
    resources = getattr(session.resources, "resources", None)
    if resources is None:
        return []
    home = str(Path.home())
    return [
        ("context files", [str(f.path).replace(home, "~") for f in resources.context_files]),
        ("skills", [s.name for s in resources.skills]),
        ("prompt templates", ["/" + t.name for t in resources.prompt_templates]),
    ]


def routed_text(session: SessionPort) -> str:
    """Under a virtual model, the footer's ``model • level`` after the arrow (Pi's format); else empty."""
    routed = session.routed_model
    if routed is None:
        return ""
    return f"{routed.model.id} • {routed.thinking_level}" if routed.thinking_level else routed.model.id


def provider_count(session: SessionPort) -> int:
    """How many providers have credentials (the footer names the provider when more than one)."""
    registry = session.model_registry
    return len(registry.available_providers()) if registry is not None else 0


def footer_stats(session: SessionPort, providers: int = 1) -> FooterStats:
    """Footer figures from the session's usage ledger: spend over the whole file, context now."""
    totals = session.usage_totals()
    stats = FooterStats(input=totals.input, output=totals.output, cache_read=totals.cache_read,
                        cache_write=totals.cache_write, cost=totals.cost, cache_hit_rate=totals.latest_cache_hit_rate,
                        auto_compaction=session.auto_compaction_enabled)
    if session.model is not None and providers > 1:
        stats.provider = session.model.provider
    context = session.context_usage()
    if context is not None:
        stats.context_window = context.context_window
        stats.context_tokens = context.tokens
    return stats
