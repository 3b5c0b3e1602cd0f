"""Configured secrets never reach an error message, whichever provider and path built it.

A real loopback server echoes what it was sent, as servers do in error bodies; each protocol's
message must come out with the key, the header values and the parts pi resolved blanked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.ai.errors import status_in_text
from pi_runtime.ai.models import ModelRegistry
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import Context, Model, UserMessage
from pi_runtime.testing.loopback import RecordedRequest, Reply, sse_bytes

HEADER_SECRET = "hdr-secret-value-0451"
KEY = "sk-key-value-9876"


def echo_headers(request: RecordedRequest) -> Reply:
    """A 400 whose message quotes every request header (as some gateways do)."""
    return Reply.json(400, {"error": {"message": "bad request with headers " + json.dumps(request.headers)}})


def model_for(server: Any, api: str, provider: str = "lab") -> Model:
    suffix = "/v1beta" if api == "google-generative-ai" else "/v1"
    return Model.model_validate({"id": "m1", "api": api, "provider": provider, "baseUrl": server.url + suffix})


async def final(model: Model, **options: Any) -> Any:
    s = stream(model, Context(messages=[UserMessage(content="hi")]), StreamOptions(**options))
    async for _ in s:
        pass
    return await s.result()


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "anthropic-messages",
                                 "google-generative-ai"])
async def test_header_values_echoed_in_an_http_error_are_blanked(loopback: Any, api: str) -> None:
    loopback.responder = echo_headers
    message = await final(model_for(loopback, api), api_key=KEY, headers={"X-Org-Secret": HEADER_SECRET})
    assert message.stop_reason == "error"
    # Pi's wording (the status, then the provider's error as it came): the secret inside is blanked.
    assert "bad request with headers" in message.error_message
    assert status_in_text(message.error_message) == 400
    assert "x-org-secret" in message.error_message  # the echo is there ...
    assert HEADER_SECRET not in message.error_message and KEY not in message.error_message  # ... the values not
    assert "[redacted]" in message.error_message


async def test_an_error_inside_the_stream_is_blanked_too(loopback: Any) -> None:
    # A 200 stream whose error chunk quotes the key: built by the provider, not the HTTP layer.
    chunk = {"error": {"message": f"upstream refused key {KEY} and header {HEADER_SECRET}"}}
    loopback.push(Reply(pieces=[sse_bytes(chunk)]))
    message = await final(model_for(loopback, "openai-completions"), api_key=KEY,
                          headers={"X-Org-Secret": HEADER_SECRET})
    assert message.error_message == "Provider error: upstream refused key [redacted] and header [redacted]"


async def test_parts_resolved_from_the_environment_are_blanked(
    loopback: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The header is "Bearer team-$TOKEN"; the server quotes only the token.
    monkeypatch.setenv("PI_TEST_TEAM_TOKEN", "tok-from-env-5150")
    models = {"providers": {"lab": {"baseUrl": loopback.url + "/v1", "api": "openai-completions",
                                    "apiKey": "lab-key-0001", "models": [{"id": "m1"}],
                                    "headers": {"X-Team": "Bearer team-${PI_TEST_TEAM_TOKEN}"}}}}
    (tmp_path / "models.json").write_text(json.dumps(models))
    registry = ModelRegistry(tmp_path / "models.json", read_models_json=True, builtins=False)
    model = registry.find("lab", "m1")
    auth = registry.request_auth(model)
    loopback.push(Reply.json(401, {"error": {"message": "token tok-from-env-5150 is not valid for this team"}}))
    message = await final(model, api_key=auth.api_key, headers=auth.headers)
    assert loopback.requests[0].headers["x-team"] == "Bearer team-tok-from-env-5150"
    assert message.error_message == '401: {"message":"token [redacted] is not valid for this team"}'


def test_a_password_in_a_url_is_masked_in_messages_and_for_display():
    from pi_runtime.ai.redaction import redact, url_for_display

    text = "Connection error: cannot reach https://gw-user:pa55-word@proxy.test:8443/v1 (refused)"
    assert redact(text) == "Connection error: cannot reach https://gw-user:***@proxy.test:8443/v1 (refused)"
    assert url_for_display("http://:only-pass@h/v1") == "http://:***@h/v1"
    # Nothing to mask: no password, no scheme, or an @ later in the path.
    for plain in ("http://host/v1", "https://user@host/v1", "mail me at a:b@c", "http://h/v1/@x:y"):
        assert url_for_display(plain) == plain
