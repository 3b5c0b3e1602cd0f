"""Best-effort parsing of JSON that is still arriving (tool-call arguments mid-stream).

``parse_partial`` closes whatever is open (strings, arrays, objects), drops a dangling key
or a half-written literal, and parses what is left. It never raises: when nothing sensible
can be recovered it returns an empty dict.
"""

from __future__ import annotations

from typing import Any

from .. import deep_json


def parse_partial(text: str) -> dict[str, Any]:
    """Parse a possibly incomplete JSON object. Returns ``{}`` when nothing can be recovered."""
    text = text.strip()
    if not text:
        return {}
    try:
        value = deep_json.loads(text)  # a model may nest arguments thousands deep
        return value if isinstance(value, dict) else {}
    except ValueError:
        pass
    for candidate in _completions(text):
        try:
            value = deep_json.loads(candidate)
        except ValueError:
            continue
        return value if isinstance(value, dict) else {}
    return {}


def _scan(text: str) -> tuple[list[str], bool, int]:
    """Return (open bracket stack, inside a string?, index where the open string starts)."""
    stack: list[str] = []
    in_string = False
    escaped = False
    string_start = -1
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
            string_start = i
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return stack, in_string, string_start


def _close(text: str, stack: list[str]) -> str:
    body = text.rstrip()
    # A trailing comma or colon leaves nothing to close; drop it (and a dangling key).
    while body and body[-1] in ",:":
        if body[-1] == ":":
            body = body[:-1].rstrip()
            if body.endswith('"'):
                start = body.rfind('"', 0, len(body) - 1)
                body = body[:start].rstrip() if start >= 0 else body
        else:
            body = body[:-1].rstrip()
    return body + "".join("}" if c == "{" else "]" for c in reversed(stack))


def _completions(text: str):
    stack, in_string, string_start = _scan(text)
    if in_string:
        # Keep the partial string value; a dangling backslash escape is cut first.
        partial = text
        if partial.endswith("\\"):
            partial = partial[:-1]
        # A half-written \uXXXX escape cannot be closed; trim it.
        tail = partial[-6:]
        cut = tail.rfind("\\u")
        if cut >= 0 and len(tail) - cut < 6:
            partial = partial[: len(partial) - (len(tail) - cut)]
        yield _close(partial + '"', stack)
        # If the open string was a key, drop it.
        yield _close(text[:string_start], stack)
    else:
        yield _close(text, stack)
        # A half-written literal (tru, nul, 12.) : cut back to the last separator.
        for sep in (",", "{", "["):
            idx = text.rfind(sep)
            if idx >= 0:
                head = text[: idx + 1] if sep != "," else text[:idx]
                s2, _, _ = _scan(head)
                yield _close(head, s2)
