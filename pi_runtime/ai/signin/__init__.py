"""Signing in with an account: the nine built-in providers whose subscription (or account) pi can use.

Each provider's flow lives in its own module here (``anthropic.py``, ``openai_codex.py``, ...), next
to the shared parts: the loopback callback (``callback.py``), device-code polling (``device.py``),
PKCE and pasted-code parsing (``pkce.py``) and the HTTP calls (``web.py``). This module is only the
list, cheap to import: a flow's module is imported when its login, refresh or request runs.

A flow stores what Pi 1.6 stores in ``auth.json`` (``{"type": "oauth", "access", "refresh",
"expires", ...}`` with the provider's extra fields such as ``accountId`` or ``enterpriseUrl``), so
either program reads what the other wrote. The model registry (``oauth_logins.py``) refreshes a
credential that expires within five minutes before a request and turns it into the request's key
(and, for GitHub Copilot, its base URL) through :meth:`BuiltinSignIn.to_auth`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, Protocol

from ...records import record


@record(frozen=True)
class RequestCredentials:
    """What a stored sign-in adds to a request (Pi's ``ModelAuth``). Never printed with its secrets."""

    api_key: str | None = field(default=None, repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    base_url: str | None = None
    """A credential-specific endpoint (GitHub Copilot's account endpoint), else None."""


class FlowModule(Protocol):
    """What each provider module here defines."""

    async def login(self, callbacks: Any) -> dict[str, Any]: ...

    async def refresh(self, credentials: dict[str, Any], signal: Any) -> dict[str, Any]: ...

    def to_auth(self, credentials: Mapping[str, Any]) -> RequestCredentials: ...


@record(frozen=True)
class SignInInfo:
    """One provider's account sign-in, as ``/login`` and ``pi auth login`` list it."""

    provider: str
    """The provider id (``anthropic``), the key in auth.json."""
    provider_name: str
    """The provider's display name (``Anthropic``)."""
    name: str
    """The sign-in's own name (``Anthropic (Claude Pro/Max)``)."""
    module: str
    """The module (under this package) with the flow."""
    subscription: bool = True
    """Whether the sign-in uses a paid subscription (``[subscription]`` rather than ``[account]``)."""
    login_label: str | None = None
    """The first choice of ``/login <provider>`` when it has its own wording (``Sign in with ChatGPT``)."""


SIGN_INS: dict[str, SignInInfo] = {info.provider: info for info in (
    SignInInfo("anthropic", "Anthropic", "Anthropic (Claude Pro/Max)", "anthropic"),
    SignInInfo("openai", "OpenAI", "OpenAI (ChatGPT subscription)", "openai_chatgpt",
               login_label="Sign in with ChatGPT"),
    SignInInfo("openai-codex", "OpenAI Codex", "OpenAI (ChatGPT Plus/Pro)", "openai_codex"),
    SignInInfo("github-copilot", "GitHub Copilot", "GitHub Copilot", "github_copilot"),
    SignInInfo("openrouter", "OpenRouter", "OpenRouter OAuth", "openrouter", subscription=False,
               login_label="Sign in with OpenRouter"),
    SignInInfo("xai", "xAI", "xAI (Grok/X subscription)", "xai",
               login_label="Sign in with SuperGrok or X Premium"),
    SignInInfo("kimi-coding", "Kimi For Coding", "Kimi Code (subscription)", "kimi_coding",
               login_label="Sign in with Kimi Code"),
    SignInInfo("meta", "Meta", "Meta (Muse subscription)", "meta", login_label="Sign in with Meta"),
    SignInInfo("radius", "Radius", "Radius", "radius", subscription=False),
)}
"""The built-in account sign-ins by provider id (Pi 1.6's nine)."""


class BuiltinSignIn:
    """A built-in sign-in in the shape the registry's OAuth code expects (``oauth.OAuthConfig``).

    Args:
        info: Which sign-in.
        options: Flow options (``gateway``: the Radius gateway).
    """

    builtin = True
    modify_models: Callable[..., Any] | None = None

    def __init__(self, info: SignInInfo, **options: Any) -> None:
        self.info = info
        self.name = info.name
        self.subscription = info.subscription
        self.login_label = info.login_label
        self.options = options

    def __repr__(self) -> str:
        return f"<BuiltinSignIn {self.info.provider}>"

    def flow(self) -> Any:
        """The flow's module (imported on first use)."""
        module = importlib.import_module(f"{__name__}.{self.info.module}")
        factory = getattr(module, "configured", None)
        return factory(**self.options) if factory is not None else module

    async def login(self, callbacks: Any) -> dict[str, Any]:
        """Run the sign-in; returns the credential to store."""
        result: dict[str, Any] = await self.flow().login(callbacks)
        return result

    async def refresh_token(self, credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
        """A fresh credential for a stored one (``signal`` stops the request)."""
        result: dict[str, Any] = await self.flow().refresh(credentials, signal)
        return result

    def to_auth(self, credentials: Mapping[str, Any]) -> RequestCredentials:
        """What a request carries for the stored credential."""
        result: RequestCredentials = self.flow().to_auth(credentials)
        return result

    def get_api_key(self, credentials: dict[str, Any]) -> str | None:
        """The request key (``OAuthConfig``'s interface)."""
        auth = self.to_auth(credentials)
        return auth.api_key


def builtin_sign_in(provider: str, **options: Any) -> BuiltinSignIn | None:
    """The built-in sign-in of ``provider``, or None when it has none."""
    info = SIGN_INS.get(provider)
    return BuiltinSignIn(info, **options) if info is not None else None


def radius_sign_in(provider: str, name: str, gateway: str) -> BuiltinSignIn:
    """A Radius sign-in for a gateway configured in models.json (``"oauth": "radius"``)."""
    info = SignInInfo(provider, name, name, "radius", subscription=False)
    return BuiltinSignIn(info, gateway=gateway)


__all__ = ["SIGN_INS", "BuiltinSignIn", "RequestCredentials", "SignInInfo", "builtin_sign_in", "radius_sign_in"]
