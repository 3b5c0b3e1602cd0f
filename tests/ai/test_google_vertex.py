"""The google-vertex provider against a real HTTP server playing Vertex AI and Google's token endpoint.

The credentials files name the loopback server as their ``token_uri``, as Google's files name
``https://oauth2.googleapis.com/token``; Vertex itself is reached through ``GOOGLE_VERTEX_BASE_URL``
(project path kept) or a custom ``baseUrl`` (no project path), both as Pi resolves them.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.errors import classify_error
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers.google_vertex import adc, routes
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)
from pi_runtime.testing.loopback import LoopbackServer, Reply
from pi_runtime.testing.waiting import eventually

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                        serialization.NoEncryption()).decode()
TEMPLATE = "https://{location}-aiplatform.googleapis.com"


@pytest.fixture(autouse=True)
def google_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No Google variable from the machine, a temp home, no cached token."""
    import os

    for name in list(os.environ):
        if name.startswith(("GOOGLE_", "GCLOUD_")) or name in ("GEMINI_API_KEY",):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    adc.forget_tokens()
    yield home
    adc.forget_tokens()


def service_account(server: LoopbackServer, **extra: Any) -> dict[str, Any]:
    return {"type": "service_account", "project_id": "sa-project", "private_key_id": "kid-1", "private_key": PEM,
            "client_email": "bot@sa-project.iam.gserviceaccount.com", "client_id": "42",
            "token_uri": f"{server.url}/token", **extra}


def authorized_user(server: LoopbackServer, **extra: Any) -> dict[str, Any]:
    return {"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
            "client_secret": "client-secret-xyz", "refresh_token": "1//refresh-token-abcdef",
            "token_uri": f"{server.url}/token", **extra}


@pytest.fixture
def adc_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, loopback: LoopbackServer) -> Path:
    """A service account key file, project and location, and Vertex reached at the loopback server."""
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(service_account(loopback)))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", loopback.url)
    return path


def make_model(model_id: str = "gemini-2.5-pro", base_url: str = TEMPLATE, **kwargs: Any) -> Model:
    fields: dict[str, Any] = dict(
        id=model_id, name=model_id, api="google-vertex", provider="google-vertex", base_url=base_url,
        reasoning=True, input=["text", "image"], max_tokens=65536,
        cost=ModelCost(input=1.25, output=10.0, cache_read=0.125, cache_write=0.0),
    )
    fields.update(kwargs)
    return Model(**fields)


def ctx(text: str = "hi", **kwargs: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kwargs)


def chunk(*parts: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-pro-001", "responseId": "r-1"}
    if usage:
        out["usageMetadata"] = usage
    return out


def text_reply(text: str = "ok") -> Reply:
    return Reply.sse([chunk({"text": text}), chunk(finish="STOP", usage={"promptTokenCount": 10,
                                                                       "candidatesTokenCount": 2,
                                                                       "totalTokenCount": 12})])


def token_reply(value: str = "ya29.loopback-token", expires_in: int = 3599) -> Reply:
    return Reply.json(200, {"access_token": value, "expires_in": expires_in, "token_type": "Bearer"})


async def run(model: Model, context: Context, **options: Any) -> tuple[list[Any], AssistantMessage]:
    s = stream(model, context, StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def jwt_claims(assertion: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims of a JWT whose RS256 signature verifies with the test account's public key."""
    def part(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    head, claims, signature = assertion.split(".")
    KEY.public_key().verify(part(signature), f"{head}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return json.loads(part(head)), json.loads(part(claims))


# --------------------------------------------------------------------------- API key


async def test_api_key_streams_text_from_the_express_route(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "Hel"}), chunk({"text": "lo"}),
                             chunk(finish="STOP", usage={"promptTokenCount": 10, "candidatesTokenCount": 2,
                                                         "totalTokenCount": 12})]))
    model = make_model(base_url=loopback.url)

    got, msg = await run(model, ctx(system_prompt="Be brief."), api_key="AIzaVertexKey-1234567", reasoning="off")

    assert types(got) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.content == [TextContent(text="Hello")]
    assert (msg.api, msg.provider, msg.stop_reason) == ("google-vertex", "google-vertex", "stop")
    [request] = loopback.requests
    assert request.path == "/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == "AIzaVertexKey-1234567"
    assert "authorization" not in request.headers
    assert request.json() == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"maxOutputTokens": 65536, "thinkingConfig": {"thinkingBudget": 0}},
        "systemInstruction": {"parts": [{"text": "Be brief."}], "role": "user"},
    }


async def test_api_key_from_the_environment_and_a_versioned_base(loopback: LoopbackServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_API_KEY", "AIzaFromEnv-7654321")
    loopback.push(text_reply())
    await run(make_model(base_url=f"{loopback.url}/vertex/v1beta1"), ctx())
    request = loopback.requests[0]
    assert request.path == "/vertex/v1beta1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == "AIzaFromEnv-7654321"


# --------------------------------------------------------------------------- Application Default Credentials


async def test_service_account_jwt_is_exchanged_then_cached(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(token_reply(), text_reply("one"), text_reply("two"))
    model = make_model()

    # The registry's marker for ambient credentials means "use ADC".
    _, first = await run(model, ctx(), api_key="<authenticated>")
    _, second = await run(model, ctx(), api_key="gcp-vertex-credentials")

    assert (first.content, second.content) == ([TextContent(text="one")], [TextContent(text="two")])
    token, vertex, again = loopback.requests
    assert (token.method, token.path) == ("POST", "/token")
    assert token.headers["content-type"] == "application/x-www-form-urlencoded"
    form = dict(parse_qsl(token.body.decode()))
    assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    header, claims = jwt_claims(form["assertion"])
    assert header == {"alg": "RS256"}
    assert claims["iss"] == "bot@sa-project.iam.gserviceaccount.com"
    assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform"
    assert claims["aud"] == f"{loopback.url}/token"
    assert claims["exp"] - claims["iat"] == 3600
    path = "/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-pro"
    assert vertex.path == f"{path}:streamGenerateContent?alt=sse" == again.path
    assert vertex.headers["authorization"] == "Bearer ya29.loopback-token" == again.headers["authorization"]


async def test_a_token_near_expiry_is_replaced(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(token_reply("ya29.short", expires_in=60), text_reply(), token_reply("ya29.fresh"), text_reply())
    await run(make_model(), ctx())
    await run(make_model(), ctx())
    assert [r.path for r in loopback.requests].count("/token") == 2
    assert loopback.requests[3].headers["authorization"] == "Bearer ya29.fresh"


async def test_a_401_drops_the_cached_token(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(token_reply("ya29.revoked"),
                  Reply.json(401, {"error": {"code": 401, "message": "Request had invalid authentication credentials.",
                                             "status": "UNAUTHENTICATED"}}),
                  token_reply("ya29.new"), text_reply())
    _, failed = await run(make_model(), ctx())
    assert failed.error_message == "401 UNAUTHENTICATED: Request had invalid authentication credentials."
    _, ok = await run(make_model(), ctx())
    assert ok.stop_reason == "stop"
    assert loopback.requests[3].headers["authorization"] == "Bearer ya29.new"


async def test_gcloud_user_credentials_and_quota_project(loopback: LoopbackServer, google_env: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    adc_file = google_env / ".config" / "gcloud" / "application_default_credentials.json"
    adc_file.parent.mkdir(parents=True)
    adc_file.write_text(json.dumps(authorized_user(loopback, quota_project_id="billing-project")))
    monkeypatch.setenv("GCLOUD_PROJECT", "my-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "global")
    loopback.push(token_reply(), text_reply())

    _, msg = await run(make_model(base_url=loopback.url), ctx())

    assert msg.stop_reason == "stop", msg.error_message
    token, vertex = loopback.requests
    assert list(parse_qsl(token.body.decode())) == [
        ("refresh_token", "1//refresh-token-abcdef"), ("client_id", "cid.apps.googleusercontent.com"),
        ("client_secret", "client-secret-xyz"), ("grant_type", "refresh_token")]
    # A custom base URL: no project path, as Pi's SDK builds it.
    assert vertex.path == "/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert vertex.headers["x-goog-user-project"] == "billing-project"


async def test_revoked_refresh_token_says_how_to_log_in_again(loopback: LoopbackServer, google_env: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = google_env / "user.json"
    path.write_text(json.dumps(authorized_user(loopback)))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-east5")
    loopback.push(Reply.json(400, {"error": "invalid_grant",
                                   "error_description": "Token 1//refresh-token-abcdef has been expired or revoked."}))

    got, msg = await run(make_model(), ctx())

    assert types(got) == ["error"]
    assert msg.error_message == ("Google refused the credentials (invalid_grant: Token [redacted] has been expired "
                                 "or revoked.): run `gcloud auth application-default login` again")
    assert classify_error(msg) == "fatal"
    assert len(loopback.requests) == 1


async def test_token_endpoint_outage_is_retryable(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(Reply.json(503, {"error": "temporarily_unavailable"}))
    _, msg = await run(make_model(), ctx())
    assert msg.error_message == "Google token request failed (HTTP 503): temporarily_unavailable"
    assert classify_error(msg) == "retryable"


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "are not valid JSON (line 1)"),
    ('{"type": "external_account"}', "are of type 'external_account'; pi takes service_account and authorized_user"),
    ('{"type": "service_account", "client_email": "a@b", "private_key": "nope"}',
     "The service account's private_key is not a PEM private key"),
    ('{"type": "authorized_user", "client_id": "x"}', "Google credentials lack client_secret, refresh_token"),
])
async def test_unusable_credentials_files(loopback: LoopbackServer, adc_env: Path, content: str, message: str) -> None:
    adc_env.write_text(content)
    _, msg = await run(make_model(), ctx())
    assert msg.stop_reason == "error" and message in (msg.error_message or "")
    assert "\n" not in (msg.error_message or "")
    assert loopback.requests == []


async def test_missing_credentials_name_what_to_set(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    _, msg = await run(make_model(), ctx())
    assert msg.error_message == ("No Google credentials: set GOOGLE_CLOUD_API_KEY, or run `gcloud auth "
                                 "application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service "
                                 "account key file")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json")
    _, msg = await run(make_model(), ctx())
    assert msg.error_message == "GOOGLE_APPLICATION_CREDENTIALS names /nonexistent/key.json, which does not exist"
    assert loopback.requests == []


@pytest.mark.parametrize(("variables", "message"), [
    ({"GOOGLE_CLOUD_LOCATION": "us-central1"},
     "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."),
    ({"GOOGLE_CLOUD_PROJECT": "p"}, "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options."),
])
async def test_project_and_location_are_required_with_adc(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch,
                                                          variables: dict[str, str], message: str) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    _, msg = await run(make_model(), ctx())
    assert msg.error_message == message


# --------------------------------------------------------------------------- Gemini stream


async def test_tool_call_thinking_and_usage(loopback: LoopbackServer, adc_env: Path) -> None:
    usage = {"promptTokenCount": 1200, "cachedContentTokenCount": 1000, "candidatesTokenCount": 30,
             "thoughtsTokenCount": 12, "totalTokenCount": 1242}
    loopback.push(token_reply(), Reply.sse([
        chunk({"text": "Plan it.", "thought": True}),
        chunk({"functionCall": {"name": "read", "args": {"path": "a.txt"}}, "thoughtSignature": "U0lH"},
              finish="STOP", usage=usage),
    ]))
    tools = [Tool(name="read", description="Read", parameters={"type": "object",
                                                               "properties": {"path": {"type": "string"}}})]
    got, msg = await run(make_model(), ctx("read a.txt", tools=tools), reasoning="high")

    assert types(got) == ["start", "thinking_start", "thinking_delta", "thinking_end",
                          "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    assert msg.content[0] == ThinkingContent(thinking="Plan it.")
    call = msg.tool_calls()[0]
    assert (call.name, call.arguments, call.thought_signature) == ("read", {"path": "a.txt"}, "U0lH")
    assert msg.stop_reason == "toolUse"
    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.reasoning, u.total_tokens) == (200, 42, 1000, 12, 1242)
    assert u.cost.total == pytest.approx((200 * 1.25 + 42 * 10.0 + 1000 * 0.125) / 1e6)
    body = loopback.requests[1].json()
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 32768}
    assert body["tools"] == [{"functionDeclarations": [{"name": "read", "description": "Read",
                                                        "parametersJsonSchema": tools[0].parameters}]}]

    loopback.push(text_reply("done"))
    result = ToolResultMessage(tool_call_id=call.id, tool_name="read", content=[TextContent(text="contents")])
    await run(make_model(), Context(messages=[UserMessage(content="read a.txt"), msg, result], tools=tools),
              reasoning="high")
    contents = loopback.requests[2].json()["contents"]
    assert contents[1] == {"role": "model", "parts": [
        {"text": "Plan it.", "thought": True},
        {"functionCall": {"name": "read", "args": {"path": "a.txt"}}, "thoughtSignature": "U0lH"}]}
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "read", "response": {"output": "contents"}}}]}


@pytest.mark.parametrize(("status", "body", "text", "kind"), [
    (429, {"error": {"code": 429, "message": "Resource exhausted. Please try again later.",
                     "status": "RESOURCE_EXHAUSTED"}},
     "429 RESOURCE_EXHAUSTED: Resource exhausted. Please try again later.", "retryable"),
    (500, {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}},
     "500 INTERNAL: Internal error encountered.", "retryable"),
    (403, {"error": {"code": 403, "message": "Permission 'aiplatform.endpoints.predict' denied on resource",
                     "status": "PERMISSION_DENIED"}},
     "403 PERMISSION_DENIED: Permission 'aiplatform.endpoints.predict' denied on resource", "fatal"),
    (400, [{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT"}}],
     "400 INVALID_ARGUMENT: Request contains an invalid argument.", "fatal"),
    (400, {"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens "
                                            "allowed (1048576).", "status": "INVALID_ARGUMENT"}},
     "400 INVALID_ARGUMENT: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
     "overflow"),
])
async def test_vertex_errors_become_one_line(loopback: LoopbackServer, status: int, body: Any, text: str,
                                             kind: str) -> None:
    loopback.push(Reply.json(status, body))
    got, msg = await run(make_model(base_url=loopback.url), ctx(), api_key="AIzaKey-123456")
    assert types(got) == ["error"]
    assert msg.error_message == text
    assert classify_error(msg) == kind


async def test_error_inside_the_stream(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "partial"}),
                             {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}]))
    _, msg = await run(make_model(base_url=loopback.url), ctx(), api_key="AIzaKey-123456")
    assert msg.error_message == "UNAVAILABLE: The model is overloaded."
    assert msg.content == [TextContent(text="partial")]
    assert classify_error(msg) == "retryable"


async def test_cut_stream_keeps_partial(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "partial"})], drop=True))
    _, msg = await run(make_model(base_url=loopback.url), ctx(), api_key="AIzaKey-123456")
    assert msg.stop_reason == "error" and msg.content == [TextContent(text="partial")]
    assert classify_error(msg) == "retryable"


async def test_abort_mid_stream(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "Working"})], stall=True))
    controller = AbortController()
    s = stream(make_model(base_url=loopback.url), ctx(),
               StreamOptions(api_key="AIzaKey-123456", signal=controller.signal))
    async for event in s:
        if event.type == "text_delta":
            controller.abort()
    msg = await s.result()
    assert msg.stop_reason == "aborted" and msg.error_message == "Request was aborted"
    assert msg.content == [TextContent(text="Working")]


async def test_abort_while_fetching_the_token(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(Reply(status=200, headers={"content-type": "application/json"}, pieces=[b'{"access'], stall=True))
    controller = AbortController()
    s = stream(make_model(), ctx(), StreamOptions(signal=controller.signal))
    task = asyncio.ensure_future(s.__aiter__().__anext__())
    assert await eventually(lambda: len(loopback.requests) == 1)
    controller.abort()
    first = await task
    assert first.type == "error" and first.reason == "aborted"
    assert first.error.error_message == "Request was aborted"


# --------------------------------------------------------------------------- Claude on Vertex


def anthropic_reply(text: str) -> Reply:
    return Reply.sse([
        {"type": "message_start", "message": {"id": "msg_vrtx_1", "model": "claude-sonnet-4-5@20250929",
                                              "usage": {"input_tokens": 12, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}},
        {"type": "message_stop"},
    ], event_names=["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                    "message_delta", "message_stop"])


async def test_claude_goes_to_stream_raw_predict(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(token_reply(), anthropic_reply("Hi from Claude"))
    model = make_model("claude-sonnet-4-5@20250929", cost=ModelCost(input=3.0, output=15.0))

    _, msg = await run(model, ctx(system_prompt="sys"), reasoning="off")

    assert msg.content == [TextContent(text="Hi from Claude")] and msg.stop_reason == "stop"
    assert (msg.usage.input, msg.usage.output) == (12, 4)
    request = loopback.requests[1]
    assert request.path == ("/v1/projects/my-project/locations/us-central1/publishers/anthropic/models/"
                            "claude-sonnet-4-5@20250929:streamRawPredict")
    assert request.headers["authorization"] == "Bearer ya29.loopback-token"
    assert "x-api-key" not in request.headers and "anthropic-version" not in request.headers
    body = request.json()
    assert "model" not in body
    assert body["anthropic_version"] == "vertex-2023-10-16"
    assert body["stream"] is True and body["max_tokens"] == 65536
    assert body["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]


async def test_claude_with_an_api_key_is_refused(loopback: LoopbackServer) -> None:
    _, msg = await run(make_model("anthropic/claude-opus-4-7", base_url=loopback.url), ctx(), api_key="AIzaKey-1")
    assert (msg.error_message or "").startswith("Claude models on Vertex AI need Application Default Credentials")
    assert loopback.requests == []


async def test_claude_error_shape(loopback: LoopbackServer, adc_env: Path) -> None:
    loopback.push(token_reply(), Reply.json(529, {"type": "error", "error": {"type": "overloaded_error",
                                                                            "message": "Overloaded"}}))
    _, msg = await run(make_model("claude-opus-4-7"), ctx())
    assert msg.error_message == "529 overloaded_error: Overloaded"
    assert classify_error(msg) == "retryable"


# --------------------------------------------------------------------------- where requests go


@pytest.mark.parametrize(("model_id", "place", "base", "expected"), [
    ("gemini-2.5-pro", ("p", "us-central1"), TEMPLATE,
     "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/"
     "gemini-2.5-pro:streamGenerateContent?alt=sse"),
    ("gemini-2.5-pro", ("p", "global"), TEMPLATE,
     "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro"
     ":streamGenerateContent?alt=sse"),
    ("gemini-2.5-pro", ("p", "eu"), TEMPLATE,
     "https://aiplatform.eu.rep.googleapis.com/v1/projects/p/locations/eu/publishers/google/models/gemini-2.5-pro"
     ":streamGenerateContent?alt=sse"),
    ("gemini-2.5-pro", None, TEMPLATE,
     "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"),
    ("meta/llama-4", ("p", "us-east5"), TEMPLATE,
     "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/meta/models/llama-4"
     ":streamGenerateContent?alt=sse"),
    ("projects/p/locations/us-east5/endpoints/123", ("p", "us-east5"), TEMPLATE,
     "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/endpoints/123"
     ":streamGenerateContent?alt=sse"),
    ("claude-haiku-4-5@20251001", ("p", "global"), "https://proxy.example/v1",
     "https://proxy.example/v1/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"),
])
def test_urls_follow_googles_sdk(model_id: str, place: tuple[str, str] | None, base: str, expected: str) -> None:
    where = routes.Place(*place) if place else None
    assert routes.url(make_model(model_id, base_url=base), where, {}) == expected


# --------------------------------------------------------------------------- the registry


def test_registry_counts_adc_as_pi_does(tmp_path: Path) -> None:
    from pi_runtime.ai.env_keys import AMBIENT
    from pi_runtime.ai.models import ModelRegistry, NoCredentialsError

    key_file = tmp_path / "sa.json"
    key_file.write_text("{}")
    model = make_model()

    def registry(env: dict[str, str]) -> ModelRegistry:
        found = ModelRegistry(read_models_json=False, builtins=False, env=env)
        found.add_model(model)
        return found

    full = {"GOOGLE_APPLICATION_CREDENTIALS": str(key_file), "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"}
    assert registry(full).request_auth(model).api_key == AMBIENT
    assert registry({"GOOGLE_CLOUD_API_KEY": "AIza-k"}).request_auth(model).api_key == "AIza-k"
    for missing in full:  # each of the three is needed
        assert not registry({k: v for k, v in full.items() if k != missing}).has_credentials(model)
    with pytest.raises(NoCredentialsError) as caught:
        registry({}).request_auth(model)
    assert "GOOGLE_CLOUD_API_KEY" in str(caught.value) and "GOOGLE_CLOUD_LOCATION" in str(caught.value)
