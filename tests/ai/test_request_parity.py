"""The pieces of Pi 1.6's request rules that every wire API shares, each checked on its own.

Thinking levels clamp upwards first and offer ``max`` only where declared; the output limit is
fitted into the context window with Pi's margins; a credential's headers may remove a header
(``null``) whatever its case; Cloudflare's ids fill the base URL; Anthropic's workload identity
exchanges the identity token and keeps every secret out of its errors.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_runtime.ai.context_budget import clamp_max_tokens, context_tokens
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.provider_endpoints import credential_endpoint
from pi_runtime.ai.providers._http import final_headers
from pi_runtime.ai.stream import stream
from pi_runtime.ai.thinking_levels import clamp_level, supported_levels
from pi_runtime.ai.types import Context, Model, Tool, UserMessage
from pi_runtime.testing.loopback import LoopbackServer, Reply


def _model(**fields: Any) -> Model:
    values: dict[str, Any] = dict(id="m", api="openai-completions", provider="p", base_url="http://127.0.0.1:9",
                                  reasoning=True, context_window=262144, max_tokens=262144)
    values.update(fields)
    return Model.model_validate(values)


def test_a_missing_level_runs_as_the_nearest_above_then_below() -> None:
    # Pi's clampThinkingLevel: GLM-5.3 on Baseten offers low, high and max.
    glm = _model(thinking_level_map={"off": None, "minimal": None, "low": "low", "medium": None, "high": "high",
                                     "xhigh": None, "max": "max"})
    assert supported_levels(glm) == ["low", "high", "max"]
    assert clamp_level(glm, "medium") == "high"
    assert clamp_level(glm, "xhigh") == "max"
    assert clamp_level(glm, "minimal") == "low"
    assert clamp_level(glm, "off") == "low"  # a model that cannot stop thinking
    plain = _model()
    assert supported_levels(plain) == ["off", "minimal", "low", "medium", "high"]  # xhigh, max: undeclared
    assert clamp_level(plain, "max") == "high"
    assert supported_levels(_model(reasoning=False)) == ["off"]


def test_the_output_limit_fits_the_window_with_pis_margins() -> None:
    # Measured from Pi 1.6: 262,144-token window and limit, 184 tokens of input -> 257,864.
    assert clamp_max_tokens(262144, 262144, 184) == 257864
    assert clamp_max_tokens(262144, 65536, 184) == 65536  # a limit that fits is kept
    # 15 % of a large input is kept while 32,768 tokens of output remain...
    assert clamp_max_tokens(1_000_000, 1_000_000, 100_000) == 1_000_000 - 100_000 - 15_000
    # ...else only the fixed margin, and at most 32,768.
    assert clamp_max_tokens(32768, 32768, 20000) == 32768 - 20000 - 4096
    assert clamp_max_tokens(0, 500, 10**6) == 500  # no window known


def test_the_input_estimate_counts_prompt_tools_then_reported_usage() -> None:
    tool = Tool(name="t", description="d", parameters={"type": "object"})
    fresh = context_tokens("You are terse.", [tool], [UserMessage(content="hi")])
    wire_tools = json.dumps([tool.to_wire()], separators=(",", ":"))
    assert fresh == -(-14 // 3.5) + -(-len(wire_tools) // 3.5) + 1
    answered = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop",
                "usage": {"totalTokens": 500}, "timestamp": 2}
    later = {"role": "user", "content": "x" * 35, "timestamp": 3}
    assert context_tokens("You are terse.", [tool], [{"role": "user", "content": "hi", "timestamp": 1}, answered,
                                                     later]) == 500 + 10


def test_an_answer_followed_by_a_newer_stamped_message_is_passed_over_for_an_earlier_one() -> None:
    def answer(total: int, stamp: float, stop: str = "stop") -> dict:
        return {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": stop,
                "usage": {"totalTokens": total}, "timestamp": stamp}

    question = {"role": "user", "content": "x" * 35, "timestamp": 1}
    summary = {"role": "user", "content": "y" * 35, "timestamp": 9}  # inserted later, stamped later
    # The latest answer counts only if nothing before it is newer: here the one before the summary does.
    assert context_tokens(None, None, [question, answer(100, 2), summary, question, answer(700, 4)]) == 100 + 10 + 10 + 1
    assert context_tokens(None, None, [question, answer(100, 2), summary, question, answer(300, 3), question,
                                       answer(700, 4)]) == 100 + 10 + 10 + 1 + 10 + 1
    assert context_tokens(None, None, [question, answer(100, 2), question, answer(700, 4)]) == 700
    # An aborted latest answer, or one without usage, is passed over alike.
    assert context_tokens(None, None, [question, answer(100, 2), question, answer(700, 4, "aborted")]) == 100 + 10 + 1
    # A stamp that is not a number counts as the oldest; a NaN one never counts as newer.
    odd = {"role": "user", "content": "z" * 35, "timestamp": "yesterday"}
    assert context_tokens(None, None, [odd, answer(100, 2), question, answer(700, 4)]) == 700
    assert context_tokens(None, None, [{**question, "timestamp": float("nan")}, answer(100, 2), question,
                                       answer(700, 4)]) == 700


def test_a_credential_header_removes_the_wire_apis_whatever_its_case() -> None:
    sent = final_headers({"authorization": "Bearer unused", "x-api-key": "k", "Authorization": None,
                          "X-Api-Key": None, "cf-aig-authorization": "Bearer key", "accept": "a", "Accept": "b"})
    assert sent == {"cf-aig-authorization": "Bearer key", "Accept": "b"}


def test_cloudflare_ids_fill_the_base_url_from_the_stored_credential_then_the_environment() -> None:
    base = "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat"
    url, headers = credential_endpoint("cloudflare-ai-gateway", base, "cf-key",
                                       {"CLOUDFLARE_ACCOUNT_ID": "stored"}, {"CLOUDFLARE_ACCOUNT_ID": "env",
                                                                            "CLOUDFLARE_GATEWAY_ID": "gw"})
    assert url == "https://gateway.ai.cloudflare.com/v1/stored/gw/compat"
    assert headers == {"cf-aig-authorization": "Bearer cf-key", "Authorization": None, "x-api-key": None}
    assert credential_endpoint("groq", "https://api.groq.com/openai/v1", "k", {}, {}) == (None, {})


async def _answer(server: LoopbackServer, model: Model) -> Any:
    s = stream(model, Context(messages=[UserMessage(content="hi")]), StreamOptions(api_key="<authenticated>"))
    return await s.result()


async def test_workload_identity_exchanges_the_identity_token(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    token_file = tmp_path / "id.jwt"
    token_file.write_text("header.claims.sig\n")
    monkeypatch.setenv("ANTHROPIC_FEDERATION_RULE_ID", "fdrl_1")
    monkeypatch.setenv("ANTHROPIC_ORGANIZATION_ID", "org-1")
    monkeypatch.setenv("ANTHROPIC_IDENTITY_TOKEN_FILE", str(token_file))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    answer = [{"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "usage": {}}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
              {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}},
              {"type": "message_stop"}]
    with LoopbackServer() as server:
        server.push(Reply.json(200, {"access_token": "fed-access-1", "token_type": "Bearer", "expires_in": 3600}),
                    Reply.sse(answer))
        model = _model(id="claude-x", api="anthropic-messages", provider="anthropic", base_url=server.url)
        message = await _answer(server, model)
        exchange, request = server.requests
    assert message.stop_reason == "stop", message.error_message
    assert exchange.path == "/v1/oauth/token"
    assert exchange.json() == {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                               "assertion": "header.claims.sig", "federation_rule_id": "fdrl_1",
                               "organization_id": "org-1"}
    assert exchange.headers["anthropic-beta"] == "oauth-2025-04-20,oidc-federation-2026-04-01"
    assert request.headers["authorization"] == "Bearer fed-access-1"
    assert "x-api-key" not in request.headers
    assert "oauth-2025-04-20" in request.headers["anthropic-beta"].split(",")


async def test_a_refused_exchange_says_why_without_the_assertion(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    token_file = tmp_path / "id.jwt"
    token_file.write_text("secret.identity.token")
    monkeypatch.setenv("ANTHROPIC_FEDERATION_RULE_ID", "fdrl_2")
    monkeypatch.setenv("ANTHROPIC_ORGANIZATION_ID", "org-2")
    monkeypatch.setenv("ANTHROPIC_IDENTITY_TOKEN_FILE", str(token_file))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with LoopbackServer() as server:
        # A server that echoes what it got: only the OAuth error fields may reach the message.
        server.push(Reply.json(401, {"error": "invalid_grant", "error_description": "rule mismatch",
                                     "assertion": "secret.identity.token"}))
        model = _model(id="claude-x", api="anthropic-messages", provider="anthropic", base_url=server.url)
        message = await _answer(server, model)
    assert message.stop_reason == "error"
    assert message.error_message.startswith(
        'Token exchange failed with status 401: {"error":"invalid_grant","error_description":"rule mismatch"} '
        "Ensure your federation rule matches your identity token.")
    assert "secret.identity.token" not in message.error_message
    assert len(server.requests) == 1
