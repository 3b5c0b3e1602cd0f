"""OAuth for streamable-HTTP MCP servers: the ``mcp`` SDK's client provider over ``mcp-auth.json``.

The SDK's :class:`~mcp.client.auth.OAuthClientProvider` is the httpx auth of the transport. It does
discovery (RFC 9728 protected resource metadata, then RFC 8414 authorization server metadata with
the issuer check), dynamic client registration, PKCE, and refreshing an expired access token. pi
adds what the SDK leaves to its user (mcp.md, "Authenticate with OAuth"):

- :class:`StoredTokens`, the SDK's ``TokenStorage`` over :class:`.oauth_store.McpAuthStore`, which
  also remembers when the access token expires and the authorization server's metadata, so a new
  process refreshes on time and at the right token endpoint (the SDK alone keeps neither);
- a pre-registered client (``oauth.clientId``/``clientSecret``) instead of registration;
- the configured ``scope``, kept in every authorization request next to what the server asks for;
- in a session, no browser: a connection that would have to sign in raises :class:`SignInRequired`
  and the server shows ``needs-auth`` until ``pi mcp login`` or ``/mcp login`` (:mod:`.oauth_login`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .config import McpServerEntry
from .oauth_store import McpAuthFileError, McpAuthStore
from .values import resolve_value

CLIENT_NAME = "pi"
"""The client name sent when registering, unless ``oauth.clientName`` says otherwise."""
CLIENT_METADATA_DOCUMENT = "https://pi.dev/oauth/client.json"
"""Pi's Client ID Metadata Document (its URL is the client id)."""

# The SDK logs every failed flow with a traceback at ERROR; with no handler configured Python
# would print it to stderr in `pi -p`. pi reports the failure itself (state and message).
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())


class SignInRequired(Exception):
    """The server needs an interactive sign-in, which a session never starts by itself."""


class McpSignInError(Exception):
    """A sign-in failed: denied, wrong state, timed out, or the server's answers were unusable."""


def oauth_applies(entry: McpServerEntry) -> bool:
    """OAuth is for HTTP servers that do not send their own ``Authorization`` header."""
    headers = entry.config.get("headers") or {}
    return entry.transport == "http" and not any(k.lower() == "authorization" for k in headers)


def sign_in_hint(name: str) -> str:
    """What ``/mcp`` and the startup notice say about a server in ``needs-auth``."""
    return f"needs sign-in: run /mcp login {name} or pi mcp login {name}"


def uses_metadata_document(entry: McpServerEntry) -> bool:
    """Whether pi offers its Client ID Metadata Document rather than registering (``auto``/``cimd``).

    Pi registers instead when ``clientId`` or ``clientName`` is set, or ``callbackUrl`` is not
    ``/callback`` on ``localhost``/``127.0.0.1``. The SDK then still registers when the
    authorization server does not advertise documents.
    """
    oauth = entry.config.get("oauth") or {}
    mode = oauth.get("clientRegistration") or "auto"
    if mode == "dcr" or "clientId" in oauth:
        return False
    if mode == "cimd":
        return True
    callback = oauth.get("callbackUrl")
    if callback:
        parts = urlsplit(callback)
        if parts.hostname not in ("localhost", "127.0.0.1") or parts.path != "/callback":
            return False
    return "clientName" not in oauth


def _union(*scopes: str | None) -> str | None:
    words: list[str] = []
    for scope in scopes:
        for word in (scope or "").split():
            if word not in words:
                words.append(word)
    return " ".join(words) or None


def _stored_model(model: Any, value: Any, store: McpAuthStore, name: str, field: str) -> Any:
    """A stored field read back as the SDK's model; a hand-edited one of the wrong shape is an
    ``mcp-auth.json`` problem named as such, not a pydantic traceback from inside the SDK."""
    try:
        return model.model_validate(value)
    except ValueError:  # pydantic's ValidationError
        raise McpAuthFileError(f'{store.path}: the "{field}" of MCP server "{name}" is malformed '
                               "(fix or delete the file, then sign in again)") from None


class StoredTokens:
    """The SDK's ``TokenStorage`` for one server name and URL.

    Args:
        store: ``mcp-auth.json``.
        entry: The server (its name, URL and ``oauth`` settings).
        redirect_uri: The redirect URI of this sign-in; a stored registration for another URI is
            not used (the authorization server would refuse it).
        defer: Keep a new client registration in memory until tokens arrive (a sign-in that fails
            or is cancelled then leaves nothing behind), and ignore stored tokens (a sign-in
            always asks again). A session's storage (no handlers) also keeps a registration in
            memory only: without a sign-in it can never be used.
    """

    def __init__(self, store: McpAuthStore, entry: McpServerEntry, redirect_uri: str, *, defer: bool = False) -> None:
        self.store = store
        self.name = entry.name
        self.url = str(entry.config["url"])
        self.oauth: dict[str, Any] = dict(entry.config.get("oauth") or {})
        self.redirect_uri = redirect_uri
        self.defer = defer
        self.session = False
        """Set for a session's provider, which never signs in (see ``defer``)."""
        self.context: Any = None
        """The provider's ``OAuthContext`` (set by :class:`PiOAuthProvider`): its discovered metadata is saved too."""
        self._pending_client: Any = None

    def stored(self) -> dict[str, Any]:
        return self.store.get(self.name, self.url) or {}

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = None if self.defer else self.stored().get("tokens")
        return _stored_model(OAuthToken, tokens, self.store, self.name, "tokens") if isinstance(tokens, dict) else None

    def expires_at(self) -> float | None:
        value = self.stored().get("expiresAt")
        return float(value) if isinstance(value, (int, float)) else None

    async def set_tokens(self, tokens: Any) -> None:
        fields: dict[str, Any] = {"tokens": tokens.model_dump(mode="json", exclude_none=True),
                                  "expiresAt": time.time() + tokens.expires_in if tokens.expires_in else None}
        if self._pending_client is not None:
            fields["client"] = self._pending_client
            self._pending_client = None
        context = self.context
        if context is not None and context.oauth_metadata is not None:
            fields["authServer"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context is not None and context.protected_resource_metadata is not None:
            fields["resource"] = context.protected_resource_metadata.model_dump(mode="json", exclude_none=True)
        self.store.save(self.name, self.url, **fields)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        if "clientId" in self.oauth:
            raw_secret = self.oauth.get("clientSecret")
            secret = resolve_value(raw_secret, f'MCP server "{self.name}" oauth.clientSecret') if raw_secret else None
            return OAuthClientInformationFull.model_validate({
                "client_id": self.oauth["clientId"], "client_secret": secret or None, "redirect_uris": [self.redirect_uri],
                "token_endpoint_auth_method": "client_secret_post" if secret else "none"})
        client = self._pending_client or self.stored().get("client")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        if not isinstance(uris, list) or self.redirect_uri not in uris:  # a string would match a substring
            return None
        return _stored_model(OAuthClientInformationFull, client, self.store, self.name, "client")

    async def set_client_info(self, client_info: Any) -> None:
        mode = self.oauth.get("clientRegistration") or "auto"
        if mode == "cimd" and client_info.client_id != CLIENT_METADATA_DOCUMENT:
            raise McpSignInError(
                f'MCP server "{self.name}": the authorization server does not support Client ID Metadata Documents '
                'for public clients (oauth.clientRegistration is "cimd"); use "dcr" or "auto"')
        data = client_info.model_dump(mode="json", exclude_none=True)
        if self.defer or self.session:
            self._pending_client = data
        else:
            self.store.save(self.name, self.url, client=data)


def _provider_class() -> type[Any]:
    """:class:`PiOAuthProvider`, defined on first use: the SDK is imported lazily (see :mod:`.connection`)."""
    global _PROVIDER
    if _PROVIDER is not None:
        return _PROVIDER
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.exceptions import OAuthFlowError
    from mcp.client.auth.utils import create_oauth_metadata_request
    from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
    from pydantic import ValidationError

    class PiOAuthProvider(OAuthClientProvider):
        """The SDK's provider, plus what a restart must remember and the configured scope."""

        def __init__(self, server_url: str, client_metadata: Any, storage: StoredTokens,
                     configured_scope: str | None, metadata_url: str | None, **kwargs: Any) -> None:
            super().__init__(server_url, client_metadata, storage, **kwargs)
            self._configured_scope = configured_scope
            self._metadata_url = metadata_url
            self._configured_metadata: OAuthMetadata | None = None
            self._stored = storage
            storage.context = self.context

        async def _initialize(self) -> None:
            await super()._initialize()
            storage = self._stored
            if self.context.current_tokens is None:
                return
            # The SDK treats loaded tokens as valid until a 401; with the saved expiry it refreshes first.
            self.context.token_expiry_time = storage.expires_at()
            stored = storage.stored()
            if self.context.oauth_metadata is None and isinstance(stored.get("authServer"), dict):
                self.context.oauth_metadata = _stored_model(OAuthMetadata, stored["authServer"], storage.store,
                                                            storage.name, "authServer")
            if self.context.protected_resource_metadata is None and isinstance(stored.get("resource"), dict):
                self.context.protected_resource_metadata = _stored_model(
                    ProtectedResourceMetadata, stored["resource"], storage.store, storage.name, "resource")

        async def _auth_flow(self, request: Any) -> Any:
            # oauth.authServerMetadataUrl: fetch the configured document first (through the same
            # client), and make it the authorization server the SDK's discovery and issuer check use.
            if self._metadata_url and self._configured_metadata is None:
                response = yield create_oauth_metadata_request(self._metadata_url)
                if response.status_code != 200:
                    raise OAuthFlowError(f"oauth.authServerMetadataUrl {self._metadata_url} answered {response.status_code}")
                try:
                    self._configured_metadata = OAuthMetadata.model_validate_json(await response.aread())
                except ValidationError:
                    raise OAuthFlowError(
                        f"oauth.authServerMetadataUrl {self._metadata_url} is not authorization server metadata") from None
            if self._configured_metadata is not None:
                self.context.oauth_metadata = self._configured_metadata
            flow = super()._auth_flow(request)
            refreshed = False
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    if not refreshed and self._rejected(outgoing is request, response):
                        # The server refused a token it issued (revoked, or it expired early): the SDK
                        # would go straight to a browser sign-in; refresh first, as Pi does.
                        refreshed = True
                        await flow.aclose()
                        self.context.token_expiry_time = 1.0  # long past: the next flow refreshes
                        flow = super()._auth_flow(request)
                        outgoing = await flow.__anext__()
                        continue
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

        def _rejected(self, is_the_request: bool, response: Any) -> bool:
            return (is_the_request and response.status_code == 401 and self.context.can_refresh_token()
                    and self.context.is_token_valid())

        def _select_authorization_server(self, advertised: list[str]) -> str:
            if self._configured_metadata is not None:
                return str(self._configured_metadata.issuer)  # trusted as configured, whatever is advertised
            return str(super()._select_authorization_server(advertised))

        def _expected_issuer(self) -> str:
            if self._configured_metadata is not None:
                return str(self._configured_metadata.issuer)
            return str(super()._expected_issuer())

        async def _perform_authorization(self) -> Any:
            # The SDK replaced the scope with what the server advertised; the configured one stays in.
            metadata = self.context.client_metadata
            metadata.scope = _union(self._configured_scope, metadata.scope)
            return await super()._perform_authorization()

    _PROVIDER = PiOAuthProvider
    return PiOAuthProvider


_PROVIDER: type[Any] | None = None


def build_provider(
    entry: McpServerEntry,
    store: McpAuthStore,
    redirect_uri: str,
    *,
    redirect_handler: Callable[[str], Awaitable[None]] | None = None,
    callback_handler: Callable[[], Awaitable[Any]] | None = None,
    defer: bool = False,
) -> Any:
    """The httpx auth for ``entry``. Without handlers (a session) a needed sign-in raises
    :class:`SignInRequired` instead of opening a browser."""
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    async def refuse(_url: str) -> None:
        raise SignInRequired(sign_in_hint(entry.name))

    async def no_callback() -> Any:
        raise SignInRequired(sign_in_hint(entry.name))

    oauth = entry.config.get("oauth") or {}
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(redirect_uri)],
        client_name=oauth.get("clientName") or CLIENT_NAME,
        scope=oauth.get("scope") or None,
    )
    storage = StoredTokens(store, entry, redirect_uri, defer=defer)
    storage.session = redirect_handler is None
    return _provider_class()(
        str(entry.config["url"]), metadata, storage, oauth.get("scope") or None, oauth.get("authServerMetadataUrl"),
        redirect_handler=redirect_handler or refuse, callback_handler=callback_handler or no_callback,
        client_metadata_url=CLIENT_METADATA_DOCUMENT if uses_metadata_document(entry) else None,
    )


def stored_redirect_uri(store: McpAuthStore, entry: McpServerEntry) -> str | None:
    """The redirect URI of the stored registration (a session's refresh needs the same client)."""
    client = (store.get(entry.name, str(entry.config["url"])) or {}).get("client")
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    # Only a list of strings: the first character of a hand-edited string is no redirect URI.
    return uris[0] if isinstance(uris, list) and uris and isinstance(uris[0], str) else None


def session_auth(entry: McpServerEntry, agent_dir: str | Path) -> Any:
    """A session's httpx auth for ``entry``: the provider when a sign-in is stored, else None.

    Without a stored sign-in the server is asked without credentials, so a 401 shows ``needs-auth``
    and neither discovery nor registration happens in a session.

    Raises:
        McpAuthFileError: ``mcp-auth.json`` is corrupt (the connection fails and says so).
    """
    if not oauth_applies(entry):
        return None
    store = McpAuthStore(agent_dir)
    if not store.has_tokens(entry.name, str(entry.config["url"])):
        return None
    # Refreshing needs the client the tokens were issued to, so its redirect URI.
    return build_provider(entry, store, stored_redirect_uri(store, entry) or "http://127.0.0.1/callback")
