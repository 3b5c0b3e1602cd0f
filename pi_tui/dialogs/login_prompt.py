"""``/login`` and ``/logout``, as Pi 1.6 offers them.

``/login`` first asks how: "Sign in with an account" (a subscription or account: Claude Pro/Max,
ChatGPT, Copilot, ... and extensions' OAuth providers), "Sign in with an API key", or Radius
directly. Then the providers offering that way, Radius and OpenRouter first, each with its state
(``✓ configured``, ``✓ env: ANTHROPIC_API_KEY``, ``• not configured``). ``/login <provider>`` goes
straight to the provider (asking how when it offers both). An account sign-in runs in
``OAuthLoginScreen``; an API key is typed into a masked input. Esc in a step goes back to the step
before. Keys and tokens are never echoed, logged or put in a notice.

``/logout [provider]`` removes a stored credential (a picker of the stored ones when none is given);
environment variables and models.json stay.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from .modal import Modal
from .pick_list import PickItem, PickList
from .text_prompt import DIALOG_CSS

if TYPE_CHECKING:
    from collections.abc import Callable

    from pi_runtime.frontend import SessionPort
    from pi_runtime.frontend.app_support import LoginOption

ACCOUNT, API_KEY = "Sign in with an account", "Sign in with an API key"


class ApiKeyPrompt(Modal[str | None]):
    """Masked one-line input for a key; returns it, or None when cancelled."""

    DEFAULT_CSS = DIALOG_CSS.replace("TextPrompt,", "ApiKeyPrompt, TextPrompt,")
    BINDINGS = [Binding("escape,ctrl+c", "dismiss(None)", "Cancel", id="tui.select.cancel")]

    def __init__(self, provider: str, provider_name: str, env_names: list[str], key_name: str | None = None,
                 *, optional: bool = False) -> None:
        super().__init__(id="api-key-prompt")
        self.provider = provider
        self.provider_name = provider_name
        self.env_names = env_names
        self.key_name = key_name or "API key"
        self.optional = optional
        """An empty answer is allowed (returned as ""): a server that may or may not want a key."""

    def compose(self) -> ComposeResult:
        hint = "The key is stored in auth.json (readable only by you). "
        if self.env_names:
            hint += f"Instead of a key you may enter ${self.env_names[0]} or !command. "
        with Vertical(classes="nav-dialog"):
            yield Static(f"Login to {self.provider_name}", classes="dialog-title")
            yield Static(self.key_name if self.optional else f"Enter {self.key_name}")
            yield Input(password=True, placeholder="paste the key" + (" or leave empty" if self.optional else ""),
                        id="api-key-input")
            yield Static("", classes="dialog-error", id="api-key-error")
            yield Static(hint + "enter to save · esc to cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        key = event.value.strip()
        if not key and not self.optional:
            self.query_one("#api-key-error", Static).update("The key must not be empty")
            return
        self.dismiss(key)


def say(app: Any, session: SessionPort, text: str, kind: str = "info") -> None:
    """An inline notice in ``session``'s transcript (results stay readable after the dialog closes),
    even when another tab is shown by then."""
    entry = app.workspace.entry_for(session)
    transcript = entry.transcript if entry is not None else app.transcript  # no tab yet: start-up
    app.call_later(transcript.add_notice, text, kind)


def auth_storage(app: Any, session: SessionPort) -> Any:
    """The session's ``AuthStorage`` (shared with the model registry), else the agent dir's."""
    registry = getattr(session, "model_registry", None)
    auth = getattr(registry, "auth", None)
    if auth is not None and hasattr(auth, "set_api_key"):
        return auth
    from pi_runtime.frontend import AuthStorage

    return AuthStorage(Path(app.agent_dir) / "auth.json")


def _options(session: SessionPort, auth_type: str | None = None) -> list[LoginOption]:
    from pi_runtime.frontend.app_support import login_options

    return login_options(session.model_registry, auth_type)  # type: ignore[arg-type]


def palette(app: Any) -> dict[str, str]:
    """The theme's colours for the rows: muted, success and warning (Pi's status colours)."""
    variables = getattr(app, "theme_variables", {}) or {}
    return {k: variables.get(f"pi-{k}", "") or fallback for k, fallback in
            (("muted", "grey50"), ("success", "green"), ("warning", "yellow"))}


def option_row(option: LoginOption, show_kind: bool, colors: dict[str, str] | None = None) -> Text:
    """``Anthropic ✦ [subscription] ✓ configured`` (the marker for Radius and OpenRouter)."""
    colors = colors or {"muted": "grey50", "success": "green", "warning": "yellow"}
    label = Text()
    label.append(option.name, style="bold")
    if option.provider in ("radius", "openrouter"):
        label.append(" ✦", style=colors["muted"])
    if show_kind:
        label.append(f" [{option.kind}]", style=colors["muted"])
    status = option.status_text()
    if "✓" in status:
        label.append(status, style=colors["success"])
    elif status == " • not configured":
        label.append(status, style=colors["muted"])
    else:  # configured the other way (" • API key configured")
        label.append(" • ", style=colors["muted"]).append(status.removeprefix(" • "), style=colors["warning"])
    return label


def open_login(app: Any, session: SessionPort, arg: str) -> None:
    """``/login [provider]`` for ``session`` (the tab it was typed in): its registry, its notices."""
    from pi_runtime.frontend.app_support import matching_options

    if not arg:
        _choose_way(app, session, None)
        return
    found = matching_options(_options(session), arg)
    if len(found) == 1:
        _start(app, session, found[0], None)
    elif found and len({o.provider for o in found}) == 1:
        _choose_way(app, session, found)
    else:
        _choose_provider(app, session, None, arg)


def _choose_way(app: Any, session: SessionPort, for_provider: list[LoginOption] | None) -> None:
    """How to sign in: the account or the key (of one provider, or then a provider), or Radius."""
    radius = None if for_provider else next((o for o in _options(session, "oauth") if o.provider == "radius"), None)
    account = next((o for o in for_provider or [] if o.auth_type == "oauth"), None)
    ways: list[tuple[str, Text]] = []
    kinds = {o.auth_type for o in for_provider} if for_provider else {"oauth", "api_key"}
    if "oauth" in kinds:
        label = (account.login_label if account is not None else None) or ACCOUNT
        ways.append(("oauth", Text(label)))
    if "api_key" in kinds:
        ways.append(("api_key", Text(API_KEY)))
    if radius is not None:
        ways.append(("radius", Text(f"Sign in with {radius.name}").append(radius.status_text(),
                                                                          style=palette(app)["muted"])))
    title = f"Select authentication method for {for_provider[0].name}:" if for_provider else "Select authentication method:"

    def chosen(way: Any) -> None:
        if way is None:
            return
        if way == "radius" and radius is not None:
            _start(app, session, radius, lambda: _choose_way(app, session, None))
        elif for_provider:
            pick = next(o for o in for_provider if o.auth_type == way)
            _start(app, session, pick, lambda: _choose_way(app, session, for_provider))
        else:
            _choose_provider(app, session, way, "")

    items = [PickItem(value, label, label.plain) for value, label in ways]
    app.push_screen(PickList(title, items, filterable=False, id="login-way"), chosen)


def _choose_provider(app: Any, session: SessionPort, auth_type: str | None, search: str) -> None:
    options = _options(session, auth_type)
    if not options:
        say(app, session, {"oauth": "No account providers available.", "api_key": "No API key providers available."}.get(
            auth_type or "", "No login providers available."), "warning")
        return
    show_kind = len({o.auth_type for o in options}) > 1
    colors = palette(app)
    items = [PickItem(index, option_row(o, show_kind, colors), f"{o.name} {o.provider} {o.auth_type} {o.method}")
             for index, o in enumerate(options)]

    def chosen(index: Any) -> None:
        if index is None:
            if auth_type is not None:
                _choose_way(app, session, None)  # back to the question before
            return
        _start(app, session, options[index], lambda: _choose_provider(app, session, auth_type, search))

    picker = PickList("Select provider to configure:", items, hint="↑↓ move · enter select · esc back",
                      id="login-picker")
    app.push_screen(picker, chosen)
    if search:
        app.call_later(_prefill, picker, search)


def _prefill(picker: PickList, text: str) -> None:
    if picker.is_attached:
        picker.query_one("#picker-filter", Input).value = text


def _start(app: Any, session: SessionPort, option: LoginOption, back: Callable[[], None] | None) -> None:
    """Sign in to ``option``'s provider its way; ``back`` reopens the step before on Esc."""
    if option.auth_type == "oauth":
        _account_login(app, session, option, back)
    elif option.provider == "llama.cpp":
        from .llama_login import ask_llama_server

        ask_llama_server(app, session, back)
    else:
        _ask_key(app, session, option, back)


def _ask_key(app: Any, session: SessionPort, option: LoginOption, back: Callable[[], None] | None) -> None:
    from pi_runtime.frontend.app_support import env_var_names, suggested_env_var

    auth = auth_storage(app, session)
    registry = session.model_registry

    def entered(key: str | None) -> None:
        if not key:
            if back is not None:
                back()
            return
        try:
            auth.set_api_key(option.provider, key)
        except Exception as exc:  # noqa: BLE001 - the message names the file, never the key
            say(app, session, f"Failed to save API key for {option.name}: {exc}", "error")
            return
        say(app, session, f"Saved API key for {option.name}. Credentials saved to {auth.path}")
        if registry is not None:
            app.call_later(app.chrome.refresh_model, session)

    # The variable Pi's docs name first (ANTHROPIC_API_KEY, not ANTHROPIC_AUTH_TOKEN).
    suggested = suggested_env_var(option.provider)
    names = [*([suggested] if suggested else []), *(n for n in env_var_names(option.provider) if n != suggested)]
    app.push_screen(ApiKeyPrompt(option.provider, option.name, names, option.method), entered)


def _account_login(app: Any, session: SessionPort, option: LoginOption, back: Callable[[], None] | None) -> None:
    from .oauth_login import OAuthLoginScreen

    registry = session.model_registry

    def done(ok: bool, message: str) -> None:
        if not ok and message.endswith("cancelled") and back is not None:
            back()
            return
        say(app, session, message, "info" if ok else "warning" if "cancelled" in message else "error")
        if ok:
            app.call_later(app.chrome.refresh_model, session)
            if option.provider == "radius":
                _offer_radius_mcp(app, session, option)

    app.push_screen(OAuthLoginScreen(option.provider, option.name, registry, done, agent_dir=app.agent_dir))


def _offer_radius_mcp(app: Any, session: SessionPort, option: LoginOption) -> None:
    """Ask whether the global Radius MCP server should use this login (``pi auth login`` does it unasked)."""
    import os

    from pi_runtime.frontend.app_support import add_radius_server, plan_radius_server

    plan = plan_radius_server(option.provider, app.agent_dir, os.getcwd())
    if plan is None:
        return

    def chosen(answer: Any) -> None:
        if answer != "yes":
            return
        try:
            add_radius_server(plan)
        except Exception as exc:  # noqa: BLE001 - the file could not be written: say which
            say(app, session, f"Could not update {plan.path}: {exc}", "error")
            return
        say(app, session, f'MCP server "{plan.name}" in {plan.path} now uses the {option.name} login.')

    items = [PickItem("yes", Text("Yes"), "yes"), PickItem("no", Text("No"), "no")]
    app.push_screen(PickList(f"Configure {option.name} MCP in {plan.path}?", items, filterable=False,
                             id="radius-mcp"), chosen)


def open_logout(app: Any, session: SessionPort, arg: str) -> None:
    """``/logout [provider]``, told in ``session``'s transcript."""
    auth = auth_storage(app, session)
    stored = set(auth.list())
    if arg:
        _remove(app, session, auth, arg)
        return
    if not stored:
        say(app, session, "No stored credentials to remove. /logout only removes credentials saved by /login; "
                 "environment variables and models.json config are unchanged.", "warning")
        return
    from pi_runtime.frontend.app_support import login_options

    registry = session.model_registry
    names: dict[str, str] = {o.provider: o.name for o in login_options(registry)}
    items = []
    for pid in sorted(stored, key=lambda p: str(names.get(p, p)).lower()):
        cred = auth.get(pid)
        kind = "account" if cred is not None and cred.type == "oauth" else "API key"
        label = Text().append(names.get(pid, pid), style="bold").append(f" [{kind}]", style=palette(app)["muted"])
        label.append(" ✓ stored credential", style=palette(app)["success"])
        items.append(PickItem(pid, label, f"{pid} {names.get(pid, pid)}"))

    def chosen(pid: Any) -> None:
        if pid:
            _remove(app, session, auth, pid)

    app.push_screen(PickList("Select provider to logout:", items, id="logout-picker"), chosen)


def _remove(app: Any, session: SessionPort, auth: Any, provider: str) -> None:
    from pi_runtime.frontend.app_support import login_options

    registry = session.model_registry
    name = next((o.name for o in login_options(registry) if o.provider == provider), provider)
    cred = auth.get(provider)
    try:
        removed = auth.remove(provider)
    except Exception as exc:  # noqa: BLE001
        say(app, session, f"Logout failed: {exc}", "error")
        return
    if not removed:
        say(app, session, f"No stored credentials for {name}. Environment variables and models.json config are unchanged.",
            "warning")
    elif cred is not None and cred.type == "oauth":
        say(app, session, f"Logged out of {name}")
    else:
        say(app, session, f"Removed stored API key for {name}. Environment variables and models.json config are unchanged.")
    app.call_later(app.chrome.refresh_model, session)
