"""Bedrock requests are signed (SigV4) or carry a bearer token, with credentials, region and endpoint
resolved as Pi resolves them; the loopback server checks every signature with an independent
implementation of the specification (``aws_sigv4_reference``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from aws_sigv4_reference import check
from bedrock_support import ACCESS, SECRET, SONNET, ctx, make_model, run, text_reply, types, write

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers.bedrock_converse import aws
from pi_runtime.ai.types import (
    Model,
    TextContent,
)
from pi_runtime.testing.loopback import (
    LoopbackServer,
    RecordedRequest,
    Reply,
)
from pi_runtime.testing.standin import ProviderStandIn
from pi_runtime.testing.waiting import eventually

pytestmark = pytest.mark.usefixtures("aws_env")

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
