"""``/scoped-models``: choose (and order) the models Ctrl+P cycles through.

Enter toggles the highlighted model; Ctrl+A enables every model matching the filter,
Ctrl+X clears them, Ctrl+P toggles the highlighted model's whole provider, Alt+Up/Down
move an enabled model in the cycle order, Ctrl+S saves: ``enabledModels`` in settings
gets the ``provider/id`` list (none enabled means "all models", the key is removed) and the
session's ``scoped_models`` follow at once. Esc leaves without saving.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding

from .model_picker import format_price, format_tokens
from .pick_list import PickItem, PickList

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort


class ScopedModels(PickList):
    """Returns the ordered list of enabled models on save (None when cancelled)."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="app.models.save", priority=True),
        Binding("ctrl+a", "enable_all", "Enable all", id="app.models.enableAll", priority=True),
        Binding("ctrl+x", "clear_all", "Clear all", id="app.models.clearAll", priority=True),
        Binding("ctrl+p", "toggle_provider", "Toggle provider", id="app.models.toggleProvider", priority=True),
        Binding("alt+up", "move(-1)", "Move up", id="app.models.reorderUp", priority=True),
        Binding("alt+down", "move(1)", "Move down", id="app.models.reorderDown", priority=True),
    ]

    def __init__(self, models: list[Any], enabled: list[str], registry: Any = None) -> None:
        self.models = {m.ref: m for m in models}
        self.registry = registry
        self.enabled: list[str] = [ref for ref in enabled if ref in self.models]
        """Enabled refs in cycle order."""
        self.query_text = ""
        super().__init__("Models for Ctrl+P cycling", self._items(),
                         hint="enter toggle · ctrl+a all · ctrl+x none · ctrl+p provider · "
                              "alt+↑↓ order · ctrl+s save · esc cancel",
                         detail="None enabled: Ctrl+P cycles through every model with credentials.",
                         placeholder="type to filter models", id="scoped-models")

    def _items(self) -> list[PickItem]:
        ordered = self.enabled + [ref for ref in self.models if ref not in self.enabled]
        width = max((len(r) for r in self.models), default=10)
        items = []
        for ref in ordered:
            model = self.models[ref]
            on = ref in self.enabled
            label = Text("[x] " if on else "[ ] ", style="bold" if on else "dim")
            if on:
                label.append(f"{self.enabled.index(ref) + 1:>2}. ", style="dim")
            else:
                label.append("    ")
            label.append(ref.ljust(width), style="bold" if on else "")
            label.append(f"  {format_tokens(model.context_window):>5} ctx  {format_price(model)}", style="dim")
            items.append(PickItem(ref, label, f"{ref} {model.name}"))
        return items

    def _redraw(self, keep: str | None = None) -> None:
        self.items = self._items()
        self.refill(self.query_text)
        if keep is not None:
            for index, item in enumerate(self.shown):
                if item is not None and item.value == keep:
                    self.highlighted = index

    def _highlighted(self) -> str | None:
        item = self.highlighted_item
        return item.value if item is not None else None

    def on_input_changed(self, event) -> None:
        self.query_text = event.value
        super().on_input_changed(event)

    def pick(self, index: int | None, *, save: bool = False) -> None:
        # Enter toggles here instead of closing the screen (Ctrl+S saves: action_save).
        if index is None or not (0 <= index < len(self.shown)) or self.shown[index] is None:
            return
        ref = self.shown[index].value  # type: ignore[union-attr]
        if ref in self.enabled:
            self.enabled.remove(ref)
        else:
            self.enabled.append(ref)
        self._redraw(ref)

    def action_enable_all(self) -> None:
        for item in self.matching(self.query_text):
            if item.value not in self.enabled:
                self.enabled.append(item.value)
        self._redraw(self._highlighted())

    def action_clear_all(self) -> None:
        matching = {item.value for item in self.matching(self.query_text)}
        self.enabled = [ref for ref in self.enabled if ref not in matching]
        self._redraw(self._highlighted())

    def action_toggle_provider(self) -> None:
        ref = self._highlighted()
        if ref is None:
            return
        provider = self.models[ref].provider
        refs = [r for r, m in self.models.items() if m.provider == provider]
        if all(r in self.enabled for r in refs):
            self.enabled = [r for r in self.enabled if r not in refs]
        else:
            self.enabled += [r for r in refs if r not in self.enabled]
        self._redraw(ref)

    def action_move(self, step: int) -> None:
        ref = self._highlighted()
        if ref is None or ref not in self.enabled:
            return
        i = self.enabled.index(ref)
        j = min(max(i + step, 0), len(self.enabled) - 1)
        self.enabled.insert(j, self.enabled.pop(i))
        self._redraw(ref)

    def action_save(self) -> None:
        self.dismiss([self.models[ref] for ref in self.enabled])


def apply_scoped_models(session: SessionPort, models: list[Any]) -> None:
    """Save ``models`` as ``enabledModels`` and make the session cycle through them.

    Raises:
        SettingsError: settings.json could not be written (the session still changes).
    """
    levels = {m.ref: lv for m, lv in session.scoped_models}
    session.scoped_models = [(m, levels.get(m.ref)) for m in models]
    session.settings.set("enabledModels", [m.ref for m in models] or None)


def open_scoped_models(app: Any) -> None:
    """Push the selector; saving applies and persists the choice."""
    from .model_picker import picker_models

    session = app.session
    enabled = [m.ref for m, _ in getattr(session, "scoped_models", []) or []]
    screen = ScopedModels(picker_models(session), enabled, session.model_registry)

    def saved(models: Any) -> None:
        if models is None:
            return
        try:
            apply_scoped_models(session, models)
        except Exception as exc:  # noqa: BLE001 - reported, the in-session change stays
            app.notify(f"Scoped models not saved: {exc}", severity="error", timeout=8)
            return
        app.notify(f"Ctrl+P cycles {len(models)} models" if models else "Ctrl+P cycles every available model",
                   timeout=3)

    app.push_screen(screen, saved)
