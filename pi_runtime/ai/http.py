"""The shared HTTP client for providers (one per event loop; creating one costs ~30 ms)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    import httpx

_clients: WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = WeakKeyDictionary()


def shared_client() -> httpx.AsyncClient:
    import httpx

    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(600.0, connect=30.0),
            limits=httpx.Limits(max_keepalive_connections=8, keepalive_expiry=60),
            follow_redirects=True,
        )
        _clients[loop] = client
    return client
