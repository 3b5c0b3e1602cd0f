"""The SSE decoder: the same events however the bytes are cut, linear in event size, capped."""

from __future__ import annotations

import random
import time

import pytest

from pi_runtime.ai import sse
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.sse import SSEDecoder, SSEEventTooLarge
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import Context, Model, UserMessage
from pi_runtime.testing.loopback import Reply

# Every framing feature at once: each line ending, comments, event names, multi-line data,
# an unknown field, a field with no colon, multi-byte characters (cut mid-character when
# fed byte by byte), a data line without the optional space, and a last event with no
# blank line after it (dispatched by flush).
STREAM = (
    b": keep-alive comment\n"
    b"data: one\n\n"
    b"event: delta\r\ndata: {\"t\":\"h\xc3\xa9llo \xf0\x9f\x98\x80\"}\r\n\r\n"
    b"data: cr\rdata:second\r\r"
    b"id: 7\nretry: 100\nfoo\ndata: multi\ndata:\ndata:  spaced\n\n"
    b"event: named-but-empty\n\n"
    b":\r\n"
    b"data: last"
)


def decode(pieces: list[bytes], **kwargs: int) -> list[tuple[str | None, str]]:
    decoder = SSEDecoder(**kwargs)
    out = []
    for piece in pieces:
        out.extend(decoder.feed(piece))
    out.extend(decoder.flush())
    return out


def random_cuts(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, min(40, len(data) - 1))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


EXPECTED = [
    (None, "one"),
    ("delta", '{"t":"héllo 😀"}'),
    (None, "cr\nsecond"),
    (None, "multi\n\n spaced"),
    (None, "last"),
]


def test_whole_stream_decodes_every_framing_feature():
    assert decode([STREAM]) == EXPECTED


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_byte_by_byte_and_random_cuts_give_the_whole_feed_result(bom):
    data = bom + STREAM
    assert decode([data[i:i + 1] for i in range(len(data))]) == EXPECTED
    rng = random.Random(26)
    for _ in range(300):
        assert decode(random_cuts(data, rng)) == EXPECTED


def test_a_leading_bom_is_dropped_and_the_first_event_kept():
    assert decode([b"\xef\xbb\xbfdata: first\n\ndata: second\n\n"]) == [(None, "first"), (None, "second")]
    # Cut inside the BOM, and a BOM alone in its chunk.
    assert decode([b"\xef", b"\xbb\xbfdata: first\n\n"]) == [(None, "first")]
    assert decode([b"\xef\xbb\xbf", b"data: first\n\n"]) == [(None, "first")]
    # Only the first BOM of the stream is a BOM; later it is data.
    assert decode([b"data: a\n\n", b"data: \xef\xbb\xbfb\n\n"]) == [(None, "a"), (None, "\ufeffb")]


def test_cr_at_a_chunk_end_then_lf_is_one_line_end():
    # Were CR and LF counted as two line ends, "a" would be dispatched on its own.
    assert decode([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [(None, "a\nb")]
    # A CR at a chunk end followed by an ordinary character is still a line end.
    assert decode([b"data: a\r", b"data: b\r\r"]) == [(None, "a\nb")]


def test_one_huge_event_decodes_in_linear_time():
    size = 50_000_000
    body = b"data: " + b"x" * size + b"\n\n"
    pieces = [body[i:i + 16384] for i in range(0, len(body), 16384)]
    start = time.process_time()
    events = decode(pieces)
    spent = time.process_time() - start
    assert len(events) == 1 and len(events[0][1]) == size
    # Measured ~0.15 s here; the quadratic decoder took ~1.3 s for 10 MB and ~30 s for 50 MB.
    assert spent < 3.0


@pytest.mark.parametrize("shape", ["one line", "many lines", "unended line", "fast path", "event name"])
def test_an_event_past_the_cap_raises_a_clear_error(shape):
    pieces = {
        "one line": [b"data: " + b"x" * 600, b"y" * 600, b"\n\n"],
        "many lines": [b"data: " + b"x" * 100 + b"\n"] * 20 + [b"\n"],
        "unended line": [b"x" * 700] * 3,
        "fast path": [b"data: " + b"x" * 2000 + b"\n\n"],
        "event name": [b"event: " + b"n" * 1200 + b"\n"],
    }[shape]
    with pytest.raises(SSEEventTooLarge, match="larger than 1,000 characters"):
        decode(pieces, max_event_size=1000)


def test_events_under_the_cap_pass_and_the_count_restarts_per_event():
    pieces = [b"data: " + b"x" * 900 + b"\n\n"] * 5
    assert decode(pieces, max_event_size=1000) == [(None, "x" * 900)] * 5
    assert decode([b"".join(pieces)], max_event_size=1000) == [(None, "x" * 900)] * 5


async def test_a_too_large_event_ends_the_provider_stream_with_an_error(loopback, monkeypatch):
    monkeypatch.setattr(sse, "DEFAULT_MAX_EVENT_SIZE", 10_000)
    huge = '{"choices":[{"index":0,"delta":{"content":"' + "x" * 20_000 + '"}}]}'
    loopback.push(Reply.sse([huge, "[DONE]"]))
    model = Model(id="m", api="openai-completions", provider="local", base_url=loopback.url + "/v1")
    s = stream(model, Context(messages=[UserMessage(content="hi")]), StreamOptions(api_key="k"))
    _ = [e async for e in s]
    message = await s.result()
    assert message.stop_reason == "error"
    assert "larger than 10,000 characters" in (message.error_message or "")
    assert "SSEEventTooLarge" not in (message.error_message or "")  # said as the stream fault it is
