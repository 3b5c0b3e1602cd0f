"""Finished tool-call arguments: parsed strictly after Pi's two mends, or refused with the reason."""

from __future__ import annotations

import pytest

from pi_runtime.ai.tool_arguments import mend_strings, parse_tool_arguments


def test_an_object_parses_and_blank_text_is_no_arguments():
    assert parse_tool_arguments('{"path": "a.py", "limit": 5}') == ({"path": "a.py", "limit": 5}, None)
    assert parse_tool_arguments("  ") == ({}, None)


@pytest.mark.parametrize("text, problem", [
    ('{"path": "out.txt", "content": "hello wor', "Unterminated string starting at: line 1 column 32 (char 31)"),
    ('{"path": "a.py",', "Expecting property name enclosed in double quotes"),
    ("[1, 2]", "Tool arguments must be a JSON object"),
    ('"just text"', "Tool arguments must be a JSON object"),
])
def test_text_that_is_not_one_object_is_refused_with_what_was_sent(text, problem):
    arguments, error = parse_tool_arguments(text)
    assert arguments == {}
    assert error is not None and error.startswith(problem)
    assert error.endswith(f"\n\nReceived arguments:\n{text}")


def test_stray_backslashes_and_control_characters_inside_strings_are_mended():
    assert mend_strings('{"re": "\\d+\\s"}') == '{"re": "\\\\d+\\\\s"}'
    assert mend_strings('{"text": "a\nb\tc\x01"}') == '{"text": "a\\nb\\tc\\u0001"}'
    # Real escapes, a whole \\u escape, and everything outside strings are left as they are.
    kept = '{"q": "say \\"hi\\" \\\\ \\u00e9\\n",\n "n": 1}'
    assert mend_strings(kept) == kept
    assert mend_strings('{"u": "\\u12"}') == '{"u": "\\\\u12"}'
    assert mend_strings('{"cut": "abc\\') == '{"cut": "abc\\'  # an escape still arriving
    assert parse_tool_arguments('{"re": "\\d+", "body": "x\ny"}') == ({"re": "\\d+", "body": "x\ny"}, None)


def _mend_by_hand(text: str) -> str:
    """The mend spelt out one character at a time (what Pi's repair does): the oracle."""
    out, in_string, i = [], False, 0
    while i < len(text):
        ch = text[i]
        if not in_string:
            out.append(ch)
            in_string = ch == '"'
        elif ch == '"':
            out.append(ch)
            in_string = False
        elif ch == "\\":
            after = text[i + 1:i + 2]
            if not after:
                out.append(ch)
            elif after in '"\\/bfnrt':
                out.append(ch + after)
                i += 1
            elif after == "u" and all(c in "0123456789abcdefABCDEF" for c in text[i + 2:i + 6]) and len(text) >= i + 6:
                out.append(text[i:i + 6])
                i += 5
            else:
                out.append("\\\\")
        elif ch < " ":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def test_the_mend_agrees_with_a_character_by_character_reading():
    import random

    chance = random.Random(7)
    alphabet = ['"', "\\", "u", "0", "a", "F", "n", "d", "\n", "\t", "\x01", " ", "{", ":", ","]
    for _ in range(5000):
        text = "".join(chance.choice(alphabet) for _ in range(chance.randint(0, 24)))
        assert mend_strings(text) == _mend_by_hand(text), repr(text)
