"""Amazon Bedrock, side by side: pi and the real Pi 1.6 send the same ConverseStream requests.

Both reach ``bedrock-runtime.<region>.amazonaws.com`` through the providers' stand-in, with the
same models.json, home files and environment, for a first turn and a tool round trip. Compared:
method, host, path, the headers that are not volatile or SDK telemetry, the SigV4 credential
scope (both signatures are checked with the reference checker), and the body. Differences kept
on purpose are named where the comparison leaves them out:

- ``user-agent``, ``x-amz-user-agent``, ``amz-sdk-invocation-id``, ``amz-sdk-request``: the AWS
  JavaScript SDK's telemetry (pi identifies itself as pi and makes one attempt per request; the
  kernel's retry settings decide retries, where Pi's SDK also retries twice on its own);
- the system prompt's text and the tools' descriptions and schemas: pi's prompt and tools,
  compared elsewhere (the structure around them, cache points included, is compared here);
- Pi marks tools ``strict`` for catalogue models with ``compat.supportsStrictMode``; pi's tools
  carry no constrained-sampling setting yet, and the models here do not set the flag.

pi runs every time (its requests checked); Pi runs and is compared where it is installed and named
by ``PI_REFERENCE``. pi's own loopback tests are in ``tests/ai/test_bedrock_converse.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cloud_side_by_side import HAVE_PI, PI_REFERENCE, run_program
from e2e_support import PI

from pi_runtime.testing.loopback import RecordedRequest, Reply, bedrock_event

sys.path.insert(0, str(Path(__file__).parent.parent / "ai"))
from aws_sigv4_reference import check

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"
MODELS = {"providers": {"amazon-bedrock": {
    "baseUrl": "https://bedrock-runtime.us-east-1.amazonaws.com", "api": "bedrock-converse-stream",
    "models": [
        {"id": SONNET, "name": "Claude Sonnet 4.5", "reasoning": True, "input": ["text", "image"],
         "contextWindow": 200000, "maxTokens": 64000,
         "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}},
        {"id": "anthropic.claude-opus-4-7", "name": "Claude Opus 4.7", "reasoning": True, "input": ["text", "image"],
         "contextWindow": 1000000, "maxTokens": 128000,
         "cost": {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6.25}},
        {"id": "amazon.nova-pro-v1:0", "name": "Nova Pro", "reasoning": False, "input": ["text", "image"],
         "contextWindow": 300000, "maxTokens": 10000, "cost": {"input": 0.8, "output": 3.2}},
    ]}}}
_VOLATILE = {"amz-sdk-invocation-id", "amz-sdk-request", "user-agent", "x-amz-user-agent", "x-amz-date",
             "authorization", "connection", "accept", "accept-encoding", "content-length", "x-amz-content-sha256"}
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def _answer(request: RecordedRequest) -> Reply:
    messages = (request.json() or {}).get("messages") or []
    answered = any("toolResult" in block for block in (messages[-1] if messages else {}).get("content", []))
    frames = [bedrock_event("messageStart", {"role": "assistant"})]
    if "read tool" in json.dumps(messages[:1]) and not answered:
        frames += [
            bedrock_event("contentBlockStart", {"contentBlockIndex": 0, "start": {
                "toolUse": {"toolUseId": "tooluse_1", "name": "read"}}}),
            bedrock_event("contentBlockDelta", {"contentBlockIndex": 0,
                                                "delta": {"toolUse": {"input": '{"path": "a.txt"}'}}}),
            bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
            bedrock_event("messageStop", {"stopReason": "tool_use"}),
        ]
    else:
        frames += [
            bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "hello from bedrock"}}),
            bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
            bedrock_event("messageStop", {"stopReason": "end_turn"}),
        ]
    frames.append(bedrock_event("metadata", {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}))
    return Reply.event_stream(frames)


def _auth_shape(headers: dict[str, str], secret: str | None, request: RecordedRequest) -> Any:
    auth = headers.get("authorization", "")
    if auth.startswith("Bearer "):
        return auth
    result = check(request.method, request.path, headers, request.body, secret or "")
    assert result.ok, f"bad signature:\n{result.canonical_request}"
    signed = sorted(set(result.signed_headers) - _VOLATILE)
    return {"key": result.access_key, "region": result.region, "service": result.service, "signed": signed}


def comparable(request: RecordedRequest, secret: str | None) -> dict[str, Any]:
    """What must be the same in Pi's and pi's request."""
    headers = request.headers
    body = request.json()
    if body.get("system"):
        body["system"][0]["text"] = "<system prompt>"
    if body.get("toolConfig"):
        body["toolConfig"]["tools"] = [t["toolSpec"]["name"] for t in body["toolConfig"]["tools"]]
    return {
        "request": f"{request.method} {request.host}{request.path}",
        "headers": {k: v for k, v in sorted(headers.items()) if k not in _VOLATILE},
        "auth": _auth_shape(headers, secret, request),
        "body": body,
    }


def _both(tmp_path: Path, secret: str | None, **kwargs: Any) -> list[dict[str, Any]]:
    """pi's requests (each signature checked), compared with Pi's where Pi is installed."""
    ours = run_program(PI, tmp_path / "ours", _answer, models_json=MODELS, **kwargs)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.strip() == "hello from bedrock"
    mine = [comparable(r, secret) for r in ours.requests]
    if HAVE_PI:
        ref = run_program(str(PI_REFERENCE), tmp_path / "ref", _answer, models_json=MODELS, **kwargs)
        assert ref.returncode == 0, ref.stderr
        assert ours.stdout == ref.stdout
        assert mine == [comparable(r, secret) for r in ref.requests]
    return mine


def test_access_keys_tool_round_trip_with_thinking(tmp_path: Path) -> None:
    sent = _both(tmp_path, SECRET, prompt="use the read tool on a.txt", project_files={"a.txt": "file contents\n"},
                   args=("--model", f"amazon-bedrock/{SONNET}", "--thinking", "medium"),
                   env={"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": SECRET,
                        "AWS_SESSION_TOKEN": "session-token-123456", "AWS_REGION": "eu-west-1"})
    assert [r["request"].split("/")[0] for r in sent] == ["POST bedrock-runtime.eu-west-1.amazonaws.com"] * 2
    assert sent[1]["body"]["messages"][2]["content"][0]["toolResult"]["content"] == [{"text": "file contents\n"}]
    assert sent[0]["headers"]["x-amz-security-token"] == "session-token-123456"


def test_bearer_token_first_turn(tmp_path: Path) -> None:
    sent = _both(tmp_path, None, prompt="say hi", args=("--model", "amazon-bedrock/amazon.nova-pro-v1:0"),
                   env={"AWS_BEARER_TOKEN_BEDROCK": "ABSKbedrock-bearer-token-1234"})
    assert sent[0]["auth"] == "Bearer ABSKbedrock-bearer-token-1234"


def test_profile_region_and_adaptive_thinking(tmp_path: Path) -> None:
    files = {".aws/credentials": f"[dev]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = {SECRET}\n",
             ".aws/config": "[profile dev]\nregion = eu-west-3\n"}
    sent = _both(tmp_path, SECRET, prompt="say hi", home_files=files, env={"AWS_PROFILE": "dev"},
                   args=("--model", "amazon-bedrock/anthropic.claude-opus-4-7", "--thinking", "high"))
    assert sent[0]["auth"]["region"] == "eu-west-3"
    assert sent[0]["body"]["additionalModelRequestFields"]["thinking"]["type"] == "adaptive"


def test_missing_credentials_name_what_to_set(tmp_path: Path) -> None:
    done = run_program(PI, tmp_path, _answer, models_json=MODELS, prompt="hi",
                       args=("--model", "amazon-bedrock/amazon.nova-pro-v1:0"))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "pi: No credentials for provider 'amazon-bedrock': set AWS_PROFILE (a profile in ~/.aws/credentials or "
        "~/.aws/config), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK, or use /login "
        "amazon-bedrock.")
    assert done.requests == []


@pytest.mark.parametrize(("status", "error_type", "message", "expected"), [
    (429, "ThrottlingException", "Too many tokens, please wait before trying again.",
     "Throttling error: Too many tokens, please wait before trying again."),
    (403, "AccessDeniedException", "You don't have access to the model with the specified model ID.",
     "AccessDeniedException: You don't have access to the model with the specified model ID."),
])
def test_bedrock_errors_read_as_pis(tmp_path: Path, status: int, error_type: str, message: str, expected: str) -> None:
    """The same one line as Pi's (pi's print mode names itself in front). Pi's SDK makes three attempts
    at a 429 before it reports; pi reports the first and leaves retrying to the retry settings."""
    def refuse(_request: RecordedRequest) -> Reply:
        return Reply.json(status, {"message": message},
                          {"x-amzn-errortype": f"{error_type}:http://internal.amazon.com/coral/com.amazon.bedrock/"})

    kwargs: dict[str, Any] = dict(models_json=MODELS, prompt="hi", args=("--model", "amazon-bedrock/amazon.nova-pro-v1:0"),
                                  env={"AWS_BEARER_TOKEN_BEDROCK": "ABSKbedrock-bearer-token-1234"})
    ours = run_program(PI, tmp_path / "ours", refuse, **kwargs)
    assert (ours.returncode, ours.stderr.strip(), len(ours.requests)) == (1, f"pi: {expected}", 1)
    if HAVE_PI:
        ref = run_program(str(PI_REFERENCE), tmp_path / "ref", refuse, **kwargs)
        assert (ref.returncode, ref.stderr.strip()) == (1, expected)
