"""OAuth providers from extensions: login stores tokens, requests refresh them, failures say /login.

The OAuth server (``OAuthTokenServer``) and the model server (``LoopbackServer``) are real
HTTP servers on 127.0.0.1; the extension (tests/fixtures/oauth_provider_ext.py) talks to
the first with httpx, pi talks to the second with its OpenAI-compatible provider.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from pi_runtime.ai import oauth
from pi_runtime.ai.oauth import MIN_VALIDITY_MS, OAuthError, OAuthLoginCancelled, needs_refresh
from pi_runtime.testing.loopback import Reply
from pi_runtime.testing.oauth_server import fixture_servers
from pi_runtime.testing.waiting import eventually

from .conftest import module_of

EXT = str(Path(__file__).resolve().parent.parent / "fixtures" / "oauth_provider_ext.py")


def answer(text: str) -> Reply:
    chunk = {"id": "c1", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    done = {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return Reply.sse([chunk, done, "[DONE]"])


class ScriptUI:
    """A LoginUI that answers from a script and records what the flow showed."""

    def __init__(self, code: str | None = "the-code", method: str | None = "browser"):
        self.code, self.method = code, method
        self.shown: list[tuple[str, str]] = []

    def show_auth(self, url, instructions):
        self.shown.append(("auth", url))

    def show_device_code(self, user_code, verification_uri):
        self.shown.append(("device", f"{user_code} {verification_uri}"))

    def show_progress(self, message):
        self.shown.append(("progress", message))

    async def prompt(self, prompt):
        self.shown.append(("prompt", prompt.message))
        return self.code

    async def select(self, message, options):
        self.shown.append(("select", ",".join(o.id for o in options)))
        return self.method


@pytest.fixture
def servers(monkeypatch):
    with fixture_servers(monkeypatch.setenv) as pair:
        yield pair


def stored(agent_dir) -> dict:
    return json.loads((agent_dir / "auth.json").read_text())


async def logged_in_session(make_session, agent_dir):
    session = make_session(extensions=[EXT])
    registry = session.model_registry
    ui = ScriptUI()
    entry = await registry.login_oauth("corp", ui)
    assert entry["access"] == "access-1" and stored(agent_dir)["corp"]["refresh"] == "refresh-1"
    return session, ui


async def test_login_stores_credentials_and_requests_carry_the_key(make_session, agent_dir, servers):
    auth_server, llm = servers
    session, ui = await logged_in_session(make_session, agent_dir)
    assert [kind for kind, _ in ui.shown] == ["select", "auth", "prompt", "progress"]
    assert ui.shown[1][1].startswith(auth_server.url + "/authorize")
    entry = stored(agent_dir)["corp"]
    assert entry["type"] == "oauth" and entry["account"] == "dev@corp"
    assert entry["expires"] > time.time() * 1000 + 3000 * 1000
    assert (agent_dir / "auth.json").stat().st_mode & 0o777 == 0o600
    await session.set_model(session.model_registry.find("corp", "corp-1"))
    llm.push(answer("hello"))
    await session.prompt("hi")
    assert session.get_last_assistant_text() == "hello"
    assert llm.requests[0].headers["authorization"] == "Bearer access-1"
    assert auth_server.grants == ["authorization_code"]  # fresh token: no refresh


async def test_expired_token_is_refreshed_saved_and_used(make_session, agent_dir, servers):
    auth_server, llm = servers
    session, _ = await logged_in_session(make_session, agent_dir)
    data = stored(agent_dir)
    data["corp"]["expires"] = int(time.time() * 1000) - 1000
    data["other"] = {"type": "api_key", "key": "kept"}
    (agent_dir / "auth.json").write_text(json.dumps(data))
    await session.set_model(session.model_registry.find("corp", "corp-1"))
    llm.push(answer("refreshed"))
    await session.prompt("hi")
    assert session.get_last_assistant_text() == "refreshed"
    assert llm.requests[0].headers["authorization"] == "Bearer access-2"
    assert auth_server.grants == ["authorization_code", "refresh_token"]
    after = stored(agent_dir)
    assert after["corp"]["access"] == "access-2" and after["corp"]["refresh"] == "refresh-2"
    assert after["corp"]["account"] == "dev@corp" and after["other"] == {"type": "api_key", "key": "kept"}
    assert module_of(EXT).seen["refreshed_with"] == ["refresh-1"]
    assert not list(agent_dir.glob(".auth.json.*.tmp"))


async def test_failed_refresh_says_to_log_in_again_and_keeps_the_file(make_session, agent_dir, servers):
    auth_server, llm = servers
    session, _ = await logged_in_session(make_session, agent_dir)
    data = stored(agent_dir)
    data["corp"]["expires"] = 0
    (agent_dir / "auth.json").write_text(json.dumps(data))
    auth_server.fail_refresh = True
    await session.set_model(session.model_registry.find("corp", "corp-1"))
    await session.prompt("hi")
    last = session.messages[-1]
    assert last.stop_reason == "error"
    assert "Run /login corp to log in again" in last.error_message and "invalid_grant" in last.error_message
    assert "refresh-1" not in last.error_message
    assert llm.requests == []  # no request went out without a usable key
    assert stored(agent_dir) == data


async def test_concurrent_requests_refresh_once(make_session, agent_dir, servers):
    auth_server, _ = servers
    session, _ = await logged_in_session(make_session, agent_dir)
    data = stored(agent_dir)
    data["corp"]["expires"] = 0
    (agent_dir / "auth.json").write_text(json.dumps(data))
    registry = session.model_registry
    model = registry.find("corp", "corp-1")
    results = await asyncio.gather(*(registry.request_auth_async(model) for _ in range(3)))
    assert {r.api_key for r in results} == {"access-2"}
    assert auth_server.grants == ["authorization_code", "refresh_token"]


async def test_refresh_in_another_process_is_not_repeated(make_session, agent_dir, servers):
    # Under the lock the entry is read again: a token another process just stored is used.
    auth_server, _ = servers
    session, _ = await logged_in_session(make_session, agent_dir)
    storage = session.model_registry.auth
    data = stored(agent_dir)
    data["corp"].update(access="from-elsewhere", expires=int(time.time() * 1000) + 3_600_000)
    (agent_dir / "auth.json").write_text(json.dumps(data))
    result = await storage.refresh_oauth("corp", needs_refresh, lambda current: pytest.fail("refreshed twice"))
    assert result["access"] == "from-elsewhere"
    assert auth_server.grants == ["authorization_code"]


async def test_modify_models_applies_after_login(make_session, agent_dir, servers):
    session = make_session(extensions=[EXT])
    registry = session.model_registry
    assert registry.find("corp", "corp-1").name == "corp-1"
    await registry.login_oauth("corp", ScriptUI())
    assert registry.find("corp", "corp-1").name == "corp-1 (dev@corp)"
    again = make_session(extensions=[EXT])  # a new session with stored credentials
    assert again.model_registry.find("corp", "corp-1").name == "corp-1 (dev@corp)"


async def test_modify_models_is_applied_again_after_a_token_refresh(make_session, agent_dir, servers):
    auth_server, _ = servers
    session, _ = await logged_in_session(make_session, agent_dir)
    registry = session.model_registry
    assert registry.find("corp", "corp-1").name == "corp-1 (dev@corp)"
    data = stored(agent_dir)
    data["corp"]["expires"] = 0
    (agent_dir / "auth.json").write_text(json.dumps(data))
    auth = await registry.request_auth_async(registry.find("corp", "corp-1"))
    assert auth.api_key == "access-2"
    # The models follow the refreshed credentials (the fixture counts refreshes in them).
    assert registry.find("corp", "corp-1").name == "corp-1 (dev@corp, refreshed 1x)"
    await registry.request_auth_async(registry.find("corp", "corp-1"))  # fresh now: nothing changes
    assert auth_server.grants == ["authorization_code", "refresh_token"]
    assert registry.find("corp", "corp-1").name == "corp-1 (dev@corp, refreshed 1x)"


@pytest.mark.parametrize("how", ["abort", "dispose"])
async def test_aborting_or_ending_the_session_aborts_a_refresh_in_flight(make_session, agent_dir, servers, how):
    auth_server, llm = servers
    session, _ = await logged_in_session(make_session, agent_dir)
    data = stored(agent_dir)
    data["corp"]["expires"] = 0
    (agent_dir / "auth.json").write_text(json.dumps(data))
    auth_server.delay = 30.0  # the token endpoint hangs
    await session.set_model(session.model_registry.find("corp", "corp-1"))
    run = asyncio.ensure_future(session.prompt("hi"))
    for _ in range(200):
        if auth_server.grants[-1:] == ["refresh_token"]:
            break
        await asyncio.sleep(0.02)
    assert auth_server.grants[-1:] == ["refresh_token"]
    started = time.monotonic()
    await (session.abort() if how == "abort" else session.dispose())
    await asyncio.wait_for(run, 20)
    assert time.monotonic() - started < 15  # not the server's 30 seconds (with room for a loaded machine)
    assert module_of(EXT).seen["aborted"]  # refresh_token's signal fired and it stopped
    last = session.messages[-1]
    assert last.stop_reason == "aborted" and "/login" not in (last.error_message or "")
    assert llm.requests == []
    assert stored(agent_dir) == data  # nothing half-refreshed was saved
    auth_server.stop()  # the extension's request thread still waits for the answer: cut it, not wait 30 s


async def test_refresh_token_gets_a_signal_and_an_abort_stops_only_the_wait(tmp_path):
    from pi_runtime.ai.abort import AbortController, AbortError, AbortSignal
    from pi_runtime.auth import AuthStorage

    storage = AuthStorage(tmp_path / "auth.json")
    storage.set("slow", {"type": "oauth", "access": "old", "refresh": "r0", "expires": 0})
    got: list[AbortSignal] = []
    started = asyncio.Event()
    finished: list[bool] = []

    async def stubborn_refresh(credentials, signal):
        got.append(signal)
        started.set()
        await asyncio.sleep(0.3)  # ignores its signal: the server has rotated the token by now
        finished.append(True)
        return {"access": "new", "refresh": "r1", "expires": int(time.time() * 1000) + 3_600_000}

    config = oauth.oauth_config({"name": "Slow", "login": stubborn_refresh, "refresh_token": stubborn_refresh,
                                 "get_api_key": lambda c: c["access"]}, "slow")
    controller = AbortController()
    request = asyncio.ensure_future(oauth.fresh_credentials(storage, "slow", config, controller.signal))
    await started.wait()
    assert isinstance(got[0], AbortSignal) and not got[0].aborted
    controller.abort("user pressed Esc")
    with pytest.raises(AbortError):
        await request
    # The wait ended before the refresh did (an order, not a time: a 0.2 s figure is fragile under load).
    assert not finished and got[0].aborted and got[0].reason == "user pressed Esc"
    # The refresh that went through is still saved.
    assert await eventually(lambda: json.loads((tmp_path / "auth.json").read_text())["slow"]["refresh"] == "r1")
    assert json.loads((tmp_path / "auth.json").read_text())["slow"]["refresh"] == "r1"


async def test_failing_modify_models_keeps_the_provider(make_session, agent_dir, servers):
    (agent_dir / "auth.json").write_text(json.dumps({"corp": {"type": "oauth", "access": "a", "refresh": "r",
                                                              "expires": 0}}))  # no "account"
    session = make_session(extensions=[EXT])
    registry = session.model_registry
    assert registry.find("corp", "corp-1").name == "corp-1"
    assert any("modify_models failed (KeyError: 'account')" in w for w in registry.warnings)


async def test_cancelled_or_bad_login_stores_nothing(make_session, agent_dir, servers):
    session = make_session(extensions=[EXT])
    registry = session.model_registry
    config = registry.oauth_providers()["corp"]
    with pytest.raises(OAuthLoginCancelled):
        await oauth.run_login(registry.auth, "corp", config, ScriptUI(code=None))
    with pytest.raises(OAuthError, match="invalid_grant"):
        await oauth.run_login(registry.auth, "corp", config, ScriptUI(code="wrong"))
    assert not (agent_dir / "auth.json").exists()


async def test_unregister_removes_the_oauth_login(make_session, agent_dir, servers):
    session = make_session(extensions=[EXT])
    assert "corp" in session.model_registry.oauth_providers()
    session.extension_runner.providers.unregister("corp")
    assert "corp" not in session.model_registry.oauth_providers()


async def test_a_started_refresh_is_saved_even_if_the_request_is_cancelled(tmp_path):
    from pi_runtime.auth import AuthStorage

    storage = AuthStorage(tmp_path / "auth.json")
    storage.set("slow", {"type": "oauth", "access": "old", "refresh": "r0", "expires": 0})
    started = asyncio.Event()

    async def refresh(credentials):
        started.set()
        await asyncio.sleep(0.3)  # the server has rotated the refresh token by now
        return {"access": "new", "refresh": "r1", "expires": int(time.time() * 1000) + 3_600_000}

    config = oauth.oauth_config({"name": "Slow", "login": refresh, "refresh_token": refresh,
                                 "get_api_key": lambda c: c["access"]}, "slow")
    request = asyncio.ensure_future(oauth.fresh_credentials(storage, "slow", config))
    await started.wait()
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    for _ in range(50):
        await asyncio.sleep(0.05)
        if json.loads((tmp_path / "auth.json").read_text())["slow"]["refresh"] == "r1":
            break
    assert json.loads((tmp_path / "auth.json").read_text())["slow"]["refresh"] == "r1"


def test_needs_refresh_uses_pi_margin():
    now = 1_000_000_000
    assert needs_refresh({"expires": now - 1}, now)
    assert needs_refresh({"expires": now + MIN_VALIDITY_MS - 1}, now)
    assert not needs_refresh({"expires": now + MIN_VALIDITY_MS + 1}, now)
    assert needs_refresh({}, now)


def test_oauth_config_rejects_missing_functions():
    with pytest.raises(ValueError, match="refresh_token"):
        oauth.oauth_config({"name": "X", "login": print, "get_api_key": str}, "x")
    config = oauth.oauth_config({"name": "X", "login": print, "refreshToken": print, "getApiKey": str}, "x")
    assert config.get_api_key is str
