"""Every RPC line gets a response, whatever it holds: a real ``pi --mode rpc`` over pipes."""

from __future__ import annotations

import json

import pytest
from rpc_client import RpcClient

from pi_runtime.modes.rpc_decode import DecodeError, decode_line, loads_iterative
from pi_runtime.modes.rpc_mode import LineSplitter

DEEP = 100_000


@pytest.fixture
def client(env):
    c = RpcClient(env, "--no-session")
    yield c
    c.kill()


def _responses(c: RpcClient) -> list[dict]:
    return [r for r in c.records if r.get("type") == "response"]


def test_lines_python_cannot_parse_natively_still_get_their_answer(client):
    c = client
    huge = "1" * 5000  # over Python's 4,300-digit int conversion limit
    c.send_raw(b'{"id":"big","type":"get_state","pad":' + huge.encode() + b"}\n")
    assert c.wait(lambda r: r.get("id") == "big")["success"] is True
    nested = "[" * DEEP + "]" * DEEP
    c.send_raw(f'{{"id":"deep","type":"get_state","pad":{nested}}}\n'.encode())
    assert c.wait(lambda r: r.get("id") == "deep")["success"] is True
    # Not an object: the parse error shape, no id (there is none to echo).
    before = len(_responses(c))
    c.send_raw(nested.encode() + b"\n")
    c.wait(lambda r: r.get("type") == "response" and r.get("command") == "parse")
    assert len(_responses(c)) == before + 1
    # A deep id (echoed whole, as Pi's JSON.stringify does), an id JSON cannot write, a command
    # name with a lone surrogate.
    c.send_raw(f'{{"id":{nested},"type":"get_state"}}\n'.encode())
    deep_id = c.wait(lambda r: r.get("type") == "response" and isinstance(r.get("id"), list))
    assert deep_id["command"] == "get_state" and deep_id["success"] is True
    c.send_raw(b'{"id":1e400,"type":"get_state"}\n')
    c.send_raw(b'{"id":"sur","type":"\\ud800"}\n')
    assert c.wait(lambda r: r.get("id") == "sur")["error"] == "Unknown command: \ud800"
    assert c.ok({"id": "after", "type": "get_state"})["isStreaming"] is False
    assert c.close() == 0
    stderr = c.proc.stderr.read().decode()
    assert "Traceback" not in stderr and "never retrieved" not in stderr, stderr
    # Every line above got exactly one response.
    assert len(_responses(c)) == 7


def test_get_last_assistant_text_without_an_answer_is_empty_data(client):
    # As Pi: the field is left out, not null.
    assert client.ok({"type": "get_last_assistant_text"}) == {}


def test_a_long_line_in_many_chunks_is_one_record(client):
    pad = "é" * 3_000_000  # 6 MB of UTF-8, read in many chunks
    line = json.dumps({"id": "long", "type": "set_session_name", "name": pad}, ensure_ascii=False).encode()
    client.send_raw(line + b"\r\n")
    assert client.wait(lambda r: r.get("id") == "long", timeout=60)["success"] is True
    assert client.ok({"type": "get_state"})["sessionName"] == pad


def test_line_splitter_frames_on_lf_only():
    splitter = LineSplitter()
    out: list[bytes] = []
    data = b'{"a":"\xe2\x80\xa8"}\r\n{"b":1}\n\n{"c":' + b"2" * 10 + b"}\nrest"
    for i in range(0, len(data), 3):  # tiny chunks: lines cross chunk boundaries
        out += splitter.feed(data[i:i + 3])
    assert out == [b'{"a":"\xe2\x80\xa8"}', b'{"b":1}', b"", b'{"c":' + b"2" * 10 + b"}"]
    assert splitter.rest() == b"rest" and splitter.rest() is None


def test_iterative_decoder_matches_json_and_rejects_what_it_rejects():
    for text in ['{"a":[1,-2.5e3,{"b":null}],"c":"x\\u2028","d":true,"e":false}', " [ ] ", '""', "{}", '{"":0}']:
        assert loads_iterative(text) == json.loads(text)
    for bad in ["{", "[1,]", '{"a"}', "01", "[1 2]", '{"a":1,}', "tru", "[]x", ""]:
        with pytest.raises(DecodeError):
            loads_iterative(bad)
        with pytest.raises(DecodeError):
            decode_line(bad)
    assert decode_line("[" + "1" * 5000 + "]") == [float("inf")]  # as JavaScript reads it


def test_line_splitter_caps_a_line_and_frames_the_next_one():
    data = b'{"a":1}\n' + b"x" * 50 + b'\n{"b":2}\n' + b"y" * 30 + b"\r\n" + b"z" * 100
    for size in (1, 3, 7, len(data)):  # however the bytes are cut
        splitter = LineSplitter(limit=40)
        out: list[object] = []
        for i in range(0, len(data), size):
            out += splitter.feed(data[i:i + size])
        shown = [item if isinstance(item, bytes) else "too long" for item in out]
        assert shown == [b'{"a":1}', "too long", b'{"b":2}', b"y" * 30, "too long"], size
        assert splitter.rest() is None  # the unended long line was dropped, not kept


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def test_an_endless_line_is_answered_dropped_and_reading_goes_on(env):
    c = RpcClient({**env, "PI_RPC_MAX_LINE_BYTES": "1000000"}, "--no-session")
    try:
        assert c.ok({"type": "get_state"})["isStreaming"] is False
        start_rss = peak_rss_mb(c.proc.pid)
        block = b"x" * (1 << 20)
        c.send_raw(block * 2)
        # Answered while the line is still arriving (from /dev/zero it would never end).
        too_long = c.wait(lambda r: r.get("command") == "parse")
        assert too_long["success"] is False and "longer than 1,000,000 bytes" in too_long["error"]
        for _ in range(198):  # 200 MB in all
            c.send_raw(block)
        c.send_raw(b"\n")
        assert c.ok({"id": "after", "type": "get_state"})["isStreaming"] is False
        grown = peak_rss_mb(c.proc.pid) - start_rss
        assert grown < 60, f"peak RSS grew by {grown:.0f} MB"  # uncapped: the whole 200 MB line was kept
        assert sum(1 for r in _responses(c) if r.get("command") == "parse") == 1
        assert c.close() == 0
    finally:
        c.kill()


def bytes_read(pid: int) -> int:
    with open(f"/proc/{pid}/io") as io:
        return int(next(line for line in io if line.startswith("rchar:")).split()[1])


def test_a_client_that_never_reads_answers_cannot_grow_pi_without_bound(env):
    import fcntl
    import subprocess
    import termios
    import threading
    import time

    from e2e_support import PI

    proc = subprocess.Popen([PI, "--mode", "rpc", "--no-session"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=env["PI_TEST_PROJECT"])
    assert proc.stdin is not None and proc.stdout is not None
    count = 200_000  # 4 MB of commands, ~150 MB of answers
    sent = threading.Event()

    def send() -> None:
        proc.stdin.write(b'{"type":"get_state"}\n' * count)
        proc.stdin.flush()
        sent.set()

    threading.Thread(target=send, daemon=True).start()
    try:
        # pi stops reading once it holds MAX_IN_FLIGHT unanswered commands: our pipe to it stays
        # full and pi reads nothing more. (Without the bound it read every command at once and
        # kept every answer in memory: the sender finished.)
        deadline = time.monotonic() + 30
        stalled, last_read = 0, -1
        while not sent.is_set() and stalled < 3 and time.monotonic() < deadline:
            queued = int.from_bytes(fcntl.ioctl(proc.stdin.fileno(), termios.FIONREAD, b"\0" * 4), "little")
            read_so_far = bytes_read(proc.pid)
            stalled = stalled + 1 if queued >= 60_000 and read_so_far == last_read else 0
            last_read = read_so_far
            sent.wait(0.1)
        assert stalled >= 3 and not sent.is_set(), "pi read every command without answering"
        # Reading the answers lets it go on: every command is answered.
        answers = 0
        while answers < count:
            line = proc.stdout.readline()
            assert line, "pi stopped before answering every command"
            answers += 1
        assert sent.wait(30)
        rss = peak_rss_mb(proc.pid)
        assert rss < 120, f"peak RSS {rss:.0f} MB: pi held commands and answers the client had not read"
    finally:
        proc.kill()
        proc.wait()
