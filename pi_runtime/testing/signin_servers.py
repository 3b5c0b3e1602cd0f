"""The sign-in servers of the nine account providers, played on 127.0.0.1 behind a :class:`ProviderStandIn`.

:class:`SignInServers` is a responder for the stand-in: it answers at each provider's real host
(``claude.ai``, ``auth.openai.com``, ``github.com``, ``auth.x.ai``, ...) the way the provider does,
from a script: authorization pages redirect at once to the redirect URI with a code (as a browser
whose user clicked "Allow" would see), token endpoints check the code, the PKCE verifier against the
challenge the authorization page saw, and refresh tokens (which rotate: only the newest is valid);
device-code endpoints answer "pending" ``pending_polls`` times before approving. Every request is
recorded by the stand-in, so a test can compare what pi and Pi send.

Knobs: ``fail_refresh`` (refresh answers 400 ``invalid_grant``, as for a revoked sign-in),
``pending_polls``, ``refuse_device`` (the user denies a device code).

Example:
    servers = SignInServers()
    with ProviderStandIn(servers) as standin:
        ... run ``pi auth login anthropic`` with ``standin.env()`` ...
        assert servers.issued["anthropic"]
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

from .loopback import RecordedRequest, Reply

if TYPE_CHECKING:
    from .standin import ProviderStandIn

Handler = Callable[[RecordedRequest, dict[str, str]], Reply]


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def fake_jwt(claims: dict[str, Any]) -> str:
    """An unsigned JWT carrying ``claims`` (what OpenAI's access tokens look like to a reader)."""
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}.sig"


def redirect(location: str) -> Reply:
    return Reply(status=302, headers={"location": location, "content-type": "text/html"}, pieces=[b"redirecting"])


def _json(status: int, body: Any) -> Reply:
    return Reply.json(status, body)


class SignInServers:
    """A responder playing every account provider's sign-in host (see the module docstring)."""

    ACCOUNT_ID = "acct-test-1234"
    COPILOT_HOST = "api.business.githubcopilot.com"

    def __init__(self, *, pending_polls: int = 1) -> None:
        self.pending_polls = pending_polls
        self.fail_refresh = False
        self.refuse_device = False
        self.rotate = True
        """Only the newest refresh token is valid (False: every one issued stays valid, so two
        programs can each refresh a copy of the same stored credential)."""
        self.issued: dict[str, list[str]] = {}
        """Access tokens issued per provider, oldest first."""
        self.refresh_valid: dict[str, str] = {}
        self._refresh_seen: dict[str, set[str]] = {}
        self._challenges: dict[str, str] = {}
        """Authorization code -> the PKCE challenge its authorization page was given."""
        self._polls: dict[str, int] = {}
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._routes: dict[tuple[str, str, str], Handler] = {
            ("GET", "claude.ai", "/oauth/authorize"): self._authorize,
            ("POST", "platform.claude.com", "/v1/oauth/token"): self._anthropic_token,
            ("GET", "auth.openai.com", "/oauth/authorize"): self._authorize,
            ("POST", "auth.openai.com", "/oauth/token"): self._codex_token,
            ("POST", "auth.openai.com", "/api/accounts/deviceauth/usercode"): self._codex_usercode,
            ("POST", "auth.openai.com", "/api/accounts/deviceauth/token"): self._codex_device_token,
            ("GET", "auth.openai.com", "/api/accounts/authorize"): self._chatgpt_authorize,
            ("POST", "auth.openai.com", "/api/accounts/oauth/token"): self._chatgpt_token,
            ("POST", "github.com", "/login/device/code"): self._device("github-copilot", "https://github.com/login/device"),
            ("POST", "github.com", "/login/oauth/access_token"): self._github_token,
            ("GET", "api.github.com", "/copilot_internal/v2/token"): self._copilot_token,
            ("GET", self.COPILOT_HOST, "/models"): self._copilot_models,
            ("GET", "openrouter.ai", "/auth"): self._openrouter_authorize,
            ("POST", "openrouter.ai", "/api/v1/auth/keys"): self._openrouter_key,
            ("POST", "auth.x.ai", "/oauth2/device/code"): self._device("xai", "https://accounts.x.ai/device"),
            ("POST", "auth.x.ai", "/oauth2/token"): self._device_or_refresh("xai"),
            ("POST", "auth.kimi.com", "/api/oauth/device_authorization"): self._device("kimi-coding",
                                                                                        "https://www.kimi.com/code/authorize_device"),
            ("POST", "auth.kimi.com", "/api/oauth/token"): self._device_or_refresh("kimi-coding"),
            ("POST", "auth.meta.com", "/oidc/device/authorization/"): self._device("meta", "https://auth.meta.com/device"),
            ("POST", "auth.meta.com", "/oidc/device/token/"): self._device_or_refresh("meta"),
            ("POST", "api.meta.ai", "/muse-code/key"): self._meta_key,
            ("GET", "radius.pi.dev", "/v1/oauth"): lambda r, q: _json(200, {
                "authorizationEndpoint": "https://radius.pi.dev/oauth/authorize"}),
            ("GET", "radius.pi.dev", "/oauth/authorize"): self._authorize,
            ("POST", "radius.pi.dev", "/v1/oauth/token"): self._radius_token,
            ("POST", "radius.pi.dev", "/v1/oauth/device"): self._device("radius", "https://radius.pi.dev/device"),
        }

    ENTERPRISE = "company.ghe.com"
    """A GitHub Enterprise domain played like github.com."""

    def __call__(self, request: RecordedRequest) -> Reply:
        if request.host in (self.ENTERPRISE, f"api.{self.ENTERPRISE}"):
            request = RecordedRequest(request.method, request.path, request.headers, request.body,
                                      request.host.replace(self.ENTERPRISE, "github.com"))
        parts = urlsplit(request.path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        path = parts.path
        if request.host == self.COPILOT_HOST and path.startswith("/models/") and path.endswith("/policy"):
            return _json(200, {"state": "enabled"})
        handler = self._routes.get((request.method, request.host, path))
        if handler is None:
            return _json(404, {"error": f"nothing plays {request.method} {request.host}{path}"})
        with self._lock:
            return handler(request, query)

    # ------------------------------------------------------------------ helpers

    def _n(self) -> int:
        return next(self._counter)

    def _form(self, request: RecordedRequest) -> dict[str, str]:
        kind = request.headers.get("content-type", "")
        if "json" in kind:
            value = request.json() or {}
            return {k: str(v) for k, v in value.items()}
        return {k: v[0] for k, v in parse_qs(request.body.decode(), keep_blank_values=True).items()}

    def _issue(self, provider: str, access: str, refresh: str | None = None) -> tuple[str, str]:
        self.issued.setdefault(provider, []).append(access)
        refresh = refresh or f"{provider}-refresh-{self._n()}"
        self._valid_refresh(provider, refresh)
        return access, refresh

    def _code_ok(self, code: str, verifier: str | None) -> bool:
        challenge = self._challenges.pop(code, None)
        return challenge is not None and (verifier is None or _challenge(verifier) == challenge)

    def _refresh_ok(self, provider: str, token: str | None) -> bool:
        if self.fail_refresh or token is None:
            return False
        if self.rotate:
            return self.refresh_valid.get(provider) == token
        return token in self._refresh_seen.get(provider, set())

    def _valid_refresh(self, provider: str, token: str) -> None:
        self.refresh_valid[provider] = token
        self._refresh_seen.setdefault(provider, set()).add(token)

    def _new_code(self, challenge: str) -> str:
        code = f"code-{self._n()}"
        self._challenges[code] = challenge
        return code

    def _authorize(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        code = self._new_code(query.get("code_challenge", ""))
        target = query.get("redirect_uri", "")
        joined = urlencode({"code": code, "state": query.get("state", "")})
        if target.startswith("https://platform.claude.com/"):
            return _json(200, {"code": f"{code}#{query.get('state', '')}"})  # Anthropic shows the code to copy
        return redirect(f"{target}{'&' if '?' in target else '?'}{joined}")

    # ------------------------------------------------------------------ per provider

    def _anthropic_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        body = self._form(request)
        grant = body.get("grant_type")
        valid = ((grant == "authorization_code" and self._code_ok(body.get("code", ""), body.get("code_verifier")))
                 or (grant == "refresh_token" and self._refresh_ok("anthropic", body.get("refresh_token"))))
        if not valid:
            return _json(400, {"error": "invalid_grant", "error_description": "Invalid or expired grant"})
        access, refresh = self._issue("anthropic", f"sk-ant-oat01-test-{self._n()}")
        return _json(200, {"access_token": access, "refresh_token": refresh, "expires_in": 28800, "token_type": "Bearer"})

    def _openai_tokens(self, provider: str, extra: dict[str, Any] | None = None) -> Reply:
        access = fake_jwt({"https://api.openai.com/auth": {"chatgpt_account_id": self.ACCOUNT_ID}, "n": self._n()})
        access, refresh = self._issue(provider, access)
        return _json(200, {"access_token": access, "refresh_token": refresh, "id_token": fake_jwt({"sub": "u"}),
                           "expires_in": 3600, **(extra or {})})

    def _codex_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        body = self._form(request)
        if body.get("grant_type") == "authorization_code" and self._code_ok(body.get("code", ""), body.get("code_verifier")):
            return self._openai_tokens("openai-codex")
        if body.get("grant_type") == "refresh_token" and self._refresh_ok("openai-codex", body.get("refresh_token")):
            return self._openai_tokens("openai-codex")
        return _json(400, {"error": "invalid_grant"})

    def _codex_usercode(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        return _json(200, {"device_auth_id": f"dev-{self._n()}", "user_code": "CODX-1234", "interval": "1"})

    def _codex_device_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        if self._still_pending("openai-codex"):
            return _json(403, {"error": {"code": "deviceauth_authorization_pending"}})
        verifier = f"server-verifier-{self._n()}-padding-to-make-it-long-enough"
        return _json(200, {"authorization_code": self._new_code(_challenge(verifier)), "code_verifier": verifier,
                           "code_challenge": _challenge(verifier)})

    def _chatgpt_authorize(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        code = self._new_code(query.get("code_challenge", ""))
        joined = urlencode({"code": code, "state": query.get("state", ""), "client_id": "issued-client-7"})
        return redirect(f"{query.get('redirect_uri', '')}?{joined}")

    def _chatgpt_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        body = self._form(request)
        scope = {"scope": "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"}
        if body.get("client_id") != "issued-client-7":
            return _json(400, {"error": "invalid_client"})
        if body.get("grant_type") == "authorization_code" and self._code_ok(body.get("code", ""), body.get("code_verifier")):
            return self._openai_tokens("openai", scope)
        if body.get("grant_type") == "refresh_token" and self._refresh_ok("openai", body.get("refresh_token")):
            return self._openai_tokens("openai", scope)
        return _json(400, {"error": "invalid_grant"})

    def _still_pending(self, provider: str) -> bool:
        polls = self._polls.get(provider, 0)
        self._polls[provider] = polls + 1
        return polls < self.pending_polls

    def _device(self, provider: str, page: str) -> Handler:
        def answer(request: RecordedRequest, query: dict[str, str]) -> Reply:
            self._polls[provider] = 0
            return _json(200, {"device_code": f"{provider}-device-{self._n()}", "user_code": "ABCD-EFGH",
                               "verification_uri": page, "verification_uri_complete": f"{page}?user_code=ABCD-EFGH",
                               "interval": 1, "expires_in": 600})
        return answer

    def _pending_reply(self, provider: str) -> Reply:
        if self.refuse_device:
            return _json(400, {"error": "access_denied"})
        return _json(400, {"error": "authorization_pending", "error_description": "waiting for the user"})

    def _github_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        if self.refuse_device:
            return _json(200, {"error": "access_denied", "error_description": "The user denied it"})
        if self._still_pending("github-copilot"):
            return _json(200, {"error": "authorization_pending"})
        token = f"gho_test{self._n()}"
        self._valid_refresh("github-copilot", token)
        return _json(200, {"access_token": token, "token_type": "bearer", "scope": "read:user"})

    def _copilot_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
        if not self._refresh_ok("github-copilot", bearer):
            return _json(401, {"message": "Bad credentials"})
        expires = int(time.time()) + 1800
        token = f"tid=test{self._n()};exp={expires};sku=copilot_business;proxy-ep=proxy.business.githubcopilot.com;8kp=1"
        self.issued.setdefault("github-copilot", []).append(token)
        return _json(200, {"token": token, "expires_at": expires, "refresh_in": 1500})

    def _copilot_models(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        return _json(200, {"data": [
            {"id": "gpt-4.1", "model_picker_enabled": True, "policy": {"state": "enabled"},
             "capabilities": {"supports": {"tool_calls": True}}},
            {"id": "claude-sonnet-4.5", "model_picker_enabled": True, "policy": {"state": "unconfigured"},
             "capabilities": {"supports": {"tool_calls": True}}},
            {"id": "text-embedding-3", "model_picker_enabled": False, "capabilities": {"supports": {"tool_calls": False}}},
        ]})

    def _openrouter_authorize(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        code = self._new_code(query.get("code_challenge", ""))
        return redirect(f"{query.get('callback_url', '')}?code={code}")

    def _openrouter_key(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        body = self._form(request)
        if not self._code_ok(body.get("code", ""), body.get("code_verifier")):
            return _json(403, {"error": {"message": "Invalid code", "code": 403}})
        key, _ = self._issue("openrouter", f"sk-or-v1-test{self._n()}")
        return _json(200, {"key": key, "user_id": "user_1"})

    def _device_or_refresh(self, provider: str) -> Handler:
        def answer(request: RecordedRequest, query: dict[str, str]) -> Reply:
            body = self._form(request)
            if body.get("grant_type") == "refresh_token":
                if not self._refresh_ok(provider, body.get("refresh_token")):
                    return _json(400, {"error": "invalid_grant", "error_description": "refresh token revoked"})
            elif self.refuse_device or self._still_pending(provider):
                return self._pending_reply(provider)
            access, refresh = self._issue(provider, f"{provider}-access-{self._n()}")
            if provider == "meta" and body.get("grant_type") != "refresh_token":
                self._valid_refresh(provider, access)  # the identity token is what mints keys
                return _json(200, {"access_token": access, "token_type": "Bearer", "expires_in": 3600})
            return _json(200, {"access_token": access, "refresh_token": refresh, "expires_in": 3600,
                               "token_type": "Bearer"})
        return answer

    def _meta_key(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
        if not self._refresh_ok("meta", bearer):
            return _json(401, {"detail": "session expired"})
        key = f"meta-key-{self._n()}"
        self.issued.setdefault("meta", []).append(key)
        return _json(200, {"api_key": key})

    def _radius_token(self, request: RecordedRequest, query: dict[str, str]) -> Reply:
        body = self._form(request)
        grant = body.get("grant_type")
        ok = ((grant == "authorization_code" and self._code_ok(body.get("code", ""), body.get("code_verifier")))
              or (grant == "refresh_token" and self._refresh_ok("radius", body.get("refresh_token"))))
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            if self.refuse_device or self._still_pending("radius"):
                return self._pending_reply("radius")
            ok = True
        if not ok:
            return _json(400, {"error": "invalid_grant"})
        access, refresh = self._issue("radius", f"radius-access-{self._n()}")
        return _json(200, {"access_token": access, "refresh_token": refresh, "expires_in": 3600,
                           "scope": "gateway offline_access", "token_type": "Bearer"})


# ---------------------------------------------------------------------- the user's browser


def _opener(standin: ProviderStandIn) -> urllib.request.OpenerDirector:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    context = ssl.create_default_context(cafile=str(standin.ca_file))
    return urllib.request.build_opener(urllib.request.ProxyHandler({"https": standin.proxy_url}),
                                       urllib.request.HTTPSHandler(context=context), NoRedirect)


def authorization_answer(url: str, standin: ProviderStandIn) -> str:
    """What the authorization page answers: the redirect's ``Location``, or the page (a code to copy)."""
    try:
        with _opener(standin).open(url, timeout=20) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as exc:
        if exc.code in (301, 302, 303, 307, 308):
            return str(exc.headers["Location"])
        raise


def follow_callback(location: str) -> int:
    """Visit the loopback callback (direct, not through the proxy), as the browser would."""
    parts = urlsplit(location)
    direct = location.replace(f"//{parts.hostname}:", "//127.0.0.1:", 1) if parts.hostname == "localhost" else location
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(direct, timeout=20) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def route_this_process(standin: ProviderStandIn, setenv: Callable[[str, str], None]) -> None:
    """Send this process's HTTPS through ``standin`` (its proxy variables) and trust its test authority."""
    from ..http import trust_store

    for name, value in standin.env().items():
        setenv(name, value)
    trust_store().load_verify_locations(cafile=str(standin.ca_file))
