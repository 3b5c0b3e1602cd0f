"""Ctrl+L / ``/model``: a fuzzy picker of the models that have credentials, by provider.

Each row shows the model id, its name, the context window and the price per million
input/output tokens. Enter switches the session (a ``model_change`` entry); Ctrl+S
(``app.models.save``) also makes it the default in settings, as Pi does. Nothing is saved
otherwise.
"""

from __future__ import annotations

import asyncio
import gc
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Input

from .pick_list import PickItem, PickList, Saved

_PICKER_NAME = "model-picker"
"""The name the model picker is installed under (``App.install_screen``)."""

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort


def format_tokens(count: int) -> str:
    """``200000`` -> ``200k``, ``1048576`` -> ``1M`` (context windows)."""
    if count >= 1_000_000:
        value = count / 1_000_000
        return f"{value:.1f}".rstrip("0").rstrip(".") + "M"
    if count >= 1000:
        return f"{count // 1000}k"
    return str(count)


def format_price(model: Any) -> str:
    """``$3/$15`` per million tokens in/out; ``free`` when both are zero; ``routed`` for a virtual
    model (each request costs what the model it is routed to costs)."""
    from pi_runtime.frontend import is_virtual

    if is_virtual(model):
        return "routed"
    cost = model.cost
    if not cost.input and not cost.output:
        return "free"

    def money(v: float) -> str:
        return f"${v:.2f}" if v % 1 else f"${v:.0f}"

    return f"{money(cost.input)}/{money(cost.output)}"


def model_label(model: Any, width: int, current: bool) -> Text:
    """One model's row: the id, context window, price, thinking and its name."""
    label = Text("● " if current else "  ", style="bold")
    label.append(model.id.ljust(width), style="bold" if current else "")
    window = format_tokens(model.context_window) if model.context_window else "?"  # a router's unknown limit
    label.append(f"  {window:>5} ctx", style="dim")
    label.append(f"  {format_price(model):>11}", style="dim")
    if model.reasoning:
        label.append("  thinking", style="italic dim")
    if model.name and model.name != model.id:
        label.append(f"  {model.name}", style="italic")
    return label


def model_items(models: list[Any], registry: Any, current: str) -> list[PickItem]:
    """Pick-list rows for ``models``, grouped under their provider's display name.

    A row's label is made when it is first drawn: with 1,700 models, building them all took
    longer than the picker may take to open.
    """
    width = max((len(m.id) for m in models), default=10)
    names: dict[str, str] = {}
    items = []
    for model in models:
        group = names.get(model.provider)
        if group is None:
            group = registry.provider_name(model.provider) if registry is not None else model.provider
            names[model.provider] = group
        is_current = model.ref == current
        items.append(PickItem(model, partial(model_label, model, width, is_current),
                              f"{model.provider}/{model.id} {model.name}", group, is_current))
    return items


class ModelPicker(PickList):
    """Returns the chosen ``Model``, ``Saved(model)`` with Ctrl+S, or None when cancelled."""

    BINDINGS = [Binding("ctrl+s", "save", "Save as default", id="app.models.save")]

    def __init__(self, models: list[Any], *, current: str = "", registry: Any = None) -> None:
        super().__init__("Select a model", model_items(models, registry, current),
                         hint="↑↓ move · enter select · ctrl+s select and save as default · esc cancel",
                         placeholder="type to search models", id="model-picker")
        self.models = models
        self.current = current
        self.registry = registry

    def offer(self, models: list[Any], *, current: str, registry: Any) -> None:
        """Show ``models`` afresh when the picker opens again: the search cleared, the rows
        remade (their labels only when the models or the current one changed), the cursor on
        the current model and the search field focused, as a new picker would be."""
        same = len(models) == len(self.models) and all(a is b for a, b in zip(models, self.models))
        if not same or current != self.current or registry is not self.registry:
            self.items = model_items(models, registry, current)
            self.models, self.current, self.registry = models, current, registry
        search = self.query_one(Input)
        if search.value:
            search.value = ""  # which refills: the picker watches its search
        else:
            self.refill("")
        search.focus()


def picker_models(session: SessionPort) -> list[Any]:
    """Models the picker offers: those with credentials (the current one always included)."""
    registry = session.model_registry
    models = list(registry.available()) if registry is not None else []
    current = session.model
    # The current model is usually one of them, the same object: found without building 1,700 refs.
    if current is not None and not any(m is current for m in models) and all(m.ref != current.ref for m in models):
        models.insert(0, current)
    return models


async def build_models_ahead(session: SessionPort) -> None:
    """Build the models the picker offers before it first opens, one provider at a time.

    With every provider's key set, the first Ctrl+L spent ~15-45 ms building 1,700 models from the
    catalogue; Pi's picker opens in ~35 ms all told. Between providers the loop handles whatever
    came in meanwhile (a key, a frame): the largest provider costs a few milliseconds.
    """
    registry = session.model_registry
    if registry is None:
        return
    for provider in registry.available_providers():
        registry.models_of(provider)
        await asyncio.sleep(0)
    # They live as long as the registry: out of the collector's reach (as the Markdown warm-up's).
    gc.freeze()


def open_model_picker(app: Any, session: SessionPort) -> None:
    """Push the picker; the choice becomes ``session``'s model (and the default with Ctrl+S), the
    session it was opened for even if another tab is shown by then."""
    current = session.model.ref if session.model is not None else ""
    models, registry = picker_models(session), session.model_registry
    # One picker for the app's life, installed so that closing it keeps it mounted: a new one cost
    # its compose and styling, and its first layout re-laid out and repainted the whole screen
    # beneath it (Textual resizes the background screens when a screen is first shown).
    if app.is_screen_installed(_PICKER_NAME):
        picker = app.get_screen(_PICKER_NAME)
        picker.offer(models, current=current, registry=registry)
    else:
        picker = ModelPicker(models, current=current, registry=registry)
        app.install_screen(picker, _PICKER_NAME)

    def chosen(choice: Any) -> None:
        if choice is None:
            return
        save = isinstance(choice, Saved)
        model = choice.value if save else choice

        async def apply() -> None:
            await session.set_model(model, persist_default=save)
            app.show_status(f"Default model: {model.ref}" if save else f"Model: {model.id}")

        app.run_worker(apply(), name="set-model", group="kernel", exit_on_error=False)

    app.push_screen(_PICKER_NAME, chosen)
