"""Network limits of a whole ``pi`` run: idle and response timeouts, the server-delay cap.

Settings as Pi's (settings.md, "Network and retries"): ``httpIdleTimeoutMs`` bounds silence in
the response, ``retry.provider.timeoutMs`` (default: the idle timeout) the wait for the
response head, and ``retry.provider.maxRetryDelayMs`` the delay a server may ask for.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import MODEL, Reply, assert_one_line_error, run_pi, session_files, stalled_reply, text_reply


def write_settings(env: dict[str, str], settings: dict[str, Any]) -> None:
    base = {"defaultProvider": "loop", "defaultModel": "loop-model"}
    Path(env["PI_CODING_AGENT_DIR"], "settings.json").write_text(json.dumps({**base, **settings}))


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server that accepts connections and reads requests but never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    listener.close()


def test_a_stalled_stream_stops_at_http_idle_timeout(loopback, env):
    write_settings(env, {"httpIdleTimeoutMs": 1000, "retry": {"enabled": False}})
    loopback.push(stalled_reply("Working on it"))
    started = time.monotonic()
    result = run_pi(["-p", "go", "--model", MODEL], env, timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode == 1
    assert_one_line_error(result.stderr)
    assert "Request timed out: the server sent nothing for 1s (httpIdleTimeoutMs)" in result.stderr
    assert elapsed < 10, elapsed
    # The partial answer and the error are in the session file.
    [saved] = session_files(env)
    last = json.loads(saved.read_text().splitlines()[-1])["message"]
    assert last["stopReason"] == "error" and last["content"][0]["text"] == "Working on it"


def test_no_response_head_stops_at_the_provider_timeout(env, silent_server):
    models = json.loads(Path(env["PI_CODING_AGENT_DIR"], "models.json").read_text())
    models["providers"]["loop"]["baseUrl"] = silent_server + "/v1"
    Path(env["PI_CODING_AGENT_DIR"], "models.json").write_text(json.dumps(models))
    write_settings(env, {"retry": {"enabled": False, "provider": {"timeoutMs": 800}}})
    started = time.monotonic()
    result = run_pi(["-p", "go", "--model", MODEL], env, timeout=60)
    assert result.returncode == 1
    assert "Request timed out: no response from the server within 0.8s" in result.stderr
    assert time.monotonic() - started < 10


def test_a_server_asking_for_longer_than_the_cap_is_retried_with_the_usual_backoff(loopback, env):
    # As Pi 1.6 does (measured: a 429 with retry-after: 100000 and maxRetryDelayMs 1000, then a
    # good answer: Pi printed the answer after ~0.5 s in all): the long wait is skipped, not the retry.
    write_settings(env, {"retry": {"baseDelayMs": 20, "provider": {"maxRetryDelayMs": 2000}}})
    loopback.push(Reply.json(429, {"error": {"message": "Rate limited"}}, {"retry-after-ms": "1e300"}),
                  text_reply("recovered"))
    started = time.monotonic()
    result = run_pi(["--mode", "json", "go", "--model", MODEL], env, timeout=60)
    events = events_of(result.stdout)
    assert time.monotonic() - started < 10
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert len(starts) == 1 and starts[0]["delayMs"] <= 20
    assert starts[0]["errorMessage"] == 'Server requested 86400s retry delay (max: 2s). 429: {"message":"Rate limited"}'
    assert len(loopback.requests) == 2 and result.returncode == 0


def test_a_retry_after_within_the_cap_is_honoured(loopback, env):
    write_settings(env, {"retry": {"baseDelayMs": 20, "provider": {"maxRetryDelayMs": 5000}}})
    loopback.push(Reply.json(429, {"error": {"message": "Rate limited"}}, {"retry-after": "1"}), text_reply("ok"))
    result = run_pi(["--mode", "json", "go", "--model", MODEL], env, timeout=60)
    starts = [e for e in events_of(result.stdout) if e["type"] == "auto_retry_start"]
    assert [s["delayMs"] for s in starts] == [1000]
    assert len(loopback.requests) == 2 and result.returncode == 0
