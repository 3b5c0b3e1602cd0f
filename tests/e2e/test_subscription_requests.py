"""Requests made with a stored subscription sign-in, through the installed ``pi`` (and the real Pi).

The provider's API host and its token endpoint are played behind the stand-in. Checked: a Claude
Pro/Max token goes out as Claude Code (as Pi 1.6 sends it, compared header by header when
``PI_REFERENCE`` is set); a token the server refuses (401) before its expiry is renewed once and the
request sent again; a sign-in that cannot be renewed ends the run with how to sign in again, after
one attempt; an API key that is refused is not "renewed".
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import PI
from signin_drive import program_env

from pi_runtime.testing.loopback import RecordedRequest, Reply
from pi_runtime.testing.signin_servers import SignInServers
from pi_runtime.testing.standin import ProviderStandIn

PI_REFERENCE = os.environ.get("PI_REFERENCE")
MODEL = "anthropic/claude-sonnet-4-5"


def anthropic_answer(text: str) -> Reply:
    usage = {"input_tokens": 12, "output_tokens": 3}
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                              "model": "claude-sonnet-4-5", "content": [], "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
    return Reply.sse(events, event_names=[e["type"] for e in events])


class Api:
    """api.anthropic.com: refuses the tokens in ``refused`` (401), answers the others; sign-in hosts via ``servers``."""

    def __init__(self, servers: SignInServers) -> None:
        self.servers = servers
        self.refused: set[str] = set()

    def __call__(self, request: RecordedRequest) -> Reply:
        if request.host == "api.anthropic.com" and request.path.startswith("/v1/messages"):
            key = request.headers.get("authorization", "").removeprefix("Bearer ") or request.headers.get("x-api-key", "")
            if key in self.refused:
                # Servers echo what they were sent: the token must not reach the terminal or the session.
                return Reply.json(401, {"type": "error", "error": {"type": "authentication_error",
                                                                   "message": f"OAuth token {key} has been revoked"}})
            return anthropic_answer("signed-in answer")
        return self.servers(request)


@pytest.fixture
def servers() -> SignInServers:
    return SignInServers()


@pytest.fixture
def api(servers: SignInServers) -> Api:
    return Api(servers)


@pytest.fixture
def standin(tmp_path: Path, api: Api) -> Iterator[ProviderStandIn]:
    with ProviderStandIn(api, directory=tmp_path / "ca") as server:
        yield server


def _store(agent: Path, entry: dict[str, Any]) -> Path:
    path = agent / "auth.json"
    path.write_text(json.dumps({"anthropic": entry}))
    os.chmod(path, 0o600)
    return path


def _env(tmp_path: Path, standin: ProviderStandIn, name: str = "pi") -> tuple[dict[str, str], Path]:
    agent, home = tmp_path / name / "agent", tmp_path / name / "home"
    agent.mkdir(parents=True)
    home.mkdir()
    return program_env(dict(os.environ), standin, agent, home), agent


def _run(program: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*program, "-p", "--model", MODEL, "read the file a.txt"], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=90, stdin=subprocess.DEVNULL)


def _oauth(access: str = "sk-ant-oat01-stored", refresh: str = "sk-ant-ort01-stored", ahead_ms: int = 3_600_000):
    return {"type": "oauth", "refresh": refresh, "access": access, "expires": int(time.time() * 1000) + ahead_ms}


def test_a_refused_token_is_renewed_once_and_the_request_sent_again(tmp_path, standin, api, servers) -> None:
    env, agent = _env(tmp_path, standin)
    path = _store(agent, _oauth())
    servers.refresh_valid["anthropic"] = "sk-ant-ort01-stored"
    api.refused.add("sk-ant-oat01-stored")  # revoked early (signed in elsewhere), though not expired
    done = _run([PI], env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "signed-in answer"
    calls = standin.requests_to("api.anthropic.com")
    renewed = servers.issued["anthropic"][-1]
    assert [r.headers["authorization"] for r in calls] == ["Bearer sk-ant-oat01-stored", f"Bearer {renewed}"]
    assert len(standin.requests_to("platform.claude.com")) == 1
    assert json.loads(path.read_text())["anthropic"]["access"] == renewed


def test_a_sign_in_that_cannot_be_renewed_says_how_to_sign_in_again(tmp_path, standin, api, servers) -> None:
    env, agent = _env(tmp_path, standin)
    path = _store(agent, _oauth())
    api.refused.add("sk-ant-oat01-stored")
    servers.fail_refresh = True
    done = _run([PI], env, tmp_path)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "401" in said and "Run /login anthropic to log in again" in said and "pi auth login anthropic" in said
    assert "sk-ant-oat01-stored" not in said and "sk-ant-ort01-stored" not in said
    sessions = "".join(p.read_text() for p in (agent / "sessions").rglob("*.jsonl"))
    assert "has been revoked" in sessions and "sk-ant-oat01-stored" not in sessions
    assert "sk-ant-ort01-stored" not in sessions
    assert len(standin.requests_to("api.anthropic.com")) == 1  # nothing retried
    assert len(standin.requests_to("platform.claude.com")) == 1
    assert json.loads(path.read_text())["anthropic"]["access"] == "sk-ant-oat01-stored"


def test_an_expired_sign_in_is_renewed_before_the_request(tmp_path, standin, servers) -> None:
    env, agent = _env(tmp_path, standin)
    _store(agent, _oauth(ahead_ms=60_000))  # within five minutes of expiry
    servers.refresh_valid["anthropic"] = "sk-ant-ort01-stored"
    done = _run([PI], env, tmp_path)
    assert done.returncode == 0, done.stderr
    [call] = standin.requests_to("api.anthropic.com")
    assert call.headers["authorization"] == f"Bearer {servers.issued['anthropic'][-1]}"


def test_a_refused_api_key_is_not_renewed(tmp_path, standin, api) -> None:
    env, agent = _env(tmp_path, standin)
    (agent / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": "sk-ant-api03-refused"}}))
    api.refused.add("sk-ant-api03-refused")
    done = _run([PI], env, tmp_path)
    assert done.returncode != 0
    assert len(standin.requests_to("api.anthropic.com")) == 1
    assert standin.requests_to("platform.claude.com") == []


HEADERS = ("authorization", "anthropic-beta", "user-agent", "x-app", "anthropic-dangerous-direct-browser-access",
           "anthropic-version")


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_a_claude_subscription_request_carries_what_pi_1_6_sends(tmp_path, standin) -> None:
    """Claude Code's identity as Pi sends it: headers, the first system block and the tool names.

    Kept apart on purpose: the rest of the request body (pi's own system prompt and tool set are
    compared elsewhere), the Anthropic SDK's ``x-stainless-*`` headers, which pi does not send, and the
    betas after the two a subscription adds (they follow the wire API's features: Pi 1.6 also sends
    ``message-threads-...`` and leaves out ``fine-grained-tool-streaming-...`` here; that is the
    anthropic-messages wire API's business, not the sign-in's).
    """
    sent = {}
    for name, program in (("ref", [str(PI_REFERENCE)]), ("pi", [PI])):
        env, agent = _env(tmp_path, standin, name)
        _store(agent, _oauth())
        before = len(standin.requests_to("api.anthropic.com"))
        done = _run(program, env, tmp_path)
        assert done.returncode == 0, done.stderr
        [call] = standin.requests_to("api.anthropic.com")[before:]
        body = call.json()
        betas = call.headers.get("anthropic-beta", "").split(",")
        sent[name] = {
            "headers": {h: call.headers.get(h) for h in HEADERS if h != "anthropic-beta"},
            "subscription betas": betas[:2],
            "identity": body["system"][0],
            "system blocks": len(body["system"]),
            "tools": sorted(t["name"] for t in body.get("tools", []) if t["name"].lower() in ("read", "bash", "edit", "write")),
        }
    assert sent["pi"] == sent["ref"]


COPILOT_TOKEN = "tid=t1;exp=9999999999;sku=copilot_business;proxy-ep=proxy.business.githubcopilot.com;8kp=1"
COPILOT_MODEL = {"id": "kimi-k3", "name": "Kimi K3", "api": "openai-completions", "reasoning": False,
                 "input": ["text"], "contextWindow": 128000, "maxTokens": 16000,
                 "headers": {"User-Agent": "GitHubCopilotChat/0.35.0", "Editor-Version": "vscode/1.107.0",
                             "Editor-Plugin-Version": "copilot-chat/0.35.0", "Copilot-Integration-Id": "vscode-chat"}}


def _copilot_answer(request: RecordedRequest) -> Reply:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "kimi-k3",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "copilot says hi"}, "finish_reason": None}]}
    done = {"id": "c1", "object": "chat.completion.chunk", "model": "kimi-k3",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return Reply.sse([chunk, done, "[DONE]"])


@pytest.mark.parametrize("program", ["pi", "ref"])
def test_copilot_requests_go_to_the_accounts_endpoint_with_copilots_headers(program, tmp_path) -> None:
    if program == "ref" and (not PI_REFERENCE or not Path(PI_REFERENCE).exists()):
        pytest.skip("real Pi not installed (set PI_REFERENCE)")
    with ProviderStandIn(_copilot_answer, directory=tmp_path / "ca") as standin:
        env, agent = _env(tmp_path, standin, program)
        (agent / "auth.json").write_text(json.dumps({"github-copilot": {
            "type": "oauth", "refresh": "gho_stored", "access": COPILOT_TOKEN, "expires": int(time.time() * 1000) + 3_600_000,
            "availableModelIds": ["kimi-k3"]}}))
        if program == "pi":  # pi's catalog does not list Copilot's models yet: models.json names the one used
            (agent / "models.json").write_text(json.dumps({"providers": {"github-copilot": {
                "baseUrl": "https://api.individual.githubcopilot.com", "api": "openai-completions",
                "models": [COPILOT_MODEL]}}}))
        command = [PI] if program == "pi" else [str(PI_REFERENCE)]
        done = subprocess.run([*command, "-p", "--no-tools", "--model", "github-copilot/kimi-k3", "hi"], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=90, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "copilot says hi"
        [call] = [r for r in standin.requests if r.path.endswith("/chat/completions")]
    assert call.host == "api.business.githubcopilot.com"  # the endpoint the token names
    assert call.headers["authorization"] == f"Bearer {COPILOT_TOKEN}"
    assert call.headers["x-initiator"] == "user"
    assert call.headers["openai-intent"] == "conversation-edits"
    assert call.headers["editor-version"] == "vscode/1.107.0"
    assert "copilot-vision-request" not in call.headers


def test_a_refused_key_that_nothing_renews_is_not_asked_again(tmp_path) -> None:
    # OpenRouter's sign-in stores a lasting key: a refusal cannot be cured by a refresh.
    def refuse(request: RecordedRequest) -> Reply:
        return Reply.json(401, {"error": {"message": "User not found.", "code": 401}})

    with ProviderStandIn(refuse, directory=tmp_path / "ca") as standin:
        env, agent = _env(tmp_path, standin)
        (agent / "auth.json").write_text(json.dumps({"openrouter": {
            "type": "oauth", "access": "sk-or-v1-revoked", "refresh": "", "expires": 2 ** 53 - 1}}))
        done = subprocess.run([PI, "-p", "--model", "openrouter/openai/gpt-5", "hi"], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=90, stdin=subprocess.DEVNULL)
        calls = standin.requests_to("openrouter.ai")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "401" in said and "refused the stored sign-in. Run /login openrouter" in said
    assert "pi auth login openrouter" in said and "sk-or-v1-revoked" not in said
    assert len(calls) == 1


def _codex_answer(request: RecordedRequest) -> Reply | None:
    if request.host != "chatgpt.com":
        return None
    if request.method != "POST":
        return Reply.json(500, {"error": {"message": "no websockets here"}})  # the WebSocket try: SSE then
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    done = {**item, "status": "completed", "content": [{"type": "output_text", "text": "codex says hi", "annotations": []}]}
    events = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
         "delta": "codex says hi"},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed",
                                                    "usage": {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}}},
    ]
    return Reply.sse(events, event_names=[e["type"] for e in events])


def test_a_codex_sign_in_is_what_the_codex_wire_api_sends(tmp_path) -> None:
    """Signed in to ChatGPT Plus/Pro (device code), a Codex request carries the token and its account."""
    from signin_drive import Script, sign_in

    servers = SignInServers()

    def respond(request: RecordedRequest) -> Reply:
        return _codex_answer(request) or servers(request)

    with ProviderStandIn(respond, directory=tmp_path / "ca") as standin:
        env, agent = _env(tmp_path, standin)
        assert sign_in([PI], Script("openai-codex", ("--no-browser",), action="device"), env, str(tmp_path),
                       standin).status == 0
        # pi's catalogue does not list Codex's models yet: models.json names the one used.
        (agent / "models.json").write_text(json.dumps({"providers": {"openai-codex": {
            "baseUrl": "https://chatgpt.com/backend-api", "api": "openai-codex-responses",
            "models": [{"id": "gpt-codex-test", "reasoning": True}]}}}))
        done = subprocess.run([PI, "-p", "--no-tools", "--model", "openai-codex/gpt-codex-test", "hi"],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=90, stdin=subprocess.DEVNULL)
        [call] = [r for r in standin.requests_to("chatgpt.com") if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "codex says hi"
    stored = json.loads((agent / "auth.json").read_text())["openai-codex"]
    assert call.path == "/backend-api/codex/responses"
    assert call.headers["authorization"] == f"Bearer {stored['access']}"
    assert call.headers["chatgpt-account-id"] == stored["accountId"] == SignInServers.ACCOUNT_ID
