"""The plain-text conversation pi prints when the app exits."""

from __future__ import annotations

from pi_runtime.frontend import parse_messages
from pi_tui.transcript.exit_output import MAX_MESSAGES, TOOL_LINES, transcript_text


def wire(n_lines: int = 10) -> list[dict]:
    return [
        {"role": "user", "content": "list the files", "timestamp": 1},
        {"role": "assistant", "timestamp": 2, "stopReason": "toolUse", "api": "x", "provider": "p", "model": "m",
         "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                   "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "content": [{"type": "text", "text": "Looking."},
                     {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": False, "timestamp": 3,
         "content": [{"type": "text", "text": "\n".join(f"file{i}" for i in range(n_lines))}]},
    ]


def test_prompts_answers_and_the_start_of_tool_output():
    text = transcript_text(parse_messages(wire()))
    assert text.startswith("> list the files\n\nLooking.\n\n● ")
    assert "● $ ls\n" in text
    assert "  file0" in text and f"  file{TOOL_LINES - 1}" in text and f"file{TOOL_LINES}" not in text
    assert f"… {10 - TOOL_LINES} more lines" in text


def test_a_long_session_prints_only_its_end():
    messages = parse_messages([{"role": "user", "content": f"message {i}", "timestamp": i} for i in range(MAX_MESSAGES + 5)])
    text = transcript_text(messages)
    assert text.startswith("… 5 earlier messages")
    assert "> message 4\n" not in text and f"> message {MAX_MESSAGES + 4}" in text


def test_escape_sequences_in_the_conversation_never_reach_the_terminal():
    from types import SimpleNamespace

    from pi_tui.transcript.exit_output import exit_output

    messages = parse_messages([{"role": "bashExecution", "command": "printf", "exitCode": 0, "cancelled": False,
                                "truncated": False, "timestamp": 1,
                                "output": "a\x1b[2J\x1b[31mRED\x1b]0;title\x07\x00 done\tok\n"}])
    session = SimpleNamespace(messages=messages, session_file=None, session_id="x")
    text = exit_output(session, "transcript")
    assert "\x1b" not in text and "\x00" not in text and "\x07" not in text
    assert "aRED done\tok" in text
