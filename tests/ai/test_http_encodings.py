"""A provider that compresses its stream with brotli (issue #34: it was read as noise and reported
as "stream ended without a finish reason"). Pi's fetch decodes it; so does pi, with brotli."""

from __future__ import annotations

import brotli
import pytest

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers._http import ProviderError, post_sse
from pi_runtime.http import _client
from pi_runtime.testing.loopback import LoopbackServer, Reply, sse_bytes


async def events_from(reply: Reply) -> list[tuple[str | None, str]]:
    with LoopbackServer() as server:
        server.push(reply)
        return [e async for e in post_sse(server.url + "/v1/chat", {"content-type": "application/json"}, {"q": 1},
                                          StreamOptions())]


def compressed_stream(*events: object) -> Reply:
    body = b"".join(sse_bytes(e) for e in events)
    return Reply(headers={"content-type": "text/event-stream", "content-encoding": "br"}, pieces=[brotli.compress(body)])


async def test_a_brotli_stream_is_decoded():
    events = await events_from(compressed_stream({"delta": "hello"}, "[DONE]"))
    assert [data for _name, data in events] == ['{"delta":"hello"}', "[DONE]"]


async def test_an_encoding_whose_decoder_is_missing_is_said_plainly(monkeypatch):
    monkeypatch.setitem(_client._DECODERS, "br", ("a_module_that_is_not_installed",))
    with pytest.raises(ProviderError, match=r"the response from 127.0.0.1 is compressed with br \(Content-Encoding\), "
                                            "and the a_module_that_is_not_installed module"):
        await events_from(compressed_stream({"delta": "hello"}, "[DONE]"))
