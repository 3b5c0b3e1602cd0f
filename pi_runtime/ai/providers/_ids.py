"""Pi's short hash, used where a provider needs a short id derived from a long one.

Mistral takes nine-character tool-call ids, the Responses API caps item ids at 64 characters:
Pi shortens ids with a fixed 64-bit mix of the id's UTF-16 code units printed in base 36. pi
uses the same function so that a session replayed by either sends the same ids.
"""

from __future__ import annotations

_MASK = 0xFFFFFFFF
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _mul(a: int, b: int) -> int:
    return (a * b) & _MASK


def _base36(value: int) -> str:
    if value == 0:
        return "0"
    out = []
    while value:
        value, digit = divmod(value, 36)
        out.append(_DIGITS[digit])
    return "".join(reversed(out))


def short_hash(text: str) -> str:
    """Pi's ``shortHash``: 12 to 14 base-36 characters, the same for the same text."""
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        unit = data[i] | (data[i + 1] << 8)
        h1 = _mul(h1 ^ unit, 2654435761)
        h2 = _mul(h2 ^ unit, 1597334677)
    h1 = _mul(h1 ^ (h1 >> 16), 2246822507) ^ _mul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _mul(h2 ^ (h2 >> 16), 2246822507) ^ _mul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2) + _base36(h1)
