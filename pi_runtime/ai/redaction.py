"""Keeping configured secrets out of error messages.

A server's error text is the one part of a failed request that is kept (session file, stderr,
HTML export, RPC events), and servers echo what they were sent: a key in a 401, a custom
header in a 400. Every failed stream passes through ``AssistantMessageStream`` (``stream.py``),
which blanks each secret here before anything downstream sees the message.

A password written into a URL (``https://user:pass@host``, as a ``baseUrl`` or a proxy may
hold) is masked wherever a URL appears in a message (``user:***@host``), and
:func:`url_for_display` does the same for a URL shown on its own (RPC ``get_state``).

The secrets are the request's key and header values plus every value pi resolved from
configuration in this process: ``apiKey`` and header values from models.json, keys from
auth.json, each environment variable a value interpolated and each command's output
(``credentials.resolve_value`` remembers them here). Values shorter than ``MIN_LENGTH``
are left alone: blanking "true" or "json" would garble messages and hides nothing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import cache

MIN_LENGTH = 6
"""Shortest value treated as a secret (keys are matched from 4 characters)."""
MASK = "[redacted]"


@cache
def _url_password() -> re.Pattern[str]:
    """``scheme://user:password@``: the password part, up to the ``@`` that ends the userinfo.

    Compiled with the first text that holds an ``@``: a case-insensitive pattern costs ~2.8 M
    instructions to compile, which every ``pi -p`` paid at import for text it never saw.
    """
    return re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/?#@:]*):[^\s/?#@]*@")


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
    if "@" in text:
        text = _url_password().sub(r"\1:***@", text)
    values = set(known())
    for value in secrets:
        if value and len(value) >= 4:
            values.add(value)
    for value in sorted(values, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def url_for_display(url: str) -> str:
    """``url`` with the password of its userinfo (if any) replaced by ``***``."""
    return _url_password().sub(r"\1:***@", url) if "@" in url else url
