"""``<agent dir>/mcp-auth.json``: MCP OAuth sign-ins (mcp.md, "Authenticate with OAuth").

One entry per server name *and* URL (key ``<name>@<url>``): the same URL under two names (one per
account) signs in twice, and the same name and URL in the global and a project ``mcp.json`` share
one sign-in. An entry holds the registered client, the tokens, when the access token expires, and
the authorization server's metadata (so a refresh after a restart reaches the right token
endpoint without discovery)::

    {"notes@https://mcp.example.com/mcp": {"type": "mcp-oauth", "server": "notes",
        "url": "https://mcp.example.com/mcp", "client": {...}, "tokens": {...}, "expiresAt": 1767225600.0,
        "authServer": {...}, "resource": {...}}}

The file is handled by :class:`pi_runtime.auth.AuthStorage` (the same lock, atomic write and 0600
mode as ``auth.json``). A corrupt file raises :class:`McpAuthFileError` on read and is never
overwritten: a write re-reads it under the lock and refuses.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..auth import AuthFileError, AuthStorage

AUTH_FILE = "mcp-auth.json"
ENTRY_TYPE = "mcp-oauth"


class McpAuthFileError(Exception):
    """``mcp-auth.json`` is unreadable or corrupt, or cannot be written (no token in the message)."""


def sign_in_key(name: str, url: str) -> str:
    """The entry key for a server: its name and URL together."""
    return f"{name}@{url}"


class McpAuthStore:
    """The sign-ins in ``<agent dir>/mcp-auth.json``.

    Args:
        agent_dir: The agent dir the file lives in.
    """

    def __init__(self, agent_dir: str | Path) -> None:
        self.path = Path(agent_dir) / AUTH_FILE
        self._file = AuthStorage(self.path)

    def get(self, name: str, url: str) -> dict[str, Any] | None:
        """The stored sign-in for ``name`` at ``url``, or None.

        Raises:
            McpAuthFileError: The file cannot be read or is not valid JSON.
        """
        self._file.reload()
        if self._file.errors:
            raise McpAuthFileError(f"{self._file.errors[0]} (fix or delete the file, then sign in again)")
        stored = self._file.get(sign_in_key(name, url))
        return dict(stored.data) if stored is not None else None

    def has_tokens(self, name: str, url: str) -> bool:
        """Whether an access token is stored (expired ones count: they may refresh)."""
        entry = self.get(name, url)
        return bool(entry and isinstance(entry.get("tokens"), dict) and entry["tokens"].get("access_token"))

    def save(self, name: str, url: str, **fields: Any) -> None:
        """Set ``fields`` of the entry (creating it), keeping the others.

        Raises:
            McpAuthFileError: The file is corrupt (it is left alone) or cannot be written.
        """
        def change(entry: dict[str, Any] | None) -> dict[str, Any]:
            out = {"type": ENTRY_TYPE, "server": name, "url": url, **(entry or {})}
            out.update(fields)
            out["updatedAt"] = time.time()
            return out

        self._write(name, url, change)

    def remove(self, name: str, url: str) -> bool:
        """Delete the sign-in (``logout``); returns whether there was one.

        Raises:
            McpAuthFileError: The file is corrupt (it is left alone) or cannot be written.
        """
        found: list[bool] = []

        def change(entry: dict[str, Any] | None) -> None:
            found.append(entry is not None)
            return None

        if not self.path.exists():
            return False
        self._write(name, url, change)
        return bool(found and found[0])

    def _write(self, name: str, url: str, change: Any) -> None:
        try:
            self._file.update(sign_in_key(name, url), change)
        except AuthFileError as exc:
            raise McpAuthFileError(f"{exc} (fix or delete the file, then sign in again)") from None
