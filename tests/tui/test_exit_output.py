"""The plain-text conversation pi prints when the app exits."""

from __future__ import annotations

from pi_runtime.frontend.app_support import parse_messages
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


def _answer(text: str) -> list[dict]:
    return [{"role": "user", "content": "explain", "timestamp": 1},
            {"role": "assistant", "timestamp": 2, "stopReason": "stop", "api": "x", "provider": "p", "model": "m",
             "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                       "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
             "content": [{"type": "text", "text": text}]}]


def test_lines_are_wrapped_by_words_at_the_terminal_width():
    words = "the refactoring of the terminal module is described in words long enough to wrap " * 3
    messages = parse_messages(_answer(words) + [{"role": "user", "content": words, "timestamp": 3}])
    text = transcript_text(messages, width=50)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 50
    vocabulary = set(words.split()) | {">", "explain"}
    for line in lines:
        assert set(line.split()) <= vocabulary, f"a word was cut: {line!r}"
    prompt_lines = [line for line in lines if line.startswith(">")]
    assert len(prompt_lines) > 1  # the prompt's wrapped lines keep its "> " mark


def test_answers_are_rendered_markdown_not_their_source():
    source = "Plan:\n\n1. Read\n2. **Change**\n\n| Key | Action |\n|-----|--------|\n| Esc | abort |\n"
    text = transcript_text(parse_messages(_answer(source)), width=60)
    assert "**" not in text and "|-----|" not in text and "| Esc |" not in text
    assert "Change" in text and "Esc" in text and "abort" in text
    assert "\n\n\n" not in text  # one blank line between blocks, not Rich's three
    coloured = transcript_text(parse_messages(_answer(source)), width=60, color=True)
    assert "\x1b[1m" in coloured or "\x1b[1;" in coloured  # bold is a style on a terminal


def test_a_session_opened_by_path_resumes_with_pis_session_dir(tmp_path):
    from types import SimpleNamespace

    from pi_tui.transcript.exit_output import exit_output

    folder = tmp_path / "my sessions"
    folder.mkdir()
    session_file = folder / "x.jsonl"
    session_file.write_text("{}\n")
    session = SimpleNamespace(messages=[], session_file=str(session_file), session_id="0199-abc", cwd=str(tmp_path))
    text = exit_output(session, "resume-hint")
    assert text == f"To resume this session:\npi --session-dir '{folder}' --session 0199-abc\n"


def test_a_codemode_call_prints_what_the_script_printed():
    # As its box shows it: the script's output, without the header written for the model.
    messages = wire()
    messages[1]["content"][1] = {"type": "toolCall", "id": "c1", "name": "codemode", "arguments": {"code": "..."}}
    messages[2]["toolName"] = "codemode"
    messages[2]["content"] = [{"type": "text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
                              {"type": "text", "text": "printed by the script"}]
    text = transcript_text(parse_messages(messages))
    assert "● codemode\n  printed by the script" in text and "Wall time" not in text
