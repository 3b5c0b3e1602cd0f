"""Pi's built-in ``llama.cpp`` extension: a local llama.cpp router as a provider, and ``/llama``.

The router is reached at the URL ``/login llama.cpp`` stored (auth.json: ``{"type": "api_key",
"key": <optional>, "env": {"LLAMA_BASE_URL": url}}``, as Pi stores it) or at ``LLAMA_BASE_URL``;
the key is the stored one, else ``LLAMA_API_KEY``, else ``local``. This module stays free of
imports: the CLI asks :func:`configured` on every start-up to decide whether to load the
extension (``extension.py``) at all.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

PROVIDER_ID = "llama.cpp"
EXTENSION_PATH = "builtin:llama.cpp"
DEFAULT_SERVER_URL = "http://127.0.0.1:9931"
"""The llama.cpp server's default port (what ``/login`` offers when nothing is typed)."""


class Connection(NamedTuple):
    """Where the router is and how to reach it."""

    server_url: str
    api_key: str | None
    """The stored key, else ``LLAMA_API_KEY``; None when neither (requests then send ``local``)."""
    source: str
    """``stored credential`` or ``LLAMA_BASE_URL``."""


def connection(auth: Any, environ: Any = None) -> Connection | None:
    """The configured router, from auth.json's ``llama.cpp`` entry or the environment; None when neither.

    Args:
        auth: The ``AuthStorage`` (or None).
        environ: The environment (``os.environ`` by default).
    """
    env = os.environ if environ is None else environ
    stored = auth.get(PROVIDER_ID) if auth is not None and hasattr(auth, "get") else None
    if stored is not None and stored.type != "api_key":
        stored = None
    url = (stored.env.get("LLAMA_BASE_URL") if stored is not None else None) or env.get("LLAMA_BASE_URL", "")
    if not url.strip():
        return None
    key = (stored.key if stored is not None else None) or env.get("LLAMA_API_KEY") or None
    return Connection(url.strip(), key, "stored credential" if stored is not None else "LLAMA_BASE_URL")


def configured(auth: Any, environ: Any = None) -> bool:
    """Whether a router is configured (auth.json or ``LLAMA_BASE_URL``), read without any network."""
    return connection(auth, environ) is not None
