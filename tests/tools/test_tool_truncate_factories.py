"""Truncation helpers, glob translation and the tool factories."""

from __future__ import annotations

import pytest

from pi_runtime.agent.tool import AgentTool
from pi_runtime.tools import (
    ALL_TOOL_NAMES,
    TOOL_FACTORIES,
    ToolOptions,
    create_all_tools,
    create_coding_tools,
    create_tools,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from pi_runtime.tools.walk import glob_matches


def test_format_size():
    assert [format_size(n) for n in (0, 1023, 1024, 51200, 1536 * 1024)] == ["0B", "1023B", "1.0KB", "50.0KB", "1.5MB"]


def test_truncate_head_lines_and_bytes():
    text = "\n".join(str(i) for i in range(10)) + "\n"
    by_lines = truncate_head(text, max_lines=3)
    assert (by_lines.content, by_lines.truncated_by, by_lines.total_lines) == ("0\n1\n2", "lines", 10)
    by_bytes = truncate_head("aaaa\nbbbb\ncccc", max_bytes=9)
    assert (by_bytes.content, by_bytes.truncated_by, by_bytes.output_bytes) == ("aaaa\nbbbb", "bytes", 9)
    whole = truncate_head("é\n")
    # What fits comes back unchanged, final newline included (Pi's truncateHead).
    assert not whole.truncated and whole.content == "é\n" and whole.total_bytes == whole.output_bytes == 3
    tail = truncate_tail("a\nb\n")
    assert not tail.truncated and tail.content == "a\nb\n" and tail.total_lines == 2


def test_truncate_head_first_line_too_long():
    result = truncate_head("x" * 20 + "\nshort", max_bytes=10)
    assert result.first_line_exceeds_limit and result.content == "" and result.output_lines == 0


def test_truncate_tail_keeps_end_and_partial_last_line():
    result = truncate_tail("a\nb\nc\nd", max_lines=2)
    assert (result.content, result.output_lines, result.total_lines) == ("c\nd", 2, 4)
    partial = truncate_tail("head\n" + "€" * 10, max_bytes=7)
    assert partial.last_line_partial and partial.content == "€€"  # never half a character


def test_truncate_line_counts_code_points():
    text, cut = truncate_line("😀" * 600)
    assert cut and text == "😀" * 500 + "... [truncated]"
    assert truncate_line("short") == ("short", False)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.ts", "a/b/c.ts", True),
        ("src/*.ts", "src/a.ts", True),
        ("src/*.ts", "pkg/src/a.ts", False),
        ("**/src/*.ts", "pkg/src/a.ts", True),
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("./src/*.ts", "src/a.ts", True),
        ("*.{js,ts}", "x/y.js", True),
        ("file?.txt", "file1.txt", True),
        ("[ab].py", "c.py", False),
    ],
)
def test_glob_semantics(pattern, path, expected):
    assert glob_matches(pattern, path) is expected


def test_factories(tmp_path):
    coding = create_coding_tools(str(tmp_path))
    assert [t.name for t in coding] == ["read", "bash", "edit", "write"]
    everything = create_all_tools(str(tmp_path), ToolOptions(use_ripgrep=False))
    assert [t.name for t in everything] == list(ALL_TOOL_NAMES)
    assert all(isinstance(t, AgentTool) and t.description and t.label for t in everything)
    assert set(TOOL_FACTORIES) == set(ALL_TOOL_NAMES)
    for tool in everything:
        wire = tool.to_tool()
        assert wire.name == tool.name and wire.parameters["type"] == "object"
    with pytest.raises(ValueError, match="Unknown built-in tool"):
        create_tools(str(tmp_path), ["read", "powershell"])


async def test_factory_passes_bash_options(tmp_path):
    (bash,) = create_tools(str(tmp_path), ["bash"], ToolOptions(
        bash_env={"PI_MODEL": "m1"}, shell_command_prefix="export GREETING=hi", shell_path="/bin/sh",
    ))
    result = await bash.execute("c", bash.Params(command='echo "$GREETING $PI_MODEL"'), None, None)
    assert result.content[0].text == "hi m1\n"
