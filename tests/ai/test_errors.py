"""Error classification: overflow wordings per provider, retryable vs quota, retry-after."""

from __future__ import annotations

import pytest

from pi_runtime.ai.errors import (
    classify_error,
    is_context_overflow,
    is_quota_error,
    is_retryable,
    parse_retry_after,
    status_in_text,
)
from pi_runtime.ai.types import AssistantMessage, Usage

OVERFLOW_MESSAGES = [
    ("anthropic", "400 prompt is too long: 213462 tokens > 200000 maximum"),
    ("anthropic", "input length and `max_tokens` exceed context limit: 198000 + 64000 > 200000"),
    ("openai", "400 Your input exceeds the context window of this model. (context_length_exceeded)"),
    ("openai", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130210 tokens."),
    ("openai", "maximum context length (131072) exceeded"),
    ("google", "400 The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
    ("xai", "This model's maximum prompt length is 131072 but the request contains 537812 tokens."),
    ("groq", "Please reduce the length of the messages or completion."),
    ("openrouter", "This endpoint's maximum context length is 163840 tokens. However, you requested about 170000 tokens"),
    ("openrouter", "Input exceeds maximum allowed input length of 256000 tokens"),
    ("llama.cpp", "the request exceeds the available context size, try increasing it"),
    ("lmstudio", "The number of tokens to keep from the initial prompt is greater than the context length."),
    ("ollama", "prompt too long; exceeded max context length by 1024 tokens"),
    ("zai", "Prompt exceeds max length"),
    ("zai", "model_context_window_exceeded"),
    ("mistral", "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length"),
    ("bedrock", "ValidationException: Input is too long for requested model."),
    ("copilot", "prompt token count of 130000 exceeds the limit of 128000"),
    ("minimax", "invalid params, context window exceeds limit (2013)"),
    ("kimi", "Invalid request: Your request exceeded model token limit: 262144"),
    ("litellm", "litellm.ContextWindowExceededError: BadRequestError"),
    ("ds4", "Prompt has 70000 tokens, but the configured context size is 65536 tokens"),
    ("cerebras", "400 status code (no body)"),
    ("cerebras", "413 (no body)"),
]

NOT_OVERFLOW = [
    ("anthropic", "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"),
    ("bedrock", "ThrottlingException: Too many tokens, please wait before trying again."),
    ("openai", "429 Rate limit reached for gpt-5 on tokens per min (TPM): Limit 30000"),
    ("openai", "401 Incorrect API key provided"),
    ("groq", "400 (no body)"),  # bodyless 400 only means overflow on Cerebras
    ("anthropic", "529 Overloaded"),
]


@pytest.mark.parametrize(("provider", "text"), OVERFLOW_MESSAGES)
def test_overflow_wordings_are_recognised(provider: str, text: str) -> None:
    msg = AssistantMessage(provider=provider, stop_reason="error", error_message=text)
    assert is_context_overflow(msg)
    assert classify_error(msg) == "overflow"
    assert not is_retryable(msg)


@pytest.mark.parametrize(("provider", "text"), NOT_OVERFLOW)
def test_lookalikes_are_not_overflow(provider: str, text: str) -> None:
    assert not is_context_overflow(text, provider=provider)


def test_silent_overflow_from_usage() -> None:
    over = AssistantMessage(stop_reason="stop", usage=Usage(input=190_000, cache_read=20_000, output=10))
    assert is_context_overflow(over, 200_000)
    assert classify_error(over, 200_000) == "overflow"
    fits = AssistantMessage(stop_reason="stop", usage=Usage(input=150_000, output=10))
    assert not is_context_overflow(fits, 200_000)
    assert classify_error(fits, 200_000) is None
    # Without a window the usage cannot be judged.
    assert not is_context_overflow(over)
    full_no_output = AssistantMessage(stop_reason="length", usage=Usage(input=199_500, output=0))
    assert is_context_overflow(full_no_output, 200_000)
    ordinary_length = AssistantMessage(stop_reason="length", usage=Usage(input=199_500, output=3))
    assert not is_context_overflow(ordinary_length, 200_000)


RETRYABLE = [
    ("429 Too Many Requests", None),
    ("Rate limit exceeded, please slow down", None),
    ("529 Overloaded", None),
    ("overloaded_error: Overloaded", None),
    ("500 Internal server error", None),
    ("502 Bad Gateway", None),
    ("503 Service Unavailable", None),
    ("504 Gateway Timeout", None),
    ("Request timed out (ReadTimeout)", None),
    ("Connection closed by the server mid-response: peer closed connection", None),
    ("Connection error: ConnectError: [Errno 111] Connection refused", None),
    ("Network connection lost.", None),
    ("terminated", None),
    ("upstream error", 503),
    ("something odd", 429),
    ("ThrottlingException: Too many tokens, please wait before trying again.", None),
    # Pi 1.6's further wordings (a stream cut short is retried as a dropped connection is).
    ("The stream ended without a finish reason (the response was cut short)", None),
    ("Anthropic stream ended before message_stop", None),
    ("Provider returned error", None),
    ("unable to forward upstream response", None),
    ("read ECONNRESET", None), ("write EPIPE", None), ("getaddrinfo ENOTFOUND api.example.com", None),
    ("stream disconnected before completion: stream closed before response.completed", None),
    ("An error occurred while processing your request. You can retry your request.", None),
    ("Our servers are currently busy", None),
]

NOT_RETRYABLE = [
    ("429 You exceeded your current quota, please check your plan and billing details.", None),
    ("insufficient_quota", 429),
    ("402 Insufficient credits. Add more using https://openrouter.ai/settings/credits", None),
    ("400 Your credit balance is too low to access the Anthropic API.", None),
    ("Monthly usage limit reached", None),
    ("429 GoUsageLimitError: weekly limit", None),
    ('429 {"error": {"code": "1308", "message": "Usage limit reached for 5 hour"}}', None),
    ("subscription_sharing_usage_limit_exceeded", 429),
    ("401 Invalid API key", None),
    ("404 model not found", None),
    ("400 invalid request: tools[0].name is required", None),
    ("prompt is too long: 300000 tokens > 200000 maximum", None),
]


@pytest.mark.parametrize(("text", "status"), RETRYABLE)
def test_transient_failures_are_retryable(text: str, status: int | None) -> None:
    assert is_retryable(text, status)
    assert classify_error(text, status=status) == "retryable"


@pytest.mark.parametrize(("text", "status"), NOT_RETRYABLE)
def test_permanent_failures_are_not_retryable(text: str, status: int | None) -> None:
    assert not is_retryable(text, status)
    assert classify_error(text, status=status) in {"quota", "fatal", "overflow"}


def test_quota_and_billing_are_their_own_kind() -> None:
    for text in (
        "insufficient_quota: You exceeded your current quota",
        "Your credit balance is too low",
        "billing hard limit has been reached",
        "Monthly usage limit reached",
    ):
        assert is_quota_error(text), text
        assert classify_error(text) == "quota"
    assert not is_quota_error("429 rate limited")


def test_aborted_and_successful_messages() -> None:
    assert classify_error(AssistantMessage(stop_reason="aborted", error_message="Request was aborted")) == "aborted"
    assert classify_error(AssistantMessage(stop_reason="stop")) is None
    ok = AssistantMessage(stop_reason="stop", error_message="429 would be retryable if it had failed")
    assert not is_retryable(ok)
    assert classify_error(AssistantMessage(stop_reason="error", error_message="weird")) == "fatal"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Please retry in 35.2s.", 35.2),
        ("Rate limit reached. Please try again in 1m30s.", 90.0),
        ("retry after 20 seconds", 20.0),
        ("Your quota will reset after 5h.", 18_000.0),
        ("Retry-After: 30", 30.0),
        ('{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "12s"}', 12.0),
        ("slow down, retry in 500ms", 0.5),
        ("Try again in 2 minutes", 120.0),
        ("500 Internal server error", None),
        ("", None),
    ],
)
def test_parse_retry_after(text: str, seconds: float | None) -> None:
    parsed = parse_retry_after(text)
    if seconds is None:
        assert parsed is None
    else:
        assert parsed == pytest.approx(seconds)


def test_status_in_text() -> None:
    assert status_in_text("429 Too Many Requests") == 429
    assert status_in_text("Upstream returned status code 503") == 503
    assert status_in_text("error: 502 bad gateway") == 502
    assert status_in_text("no status here, 128000 tokens") is None
