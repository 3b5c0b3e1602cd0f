"""Keeping configured secrets out of error messages.

A server's error text is the one part of a failed request that is kept (session file, stderr,
HTML export, RPC events), and servers echo what they were sent: a key in a 401, a custom
header in a 400. Every failed stream passes through ``AssistantMessageStream`` (``stream.py``),
which blanks each secret here before anything downstream sees the message.

The secrets are the request's key and header values plus every value pi resolved from
configuration in this process: ``apiKey`` and header values from models.json, keys from
auth.json, each environment variable a value interpolated and each command's output
(``credentials.resolve_value`` remembers them here). Values shorter than ``MIN_LENGTH``
are left alone: blanking "true" or "json" would garble messages and hides nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

MIN_LENGTH = 6
"""Shortest value treated as a secret (keys are matched from 4 characters)."""
MASK = "[redacted]"

_known: set[str] = set()
_lock = threading.Lock()


def remember(*values: str | None) -> None:
    """Treat ``values`` as secrets from now on (for the life of the process)."""
    keep = [v.strip() for v in values if v and len(v.strip()) >= MIN_LENGTH]
    if keep:
        with _lock:
            _known.update(keep)


def known() -> frozenset[str]:
    """Every secret remembered so far."""
    with _lock:
        return frozenset(_known)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every remembered secret and each of ``secrets`` replaced by ``[redacted]``.

    Args:
        text: A message that may quote a server's response.
        secrets: This request's own values (its key is matched from 4 characters, the rest
            from ``MIN_LENGTH``).

    Returns:
        The text with the longest secrets replaced first (so a key inside a header value
        does not leave the rest of the value behind).
    """
    if not text:
        return text
    values = set(known())
    for value in secrets:
        if value and len(value) >= 4:
            values.add(value)
    for value in sorted(values, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text
