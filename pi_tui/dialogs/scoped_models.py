"""``/scoped-models``: choose (and order) the models Ctrl+P cycles through, as Pi's selector.

Every model starts ticked when no scope is set (all models cycle). Enter ticks or unticks the
highlighted model, Ctrl+A ticks every model matching the filter, Ctrl+X unticks them, Ctrl+P
toggles the highlighted model's whole provider, Alt+Up/Down move a ticked model in the cycle
order. Each change applies to the session at once; Ctrl+S also saves it as ``enabledModels`` in
settings (all ticked removes the key) and Esc closes, keeping the session's choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding

from .model_picker import format_price, format_tokens
from .pick_list import PickItem, PickList

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

Enabled = list[str] | None
"""Ticked refs in cycle order; None when every model is ticked."""


def _normalised(refs: list[str], every: list[str]) -> Enabled:
    """An explicit list that covers every model is "all" again."""
    return None if len(refs) == len(every) and set(refs) == set(every) else refs


class ScopedModels(PickList):
    """Stays open until Esc; ``on_change`` gets each new choice, ``on_save`` the one to keep."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="app.models.save", priority=True),
        Binding("ctrl+a", "enable_all", "Enable all", id="app.models.enableAll", priority=True),
        Binding("ctrl+x", "clear_all", "Clear all", id="app.models.clearAll", priority=True),
        Binding("ctrl+p", "toggle_provider", "Toggle provider", id="app.models.toggleProvider", priority=True),
        Binding("alt+up", "move(-1)", "Move up", id="app.models.reorderUp", priority=True),
        Binding("alt+down", "move(1)", "Move down", id="app.models.reorderDown", priority=True),
    ]

    def __init__(self, models: list[Any], enabled: Enabled, *, on_change: Callable[[Enabled], None] | None = None,
                 on_save: Callable[[Enabled], None] | None = None) -> None:
        self.models = {m.ref: m for m in models}
        self.every = list(self.models)
        self.enabled: Enabled = None if enabled is None else _normalised(
            [ref for ref in enabled if ref in self.models], self.every)
        self.on_change = on_change
        self.on_save = on_save
        self.dirty = False
        """Changed since opened or last saved (the hint says "unsaved")."""
        super().__init__("Models for Ctrl+P cycling", self._items(), hint=self._hint(),
                         detail="Session-only. Ctrl+S to save to settings.",
                         placeholder="type to filter models", id="scoped-models")

    # ------------------------------------------------------------------ drawing

    def _is_on(self, ref: str) -> bool:
        return self.enabled is None or ref in self.enabled

    def _items(self) -> list[PickItem]:
        enabled = self.enabled
        ordered = self.every if enabled is None else enabled + [r for r in self.every if r not in enabled]
        width = max((len(r) for r in self.models), default=10)
        items = []
        for ref in ordered:
            model = self.models[ref]
            on = self._is_on(ref)
            label = Text("[x] " if on else "[ ] ", style="bold" if on else "dim")
            label.append(f"{enabled.index(ref) + 1:>2}. " if enabled is not None and on else "    ", style="dim")
            label.append(ref.ljust(width), style="bold" if on else "")
            label.append(f"  {format_tokens(model.context_window):>5} ctx  {format_price(model)}", style="dim")
            items.append(PickItem(ref, label, f"{ref} {model.name}"))
        return items

    def _hint(self) -> str:
        count = ("all enabled" if self.enabled is None
                 else f"{len(self.enabled)}/{len(self.every)} enabled")
        return ("enter toggle · ctrl+a all · ctrl+x clear · ctrl+p provider · alt+↑↓ order · ctrl+s save · "
                f"esc close · {count}" + (" (unsaved)" if self.dirty else ""))

    def _changed(self, enabled: Enabled, keep: str | None) -> None:
        """Show ``enabled``; the cursor stays on the model ``keep`` (a move), or on the same row
        (a tick: as in Pi, Enter pressed again goes on to the next model)."""
        from textual.widgets import Static

        row = self.highlighted
        self.enabled = enabled
        self.dirty = True
        self.items = self._items()
        self.refill(self.filtered_for)
        if keep is not None:
            for index, item in enumerate(self.shown):
                if item is not None and item.value == keep:
                    self.highlighted = index
        elif row is not None and self.shown:
            self.highlighted = min(row, len(self.shown) - 1)
        self.query_one(".picker-hint", Static).update(self._hint())
        if self.on_change is not None:
            self.on_change(None if enabled is None else list(enabled))

    def _highlighted(self) -> str | None:
        item = self.highlighted_item
        return item.value if item is not None else None

    # ------------------------------------------------------------------ keys

    def pick(self, index: int | None, *, save: bool = False) -> None:
        # Enter ticks or unticks here instead of closing the screen.
        if index is None or not (0 <= index < len(self.shown)) or self.shown[index] is None:
            return
        ref = self.shown[index].value  # type: ignore[union-attr]
        if self.enabled is None:
            enabled: list[str] = [r for r in self.every if r != ref]
        elif ref in self.enabled:
            enabled = [r for r in self.enabled if r != ref]
        else:
            enabled = [*self.enabled, ref]
        self._changed(_normalised(enabled, self.every), None)

    def action_enable_all(self) -> None:
        if self.enabled is None:
            return
        enabled = list(self.enabled)
        enabled += [item.value for item in self.matching(self.filtered_for) if item.value not in enabled]
        self._changed(_normalised(enabled, self.every), self._highlighted())

    def action_clear_all(self) -> None:
        matching = {item.value for item in self.matching(self.filtered_for)}
        current = self.every if self.enabled is None else self.enabled
        self._changed([ref for ref in current if ref not in matching], self._highlighted())

    def action_toggle_provider(self) -> None:
        ref = self._highlighted()
        if ref is None:
            return
        provider = self.models[ref].provider
        refs = [r for r, m in self.models.items() if m.provider == provider]
        current = self.every if self.enabled is None else self.enabled
        if all(r in current for r in refs):
            enabled = [r for r in current if r not in refs]
        else:
            enabled = [*current, *(r for r in refs if r not in current)]
        self._changed(_normalised(enabled, self.every), ref)

    def action_move(self, step: int) -> None:
        ref = self._highlighted()
        if ref is None or self.enabled is None or ref not in self.enabled:
            return
        enabled = list(self.enabled)
        i = enabled.index(ref)
        j = min(max(i + step, 0), len(enabled) - 1)
        enabled.insert(j, enabled.pop(i))
        self._changed(enabled, ref)

    def action_save(self) -> None:
        from textual.widgets import Static

        if self.on_save is not None:
            self.on_save(None if self.enabled is None else list(self.enabled))
        self.dirty = False
        self.query_one(".picker-hint", Static).update(self._hint())


def apply_scoped_models(session: SessionPort, enabled: Enabled) -> None:
    """Make the session cycle through ``enabled`` (None or empty: every model), keeping each
    model's thinking level from the scope it had."""
    levels = {m.ref: lv for m, lv in session.scoped_models}
    registry = session.model_registry
    models = {m.ref: m for m in (registry.all() if registry is not None else [])}
    chosen = [models[ref] for ref in enabled or () if ref in models]
    session.scoped_models = [(m, levels.get(m.ref)) for m in chosen]


def open_scoped_models(app: Any, session: SessionPort) -> None:
    """Push the selector: each change applies to ``session``, Ctrl+S saves it to the settings."""
    from .model_picker import picker_models

    scoped = [m.ref for m, _ in getattr(session, "scoped_models", []) or []]
    models = picker_models(session)
    for model, _ in getattr(session, "scoped_models", []) or []:
        if all(m.ref != model.ref for m in models):
            models.append(model)  # a scoped model without credentials is still shown (and can be unticked)

    def changed(enabled: Enabled) -> None:
        apply_scoped_models(session, enabled)

    def save(enabled: Enabled) -> None:
        try:
            session.settings.set("enabledModels", enabled or None)
        except Exception as exc:  # noqa: BLE001 - reported, the in-session change stays
            app.notify(f"Model selection not saved: {exc}", severity="error", timeout=8)
            return
        app.notify("Model selection saved to settings", timeout=3)

    app.push_screen(ScopedModels(models, scoped or None, on_change=changed, on_save=save))
