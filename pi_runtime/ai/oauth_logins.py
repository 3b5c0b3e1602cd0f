"""The model registry's part of extension OAuth: which providers log in by OAuth, and how.

:class:`OAuthLogins` is a base of ``ModelRegistry``. An extension's ``register_provider(...,
oauth=...)`` lands in :meth:`set_oauth_provider`; ``/login`` lists :meth:`oauth_providers`
and runs :meth:`login_oauth`; requests get the key through :meth:`_oauth_key` after
:meth:`_refresh_oauth` renewed a token that (nearly) expired. After a login and after a
refresh that changed the stored credentials, the provider's ``on_new_credentials`` hook runs
(it re-applies ``modify_models``). See :mod:`pi_runtime.ai.oauth`.
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

    def oauth_providers(self) -> dict[str, Any]:
        """Provider id -> ``OAuthConfig`` of every provider with an OAuth login."""
        return dict(self._oauth)

    async def login_oauth(self, provider: str, ui: Any, signal: AbortSignal | None = None) -> dict[str, Any]:
        """Run ``provider``'s OAuth login with ``ui`` (a ``oauth.LoginUI``) and store the result.

        Returns:
            The stored auth.json entry.

        Raises:
            KeyError: ``provider`` has no OAuth login.
            OAuthLoginCancelled: The user cancelled.
            OAuthError: The flow failed; AuthFileError: auth.json could not be written.
        """
        from .oauth import run_login

        config = self._oauth[provider]
        if self.auth is None or not hasattr(self.auth, "set"):
            from ..auth import AuthStorage

            self.auth = AuthStorage()
        entry = await run_login(self.auth, provider, config, ui, signal)
        hook = self._oauth_on_new.get(provider)
        if hook is not None:
            hook()
        return entry

    def _oauth_key(self, provider: str) -> str | None:
        """The key ``get_api_key`` derives from ``provider``'s stored oauth credential."""
        config = self._oauth.get(provider)
        get = getattr(self.auth, "get", None)
        if config is None or get is None:
            return None
        cred = get(provider)
        if cred is None or cred.type != "oauth":
            return None
        from .oauth import api_key

        return api_key(config, provider, cred.data)

    async def _refresh_oauth(self, provider: str, signal: AbortSignal | None = None) -> None:
        """Renew ``provider``'s stored token when it (nearly) expired (OAuthRefreshError if not;
        AbortError when ``signal``, the request's, fires first)."""
        config = self._oauth.get(provider)
        if config is None or not hasattr(self.auth, "refresh_oauth"):
            return
        from .oauth import fresh_credentials

        before = self.auth.get(provider)
        after = await fresh_credentials(self.auth, provider, config, signal)
        if after is not None and (before is None or dict(before.data) != after):
            hook = self._oauth_on_new.get(provider)
            if hook is not None:
                hook()  # e.g. modify_models again: the models may depend on the new credentials
