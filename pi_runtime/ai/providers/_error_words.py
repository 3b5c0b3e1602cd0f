"""A refused request's error in Pi 1.6's words, one line per wire API.

Pi words an HTTP error as its provider SDK reports it, passed through Pi's ``formatProviderError``:

- OpenAI Chat Completions: ``401: {"message":"...","type":"...","code":"..."}`` (the body's
  ``error`` object as compact JSON);
- OpenAI Responses: the same with the API named, ``OpenAI API error (429): {...}`` (``xai API
  error (401): ...`` for another provider);
- Anthropic Messages: ``401 {"type":"error","error":{...}}`` (the whole body);
- Gemini: the body itself, ``{"error":{"code":400,"message":"...","status":"INVALID_ARGUMENT"}}``.

A body that is not JSON is shown as its text, folded onto one line; a long one is cut at 4,000
characters as Pi cuts it. The HTTP status stays readable at the start (or in ``error (401)``, or
in Google's ``"code":401``) so retries and sign-in renewal still find it.
"""

from __future__ import annotations

import json
from typing import Any

from ...text_safety import terminal_safe

LIMIT = 4000


def _cut(text: str) -> str:
    return text if len(text) <= LIMIT else f"{text[:LIMIT]}... [truncated {len(text) - LIMIT} chars]"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _parsed(body: bytes) -> tuple[Any, str]:
    text = body.decode("utf-8", errors="replace").strip()
    try:
        return json.loads(text), text
    except ValueError:
        return None, text


def _one_line(text: str) -> str:
    return " ".join(text.split())


def openai_words(status: int, body: bytes, prefix: str | None = None) -> str:
    """The OpenAI SDK's error as Pi shows it (``prefix``: the Responses API's ``OpenAI API error``)."""
    return terminal_safe(_openai_words(status, body, prefix))


def anthropic_words(status: int, body: bytes) -> str:
    """The Anthropic SDK's error as Pi shows it: the status and the body (its ``message`` when it has one)."""
    return terminal_safe(_anthropic_words(status, body))


def google_words(status: int, body: bytes) -> str:
    """Google's SDK error as Pi shows it: the body as compact JSON (its ``error.code`` is the status)."""
    return terminal_safe(_google_words(status, body))


def _openai_words(status: int, body: bytes, prefix: str | None) -> str:
    parsed, text = _parsed(body)
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and error:
        detail = _cut(_compact(error))
        return f"{prefix} ({status}): {detail}" if prefix else f"{status}: {detail}"
    message = _one_line(text) if text else "status code (no body)"
    head = f"{status} {message}"
    return f"{prefix} ({status}): {head}" if prefix else head


def _anthropic_words(status: int, body: bytes) -> str:
    parsed, text = _parsed(body)
    if isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
        return f"{status} {parsed['message']}"
    if parsed is not None:
        return f"{status} {_cut(_compact(parsed))}"
    return f"{status} {_one_line(text)}" if text else f"{status} status code (no body)"


def _google_words(status: int, body: bytes) -> str:
    parsed, text = _parsed(body)
    if parsed is not None:
        error = parsed.get("error") if isinstance(parsed, dict) else None
        carries_status = isinstance(error, dict) and isinstance(error.get("code"), int)
        # Google's errors name their status ("code"); a proxy's body without it gets the status in front.
        return _cut(_compact(parsed)) if carries_status else f"{status} {_cut(_compact(parsed))}"
    return f"{status} {_one_line(text)}" if text else f"{status} status code (no body)"
