"""Helpers for the ``pi serve`` tests: the installed server as a subprocess, and a plain JSONL viewer.

``ServeProcess`` starts ``pi serve`` in the test project and waits for the line saying where it
listens. ``SocketViewer`` is a client written from the protocol's description only (a socket, LF
framing, JSON): it records every line it reads and waits on conditions, never on time.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from e2e_support import PI


class ServeProcess:
    """``pi serve [args]`` in the test project; :attr:`socket` once it listens."""

    def __init__(self, env: dict[str, str], *args: str, timeout: float = 30) -> None:
        self.env = env
        self.proc = subprocess.Popen([PI, "serve", *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=env["PI_TEST_PROJECT"])
        self.lines: list[str] = []
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(timeout):
            self.stop()
            raise AssertionError(f"pi serve did not start: {self.lines} {self.stderr()}")
        listening = next(line for line in self.lines if " listening on " in line)
        self.socket = Path(listening.split(" listening on ", 1)[1].rsplit(" (folder ", 1)[0])

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode().rstrip("\n"))
            if " listening on " in self.lines[-1]:
                self._ready.set()
        self._ready.set()

    def stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read().decode("utf-8", "replace")

    def stop(self, timeout: float = 20) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def viewer(self) -> SocketViewer:
        """A new connection that has said hello."""
        viewer = SocketViewer(self.socket)
        viewer.ok({"type": "hello", "protocol": 1, "client": "test"})
        return viewer


class SocketViewer:
    """A JSONL client of ``pi serve`` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(os.fspath(path))
        self.records: list[dict[str, Any]] = []
        self._new = threading.Condition()
        self._ids = itertools.count(1)
        self._open = True
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            with self._new:
                self.records.extend(json.loads(line) for line in lines if line)
                self._new.notify_all()
        with self._new:
            self._open = False
            self._new.notify_all()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, command: dict[str, Any]) -> str:
        cmd_id = command.setdefault("id", f"t{next(self._ids)}")
        self.send_raw(json.dumps(command).encode() + b"\n")
        return str(cmd_id)

    def request(self, command: dict[str, Any], timeout: float = 20) -> dict[str, Any]:
        cmd_id = self.send(command)
        return self.wait(lambda r: r.get("type") == "response" and r.get("id") == cmd_id, timeout)

    def ok(self, command: dict[str, Any], timeout: float = 20) -> Any:
        answer = self.request(command, timeout)
        assert answer["success"] is True, answer
        return answer.get("data")

    def wait(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20, start: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for record in self.records[start:]:
                    if predicate(record):
                        return record
                left = deadline - time.monotonic()
                if left <= 0 or not self._open:
                    raise AssertionError(f"no matching record; last: {self.records[-5:]}")
                self._new.wait(min(left, 0.2))

    def wait_event(self, kind: str, start: int = 0, timeout: float = 20, **fields: Any) -> dict[str, Any]:
        return self.wait(lambda r: r.get("type") == kind and all(r.get(k) == v for k, v in fields.items()),
                         timeout, start)

    def mark(self) -> int:
        with self._new:
            return len(self.records)

    def stream(self, session: str, start: int = 0) -> list[dict[str, Any]]:
        """The records of ``session``'s stream received so far (responses left out)."""
        with self._new:
            return [r for r in self.records[start:] if r.get("type") != "response" and r.get("session") == session]

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self._reader.join(5)


def short_runtime_dir() -> str:
    """A private ``XDG_RUNTIME_DIR`` short enough for a socket path (pytest's tmp paths can be long)."""
    return tempfile.mkdtemp(prefix="pi-run-")
