"""``pi attach <id> --mode rpc``: Pi's RPC protocol on stdin/stdout for one served session.

After the handshake (``hello``, then ``attach`` with ``rpc``) the server speaks Pi's RPC for that
session on the socket, so the bridge only copies bytes both ways: any client of ``pi --mode rpc``
drives a session that outlives it. End of stdin detaches (the run goes on on the server); the
server closing the connection ends the bridge.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from ..serve.protocol import PROTOCOL_VERSION


class BridgeError(Exception):
    """The handshake failed (no server, no such session...); the message is for the user."""


def _request(sock: socket.socket, reader: BinaryIO, command: dict[str, Any]) -> Any:
    sock.sendall(json.dumps(command).encode() + b"\n")
    line = reader.readline()
    if not line:
        raise BridgeError("pi serve closed the connection")
    record = json.loads(line)
    if not record.get("success"):
        raise BridgeError(str(record.get("error") or f"{command['type']} failed"))
    return record.get("data")


def open_bridge(path: Path, ref: str | None, *, new: bool = False, continue_recent: bool = False
                ) -> tuple[socket.socket, BinaryIO, str]:
    """Connect, say hello, open a session if asked, and attach it as an RPC stream.

    Returns:
        The socket, its buffered reader (records may already wait in it) and the session's id.

    Raises:
        BridgeError: With a one-line message.
    """
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        raise BridgeError(f"no pi serve listens at {path} (start one in the folder with `pi serve`)") from None
    reader = sock.makefile("rb")
    try:
        _request(sock, reader, {"type": "hello", "id": "bridge-hello", "protocol": PROTOCOL_VERSION,
                                "client": "pi attach --mode rpc"})
        if new or continue_recent:
            ref = _request(sock, reader, {"type": "open_session", "id": "bridge-open",
                                          "continue": continue_recent})["session"]
        data = _request(sock, reader, {"type": "attach", "id": "bridge-attach", "session": ref, "rpc": True})
    except BaseException:
        reader.close()
        sock.close()
        raise
    return sock, reader, str(data["session"])


def run_bridge(sock: socket.socket, reader: BinaryIO, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Copy stdin to the socket and the socket to stdout until either ends.

    Returns:
        0 when stdin ended (this viewer detached); 1 when the server went away first.
    """
    stdin_done = threading.Event()

    def pump_in() -> None:
        try:
            while chunk := os.read(stdin_fd, 1 << 16):
                sock.sendall(chunk)
        except OSError:
            pass
        stdin_done.set()
        try:
            sock.shutdown(socket.SHUT_WR)  # the server answers what is in flight, then closes
        except OSError:
            pass

    threading.Thread(target=pump_in, name="pi-attach-stdin", daemon=True).start()
    try:
        while chunk := reader.read1(1 << 16):  # type: ignore[attr-defined]  # a BufferedReader
            view = memoryview(chunk)
            while view:
                view = view[os.write(stdout_fd, view):]
    except BrokenPipeError:
        return 0  # whoever read our stdout is gone
    except OSError:
        pass
    finally:
        reader.close()
        sock.close()
    if stdin_done.is_set():
        return 0
    print("pi: pi serve closed the connection", file=sys.stderr)
    return 1
