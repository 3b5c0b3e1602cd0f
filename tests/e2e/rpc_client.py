"""A small RPC client for the e2e tests: starts ``pi --mode rpc``, reads records LF-framed."""

from __future__ import annotations

import itertools
import json
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from e2e_support import PI

from pi_runtime import deep_json


class RpcClient:
    def __init__(self, env: dict[str, str], *args: str, argv: list[str] | None = None) -> None:
        """``pi --mode rpc *args``, or the command ``argv`` (another program speaking Pi's RPC)."""
        command = argv if argv is not None else [PI, "--mode", "rpc", *args]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=env["PI_TEST_PROJECT"])
        self.records: list[dict[str, Any]] = []
        self._new = threading.Condition()
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        buffer = b""
        while True:
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            with self._new:
                self.records.extend(deep_json.loads(line) for line in lines if line)  # pi echoes ids of any depth
                self._new.notify_all()
        with self._new:
            self._new.notify_all()

    # ------------------------------------------------------------------ sending

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, command: dict[str, Any]) -> str:
        cmd_id = command.setdefault("id", f"req-{next(self._ids)}")
        self.send_raw(json.dumps(command).encode() + b"\n")
        return cmd_id

    def request(self, command: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        cmd_id = self.send(command)
        return self.wait(lambda r: r.get("type") == "response" and r.get("id") == cmd_id, timeout)

    def ok(self, command: dict[str, Any], timeout: float = 15) -> Any:
        response = self.request(command, timeout)
        assert response["success"] is True, response
        assert response["command"] == command["type"]
        return response.get("data")

    # ------------------------------------------------------------------ waiting

    def wait(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15, start: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for record in self.records[start:]:
                    if predicate(record):
                        return record
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"no matching record; last: {self.records[-5:]}; stderr: {self.stderr_now()}")
                self._new.wait(min(left, 0.2))

    def mark(self) -> int:
        with self._new:
            return len(self.records)

    def wait_event(self, kind: str, since: int = 0, timeout: float = 15, **fields: Any) -> dict[str, Any]:
        return self.wait(lambda r: r.get("type") == kind and all(r.get(k) == v for k, v in fields.items()),
                         timeout, since)

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        with self._new:
            return [r for r in self.records[since:] if r.get("type") != "response"]

    def stderr_now(self) -> str:
        return "" if self.proc.poll() is None else (self.proc.stderr.read().decode() if self.proc.stderr else "")

    # ------------------------------------------------------------------ ending

    def close(self, timeout: float = 15) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout)
        self._reader.join(5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
