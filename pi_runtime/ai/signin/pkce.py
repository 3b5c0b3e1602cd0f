"""PKCE (RFC 7636), random values, and reading what a user pastes instead of a browser callback."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlsplit, urlunsplit

from ...records import record


def b64url(data: bytes) -> str:
    """Base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@record(frozen=True)
class Pkce:
    verifier: str
    challenge: str
    """``S256`` of the verifier."""


def new_pkce() -> Pkce:
    """A verifier from 32 random bytes and its S256 challenge (the lengths Pi uses)."""
    verifier = b64url(secrets.token_bytes(32))
    return Pkce(verifier, challenge_of(verifier))


def challenge_of(verifier: str) -> str:
    """The S256 code challenge of ``verifier``."""
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def random_hex(size: int = 16) -> str:
    return secrets.token_hex(size)


def random_b64url(size: int = 32) -> str:
    return b64url(secrets.token_bytes(size))


@record(frozen=True)
class Pasted:
    """What a pasted answer held: the code and, when it said, the state."""

    code: str | None = None
    state: str | None = None


def _first(query: dict[str, list[str]], key: str) -> str | None:
    values = query.get(key)
    return values[0] if values else None


def parse_pasted(text: str, *, hash_state: bool = True) -> Pasted:
    """Read a pasted redirect URL, ``code#state``, a query string (``code=...&state=...``) or a bare code.

    Args:
        text: What the user pasted.
        hash_state: Whether ``code#state`` is understood (Anthropic's and OpenAI's flows; OpenRouter's
            codes are taken whole).
    """
    value = text.strip()
    if not value:
        return Pasted()
    parts = urlsplit(value)
    if parts.scheme and parts.netloc:
        query = parse_qs(parts.query, keep_blank_values=True)
        return Pasted(_first(query, "code"), _first(query, "state"))
    if hash_state and "#" in value:
        code, _, state = value.partition("#")
        return Pasted(code, state)
    if "code=" in value:
        query = parse_qs(value, keep_blank_values=True)
        return Pasted(_first(query, "code"), _first(query, "state"))
    return Pasted(value)


def trusted_http_url(value: object) -> str | None:
    """``value`` when it is an http(s) URL (normalized), else None.

    A URL a server sends (a device-code verification page) is opened in a browser; a ``file:`` or
    custom-scheme URL must not be, and control characters must not reach the terminal.
    """
    if not isinstance(value, str):
        return None
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    cleaned = "".join(c if c.isprintable() and not c.isspace() else f"%{ord(c):02X}" for c in urlunsplit(parts))
    return cleaned if "/" in cleaned.split("://", 1)[1] else cleaned + "/"
