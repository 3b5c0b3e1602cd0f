"""What kind of failure an assistant error is: context overflow, retryable, quota, or fatal.

The kernel asks this after a turn ends with ``stopReason: "error"``: an overflow goes to
compaction (then one retry), a transient failure is retried with backoff, a quota or
billing failure is reported at once (it lasts hours, not seconds). Providers word these
errors differently, so detection is pattern matching on ``errorMessage`` (plus the HTTP
status when known), with each provider's phrasing listed below. Overflow is checked before
retry, and rate-limit phrasing ("too many tokens per minute") never counts as overflow.

Some servers overflow silently: they answer ``stop`` while the reported input exceeds the
window, or stop at ``length`` with no output on a full window; ``is_context_overflow``
recognises both when given the model's context window.
"""

from __future__ import annotations

import re
from typing import Literal

from .types import AssistantMessage

ErrorKind = Literal["aborted", "overflow", "quota", "retryable", "fatal"]

_I = re.IGNORECASE

# Provider wordings for "the prompt does not fit". Add a custom server's phrasing here.
OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, _I) for p in (
    r"prompt is too long",                                   # Anthropic
    r"input length and `?max_tokens`? exceed context limit",  # Anthropic
    r"context[_ ]length[_ ]exceeded",                        # OpenAI code
    r"exceeds? the context window",                          # OpenAI Responses
    r"maximum context length",                               # OpenAI, OpenRouter, vLLM, Ollama
    r"exceeds the maximum number of tokens allowed",         # Google Gemini
    r"input token count.*exceeds the maximum",               # Google Gemini
    r"maximum prompt length is \d+",                         # xAI
    r"reduce the length of the (messages|input|prompt)",     # Groq, vLLM
    r"maximum allowed input length",                         # OpenRouter (Poolside)
    r"exceeds? the available context size",                  # llama.cpp server
    r"greater than the context length",                      # LM Studio
    r"prompt too long",                                      # Ollama, z.ai
    r"prompt exceeds max length",                            # z.ai CN
    r"model_context_window_exceeded",                        # z.ai
    r"too large for model with \d+ maximum context length",  # Mistral
    r"input is too long for (the )?requested model",         # Amazon Bedrock
    r"prompt token count of \d+ exceeds the limit",          # GitHub Copilot
    r"context window exceeds limit",                         # MiniMax
    r"exceeded model token limit",                           # Kimi / Moonshot
    r"ContextWindowExceededError",                           # LiteLLM
    r"configured context size is \d+",                       # DS4 server
    r"longer than the model'?s? context length",             # vLLM
    r"context (length|window) (exceeded|overflow)",          # generic proxies
    r"too many tokens in (the )?(prompt|request|input)",     # generic proxies
))

# Cerebras answers an oversized prompt with a bare 400/413 and no body; elsewhere a
# bodyless 400 means something else, so this only counts for Cerebras.
_CEREBRAS_BODYLESS = re.compile(r"^\s*4(00|13)\b.*\(no body\)\s*$", _I)

# Throttling that mentions tokens must not be mistaken for overflow (Bedrock, TPM limits).
_NOT_OVERFLOW = re.compile(
    r"rate.?limit|too many requests|throttl|tokens per (minute|min|day|hour)|\btpm\b"
    r"|please wait before trying again|quota",
    _I,
)

# Limits that reset in hours or need a human: retrying in seconds only burns attempts.
QUOTA_PATTERNS = re.compile(
    r"insufficient_quota|quota exceeded|exceeded your current quota|billing"
    r"|credit balance|insufficient (credits|balance|funds)|out of credits|payment required"
    r"|monthly (usage|spend(ing)?) limit|usage limit (reached|exceeded)|plan limit"
    r"|workspace.{0,40}(usage|spend) limit"
    # Pi 1.6's: gateway plan limits and subscription limits that reset in hours.
    r"|(go|free)usagelimiterror|available balance|out of budget|usage_limit_exceeded"
    r"|\"code\"\s*:\s*\"?1308(?![0-9])"
    # A ChatGPT subscription's usage limit (openai-codex-responses): it resets in hours.
    r"|hit your chatgpt usage limit",
    _I,
)

RETRYABLE_PATTERNS = re.compile(
    r"overloaded|rate.?limit|too many requests|service unavailable|temporarily unavailable"
    r"|server.?error|internal.?error|bad gateway|gateway time-?out|upstream"
    r"|timed? ?out|timeout|connection (error|reset|refused|closed|lost|terminated|dropped)"
    r"|network (error|connection lost)|socket hang up|econnreset|econnrefused|etimedout"
    r"|fetch failed|other side closed|terminated|stream (ended|closed) unexpectedly"
    r"|premature(ly)? (close|end)|closed by the server|incomplete chunked|try again later"
    r"|over capacity|at capacity|resource_?exhausted|throttl|please wait before trying again"
    # Pi 1.6's further transient wordings: busy servers, gateways relaying an upstream failure,
    # transports' own codes, streams that end early, and servers saying "retry".
    r"|server_busy|servers are currently busy|experiencing high demand"
    r"|provider.?returned.?(an.?)?error|request buffer limit|unable to forward upstream"
    r"|upstream_stream_read_error|stream was interrupted|http/?2 stream failed|connection.?closed"
    r"|request to \S+ failed, reason:|getaddrinfo|(?<![a-z0-9_])(econnaborted|epipe|enotfound|eai_again)(?![a-z0-9_])"
    r"|connection reset by peer|reset before headers|socket connection was closed"
    r"|websocket.?(closed|error|connection.?limit.?reached)"
    r"|ended without|stream ended before|did not get a response|stream disconnected before completion"
    r"|cut short|pending stream has been canceled|retry delay"
    r"|(you can|please) retry your request|try your request again"
    r"|subscription_sharing_(usage|user)_unavailable",
    _I,
)

# Pi's text for a server that asked to wait longer than retry.provider.maxRetryDelayMs
# (providers/_http.py writes it): that wait is skipped and the request retried with the
# ordinary backoff (what Pi 1.6 does: measured against a 429 with retry-after: 100000).
_SERVER_DELAY = re.compile(r"^Server requested (\d+)s retry delay \(max: \d+s\)")

_STRONG_TRANSIENT = re.compile(r"overloaded|rate.?limit|too many requests", _I)
_RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529}
# A status at the start ("429 Too many requests"), after a label ("status code 503") or in Pi's
# "<provider> API error (429): ..." wording.
_STATUS_IN_TEXT = re.compile(
    r"^\s*(?:error:?\s*)?(\d{3})\b|\b(?:status(?: code)?|http|code)\"?[\s:=]*(\d{3})\b|\berror \((\d{3})\)", _I
)


def _text_of(error: AssistantMessage | str | None) -> str:
    if error is None:
        return ""
    if isinstance(error, str):
        return error
    return error.error_message or ""


def status_in_text(text: str) -> int | None:
    """The HTTP status an error message starts with or names (``status code 503``), if any."""
    match = _STATUS_IN_TEXT.search(text)
    if not match:
        return None
    return int(match.group(1) or match.group(2) or match.group(3))


def is_context_overflow(
    error: AssistantMessage | str | None,
    context_window: int | None = None,
    *,
    provider: str | None = None,
) -> bool:
    """Whether a failed (or silently truncated) response means the prompt did not fit.

    Args:
        error: The final assistant message, or just its error text.
        context_window: The model's window, to catch silent overflow from ``usage``.
        provider: Provider id when only text is given (enables provider-specific rules).

    Returns:
        True for an overflow error in any known wording, or a silent overflow.
    """
    text = _text_of(error)
    if isinstance(error, AssistantMessage):
        provider = provider or error.provider
        if context_window and error.stop_reason in ("stop", "length"):
            used = error.usage.input + error.usage.cache_read
            if error.stop_reason == "stop" and used > context_window:
                return True
            if error.stop_reason == "length" and error.usage.output == 0 and used >= 0.99 * context_window:
                return True
        if error.stop_reason != "error":
            return False
    if not text or _NOT_OVERFLOW.search(text):
        return False
    if any(p.search(text) for p in OVERFLOW_PATTERNS):
        return True
    return provider == "cerebras" and bool(_CEREBRAS_BODYLESS.match(text))


def is_quota_error(error: AssistantMessage | str | None) -> bool:
    """Whether the error is a quota, billing or usage-limit failure (not worth retrying)."""
    return bool(QUOTA_PATTERNS.search(_text_of(error)))


def is_retryable(
    error: AssistantMessage | str | None,
    status: int | None = None,
    *,
    context_window: int | None = None,
) -> bool:
    """Whether retrying the same request later may succeed.

    Rate limits (429), overload (529, "overloaded"), 5xx, timeouts and dropped connections
    are retryable; quota/billing failures, context overflow and aborts are not.

    Args:
        error: The final assistant message, or its error text.
        status: HTTP status when known (otherwise read from the text).
        context_window: Passed to the overflow check.

    Returns:
        True when a retry with backoff is the right response.
    """
    if isinstance(error, AssistantMessage) and error.stop_reason != "error":
        return False
    text = _text_of(error)
    asked = _SERVER_DELAY.match(text)
    if asked:  # the failure itself decides; the kernel retries it with its own backoff, as Pi does
        text = text[asked.end():].lstrip(". ")
    if is_context_overflow(error, context_window) or is_quota_error(text):
        return False
    status = status if status is not None else status_in_text(text)
    if status is not None and status in _RETRYABLE_STATUS:
        return True
    if status is not None and 400 <= status < 500:
        # Another client error fails the same way next time, unless its text says it is
        # load-related (some gateways wrap an upstream overload in a 400).
        return bool(_STRONG_TRANSIENT.search(text))
    return bool(text and RETRYABLE_PATTERNS.search(text))


def classify_error(
    error: AssistantMessage | str | None,
    context_window: int | None = None,
    *,
    status: int | None = None,
) -> ErrorKind | None:
    """Sort an outcome into the action it calls for.

    Args:
        error: The final assistant message, or its error text.
        context_window: The model's window (enables silent-overflow detection).
        status: HTTP status when known.

    Returns:
        ``aborted``, ``overflow``, ``quota``, ``retryable`` or ``fatal``; None for a
        message that did not fail (and did not silently overflow).
    """
    if isinstance(error, AssistantMessage):
        if error.stop_reason == "aborted":
            return "aborted"
        if error.stop_reason != "error":
            return "overflow" if is_context_overflow(error, context_window) else None
    if not _text_of(error) and status is None:
        return None if error is None else "fatal"
    if is_context_overflow(error, context_window):
        return "overflow"
    if is_quota_error(error):
        return "quota"
    if is_retryable(error, status, context_window=context_window):
        return "retryable"
    return "fatal"


# Longer unit names first so "min" is not read as "m"; no \b so "1m30s" splits.
_DURATION_PART = re.compile(
    r"(\d+(?:\.\d+)?)\s*(milliseconds?|ms|hours?|hrs?|h|min(?:ute)?s?|m|sec(?:ond)?s?|s)(?![a-z])", _I
)
_BARE_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*$")
_RETRY_HINT = re.compile(
    r"(?:retry|try again|reset|resets|available)\s*(?:after|in)?\s*:?\s*"
    r"((?:\d+(?:\.\d+)?\s*[a-z]*\s*){1,4})"
    r"|retry-after(?:-ms)?\"?\s*[:=]\s*\"?(\d+(?:\.\d+)?)"
    r"|\"?retryDelay\"?\s*[:=]\s*\"?(\d+(?:\.\d+)?)s",
    _I,
)
_UNIT_SECONDS = {"ms": 0.001, "h": 3600.0, "m": 60.0, "s": 1.0}


def _unit(unit: str) -> float:
    unit = unit.lower()
    if unit.startswith(("ms", "milli")):
        return _UNIT_SECONDS["ms"]
    return _UNIT_SECONDS[unit[0]] if unit[0] in "hms" else 1.0


def parse_retry_after(text: str | None) -> float | None:
    """Seconds the server asks to wait, when the error message says so.

    Understands "Please retry in 35.2s", "try again in 1m30s", "retry after 20 seconds",
    "quota will reset after 5h", "Retry-After: 30" and Gemini's ``"retryDelay": "12s"``.

    Args:
        text: An error message.

    Returns:
        The delay in seconds, or None when the message names none.
    """
    if not text:
        return None
    asked = _SERVER_DELAY.match(text)
    if asked:
        return float(asked.group(1))
    for match in _RETRY_HINT.finditer(text):
        if match.group(2) is not None:
            value = float(match.group(2))
            return value / 1000 if "retry-after-ms" in match.group(0).lower() else value
        if match.group(3) is not None:
            return float(match.group(3))
        parts = _DURATION_PART.findall(match.group(1) or "")
        if parts:
            return sum(float(num) * _unit(unit) for num, unit in parts)
        bare = _BARE_NUMBER.match(match.group(1) or "")
        if bare:
            return float(bare.group(1))  # "retry after 30": seconds, as in Retry-After
    return None
