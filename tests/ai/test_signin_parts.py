"""The shared parts of the account sign-ins: the loopback callback, device-code polling, pasted answers,
and what the model registry makes of a stored sign-in."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.models import ModelRegistry
from pi_runtime.ai.oauth import LoginCallbacks, OAuthLoginCancelled, OAuthPrompt
from pi_runtime.ai.signin import SIGN_INS
from pi_runtime.ai.signin.callback import callback_or_pasted, start_callback
from pi_runtime.ai.signin.device import PENDING, TIMED_OUT, TIMED_OUT_AFTER_SLOW_DOWN, Poll, poll_device_code
from pi_runtime.ai.signin.pkce import challenge_of, new_pkce, parse_pasted, trusted_http_url
from pi_runtime.ai.signin.web import SignInError
from pi_runtime.auth import AuthStorage


def _get(url: str) -> tuple[int, str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class Quiet:
    """A LoginUI whose questions wait until the test answers (or the flow takes them back)."""

    def __init__(self) -> None:
        self.asked: list[OAuthPrompt] = []
        self.answer: asyncio.Future[str | None] | None = None
        self.taken_back = 0

    def show_auth(self, url: str, instructions: str | None) -> None: ...

    def show_device_code(self, user_code: str, verification_uri: str) -> None: ...

    def show_progress(self, message: str) -> None: ...

    async def prompt(self, prompt: OAuthPrompt) -> str | None:
        self.asked.append(prompt)
        self.answer = asyncio.get_running_loop().create_future()
        try:
            return await self.answer
        except asyncio.CancelledError:
            self.taken_back += 1
            raise

    async def select(self, message: str, options: list[Any]) -> str | None:
        return None


async def test_the_callback_refuses_strays_and_forgeries_and_takes_the_real_redirect() -> None:
    async def exchange(code: str) -> str:
        return f"tokens-for-{code}"

    server = await start_callback("Test", port=0, path="/callback", state="s1", complete=exchange, host="127.0.0.1")
    try:
        base = server.redirect_uri
        assert base.startswith("http://127.0.0.1:") and base.endswith("/callback")
        assert (await asyncio.to_thread(_get, base.replace("/callback", "/other")))[0] == 404
        status, page = await asyncio.to_thread(_get, f"{base}?code=c&state=forged")
        assert status == 400 and "state" in page
        assert (await asyncio.to_thread(_get, f"{base}?state=s1"))[0] == 400  # no code: keep waiting
        status, page = await asyncio.to_thread(_get, f"{base}?code=c1&state=s1")
        assert status == 200 and "Signed in to Test" in page
        assert await server.wait() == "tokens-for-c1"
        assert (await asyncio.to_thread(_get, f"{base}?code=c2&state=s1"))[0] == 409
    finally:
        await server.close()


async def test_a_refusal_at_the_callback_ends_the_sign_in_with_the_providers_words() -> None:
    async def never(code: str) -> str:
        raise AssertionError("no code to exchange")

    server = await start_callback("Test", port=0, path="/cb", state="s", complete=never, host="127.0.0.1")
    try:
        status, _ = await asyncio.to_thread(_get, f"{server.redirect_uri}?error=access_denied&error_description=No+thanks&state=s")
        assert status == 400
        with pytest.raises(SignInError, match="Test authorization failed: No thanks"):
            await server.wait()
    finally:
        await server.close()


async def test_the_callback_takes_the_pasted_question_back_and_a_paste_stops_the_wait() -> None:
    ui = Quiet()
    callbacks = LoginCallbacks(ui)

    async def same(code: str) -> str:
        return code

    server = await start_callback("Test", port=0, path="/cb", state="s", complete=same, host="127.0.0.1")
    try:
        race = asyncio.ensure_future(callback_or_pasted(callbacks, server, "paste", server.redirect_uri))
        while not ui.asked:
            await asyncio.sleep(0)
        assert ui.asked[0].kind == "manual_code" and ui.asked[0].placeholder == server.redirect_uri
        await asyncio.to_thread(_get, f"{server.redirect_uri}?code=from-browser&state=s")
        assert await race == ("from-browser", None)
        assert ui.taken_back == 1
    finally:
        await server.close()
    server = await start_callback("Test", port=0, path="/cb", state="s", complete=same, host="127.0.0.1")
    try:
        race = asyncio.ensure_future(callback_or_pasted(callbacks, server, "paste", None))
        while ui.answer is None or ui.answer.done():
            await asyncio.sleep(0)
        ui.answer.set_result("http://127.0.0.1/cb?code=pasted&state=s")
        assert await race == (None, "http://127.0.0.1/cb?code=pasted&state=s")
    finally:
        await server.close()


async def test_cancelling_while_waiting_for_the_browser_ends_at_once() -> None:
    controller = AbortController()
    ui = Quiet()
    race = asyncio.ensure_future(callback_or_pasted(LoginCallbacks(ui, controller.signal), None, "paste", None))
    while not ui.asked:
        await asyncio.sleep(0)
    controller.abort()
    with pytest.raises(OAuthLoginCancelled):
        await race


async def test_device_polling_waits_pending_answers_out_and_honours_slow_down() -> None:
    answers = [PENDING, Poll("slow_down", interval=1), Poll("complete", "token")]
    times: list[float] = []

    async def poll() -> Poll:
        times.append(time.monotonic())
        return answers.pop(0)

    assert await poll_device_code(poll, signal=AbortController().signal, interval=1, expires_in=60) == "token"
    assert len(times) == 3 and all(b - a >= 0.95 for a, b in zip(times, times[1:], strict=False))


async def test_device_polling_ends_at_the_codes_expiry_with_pis_messages() -> None:
    async def pending() -> Poll:
        return PENDING

    async def slowed() -> Poll:
        return Poll("slow_down", interval=1)

    with pytest.raises(SignInError, match=f"^{TIMED_OUT}$"):
        await poll_device_code(pending, signal=AbortController().signal, interval=1, expires_in=1.5)
    with pytest.raises(SignInError, match="clock drift") as caught:
        await poll_device_code(slowed, signal=AbortController().signal, interval=1, expires_in=1.5)
    assert str(caught.value) == TIMED_OUT_AFTER_SLOW_DOWN


async def test_device_polling_stops_when_cancelled_and_on_a_refusal() -> None:
    controller = AbortController()

    async def pending() -> Poll:
        controller.abort()
        return PENDING

    with pytest.raises(OAuthLoginCancelled):
        await poll_device_code(pending, signal=controller.signal, interval=5, expires_in=60)

    async def denied() -> Poll:
        return Poll("failed", message="denied by the user")

    with pytest.raises(SignInError, match="denied by the user"):
        await poll_device_code(denied, signal=AbortController().signal, interval=1, expires_in=60)


def test_pasted_answers_and_pkce() -> None:
    assert parse_pasted("http://localhost:1/cb?code=abc&state=xyz") == parse_pasted("abc#xyz")
    assert parse_pasted("code=abc&state=xyz").code == "abc"
    assert parse_pasted(" just-a-code ").code == "just-a-code"
    assert parse_pasted("a#b", hash_state=False).code == "a#b"
    assert parse_pasted("").code is None
    pkce = new_pkce()
    assert challenge_of(pkce.verifier) == pkce.challenge and len(pkce.verifier) == 43
    assert trusted_http_url("https://github.com/login/device") == "https://github.com/login/device"
    assert trusted_http_url("https://example.com") == "https://example.com/"
    assert trusted_http_url("file:///etc/passwd") is None and trusted_http_url("javascript:alert(1)") is None
    assert trusted_http_url("https://x.test/\x1b[31m") == "https://x.test/%1B[31m"


def _registry(tmp_path: Path, entries: dict[str, Any]) -> ModelRegistry:
    path = tmp_path / "auth.json"
    path.write_text(json.dumps(entries))
    return ModelRegistry(tmp_path / "models.json", AuthStorage(path), env={})


def test_the_registry_offers_pis_nine_sign_ins_and_an_extensions_wins(tmp_path: Path) -> None:
    registry = _registry(tmp_path, {})
    assert set(registry.oauth_providers()) == set(SIGN_INS)
    assert registry.oauth_config("openai-codex").name == "OpenAI (ChatGPT Plus/Pro)"
    assert registry.oauth_config("groq") is None
    from pi_runtime.ai.oauth import oauth_config

    mine = oauth_config({"name": "Corp Anthropic", "login": lambda c: {}, "refresh_token": lambda c: c,
                         "get_api_key": lambda c: c["access"]}, "anthropic")
    registry.set_oauth_provider("anthropic", mine)
    assert registry.oauth_config("anthropic") is mine
    registry.set_oauth_provider("anthropic", None)
    assert registry.oauth_config("anthropic").name == "Anthropic (Claude Pro/Max)"


def test_a_copilot_sign_in_names_its_endpoint_and_its_models(tmp_path: Path) -> None:
    token = "tid=1;exp=1;proxy-ep=proxy.enterprise.githubcopilot.com;"
    registry = _registry(tmp_path, {"github-copilot": {
        "type": "oauth", "refresh": "gho_x", "access": token, "expires": int(time.time() * 1000) + 3_600_000,
        "availableModelIds": ["m1"]}})
    registry.models_path = tmp_path / "models.json"
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"github-copilot": {
        "baseUrl": "https://api.individual.githubcopilot.com", "api": "openai-completions",
        "models": [{"id": "m1"}, {"id": "m2"}]}}}))
    registry.refresh()
    auth = registry.request_auth(registry.find("github-copilot", "m1"))
    assert (auth.api_key, auth.base_url, auth.source) == (token, "https://api.enterprise.githubcopilot.com", "auth.json")
    assert [m.id for m in registry.available() if m.provider == "github-copilot"] == ["m1"]


def test_an_account_only_provider_without_a_sign_in_says_how_to_sign_in(tmp_path: Path) -> None:
    registry = _registry(tmp_path, {})
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"openai-codex": {
        "baseUrl": "https://chatgpt.com/backend-api", "api": "openai-responses", "models": [{"id": "gpt-x"}]}}}))
    registry.refresh()
    from pi_runtime.ai.credentials import NoCredentialsError

    with pytest.raises(NoCredentialsError, match=r"Not logged in to OpenAI \(ChatGPT Plus/Pro\) \(openai-codex\): "
                                                 r"run /login openai-codex \(outside pi: pi auth login openai-codex\)"):
        registry.request_auth(registry.find("openai-codex", "gpt-x"))


def test_a_radius_gateway_in_models_json_signs_in_at_that_gateway(tmp_path: Path) -> None:
    registry = _registry(tmp_path, {})
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"corp-radius": {
        "name": "Corp Radius", "oauth": "radius", "baseUrl": "https://gw.corp.test/v1", "api": "openai-completions",
        "models": [{"id": "m"}]}}}))
    registry.refresh()
    config = registry.oauth_config("corp-radius")
    assert config is not None and config.name == "Corp Radius"
    assert config.flow().gateway == "https://gw.corp.test"
    assert "corp-radius" in registry.oauth_providers()


def test_the_callback_host_can_be_moved_for_containers(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_runtime.ai.signin.callback import callback_host

    assert callback_host() == "127.0.0.1" or "PI_OAUTH_CALLBACK_HOST" in __import__("os").environ
    monkeypatch.setenv("PI_OAUTH_CALLBACK_HOST", "0.0.0.0")
    assert callback_host() == "0.0.0.0"
    monkeypatch.delenv("PI_OAUTH_CALLBACK_HOST")
    assert callback_host() == "127.0.0.1"
