"""The ways into each provider, as ``/login`` and ``pi auth login`` offer them.

A provider may be signed in to with an account (pi's own sign-ins, ``ai/signin``, or an extension's
OAuth), with an API key, or both; OpenAI Codex only with an account. :func:`login_options` lists
them in Pi's order (Radius and OpenRouter first, then by name) with each provider's current state
(``✓ configured``, ``env: NAME``, ``not configured``), read without running any ``!command``.

Also here: opening a sign-in page in a browser (never a console browser that would take over the
terminal), and this installation's id (``deviceId`` in the global settings, made on first use), which
Sign in with ChatGPT sends as the agent host.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .records import record

AuthType = Literal["oauth", "api_key"]
_ENV_NAMES = re.compile(r"[A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*")
PREFERRED = ("radius", "openrouter")
"""Partner providers listed first, in this order (Pi's preferred providers)."""

API_KEY_NAMES = {
    "anthropic": "Anthropic API key", "openai": "OpenAI API key", "google": "Gemini API key",
    "github-copilot": "GitHub Copilot token", "kimi-coding": "Kimi API key", "meta": "Meta Model API key",
    "huggingface": "Hugging Face token", "azure": "Azure OpenAI API key", "llama.cpp": "llama.cpp server",
}
"""What a provider's API key is called where it differs from "<provider name> API key"."""
ACCOUNT_ONLY = frozenset({"openai-codex"})
"""Providers that take no API key: an account sign-in is the only way in."""


@record(frozen=True)
class AuthStatus:
    """How a provider is configured now."""

    type: AuthType
    source: str
    """``stored credential``, ``models.json`` or the environment variable's name."""


@record(frozen=True)
class LoginOption:
    """One way into one provider."""

    provider: str
    name: str
    """The provider's display name."""
    auth_type: AuthType
    method: str
    """The sign-in's name (``Anthropic (Claude Pro/Max)``) or the key's (``Anthropic API key``)."""
    subscription: bool = False
    login_label: str | None = None
    status: AuthStatus | None = None

    @property
    def kind(self) -> str:
        """``subscription``, ``account`` or ``API key`` (the ``[...]`` after a name in ``/login``)."""
        if self.auth_type == "api_key":
            return "API key"
        return "subscription" if self.subscription else "account"

    def status_text(self) -> str:
        """`` ✓ configured``, `` ✓ env: NAME``, `` • API key configured`` or `` • not configured``."""
        status = self.status
        if status is None:
            return " • not configured"
        if status.type != self.auth_type:
            kind = "API key" if status.type == "api_key" else ("subscription" if self.subscription else "account")
            return f" • {kind} configured"
        if status.source in ("stored credential", "OAuth"):
            return " ✓ configured"
        if _ENV_NAMES.fullmatch(status.source):
            return f" ✓ env: {status.source}"
        return f" ✓ {status.source}"


def provider_name(registry: Any, provider: str) -> str:
    """A provider's display name (the catalogue's, else the sign-in's, else the id)."""
    from .ai.signin import SIGN_INS

    name = registry.provider_name(provider) if registry is not None else provider
    if name == provider and provider in SIGN_INS:
        return SIGN_INS[provider].provider_name
    if name == provider and registry is not None:
        config = registry.oauth_config(provider)  # an extension's provider: its login's name
        return str(getattr(config, "name", None) or name)
    return str(name)


def account_only(registry: Any, provider: str) -> bool:
    """Whether ``provider`` takes no API key: OpenAI Codex, and an extension's OAuth-only provider."""
    if provider in ACCOUNT_ONLY:
        return True
    from .ai import catalog
    from .ai.env_keys import env_var_names

    extension = provider in getattr(registry, "_oauth", {})
    return extension and provider not in catalog.PROVIDERS and not env_var_names(provider)


def api_key_name(registry: Any, provider: str) -> str:
    return API_KEY_NAMES.get(provider) or f"{provider_name(registry, provider)} API key"


def status_of(registry: Any, provider: str) -> AuthStatus | None:
    """How ``provider`` is configured, found without running a ``!command``."""
    auth = getattr(registry, "auth", None)
    stored = auth.get(provider) if auth is not None and hasattr(auth, "get") else None
    if stored is not None and stored.type in ("oauth", "api_key"):
        return AuthStatus(stored.type, "stored credential")
    config_key = getattr(registry, "_config_key", None)
    if config_key is not None and config_key(provider) is not None:
        return AuthStatus("api_key", "models.json")
    from .ai.env_keys import env_var_names

    env = registry._environ() if registry is not None else {}
    names = [name for name in env_var_names(provider) if env.get(name)]
    return AuthStatus("api_key", ", ".join(names)) if names else None


def login_options(registry: Any, auth_type: AuthType | None = None) -> list[LoginOption]:
    """Every way into every provider (a provider's account sign-in above its API key)."""
    oauth = registry.oauth_providers() if registry is not None else {}
    providers = list(dict.fromkeys([*(registry.providers() if registry is not None else []), *oauth,
                                    *sorted(getattr(registry, "login_providers", ()))]))
    options: list[LoginOption] = []
    for pid in providers:
        name, status = provider_name(registry, pid), status_of(registry, pid)
        config = oauth.get(pid)
        subscription = bool(getattr(config, "subscription", False))
        if config is not None and auth_type in (None, "oauth"):
            options.append(LoginOption(pid, name, "oauth", str(config.name), subscription,
                                       getattr(config, "login_label", None), status))
        if not account_only(registry, pid) and auth_type in (None, "api_key"):
            options.append(LoginOption(pid, name, "api_key", api_key_name(registry, pid), subscription, None, status))

    def rank(option: LoginOption) -> tuple[int, str]:
        preferred = PREFERRED.index(option.provider) if option.provider in PREFERRED else len(PREFERRED)
        return preferred, option.name.lower()

    return sorted(options, key=rank)


def matching_options(options: list[LoginOption], ref: str) -> list[LoginOption]:
    """The options whose provider id or name is ``ref`` (case and surrounding spaces ignored)."""
    wanted = ref.strip().lower()
    if not wanted:
        return []
    return [o for o in options if o.provider.lower() == wanted or o.name.lower() == wanted]


def device_id_getter(agent_dir: str | Path) -> Callable[[], str]:
    """A function giving this installation's id: settings ``deviceId``, made and saved on first use."""

    def get() -> str:
        import uuid

        from .settings import SettingsError, SettingsManager

        manager = SettingsManager(global_path=Path(agent_dir) / "settings.json", project_path=None)
        current = manager.raw("global").get("deviceId")
        if isinstance(current, str) and current:
            return current
        made = str(uuid.uuid4())
        try:
            manager.set("deviceId", made)
        except SettingsError:
            pass  # an unwritable settings file: this sign-in still gets an id
        return made

    return get


def open_in_browser(url: str) -> None:
    """Open ``url`` in a browser, best effort and without waiting for it.

    Without a display (over SSH) nothing is opened: :mod:`webbrowser` would fall back to a console
    browser that takes over this terminal. ``BROWSER`` is honoured.
    """
    graphical = sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    if not (os.environ.get("BROWSER") or graphical):
        return
    import threading
    import webbrowser

    def run() -> None:
        try:
            webbrowser.open(url)
        except Exception:  # noqa: BLE001 - the URL is on screen: no browser is not an error
            pass

    threading.Thread(target=run, name="pi-open-browser", daemon=True).start()
