"""``/login`` and ``/logout``: API keys kept in ``auth.json`` (mode 0600, written atomically).

``/login [provider]`` asks for the provider when none is given (every provider the model
registry knows, those with a stored key marked), then for the key in a masked input. The
key is never echoed, logged or put in a notice. The model registry reads ``auth.json`` at
call time, so the provider's models are usable as soon as the file is written.
``/logout [provider]`` removes a stored key (a picker of the stored ones when none is given).

Providers an extension registered with an OAuth login (``registry.oauth_providers()``) are
listed by their login name and marked "OAuth"; choosing one runs its login flow in
``OAuthLoginScreen`` instead of asking for a key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from .modal import Modal
from .pick_list import PickItem, PickList
from .text_prompt import DIALOG_CSS


class ApiKeyPrompt(Modal[str | None]):
    """Masked one-line input for a key; returns it, or None when cancelled."""

    DEFAULT_CSS = DIALOG_CSS.replace("TextPrompt,", "ApiKeyPrompt, TextPrompt,")
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="tui.select.cancel")]

    def __init__(self, provider: str, provider_name: str, env_names: list[str]) -> None:
        super().__init__(id="api-key-prompt")
        self.provider = provider
        self.provider_name = provider_name
        self.env_names = env_names

    def compose(self) -> ComposeResult:
        hint = "The key is stored in auth.json (readable only by you). "
        if self.env_names:
            hint += f"Instead of a key you may enter ${self.env_names[0]} or !command. "
        with Vertical(classes="nav-dialog"):
            yield Static(f"API key for {self.provider_name} ({self.provider})", classes="dialog-title")
            yield Input(password=True, placeholder="paste the key", id="api-key-input")
            yield Static("", classes="dialog-error", id="api-key-error")
            yield Static(hint + "enter to save · esc to cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        key = event.value.strip()
        if not key:
            self.query_one("#api-key-error", Static).update("The key must not be empty")
            return
        self.dismiss(key)


def say(app: Any, text: str, kind: str = "info") -> None:
    """An inline notice in the transcript (results stay readable after the dialog closes)."""
    app.call_later(app.transcript.add_notice, text, kind)


def auth_storage(app: Any) -> Any:
    """The session's ``AuthStorage`` (shared with the model registry), else the agent dir's."""
    registry = getattr(app.session, "model_registry", None)
    auth = getattr(registry, "auth", None)
    if auth is not None and hasattr(auth, "set_api_key"):
        return auth
    from pi_runtime.frontend import AuthStorage

    return AuthStorage(Path(app.agent_dir) / "auth.json")


def oauth_logins(registry: Any) -> dict[str, Any]:
    """Provider id -> OAuth config of the providers extensions gave an OAuth login."""
    get = getattr(registry, "oauth_providers", None)
    return dict(get()) if get is not None else {}


def provider_items(registry: Any, stored: set[str], only: set[str] | None = None) -> list[PickItem]:
    """One row per provider: display name, id, and whether a key is stored (OAuth ones first)."""
    oauth = oauth_logins(registry)
    providers = list(registry.providers()) if registry is not None else sorted(stored)
    providers = list(dict.fromkeys([*oauth, *providers]))
    items = []
    for pid in providers:
        if only is not None and pid not in only:
            continue
        name = oauth[pid].name if pid in oauth else registry.provider_name(pid) if registry is not None else pid
        label = Text(("● " if pid in stored else "  ") + name, style="bold")
        label.append(f"  {pid}", style="dim")
        if pid in oauth:
            label.append("  OAuth", style="italic")
        if pid in stored:
            label.append("  logged in" if pid in oauth else "  key stored", style="italic dim")
        items.append(PickItem(pid, label, f"{pid} {name}"))
    return items


def open_login(app: Any, arg: str) -> None:
    """``/login [provider]``."""
    registry = app.session.model_registry
    auth = auth_storage(app)
    stored = set(auth.list())
    if arg:
        _ask_key(app, auth, arg)
        return

    def chosen(pid: Any) -> None:
        if pid:
            _ask_key(app, auth, pid)

    app.push_screen(PickList("Log in to a provider", provider_items(registry, stored),
                             hint="enter to log in (OAuth) or add an API key · esc cancel", id="login-picker"), chosen)


def _ask_key(app: Any, auth: Any, provider: str) -> None:
    from pi_runtime.frontend.app_support import env_var_names, suggested_env_var

    registry = app.session.model_registry
    if provider in oauth_logins(registry):
        _oauth_login(app, registry, provider)
        return
    if registry is not None and provider not in registry.providers():
        say(app, f"Unknown provider '{provider}'", "error")
        return
    name = registry.provider_name(provider) if registry is not None else provider

    def entered(key: str | None) -> None:
        if not key:
            return
        try:
            auth.set_api_key(provider, key)
        except Exception as exc:  # noqa: BLE001 - the message names the file, never the key
            say(app, f"Could not save the key: {exc}", "error")
            return
        count = len(registry.models_of(provider)) if registry is not None else 0
        say(app, f"Logged in to {name}: key saved in {auth.path}" + (f" ({count} models)" if count else ""))
        if app.session is not None:
            app.call_later(app.chrome.refresh_model, app.session)

    suggested = suggested_env_var(provider)
    names = [*([suggested] if suggested else []), *(n for n in env_var_names(provider) if n != suggested)]
    app.push_screen(ApiKeyPrompt(provider, name, names), entered)


def _oauth_login(app: Any, registry: Any, provider: str) -> None:
    from .oauth_login import OAuthLoginScreen

    def done(ok: bool, message: str) -> None:
        say(app, message, "info" if ok else "warning" if "cancelled" in message else "error")
        if ok and app.session is not None:
            app.call_later(app.chrome.refresh_model, app.session)

    name = oauth_logins(registry)[provider].name
    app.push_screen(OAuthLoginScreen(provider, name, registry, done))


def open_logout(app: Any, arg: str) -> None:
    """``/logout [provider]``."""
    auth = auth_storage(app)
    stored = set(auth.list())
    if arg:
        _remove(app, auth, arg)
        return
    if not stored:
        say(app, "No stored credentials to remove", "warning")
        return
    registry = app.session.model_registry
    items = provider_items(registry, stored, only=stored)
    known = {item.value for item in items}
    items += [PickItem(p, Text(p, style="bold"), p) for p in sorted(stored - known)]

    def chosen(pid: Any) -> None:
        if pid:
            _remove(app, auth, pid)

    app.push_screen(PickList("Log out of a provider", items, hint="enter to remove the stored key · esc cancel",
                             id="logout-picker"), chosen)


def _remove(app: Any, auth: Any, provider: str) -> None:
    try:
        removed = auth.remove(provider)
    except Exception as exc:  # noqa: BLE001
        say(app, f"Could not update {auth.path}: {exc}", "error")
        return
    if removed:
        say(app, f"Removed the stored key for {provider}")
    else:
        say(app, f"No stored key for {provider}", "warning")
