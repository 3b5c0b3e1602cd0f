"""Find OpenAI-compatible servers running on this machine, and add one to models.json.

The app's first-run panel calls ``probe_local_servers()`` in the background (it never
delays the first paint): each well-known port gets one short ``GET /v1/models``. A server
that answers with a model list can be saved with ``add_to_models_json`` as a keyless
``openai-completions`` provider, which is all pi needs to use it.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import field
from pathlib import Path
from typing import Any

from .records import record

KNOWN_SERVERS: tuple[tuple[str, str, int], ...] = (
    ("ollama", "Ollama", 11434),
    ("llama-cpp", "llama.cpp", 8080),
    ("lm-studio", "LM Studio", 1234),
)
"""(provider id, display name, port) probed on 127.0.0.1."""


@record
class LocalServer:
    provider: str
    name: str
    base_url: str
    models: list[str] = field(default_factory=list)


async def _get_json(host: str, port: int, path: str, timeout: float) -> Any:
    """A minimal GET: enough for a local model list (content-length, chunked or close)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nhost: {host}:{port}\r\naccept: application/json\r\n"
                     "connection: close\r\n\r\n".encode())
        await writer.drain()
        raw = b""
        while True:
            chunk = await asyncio.wait_for(reader.read(1 << 16), timeout)
            raw += chunk
            body = _complete_body(raw)
            if body is not None or not chunk:
                break
    finally:
        writer.close()
    if body is None:
        body = raw.partition(b"\r\n\r\n")[2]
    status_line = raw.split(b"\r\n", 1)[0].split()
    if len(status_line) < 2 or status_line[1] != b"200":
        return None
    return json.loads(body)


def _complete_body(raw: bytes) -> bytes | None:
    """The body once it has fully arrived; None while more is expected."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return None
    headers = head.lower()
    if b"transfer-encoding: chunked" in headers:
        return _dechunk(body) if body.endswith(b"0\r\n\r\n") else None
    for line in headers.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
            return body[:length] if len(body) >= length else None
    return None


def _dechunk(body: bytes) -> bytes:
    out, pos = bytearray(), 0
    while True:
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            return bytes(out)
        size = int(body[pos:eol].split(b";")[0] or b"0", 16)
        if size == 0:
            return bytes(out)
        out += body[eol + 2 : eol + 2 + size]
        pos = eol + 2 + size + 2


async def probe(provider: str, name: str, port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> LocalServer | None:
    """Ask one port for its models; None when nothing (usable) answers."""
    try:
        data = await _get_json(host, port, "/v1/models", timeout)
    except (TimeoutError, OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    models = [m["id"] for m in data["data"] if isinstance(m, dict) and isinstance(m.get("id"), str)]
    return LocalServer(provider, name, f"http://{host}:{port}/v1", models)


async def probe_local_servers(
    servers: tuple[tuple[str, str, int], ...] | None = None, host: str = "127.0.0.1", timeout: float = 0.5
) -> list[LocalServer]:
    """Probe every known port (``KNOWN_SERVERS`` by default) at once; returns those that listed models."""
    servers = KNOWN_SERVERS if servers is None else servers
    found = await asyncio.gather(*(probe(p, n, port, host, timeout) for p, n, port in servers))
    return [s for s in found if s is not None and s.models]


def add_to_models_json(path: str | os.PathLike[str], server: LocalServer) -> None:
    """Add (or replace) ``server`` as a provider in models.json, keeping everything else.

    Raises:
        ValueError: the existing file is not a JSON object (it is left untouched).
    """
    from .ai.models_json import strip_jsonc
    from .config_files import atomic_write_json, parse_config_json, read_config_text

    target = Path(path)
    data: dict[str, Any] = {}
    try:
        loaded, dropped = parse_config_json(strip_jsonc(read_config_text(target)))
    except FileNotFoundError:
        loaded, dropped = None, []
    if dropped:
        raise ValueError(f"{target} holds a value pi cannot keep ({dropped[0]}); not changing it")
    if loaded is not None:
        if not isinstance(loaded, dict):
            raise ValueError(f"{target} is not a JSON object; not changing it")
        data = loaded
    providers = data.setdefault("providers", {})
    providers[server.provider] = {
        "baseUrl": server.base_url,
        "api": "openai-completions",
        "models": [{"id": model_id} for model_id in server.models],
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(target, data)
