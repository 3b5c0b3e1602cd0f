"""The bedrock-converse-stream provider against a real HTTP server speaking Bedrock's binary event stream.

The server checks every SigV4 signature with an independent implementation of the specification
(``aws_sigv4_reference``), so a request it accepts is one AWS would authenticate.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_sigv4_reference import check

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.errors import classify_error
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers.bedrock_converse import aws
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_runtime.testing.loopback import (
    LoopbackServer,
    RecordedRequest,
    Reply,
    bedrock_event,
    bedrock_exception,
    event_stream_frame,
)
from pi_runtime.testing.standin import ProviderStandIn
from pi_runtime.testing.waiting import eventually

ACCESS = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No AWS variable from the machine; profiles read from a temp home; no instance metadata."""
    import os

    for name in list(os.environ):
        if name.startswith("AWS_") or name in ("PI_CACHE_RETENTION",):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / ".aws" / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / ".aws" / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    aws.forget_sessions()
    yield home
    aws.forget_sessions()


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)


def make_model(server: LoopbackServer, model_id: str = SONNET, **kwargs: Any) -> Model:
    fields: dict[str, Any] = dict(
        id=model_id, name="Claude Sonnet 4.5", api="bedrock-converse-stream", provider="amazon-bedrock",
        base_url=server.url, reasoning=True, input=["text", "image"], max_tokens=64000,
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    )
    fields.update(kwargs)
    return Model(**fields)


def ctx(text: str = "hi", **kwargs: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kwargs)


def text_reply(*pieces: str, stop: str = "end_turn", usage: dict[str, Any] | None = None, **kwargs: Any) -> Reply:
    frames = [bedrock_event("messageStart", {"role": "assistant", "p": "abcdef"})]
    frames += [bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": p}}) for p in pieces]
    frames += [bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
               bedrock_event("messageStop", {"stopReason": stop}),
               bedrock_event("metadata", {"usage": usage or {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13},
                                          "metrics": {"latencyMs": 120}})]
    return Reply.event_stream(frames, **kwargs)


async def run(model: Model, context: Context, **options: Any) -> tuple[list[Any], AssistantMessage]:
    s = stream(model, context, StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


# --------------------------------------------------------------------------- request and signature


async def test_text_streams_from_frames_split_across_reads(loopback: LoopbackServer, keys: None) -> None:
    pieces = ["Gr", "üß", "e, ", "日本", "語"]
    loopback.push(text_reply(*pieces, split=7))

    got, msg = await run(make_model(loopback), ctx("hello", system_prompt="Be brief."), reasoning="off")

    assert types(got) == ["start", "text_start"] + ["text_delta"] * len(pieces) + ["text_end", "done"]
    assert msg.content == [TextContent(text="Grüße, 日本語")]
    assert (msg.stop_reason, msg.raw_stop_reason, msg.error_message) == ("stop", "end_turn", None)
    assert (msg.api, msg.provider, msg.model) == ("bedrock-converse-stream", "amazon-bedrock", SONNET)
    [request] = loopback.requests
    assert request.method == "POST"
    assert request.path == "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.json() == {
        "messages": [{"role": "user", "content": [{"text": "hello"}, {"cachePoint": {"type": "default"}}]}],
        "system": [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}],
        "inferenceConfig": {"maxTokens": 64000},
    }


async def test_request_is_signed_with_sigv4_over_the_body_as_sent(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(text_reply("ok"))

    await run(make_model(loopback), ctx(), reasoning="off")

    request = loopback.requests[0]
    assert request.headers["x-amz-content-sha256"] == hashlib.sha256(request.body).hexdigest()
    result = check("POST", request.path, request.headers, request.body, SECRET)
    assert result.ok, result.canonical_request
    assert (result.access_key, result.region, result.service) == (ACCESS, "us-east-1", "bedrock")
    assert result.signed_headers == ["content-length", "content-type", "host", "x-amz-content-sha256", "x-amz-date"]
    assert "x-amz-security-token" not in request.headers


async def test_session_token_is_sent_and_signed(loopback: LoopbackServer, keys: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SESSION_TOKEN", "FwoGZXIvYXdzE-session-token")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    loopback.push(text_reply("ok"))

    await run(make_model(loopback), ctx(), reasoning="off")

    request = loopback.requests[0]
    assert request.headers["x-amz-security-token"] == "FwoGZXIvYXdzE-session-token"
    result = check("POST", request.path, request.headers, request.body, SECRET)
    assert result.ok and result.region == "eu-west-1"
    assert "x-amz-security-token" in result.signed_headers


async def test_a_wrong_secret_fails_the_check(loopback: LoopbackServer, keys: None) -> None:
    """The checker itself can fail: a signature made with another secret is refused."""
    loopback.push(text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="off")
    request = loopback.requests[0]
    assert not check("POST", request.path, request.headers, request.body, SECRET + "x").ok


async def test_extension_hooks_change_what_is_signed(loopback: LoopbackServer, keys: None) -> None:
    async def add_header(headers: dict[str, str]) -> dict[str, str]:
        return {**headers, "x-trace": "abc", "x-amz-date": "forged"}

    async def patch(body: Any) -> Any:
        return {**body, "inferenceConfig": {"maxTokens": 5}}

    loopback.push(text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="off", on_headers=add_header, on_payload=patch)

    request = loopback.requests[0]
    assert request.json()["inferenceConfig"] == {"maxTokens": 5}
    assert request.headers["x-trace"] == "abc" and request.headers["x-amz-date"] != "forged"
    result = check("POST", request.path, request.headers, request.body, SECRET)
    assert result.ok and "x-trace" in result.signed_headers


async def test_bearer_token_replaces_the_signature(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSKbedrock-api-key-123456")
    loopback.push(text_reply("ok"))

    # The registry's marker for ambient credentials is no key.
    _, msg = await run(make_model(loopback), ctx(), reasoning="off", api_key="<authenticated>")

    assert msg.stop_reason == "stop"
    headers = loopback.requests[0].headers
    assert headers["authorization"] == "Bearer ABSKbedrock-api-key-123456"
    assert "x-amz-date" not in headers and "x-amz-content-sha256" not in headers


async def test_a_stored_key_is_the_bearer_token(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="off", api_key="ABSKstored-token-987654")
    assert loopback.requests[0].headers["authorization"] == "Bearer ABSKstored-token-987654"


async def test_skip_auth_sends_dummy_credentials(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEDROCK_SKIP_AUTH", "1")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ignored-token-123")
    loopback.push(text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="off")
    result = check("POST", loopback.requests[0].path, loopback.requests[0].headers, loopback.requests[0].body,
                   "dummy-secret-key")
    assert result.ok and result.access_key == "dummy-access-key"


# --------------------------------------------------------------------------- credentials from profiles


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def test_profile_keys_and_region_come_from_the_aws_files(loopback: LoopbackServer, aws_env: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    write(aws_env / ".aws" / "credentials", "[dev]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profsecret\n")
    write(aws_env / ".aws" / "config", "[profile dev]\nregion = eu-west-3\n")
    monkeypatch.setenv("AWS_PROFILE", "dev")
    loopback.push(text_reply("ok"))

    _, msg = await run(make_model(loopback), ctx(), reasoning="off")

    assert msg.stop_reason == "stop", msg.error_message
    request = loopback.requests[0]
    result = check("POST", request.path, request.headers, request.body, "profsecret")
    assert result.ok and (result.access_key, result.region) == ("AKIDPROFILE", "eu-west-3")


async def test_credential_process_profile(loopback: LoopbackServer, aws_env: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "creds.sh"
    script.write_text('#!/bin/sh\necho \'{"Version": 1, "AccessKeyId": "AKIDPROC", "SecretAccessKey": "procsecret",'
                      ' "SessionToken": "proc-session-token"}\'\n')
    script.chmod(0o755)
    write(aws_env / ".aws" / "config", f"[profile proc]\ncredential_process = {script}\nregion = ap-south-1\n")
    monkeypatch.setenv("AWS_PROFILE", "proc")
    loopback.push(text_reply("ok"))

    _, msg = await run(make_model(loopback), ctx(), reasoning="off")

    assert msg.stop_reason == "stop", msg.error_message
    request = loopback.requests[0]
    assert request.headers["x-amz-security-token"] == "proc-session-token"
    assert check("POST", request.path, request.headers, request.body, "procsecret").region == "ap-south-1"


async def test_sso_profile_gets_role_credentials_from_the_portal(aws_env: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``aws sso login`` token in the cache is exchanged for role credentials at the SSO portal
    (played by the stand-in, reached through HTTPS_PROXY like the real one)."""
    def answer(request: RecordedRequest) -> Reply:
        if request.host == "portal.sso.us-east-1.amazonaws.com":
            return Reply.json(200, {"roleCredentials": {
                "accessKeyId": "ASIASSOEXAMPLE", "secretAccessKey": "sso-secret-key", "sessionToken": "sso-session",
                "expiration": 4102444800000}})
        return text_reply("ok")

    write(aws_env / ".aws" / "config",
          "[profile work]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = Dev\nregion = us-west-2\n"
          "[sso-session corp]\nsso_region = us-east-1\nsso_start_url = https://corp.awsapps.com/start\n")
    cached = {"startUrl": "https://corp.awsapps.com/start", "region": "us-east-1",
              "accessToken": "sso-access-token-abc", "expiresAt": "2099-01-01T00:00:00Z"}
    cache = aws_env / ".aws" / "sso" / "cache"
    write(cache / f"{hashlib.sha1(b'corp').hexdigest()}.json", json.dumps(cached))
    # botocore fixes its SSO cache folder from HOME when first imported (an earlier test's home).
    import botocore.credentials
    import botocore.tokens

    monkeypatch.setattr(botocore.credentials.SSOProvider, "_SSO_TOKEN_CACHE_DIR", str(cache))
    monkeypatch.setattr(botocore.tokens.SSOTokenProvider, "_SSO_TOKEN_CACHE_DIR", str(cache))
    with ProviderStandIn(answer, directory=tmp_path / "ca") as standin:
        for name, value in standin.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("AWS_CA_BUNDLE", str(standin.ca_file))
        monkeypatch.setenv("AWS_PROFILE", "work")

        _, msg = await run(make_model(standin), ctx(), reasoning="off")

        assert msg.stop_reason == "stop", msg.error_message
        portal, bedrock = standin.requests
    assert portal.path == "/federation/credentials?role_name=Dev&account_id=111122223333"
    assert portal.headers["x-amz-sso_bearer_token"] == "sso-access-token-abc"
    assert bedrock.headers["x-amz-security-token"] == "sso-session"
    result = check("POST", bedrock.path, bedrock.headers, bedrock.body, "sso-secret-key")
    assert result.ok and (result.access_key, result.region) == ("ASIASSOEXAMPLE", "us-west-2")


async def test_abort_while_a_credential_process_runs(loopback: LoopbackServer, aws_env: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow ``credential_process`` (a login prompt, a hardware key) does not hold up an abort."""
    started, release = tmp_path / "started", tmp_path / "release"
    os.mkfifo(release)
    script = tmp_path / "slow.sh"
    script.write_text(f'#!/bin/sh\ntouch {started}\nread line < {release}\n'
                      'echo \'{"Version": 1, "AccessKeyId": "AKIDSLOW", "SecretAccessKey": "s"}\'\n')
    script.chmod(0o755)
    write(aws_env / ".aws" / "config", f"[profile slow]\ncredential_process = {script}\nregion = us-east-1\n")
    monkeypatch.setenv("AWS_PROFILE", "slow")
    controller = AbortController()
    task = asyncio.ensure_future(run(make_model(loopback), ctx(), reasoning="off", signal=controller.signal))
    try:
        assert await eventually(started.exists)
        controller.abort()
        got, msg = await asyncio.wait_for(task, 30)  # without the abort it would wait for the script
    finally:
        with open(release, "w") as fifo:  # let the script (and botocore's thread) finish
            fifo.write("go\n")
    assert types(got) == ["error"]
    assert (msg.stop_reason, msg.error_message) == ("aborted", "Request was aborted")
    assert loopback.requests == []


async def test_unknown_profile_is_a_one_line_error(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_PROFILE", "nosuch")
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error"
    assert "nosuch" in (msg.error_message or "") and "\n" not in (msg.error_message or "")
    assert loopback.requests == []


async def test_missing_credentials_name_what_to_set(loopback: LoopbackServer) -> None:
    got, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert types(got) == ["error"]
    assert msg.error_message == aws.MISSING_CREDENTIALS
    for name in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_BEARER_TOKEN_BEDROCK"):
        assert name in msg.error_message
    assert loopback.requests == []


# --------------------------------------------------------------------------- endpoint and region


def target(model_id: str = SONNET, base_url: str = "https://bedrock-runtime.us-east-1.amazonaws.com",
           **options: Any) -> aws.Target:
    import os

    model = Model(id=model_id, api="bedrock-converse-stream", provider="amazon-bedrock", base_url=base_url)
    opts = StreamOptions(**options)
    return aws.resolve_target(model, opts, {**os.environ, **opts.extra.get("env", {})})


def test_region_and_endpoint_follow_pis_order(keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Standard endpoint, nothing configured: the catalogue's endpoint and its region.
    assert (target().url, target().region) == (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream",
        "us-east-1")
    # A configured region wins over the catalogue's standard endpoint.
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    assert target().url.startswith("https://bedrock-runtime.eu-central-1.amazonaws.com/model/")
    monkeypatch.setenv("AWS_REGION", "ca-central-1")
    assert target().region == "ca-central-1"
    # The endpoint variable replaces the standard host, not a custom base URL.
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "http://127.0.0.1:9/custom")
    assert target().url.startswith("http://127.0.0.1:9/custom/model/")
    assert target(base_url="https://vpce-1.bedrock.example").url.startswith("https://vpce-1.bedrock.example/model/")
    # An inference-profile ARN names its region, and is one path segment.
    arn = "arn:aws:bedrock:ap-northeast-1:123456789012:application-inference-profile/abc"
    found = target(arn)
    assert found.region == "ap-northeast-1"
    assert "/model/arn%3Aaws%3Abedrock%3Aap-northeast-1%3A123456789012%3Aapplication-inference-profile%2Fabc/" in found.url


def test_china_regions_use_the_cn_domain(keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "cn-north-1")
    assert target().url.startswith("https://bedrock-runtime.cn-north-1.amazonaws.com.cn/")


# --------------------------------------------------------------------------- tools


async def test_tool_call_streams_and_history_round_trips(loopback: LoopbackServer, keys: None) -> None:
    frames = [
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Reading."}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        bedrock_event("contentBlockStart", {"contentBlockIndex": 1,
                                            "start": {"toolUse": {"toolUseId": "tooluse_ab1", "name": "read"}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"path": "a.'}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": 'txt"}'}}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 1}),
        bedrock_event("messageStop", {"stopReason": "tool_use"}),
        bedrock_event("metadata", {"usage": {"inputTokens": 30, "outputTokens": 9, "totalTokens": 39}}),
    ]
    loopback.push(Reply.event_stream(frames))
    tools = [Tool(name="read", description="Read a file",
                  parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})]
    model = make_model(loopback)

    got, msg = await run(model, ctx("read a.txt", tools=tools), reasoning="off")

    assert types(got) == ["start", "text_start", "text_delta", "text_end",
                          "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end", "done"]
    assert msg.tool_calls() == [ToolCall(id="tooluse_ab1", name="read", arguments={"path": "a.txt"})]
    assert msg.stop_reason == "toolUse" and msg.raw_stop_reason == "tool_use"
    assert loopback.requests[0].json()["toolConfig"] == {"tools": [{"toolSpec": {
        "name": "read", "description": "Read a file", "inputSchema": {"json": tools[0].parameters}}}]}

    results = [ToolResultMessage(tool_call_id="tooluse_ab1", tool_name="read",
                                 content=[TextContent(text="file contents\n")]),
               ]
    loopback.push(text_reply("Done."))
    history = Context(messages=[UserMessage(content="read a.txt"), msg, *results], tools=tools)
    await run(model, history, reasoning="off")

    assert loopback.requests[1].json()["messages"] == [
        {"role": "user", "content": [{"text": "read a.txt"}]},
        {"role": "assistant", "content": [
            {"text": "Reading."},
            {"toolUse": {"toolUseId": "tooluse_ab1", "name": "read", "input": {"path": "a.txt"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_ab1", "content": [{"text": "file contents\n"}], "status": "success"}},
            {"cachePoint": {"type": "default"}}]},
    ]


def test_history_conversion_follows_pi(keys: None) -> None:
    from pi_runtime.ai.providers.bedrock_converse.request import convert_messages

    png = ImageContent(data=base64.b64encode(b"\x89PNG").decode(), mime_type="image/png")
    nova = Model(id="amazon.nova-pro-v1:0", name="Nova Pro", api="bedrock-converse-stream", provider="amazon-bedrock")
    claude = Model(id=SONNET, name="Claude", api="bedrock-converse-stream", provider="amazon-bedrock")
    assistant = AssistantMessage(
        api="bedrock-converse-stream", provider="amazon-bedrock", model=SONNET, stop_reason="toolUse",
        content=[ThinkingContent(thinking="hmm", thinking_signature="sig=="), TextContent(text="  "),
                 ToolCall(id="call|1", name="ls", arguments={"": 1, "path": "."})])
    history = [
        UserMessage(content="   "),
        UserMessage(content=[TextContent(text="look"), png]),
        assistant,
        ToolResultMessage(tool_call_id="call|1", tool_name="ls", content=[TextContent(text=""), png], is_error=True),
    ]
    converted = convert_messages(history, claude)
    assert converted[0] == {"role": "user", "content": [{"text": "<empty>"}]}
    assert converted[1]["content"][1] == {"image": {"source": {"bytes": png.data}, "format": "png"}}
    assert converted[2] == {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig=="}}},
        {"toolUse": {"toolUseId": "call_1", "name": "ls", "input": {"path": "."}}}]}
    # Claude: the error result keeps a placeholder; its images follow the results with a caption.
    assert converted[3]["content"] == [
        {"toolResult": {"toolUseId": "call_1", "content": [{"text": "(image attached after the tool results)"}],
                        "status": "error"}},
        {"text": "Images from the error result of tool call call|1 (ls):"},
        {"image": {"source": {"bytes": png.data}, "format": "png"}},
    ]
    # Other models: reasoning without a signature, images stay in the result.
    other = convert_messages(history, nova)
    assert other[2]["content"][0] == {"reasoningContent": {"reasoningText": {"text": "hmm"}}}
    assert other[3]["content"][0]["toolResult"]["content"] == [{"image": {"source": {"bytes": png.data},
                                                                          "format": "png"}}]


async def test_unsupported_image_type_fails_before_sending(loopback: LoopbackServer, keys: None) -> None:
    context = Context(messages=[UserMessage(content=[ImageContent(data="AAAA", mime_type="image/bmp")])])
    _, msg = await run(make_model(loopback), context, reasoning="off")
    assert msg.stop_reason == "error" and "image/bmp" in (msg.error_message or "")
    assert loopback.requests == []


# --------------------------------------------------------------------------- reasoning


async def test_reasoning_with_signature_then_text(loopback: LoopbackServer, keys: None) -> None:
    frames = [
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Let me "}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think."}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQB"}}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "4"}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 1}),
        bedrock_event("messageStop", {"stopReason": "end_turn"}),
    ]
    loopback.push(Reply.event_stream(frames))

    got, msg = await run(make_model(loopback), ctx("2+2?"), reasoning="medium")

    assert types(got) == ["start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
                          "text_start", "text_delta", "text_end", "done"]
    assert msg.content == [ThinkingContent(thinking="Let me think.", thinking_signature="EqQB"), TextContent(text="4")]
    assert loopback.requests[0].json()["additionalModelRequestFields"] == {
        "thinking": {"type": "enabled", "budget_tokens": 8192, "display": "summarized"},
        "anthropic_beta": ["interleaved-thinking-2025-05-14"],
    }


async def test_redacted_reasoning_is_kept_whole_for_replay(loopback: LoopbackServer, keys: None) -> None:
    first, second = b"\x00\x01secret-part-1", b"\x02part-2"
    frames = [
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {
            "redactedContent": base64.b64encode(first).decode()}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {
            "redactedContent": base64.b64encode(second).decode()}}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "ok"}}),
        bedrock_event("messageStop", {"stopReason": "end_turn"}),
    ]
    loopback.push(Reply.event_stream(frames))
    model = make_model(loopback, "openai.gpt-oss-120b-1:0", name="gpt-oss-120b")

    _, msg = await run(model, ctx(), reasoning="high")

    thinking = msg.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.redacted
    assert thinking.thinking == "[Reasoning redacted]"
    assert base64.b64decode(thinking.thinking_signature or "") == first + second
    assert loopback.requests[0].json()["additionalModelRequestFields"] == {"reasoning_effort": "high"}

    loopback.push(text_reply("again"))
    await run(model, Context(messages=[UserMessage(content="q"), msg, UserMessage(content="more")]), reasoning="high")
    replayed = loopback.requests[1].json()["messages"][1]["content"][0]
    assert replayed == {"reasoningContent": {"redactedContent": base64.b64encode(first + second).decode()}}


@pytest.mark.parametrize(("model_id", "name", "level", "fields"), [
    ("anthropic.claude-opus-4-7", "Claude Opus 4.7", "xhigh", {
        "thinking": {"type": "adaptive", "display": "summarized",
                     "block_binding": {"prefix_mismatch_behavior": "drop_block"}},
        "output_config": {"effort": "xhigh"}, "anthropic_beta": ["thinking-binding-controls-2026-08-01"]}),
    ("anthropic.claude-sonnet-4-6", "Claude Sonnet 4.6", "minimal", {
        "thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "low"}}),
    ("us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0", "Claude Sonnet 4.5 (GovCloud)", "low", {
        "thinking": {"type": "enabled", "budget_tokens": 2048}, "anthropic_beta": ["interleaved-thinking-2025-05-14"]}),
    ("openai.gpt-5-1", "GPT-5.1", "minimal", {"reasoning": {"effort": "low"}}),
    ("amazon.nova-2-lite-v1:0", "Nova 2 Lite", "high", None),
])
async def test_reasoning_settings_per_model_family(loopback: LoopbackServer, keys: None, model_id: str, name: str,
                                                   level: str, fields: dict[str, Any] | None) -> None:
    loopback.push(text_reply("ok"))
    await run(make_model(loopback, model_id, name=name), ctx(), reasoning=level)
    assert loopback.requests[0].json().get("additionalModelRequestFields") == fields


async def test_thinking_budget_fits_a_callers_token_limit(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(text_reply("ok"), text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="high", max_tokens=4000)
    await run(make_model(loopback, max_tokens=3000), ctx(), reasoning="high")
    first, second = (r.json() for r in loopback.requests)
    assert first["inferenceConfig"] == {"maxTokens": 20384}  # caller's 4000 + the 16384 budget
    assert first["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 16384
    assert second["inferenceConfig"] == {"maxTokens": 3000}
    assert second["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 1976  # room for the answer


async def test_long_cache_retention_and_models_without_caching(loopback: LoopbackServer, keys: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    loopback.push(text_reply("ok"), text_reply("ok"))
    await run(make_model(loopback), ctx(system_prompt="s"), reasoning="off")
    await run(make_model(loopback, "amazon.nova-pro-v1:0", name="Nova Pro"), ctx(system_prompt="s"), reasoning="off")
    claude, nova = (r.json() for r in loopback.requests)
    assert claude["system"][1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    assert nova["system"] == [{"text": "s"}] and nova["messages"][0]["content"] == [{"text": "hi"}]


# --------------------------------------------------------------------------- usage and stop reasons


async def test_usage_with_cache_tokens_and_cost(loopback: LoopbackServer, keys: None) -> None:
    usage = {"inputTokens": 100, "outputTokens": 50, "cacheReadInputTokens": 1000, "cacheWriteInputTokens": 400,
             "cacheDetails": [{"ttl": "1h", "inputTokens": 300}, {"ttl": "5m", "inputTokens": 100}],
             "totalTokens": 1550}
    loopback.push(text_reply("ok", usage=usage))

    _, msg = await run(make_model(loopback), ctx(), reasoning="off")

    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.cache_write, u.cache_write_1h, u.total_tokens) == (
        100, 50, 1000, 400, 300, 1550)
    assert u.cost.input == pytest.approx(100 * 3.0 / 1e6)
    assert u.cost.output == pytest.approx(50 * 15.0 / 1e6)
    assert u.cost.cache_read == pytest.approx(1000 * 0.3 / 1e6)
    assert u.cost.cache_write == pytest.approx((100 * 3.75 + 300 * 6.0) / 1e6)


@pytest.mark.parametrize(("raw", "stop", "error"), [
    ("max_tokens", "length", None),
    ("model_context_window_exceeded", "length", None),
    ("stop_sequence", "stop", None),
    ("guardrail_intervened", "error", "Provider stopped with: guardrail_intervened"),
    ("content_filtered", "error", "Provider stopped with: content_filtered"),
])
async def test_stop_reasons(loopback: LoopbackServer, keys: None, raw: str, stop: str, error: str | None) -> None:
    loopback.push(text_reply("partial", stop=raw))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert (msg.stop_reason, msg.error_message, msg.raw_stop_reason) == (stop, error, raw)
    assert msg.content == [TextContent(text="partial")]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("exception", "text", "kind"), [
    ("throttlingException", "Throttling error: Too many requests, please wait before trying again.", "retryable"),
    ("serviceUnavailableException", "Service unavailable: Too many requests, please wait before trying again.",
     "retryable"),
    ("internalServerException", "Internal server error: Too many requests, please wait before trying again.",
     "retryable"),
    ("modelStreamErrorException", "Model stream error: Too many requests, please wait before trying again.",
     "retryable"),
])
async def test_exception_inside_the_stream_keeps_the_partial_answer(
        loopback: LoopbackServer, keys: None, exception: str, text: str, kind: str) -> None:
    loopback.push(Reply.event_stream([
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "partial"}}),
        bedrock_exception(exception, "Too many requests, please wait before trying again."),
    ]))
    got, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert types(got)[-2:] == ["text_end", "error"]
    assert msg.error_message == text
    assert msg.content == [TextContent(text="partial")]
    assert classify_error(msg) == kind


async def test_validation_exception_for_a_long_prompt_is_an_overflow(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([bedrock_exception(
        "validationException", "The model returned the following errors: Input is too long for requested model.")]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == ("Validation error: The model returned the following errors: "
                                 "Input is too long for requested model.")
    assert classify_error(msg) == "overflow"


@pytest.mark.parametrize(("status", "error_type", "body", "text", "kind"), [
    (429, "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
     {"message": "Too many tokens, please wait before trying again."},
     "Throttling error: Too many tokens, please wait before trying again.", "retryable"),
    (400, "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
     {"message": "The provided model identifier is invalid."},
     "Validation error: The provided model identifier is invalid.", "fatal"),
    (403, "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
     {"message": "The security token included in the request is invalid."},
     "UnrecognizedClientException: The security token included in the request is invalid.", "fatal"),
    (400, None, {"__type": "com.amazon.coral.validate#ValidationException",
                 "message": "data retention mode 'default' is not available for this model"},
     "Validation error: data retention mode 'default' is not available for this model See "
     "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html for supported data retention modes.",
     "fatal"),
    (500, "InternalServerException", {"message": "boom"}, "Internal server error: boom", "retryable"),
    (503, "ServiceUnavailableException", {"message": "Bedrock is unable to process your request."},
     "Service unavailable: Bedrock is unable to process your request.", "retryable"),
])
async def test_http_errors_become_one_line(loopback: LoopbackServer, keys: None, status: int, error_type: str | None,
                                           body: dict[str, str], text: str, kind: str) -> None:
    headers = {"x-amzn-errortype": error_type} if error_type else {}
    loopback.push(Reply.json(status, body, headers))
    got, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert types(got) == ["error"]
    assert msg.error_message == text
    assert classify_error(msg) == kind


async def test_a_proxys_plain_text_error(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply(status=502, headers={"content-type": "text/plain"}, pieces=[b"upstream \x1b[31mexploded"]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "502 upstream exploded"
    assert classify_error(msg) == "retryable"


async def test_retry_after_header_is_kept(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.json(429, {"message": "slow down"}, {"x-amzn-errortype": "ThrottlingException",
                                                             "retry-after": "7"}))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "Throttling error: slow down (retry after 7s)"


async def test_cut_connection_keeps_partial_and_is_retryable(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "partial"}}),
    ], drop=True))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error" and msg.content == [TextContent(text="partial")]
    assert classify_error(msg) == "retryable"


async def test_stream_ending_without_stop_reason(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}),
                                      bedrock_event("contentBlockDelta",
                                                    {"contentBlockIndex": 0, "delta": {"text": "par"}})]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "Bedrock stream ended without a stop reason"
    assert classify_error(msg) == "retryable"


async def test_stream_ending_inside_a_frame(loopback: LoopbackServer, keys: None) -> None:
    frame = bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "par"}})
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}), frame[:20]]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error"
    assert "cut short inside a frame" in (msg.error_message or "")
    assert classify_error(msg) == "retryable"


async def test_corrupt_frame_is_refused(loopback: LoopbackServer, keys: None) -> None:
    frame = bytearray(bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "par"}}))
    frame[-1] ^= 0xFF
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}), bytes(frame)]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error"
    assert (msg.error_message or "").startswith("Malformed frame in the Bedrock event stream:")
    assert "Checksum" in (msg.error_message or "") or "checksum" in (msg.error_message or "")


async def test_error_frame_from_the_service(loopback: LoopbackServer, keys: None) -> None:
    error = event_stream_frame({":message-type": "error", ":error-code": "InternalFailure",
                                ":error-message": "An internal error occurred"}, b"")
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}), error]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "InternalFailure: An internal error occurred"


async def test_echoed_bearer_token_is_redacted(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSK-very-secret-bearer-token")
    loopback.push(Reply.json(403, {"message": "token ABSK-very-secret-bearer-token is not valid"},
                             {"x-amzn-errortype": "AccessDeniedException"}))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "AccessDeniedException: token [redacted] is not valid"


async def test_abort_mid_stream(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Working"}}),
    ], stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), ctx(), StreamOptions(reasoning="off", signal=controller.signal))
    seen: list[str] = []
    async for event in s:
        seen.append(event.type)
        if event.type == "text_delta":
            controller.abort()
    msg = await s.result()
    assert seen[-1] == "error"
    assert msg.stop_reason == "aborted" and msg.error_message == "Request was aborted"
    assert msg.content == [TextContent(text="Working")]


async def test_aborted_before_sending(loopback: LoopbackServer, keys: None) -> None:
    controller = AbortController()
    controller.abort()
    _, msg = await run(make_model(loopback), ctx(), reasoning="off", signal=controller.signal)
    assert msg.stop_reason == "aborted"
    assert loopback.requests == []


async def test_on_stream_event_sees_items_like_the_sdks(loopback: LoopbackServer, keys: None) -> None:
    seen: list[Any] = []

    async def watch(item: Any) -> None:
        seen.append(item)

    loopback.push(text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="off", on_stream_event=watch)
    assert seen[0] == {"messageStart": {"role": "assistant", "p": "abcdef"}}
    assert seen[-1]["metadata"]["usage"]["totalTokens"] == 13
    assert json.dumps(seen)  # plain data


# --------------------------------------------------------------------------- the registry


def test_registry_counts_ambient_aws_credentials_as_pi_does(tmp_path: Path) -> None:
    from pi_runtime.ai.env_keys import AMBIENT
    from pi_runtime.ai.models import ModelRegistry, NoCredentialsError

    model = Model(id=SONNET, api="bedrock-converse-stream", provider="amazon-bedrock",
                  base_url="https://bedrock-runtime.us-east-1.amazonaws.com")
    for env in ({"AWS_PROFILE": "dev"}, {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"},
                {"AWS_BEARER_TOKEN_BEDROCK": "t"}, {"AWS_WEB_IDENTITY_TOKEN_FILE": "/f"},
                {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/creds"}):
        registry = ModelRegistry(read_models_json=False, builtins=False, env=env)
        registry.add_model(model)
        assert registry.has_credentials(model), env
        assert registry.request_auth(model).api_key == AMBIENT
    bare = ModelRegistry(read_models_json=False, builtins=False, env={"AWS_ACCESS_KEY_ID": "only-half"})
    bare.add_model(model)
    assert not bare.has_credentials(model)
    with pytest.raises(NoCredentialsError) as caught:
        bare.request_auth(model)
    assert str(caught.value) == (
        "No credentials for provider 'amazon-bedrock': set AWS_PROFILE (a profile in ~/.aws/credentials or "
        "~/.aws/config), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK, or run /login")
