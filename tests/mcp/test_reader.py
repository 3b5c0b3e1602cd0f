"""The stdio transport's line splitter and message reader, fed what hostile servers send."""

from __future__ import annotations

import json
import time

import mcp_types

from pi_runtime.mcp.lines import LineSplitter, OverlongLine
from pi_runtime.mcp.reader import NOTIFICATION_BURST, MessageReader


def test_lines_split_across_chunks_and_an_overlong_line_keeps_its_ends():
    splitter = LineSplitter(limit=100)
    assert list(splitter.feed(b'{"a":1}\n{"b"')) == [b'{"a":1}']
    assert list(splitter.feed(b":2}\n\n")) == [b'{"b":2}', b""]
    head = b'{"jsonrpc":"2.0","id":7,"result":{"text":"'
    out = list(splitter.feed(head + b"x" * 1000)) + list(splitter.feed(b"x" * 5000 + b'"}}\nnext\n'))
    assert isinstance(out[0], OverlongLine) and out[0].size == len(head) + 6003
    assert out[0].request_id() == 7 and out[1] == b"next"
    # The id at the end, as JSON.stringify writes {result, jsonrpc, id}:
    [tail_only] = list(splitter.feed(b'{"result":"' + b"y" * 10_000 + b'","id":"req-9"}\n'))
    assert isinstance(tail_only, OverlongLine) and tail_only.request_id() == "req-9"


def test_a_hundred_megabyte_line_is_split_in_linear_time():
    splitter = LineSplitter()
    chunk = b"x" * 65536
    began = time.monotonic()
    for _ in range(1600):  # 100 MB: joining and re-splitting the buffer per chunk took minutes
        assert not list(splitter.feed(chunk))
    [line] = list(splitter.feed(b"\n"))
    assert isinstance(line, OverlongLine) and line.size == 1600 * 65536
    assert time.monotonic() - began < 5


def request(reader: MessageReader, request_id: int, method: str = "tools/call") -> None:
    reader.sent(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params={}))


def error_of(items: list, request_id: int) -> str:
    [item] = items
    assert isinstance(item.message, mcp_types.JSONRPCError) and item.message.id == request_id
    return item.message.error.message


def test_unreadable_answers_become_errors_for_their_requests():
    reader = MessageReader()
    request(reader, 1)
    request(reader, 2)
    surrogate = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\\ud800"}]}}'
    assert "not valid JSON-RPC (Invalid JSON" in error_of(reader.items(surrogate), 1)
    # Too long and no id at either end: every request still waiting fails.
    assert "over pi's limit" in error_of(reader.items(OverlongLine(b"[", b"]", 40 << 20)), 2)
    assert reader.pending == {}
    # Nothing waits: garbage stays an exception for the SDK to log, a deep nest does not raise.
    assert isinstance(reader.items(b"not json")[0], ValueError)
    assert isinstance(reader.items(b"[" * 100_000 + b"]" * 100_000)[0], ValueError)


def test_malformed_tool_definitions_are_left_out_and_reported():
    skipped: list[list[str]] = []
    reader = MessageReader(skipped.append)
    request(reader, 3, "tools/list")
    tools = [{"name": "good", "inputSchema": {"type": "object"}}, {"inputSchema": {}}, {"name": "s", "inputSchema": 1}]
    [item] = reader.items(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"tools": tools}}).encode())
    assert [t["name"] for t in item.message.result["tools"]] == ["good"]
    assert skipped == [["#2 (name: Field required)", "'s' (inputSchema: Input should be a valid dictionary)"]]


def test_a_notification_flood_is_cut_to_the_budget():
    reader = MessageReader()
    line = json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": 1, "progress": 1}}).encode()
    passed = sum(len(reader.items(line)) for _ in range(10_000))
    assert NOTIFICATION_BURST <= passed < NOTIFICATION_BURST + 2000
    assert reader.dropped == 10_000 - passed
    other = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).encode()
    assert len(reader.items(other)) == 1  # only progress and log messages are ever dropped
