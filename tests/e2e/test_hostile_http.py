"""The installed ``pi`` against servers that send broken HTTP: it ends clearly, quickly, and on SIGTERM.

(The hand-written client looped forever on a ``-6`` chunk size, deaf to SIGTERM.)
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from e2e_support import PI, assert_one_line_error, run_pi

from pi_runtime.testing.waiting import wait_until

NEGATIVE_CHUNK = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                  b"-6\r\ndata: x\r\n")


class ThreadedServer:
    """Reads each request head and answers with ``reply`` (None: never answers); counts requests."""

    def __init__(self, reply: bytes | None) -> None:
        self.reply = reply
        self.requests: list[bytes] = []
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn = self.listener.accept()[0]
            except OSError:
                continue
            self.held.append(conn)
            conn.settimeout(5)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                self.requests.append(data)
                if self.reply is not None:
                    conn.sendall(self.reply)
            except OSError:
                pass

    def __enter__(self) -> ThreadedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(2)
        for conn in self.held:
            conn.close()
        self.listener.close()


def point_at(env: dict[str, str], url: str, settings: dict) -> None:
    agent = Path(env["PI_CODING_AGENT_DIR"])
    models = json.loads((agent / "models.json").read_text())
    models["providers"]["loop"]["baseUrl"] = url + "/v1"
    (agent / "models.json").write_text(json.dumps(models))
    base = json.loads((agent / "settings.json").read_text())
    (agent / "settings.json").write_text(json.dumps({**base, **settings}))


def test_a_negative_chunk_size_ends_pi_with_a_clear_error(env):
    with ThreadedServer(NEGATIVE_CHUNK) as server:
        point_at(env, server.url, {})  # retries on, as by default: a broken answer is not asked for again (Pi)
        started = time.monotonic()
        result = run_pi(["-p", "hi"], env, timeout=20)
        elapsed = time.monotonic() - started
    assert elapsed < 10
    assert result.returncode != 0
    assert "Invalid HTTP response: malformed response from 127.0.0.1" in result.stderr
    assert "chunk" in result.stderr
    assert_one_line_error(result.stderr)
    assert len(server.requests) == 1


def test_sigterm_ends_a_pi_that_is_mid_request(env):
    with ThreadedServer(None) as server:
        point_at(env, server.url, {"retry": {"enabled": False}})
        code = terminate_mid_request(server, env)
    assert code != 0


def terminate_mid_request(server: ThreadedServer, env: dict[str, str]) -> int:
    """Start ``pi -p``, SIGTERM it once its request arrived; its exit code (within 5 s)."""
    proc = subprocess.Popen([PI, "-p", "hi"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=env["PI_TEST_PROJECT"])
    try:
        assert wait_until(lambda: server.requests, timeout=20), "pi never sent its request"
        proc.send_signal(signal.SIGTERM)
        return proc.wait(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]


def test_a_900_kb_error_message_keeps_pis_head_on_screen_and_in_the_session(loopback, env):
    # Pi keeps 4,000 characters of a provider's error body (pi-ai's MAX_PROVIDER_ERROR_BODY_CHARS).
    from e2e_support import MODEL, error_reply, session_files

    text = "context too long: " + "x" * 900_000
    loopback.push(error_reply(400, text))
    point_at(env, loopback.url, {"retry": {"enabled": False}})
    result = run_pi(["-p", "hi", "--model", MODEL], env)
    assert result.returncode == 1
    assert_one_line_error(result.stderr)
    line = result.stderr.strip()
    # Pi's words: the status, then the error object as compact JSON, cut at 4,000 characters.
    error = json.dumps({"message": text, "type": "server_error"}, separators=(",", ":"))
    assert line.startswith('pi: 400: {"message":"context too long: xxx')
    assert line.endswith(f"... [truncated {len(error) - 4000} chars]")
    assert len(line) < 4100
    [saved] = session_files(env)
    [failed] = [json.loads(x)["message"] for x in saved.read_text().splitlines() if '"errorMessage"' in x]
    assert len(failed["errorMessage"]) < 4100 and failed["errorMessage"].endswith("chars]")
