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
    stored = _stored_entry(auth)
    stored_env = stored.get("env") if stored is not None else None
    stored_url = stored_env.get("LLAMA_BASE_URL") if isinstance(stored_env, dict) else None
    url = (stored_url if isinstance(stored_url, str) else "") or env.get("LLAMA_BASE_URL", "")
    if not url.strip():
        return None
    stored_key = stored.get("key") if stored is not None else None
    key = (stored_key if isinstance(stored_key, str) else None) or env.get("LLAMA_API_KEY") or None
    return Connection(url.strip(), key, "stored credential" if stored is not None else "LLAMA_BASE_URL")


def _stored_entry(auth: Any) -> dict[str, Any] | None:
    """auth.json's ``llama.cpp`` entry when it is an API key one, read without going through
    ``AuthStorage``: a broken file is the key lookup's to report (once, with the provider that needs
    it), not a start-up notice caused by asking whether llama.cpp is configured."""
    from ..config_files import ConfigFileError, parse_config_json, read_config_text

    path = getattr(auth, "path", None)
    if path is None:
        return None
    try:
        # Read as every config file is: a FIFO or a device in its place is refused, not waited on.
        data, _dropped = parse_config_json(read_config_text(path))
    except (OSError, ValueError, ConfigFileError):
        return None
    entry = data.get(PROVIDER_ID) if isinstance(data, dict) else None
    return entry if isinstance(entry, dict) and entry.get("type") == "api_key" else None


def configured(auth: Any, environ: Any = None) -> bool:
    """Whether a router is configured (auth.json or ``LLAMA_BASE_URL``), read without any network."""
    return connection(auth, environ) is not None
