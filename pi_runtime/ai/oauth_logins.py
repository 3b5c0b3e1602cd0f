"""The model registry's part of OAuth: which providers log in with an account, and how.

:class:`OAuthLogins` is a base of ``ModelRegistry``. Two kinds of account login:

- pi's own (``signin``): the nine providers Pi 1.6 signs in to (Claude Pro/Max, ChatGPT, Codex,
  Copilot, ...), and a Radius gateway a models.json provider names with ``"oauth": "radius"``;
- an extension's: ``register_provider(..., oauth=...)`` lands in :meth:`set_oauth_provider` and wins
  over the built-in one of the same provider while it is registered.

``/login`` lists :meth:`oauth_providers` and runs :meth:`login_oauth`; requests get the key (and,
for Copilot, the account's endpoint) through :meth:`_oauth_auth` after :meth:`_refresh_oauth`
renewed a token that (nearly) expired. :meth:`reauthorize` renews it once more when a server
refused it (401) before it was due. After a login and after a refresh that changed the stored
credentials, an extension provider's ``on_new_credentials`` hook runs (it re-applies
``modify_models``). See :mod:`pi_runtime.ai.oauth`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .abort import AbortSignal


class OAuthLogins:
    """OAuth configs by provider id; ``auth`` is the registry's credential store."""

    auth: Any

    def __init__(self) -> None:
        self._oauth: dict[str, Any] = {}
        """Extensions' OAuth configs (pi's own sign-ins come from :meth:`oauth_config`)."""
        self._oauth_on_new: dict[str, Callable[[], Any]] = {}

    def set_oauth_provider(self, provider: str, config: Any | None,
                           on_new_credentials: Callable[[], Any] | None = None) -> None:
        """Log in to ``provider`` by OAuth (an ``oauth.OAuthConfig``; None removes it).

        Its stored oauth credential is then refreshed before requests (``request_auth_async``)
        and turned into the request key by the config's ``get_api_key``. ``on_new_credentials``
        runs after :meth:`login_oauth` or a token refresh stored new credentials.
        """
        if config is None:
            self._oauth.pop(provider, None)
            self._oauth_on_new.pop(provider, None)
            return
        self._oauth[provider] = config
        if on_new_credentials is not None:
            self._oauth_on_new[provider] = on_new_credentials

    def _custom_sign_in(self, provider: str) -> Any | None:
        """A Radius gateway configured in models.json (``"oauth": "radius"`` with a ``baseUrl``)."""
        configs = getattr(self, "_configs", {})
        cfg = configs.get(provider)
        fields = getattr(cfg, "fields", None)
        if fields is None or getattr(fields, "oauth", None) != "radius" or not getattr(fields, "base_url", None):
            return None
        import re

        from .signin import radius_sign_in

        gateway = re.sub(r"/v1/?$", "", str(fields.base_url))
        return radius_sign_in(provider, getattr(fields, "name", None) or provider, gateway)

    def oauth_config(self, provider: str) -> Any | None:
        """How ``provider`` signs in with an account: an extension's config, else pi's own, else None."""
        config = self._oauth.get(provider)
        if config is not None:
            return config
        custom = self._custom_sign_in(provider)
        if custom is not None:
            return custom
        from .signin import builtin_sign_in

        return builtin_sign_in(provider)

    def oauth_providers(self) -> dict[str, Any]:
        """Provider id -> config of every provider with an account login (pi's own first)."""
        from .signin import SIGN_INS

        ids = [*SIGN_INS, *getattr(self, "_configs", {}), *self._oauth]
        found = {pid: self.oauth_config(pid) for pid in dict.fromkeys(ids)}
        return {pid: config for pid, config in found.items() if config is not None}

    async def login_oauth(self, provider: str, ui: Any, signal: AbortSignal | None = None, *,
                          device_id: Callable[[], str] | None = None) -> dict[str, Any]:
        """Run ``provider``'s OAuth login with ``ui`` (a ``oauth.LoginUI``) and store the result.

        Args:
            device_id: Gives this installation's id (settings ``deviceId``) to flows that send one.

        Returns:
            The stored auth.json entry.

        Raises:
            KeyError: ``provider`` has no OAuth login.
            OAuthLoginCancelled: The user cancelled.
            OAuthError: The flow failed; AuthFileError: auth.json could not be written.
        """
        from .oauth import run_login

        config = self.oauth_config(provider)
        if config is None:
            raise KeyError(provider)
        if self.auth is None or not hasattr(self.auth, "set"):
            from ..auth import AuthStorage

            self.auth = AuthStorage()
        entry = await run_login(self.auth, provider, config, ui, signal, device_id=device_id)
        hook = self._oauth_on_new.get(provider)
        if hook is not None:
            hook()
        return entry

    def _stored_oauth(self, provider: str) -> tuple[Any, dict[str, Any]] | None:
        """``(config, stored entry)`` when ``provider`` has a login and an oauth credential is stored."""
        get = getattr(self.auth, "get", None)
        if get is None:
            return None
        cred = get(provider)
        if cred is None or cred.type != "oauth":
            return None
        config = self.oauth_config(provider)
        return (config, cred.data) if config is not None else None

    def _oauth_key(self, provider: str) -> str | None:
        """The key ``get_api_key`` derives from ``provider``'s stored oauth credential."""
        auth = self._oauth_auth(provider)
        return auth.api_key if auth is not None else None

    def _oauth_auth(self, provider: str) -> Any | None:
        """What ``provider``'s stored oauth credential adds to a request (``signin.RequestCredentials``)."""
        found = self._stored_oauth(provider)
        if found is None:
            return None
        from .oauth import request_credentials

        config, data = found
        return request_credentials(config, provider, data)

    def _signed_in_models(self, provider: str) -> set[str] | None:
        """The model ids a signed-in account may use, when its sign-in says (GitHub Copilot's
        ``availableModelIds``); None: every model of the provider."""
        found = self._stored_oauth(provider)
        if found is None or not getattr(found[0], "builtin", False):
            return None
        read = getattr(found[0].flow(), "available_model_ids", None)
        return read(found[1]) if read is not None else None

    async def _refresh_oauth(self, provider: str, signal: AbortSignal | None = None) -> None:
        """Renew ``provider``'s stored token when it (nearly) expired (OAuthRefreshError if not;
        AbortError when ``signal``, the request's, fires first)."""
        if not hasattr(self.auth, "refresh_oauth"):
            return
        stored = self.auth.get(provider)
        if stored is None or stored.type != "oauth":
            return  # nothing to renew (an API key, or none): the sign-in registry need not load
        config = self.oauth_config(provider)
        if config is None:
            return
        from .oauth import fresh_credentials

        before = self.auth.get(provider)
        after = await fresh_credentials(self.auth, provider, config, signal)
        if after is not None and (before is None or dict(before.data) != after):
            hook = self._oauth_on_new.get(provider)
            if hook is not None:
                hook()  # e.g. modify_models again: the models may depend on the new credentials

    async def reauthorize(self, provider: str, refused_key: str | None, signal: AbortSignal | None = None) -> bool:
        """Renew ``provider``'s stored token after a server refused it (401), although not yet due.

        Only the credential whose key was refused is renewed: when another request or process has
        already stored a new one, that one is used as it is.

        Returns:
            True when a request may be sent again with a new credential; False when the provider has
            no stored oauth credential (an API key that is refused stays refused).

        Raises:
            OAuthRefreshError: The renewal failed (the message says to log in again).
            OAuthError: The renewal gave the refused key back (nothing renews it): log in again.
            AbortError: ``signal`` fired first.
        """
        found = self._stored_oauth(provider)
        if found is None or not hasattr(self.auth, "refresh_oauth"):
            return False
        config = found[0]
        from .oauth import OAuthError, fresh_credentials, request_credentials

        def refused(entry: dict[str, Any]) -> bool:
            try:
                return request_credentials(config, provider, entry).api_key == refused_key
            except OAuthError:
                return False  # an entry that yields no key is not the one refused

        current = self._oauth_auth(provider)
        if current is not None and current.api_key != refused_key:
            return True  # renewed meanwhile
        after = await fresh_credentials(self.auth, provider, config, signal, needs=refused)
        if after is None:
            return False  # logged out meanwhile
        hook = self._oauth_on_new.get(provider)
        if hook is not None:
            hook()
        if refused(after):  # nothing to renew (OpenRouter's lasting key): asking again would be refused again
            raise OAuthError(f"{config.name} ({provider}) refused the stored sign-in. Run /login {provider} to log "
                             f"in again (outside pi: pi auth login {provider}).")
        return True
