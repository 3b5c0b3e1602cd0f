"""An OAuth-protected streamable-HTTP MCP server on 127.0.0.1, for tests of MCP sign-in.

Run as a subprocess (``python -m pi_runtime.testing.mcp_oauth_server --ready FILE``): it writes its
URL to ``FILE`` once it listens. It is its own authorization server *and* the resource server, built
from the ``mcp`` SDK's server side: protected resource metadata (RFC 9728), authorization server
metadata (RFC 8414), dynamic client registration, authorization codes with PKCE, rotating refresh
tokens. ``/mcp`` without a valid bearer answers 401 with ``WWW-Authenticate: ... resource_metadata``.

The authorization endpoint approves at once (a test's "browser" only follows the redirect), or
with ``--deny`` redirects back with ``error=access_denied``. Every grant, registration and
rejected request is appended to ``--events FILE`` as one word a line, so a test can see that a
refresh happened or that nothing was registered.

Example:
    server = McpOAuthServer(tmp_path, expires_in=2).start()
    ... {"mcpServers": {"notes": {"url": server.url}}} ...
    assert "refresh_token" in server.events()
    server.stop()
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _build_app(port: int, options: argparse.Namespace) -> Any:
    """The ASGI app; ``options`` are :func:`main`'s command-line options."""
    from mcp.server.auth.provider import (
        AccessToken,
        AuthorizationCode,
        AuthorizationParams,
        OAuthAuthorizationServerProvider,
        RefreshToken,
        construct_redirect_uri,
    )
    from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
    from mcp.server.mcpserver import MCPServer
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
    from pydantic import AnyHttpUrl

    base = f"http://127.0.0.1:{port}"
    expires_in, deny, events, client, forget = options.expires_in, options.deny, options.events, options.client, options.forget

    class DocumentClient(OAuthClientInformationFull):
        """A client known by its metadata document (CIMD): any loopback ``/callback`` port is
        accepted (RFC 8252), as the document at pi.dev allows."""

        def validate_redirect_uri(self, redirect_uri: Any) -> Any:
            if redirect_uri is not None and str(redirect_uri).startswith("http://127.0.0.1:") \
                    and str(redirect_uri).endswith("/callback"):
                return redirect_uri
            return super().validate_redirect_uri(redirect_uri)

    def note(event: str) -> None:
        if events is not None:
            with events.open("a", encoding="utf-8") as handle:
                handle.write(event + "\n")

    class Provider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
        """Everything in memory: the server lives as long as one test."""

        def __init__(self) -> None:
            self.clients: dict[str, OAuthClientInformationFull] = {}
            if client:
                client_id, secret, redirect = client
                self.clients[client_id] = OAuthClientInformationFull.model_validate({
                    "client_id": client_id, "client_secret": secret, "redirect_uris": [redirect],
                    "token_endpoint_auth_method": "client_secret_post", "scope": "notes"})
            self.codes: dict[str, AuthorizationCode] = {}
            self.refresh: dict[str, RefreshToken] = {}
            self.access: dict[str, AccessToken] = {}

        async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
            if options.cimd and client_id.startswith("https://") and client_id not in self.clients:
                # A real server fetches the document; the test server has no internet and trusts the id.
                note(f"document {client_id}")
                self.clients[client_id] = DocumentClient.model_validate({
                    "client_id": client_id, "redirect_uris": ["http://127.0.0.1/callback"],
                    "token_endpoint_auth_method": "none", "scope": "notes"})
            return self.clients.get(client_id)

        async def register_client(self, client_info: OAuthClientInformationFull) -> None:
            note(f"register {client_info.client_name}")
            self.clients[str(client_info.client_id)] = client_info

        async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
            if deny:
                note("denied")
                return construct_redirect_uri(str(params.redirect_uri), error="access_denied", state=params.state)
            code = secrets.token_urlsafe(24)
            self.codes[code] = AuthorizationCode(
                code=code, scopes=params.scopes or [], expires_at=time.time() + 300,
                client_id=str(client.client_id), code_challenge=params.code_challenge,
                redirect_uri=params.redirect_uri,
                redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
                resource=params.resource)
            return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

        async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
            return self.codes.get(code)

        async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                              code: AuthorizationCode) -> OAuthToken:
            self.codes.pop(code.code, None)
            note("authorization_code")
            return self._issue(str(client.client_id), code.scopes, code.resource)

        async def load_refresh_token(self, client: OAuthClientInformationFull, token: str) -> RefreshToken | None:
            found = self.refresh.get(token)
            return found if found is not None and found.client_id == client.client_id else None

        async def exchange_refresh_token(self, client: OAuthClientInformationFull, token: RefreshToken,
                                         scopes: list[str]) -> OAuthToken:
            self.refresh.pop(token.token, None)  # they rotate: an old one is refused
            note("refresh_token")
            return self._issue(str(client.client_id), scopes or token.scopes, token.resource)

        async def load_access_token(self, token: str) -> AccessToken | None:
            if forget is not None and forget.exists():
                self.access.clear()  # as if revoked: refresh tokens still work
                forget.unlink()
            found = self.access.get(token)
            if found is None or (found.expires_at is not None and found.expires_at < time.time()):
                note("rejected")
                return None
            return found

        async def revoke_token(self, token: Any) -> None:
            self.access.pop(getattr(token, "token", ""), None)
            self.refresh.pop(getattr(token, "token", ""), None)

        def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
            access, refresh = f"access-{secrets.token_hex(8)}", f"refresh-{secrets.token_hex(8)}"
            self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                              expires_at=int(time.time()) + expires_in, resource=resource)
            self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
            return OAuthToken(access_token=access, token_type="Bearer", expires_in=expires_in,
                              refresh_token=refresh, scope=" ".join(scopes) or None)

    auth = AuthSettings(
        issuer_url=AnyHttpUrl(base), resource_server_url=AnyHttpUrl(f"{base}/mcp"), validate_token_resource=False,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["notes"],
                                                              default_scopes=["notes"]),
        required_scopes=["notes"],
    )
    server = MCPServer("notes-oauth", instructions="Notes behind OAuth.", auth_server_provider=Provider(), auth=auth,
                       log_level="WARNING")

    @server.tool(description="Say who is signed in")
    def whoami() -> str:
        return "signed-in user"

    return _with_metadata_changes(server.streamable_http_app(), base, options)


def _with_metadata_changes(app: Any, base: str, options: argparse.Namespace) -> Any:
    """``--wrong-as``: the protected resource metadata names an authorization server that is not
    there (port 1), as some servers advertise one that is not theirs. ``--cimd``: the authorization
    server metadata says it accepts Client ID Metadata Documents (the SDK's server never does)."""
    if not options.wrong_as and not options.cimd:
        return app
    wrong = json.dumps({"resource": f"{base}/mcp", "authorization_servers": ["http://127.0.0.1:1/"]}).encode()

    async def reply(send: Any, body: bytes) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def changed(scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope.get("type") == "http" else ""
        if options.wrong_as and path.startswith("/.well-known/oauth-protected-resource"):
            await reply(send, wrong)
            return
        if options.cimd and path == "/.well-known/oauth-authorization-server":
            body: list[bytes] = []

            async def keep(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body":
                    body.append(message.get("body", b""))

            await app(scope, receive, keep)
            metadata = json.loads(b"".join(body))
            metadata["client_id_metadata_document_supported"] = True
            metadata["token_endpoint_auth_methods_supported"] = [*metadata["token_endpoint_auth_methods_supported"], "none"]
            await reply(send, json.dumps(metadata).encode())
            return
        await app(scope, receive, send)

    return changed


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", type=Path, required=True, help="file that receives the URL once listening")
    parser.add_argument("--expires-in", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--deny", action="store_true", help="the authorization page refuses")
    parser.add_argument("--events", type=Path, default=None, help="file that receives one line per grant")
    parser.add_argument("--forget", type=Path, default=None,
                        help="when this file appears, every access token issued so far is refused (once)")
    parser.add_argument("--wrong-as", action="store_true",
                        help="protected resource metadata names an authorization server that is not there")
    parser.add_argument("--cimd", action="store_true", help="accept Client ID Metadata Documents")
    parser.add_argument("--client", nargs=3, metavar=("ID", "SECRET", "REDIRECT_URI"), default=None,
                        help="a pre-registered client")
    args = parser.parse_args(argv)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = _build_app(port, args)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started and not task.done():  # noqa: ASYNC110 - uvicorn offers no event to wait on
            await asyncio.sleep(0.02)
        tmp = args.ready.with_name(args.ready.name + ".tmp")
        tmp.write_text(f"http://127.0.0.1:{port}/mcp", encoding="utf-8")
        os.replace(tmp, args.ready)  # the reader never sees half a URL
        await task

    asyncio.run(serve())


class McpOAuthServer:
    """Runs :func:`main` in a subprocess and knows its URL and event log.

    Args:
        folder: Where the ready and events files go.
        expires_in: Access token lifetime in seconds.
        deny: The authorization page refuses.
        client: A pre-registered client: id, secret, redirect URI.
        wrong_as: Advertise an authorization server that does not exist (``authServerMetadataUrl`` tests).
        cimd: Accept Client ID Metadata Documents (any ``https://`` client id).
    """

    def __init__(self, folder: Path, *, expires_in: int = 3600, deny: bool = False,
                 client: tuple[str, str, str] | None = None, wrong_as: bool = False, cimd: bool = False) -> None:
        self.folder = folder
        self.ready = folder / f"oauth-mcp-{secrets.token_hex(4)}.url"
        self.events_file = self.ready.with_suffix(".events")
        self.forget_file = self.ready.with_suffix(".forget")
        self.args = ["--ready", str(self.ready), "--events", str(self.events_file), "--expires-in", str(expires_in),
                     "--forget", str(self.forget_file),
                     *(["--deny"] if deny else []), *(["--client", *client] if client else []),
                     *(["--wrong-as"] if wrong_as else []), *(["--cimd"] if cimd else [])]
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> McpOAuthServer:
        self._process = subprocess.Popen([sys.executable, "-m", "pi_runtime.testing.mcp_oauth_server", *self.args])
        deadline = time.monotonic() + timeout
        while not self.ready.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the OAuth MCP server did not start")
            time.sleep(0.05)
        self.url = self.ready.read_text(encoding="utf-8")
        return self

    def revoke_access_tokens(self) -> None:
        """Make the server refuse every access token issued so far (refresh tokens still work)."""
        self.forget_file.touch()

    def clear_events(self) -> None:
        """Start the event log afresh and drop a pending revocation: a server shared by several
        tests then shows each test only what it did (every test signs in with its own client)."""
        self.events_file.write_text("", encoding="utf-8")
        self.forget_file.unlink(missing_ok=True)

    def events(self) -> list[str]:
        """What happened so far, in order (``register <name>``, ``authorization_code``, ...)."""
        try:
            return self.events_file.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> McpOAuthServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


if __name__ == "__main__":
    main()
