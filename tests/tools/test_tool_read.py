"""read: text windows with continuation hints, truncation, images, binary refusal, odd paths."""

from __future__ import annotations

import base64
import os
import tracemalloc

import pytest

from pi_runtime.agent.tool import ToolError
from pi_runtime.tools import ReadTool
from pi_runtime.tools.truncate import DEFAULT_MAX_BYTES

# A real 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def read(tool: ReadTool, **args):
    return await tool.execute("c1", tool.Params(**args), None, None)


def text_of(result) -> str:
    return result.content[0].text


@pytest.fixture
def big_file(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 100_001)))
    return path


async def test_small_file_is_returned_whole(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    result = await read(ReadTool(str(tmp_path)), path="a.txt")
    assert text_of(result) == "alpha\nbeta\n"  # as Pi: the file's text, final newline included
    assert result.details is None


async def test_100k_lines_first_window_and_hint(big_file, tmp_path):
    result = await read(ReadTool(str(tmp_path)), path="big.txt")
    text = text_of(result)
    lines = text.split("\n\n[")[0].split("\n")
    assert len(lines) == 2000
    assert lines[0] == "line 1" and lines[-1] == "line 2000"
    # Pi counts the empty line after the final newline, and its notices end with a full stop.
    assert text.endswith("[Showing lines 1-2000 of 100001. Use offset=2001 to continue.]")
    assert result.details["truncation"]["truncatedBy"] == "lines"


async def test_100k_lines_offset_and_limit(big_file, tmp_path):
    tool = ReadTool(str(tmp_path))
    result = await read(tool, path="big.txt", offset=99_990, limit=5)
    assert text_of(result) == (
        "line 99990\nline 99991\nline 99992\nline 99993\nline 99994\n\n"
        "[7 more lines in file. Use offset=99995 to continue.]"
    )
    tail = await read(tool, path="big.txt", offset=99_998)
    assert text_of(tail) == "line 99998\nline 99999\nline 100000\n"


async def test_offset_read_keeps_memory_small(tmp_path):
    row = "z" * 29 + "\n"
    (tmp_path / "huge.txt").write_text(row * 300_000)  # 9 MB
    tool = ReadTool(str(tmp_path))
    tracemalloc.start()
    try:
        result = await read(tool, path="huge.txt", offset=150_000, limit=10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text_of(result).endswith("[149992 more lines in file. Use offset=150010 to continue.]")
    # Streaming keeps a small fraction of the 9 MB file alive at once.
    assert peak < 2_000_000


async def test_offset_beyond_end(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match=r"Offset 5 is beyond end of file \(3 lines total\)"):
        await read(ReadTool(str(tmp_path)), path="a.txt", offset=5)


async def test_byte_truncation_at_50kb(tmp_path):
    line = "x" * 99  # 100 bytes with the newline
    (tmp_path / "wide.txt").write_text((line + "\n") * 1500)
    result = await read(ReadTool(str(tmp_path)), path="wide.txt")
    body, notice = text_of(result).split("\n\n[")
    assert len(body.encode()) <= DEFAULT_MAX_BYTES
    shown = body.count("\n") + 1
    assert shown == 512  # 512 * 100 - 1 bytes fit in 51,200
    assert notice == f"Showing lines 1-{shown} of 1501 (50.0KB limit). Use offset={shown + 1} to continue.]"
    assert result.details["truncation"]["truncatedBy"] == "bytes"


async def test_single_overlong_line_suggests_bash(tmp_path):
    (tmp_path / "min.js").write_text("short\n" + "y" * 80_000 + "\nafter\n")
    result = await read(ReadTool(str(tmp_path)), path="min.js", offset=2)
    assert text_of(result) == (
        "[Line 2 is 78.1KB, exceeds 50.0KB limit. Use bash: sed -n '2p' min.js | head -c 51200]"
    )


async def test_crlf_lines_keep_their_carriage_returns_as_in_pi(tmp_path):
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    assert text_of(await read(ReadTool(str(tmp_path)), path="w.txt")) == "a\r\nb\r\n"


async def test_binary_file_refused(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)))
    with pytest.raises(ToolError, match="binary file"):
        await read(ReadTool(str(tmp_path)), path="blob.bin")


async def test_image_read_as_attachment(tmp_path):
    (tmp_path / "pixel.dat").write_bytes(PNG)  # no extension: detected by magic bytes
    result = await read(ReadTool(str(tmp_path)), path="pixel.dat")
    note, image = result.content
    assert note.text == "Read image file [image/png]"
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG


async def test_text_starting_with_gif_is_text(tmp_path):
    (tmp_path / "notes.txt").write_text("GIFs are fun\n")
    result = await read(ReadTool(str(tmp_path)), path="notes.txt")
    assert text_of(result) == "GIFs are fun\n"


async def test_missing_file_and_directory(tmp_path):
    tool = ReadTool(str(tmp_path))
    with pytest.raises(ToolError, match="File not found: nope.txt"):
        await read(tool, path="nope.txt")
    (tmp_path / "sub").mkdir()
    with pytest.raises(ToolError, match="Path is a directory: sub"):
        await read(tool, path="sub")


async def test_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ToolError, match="Not a regular file: pipe"):
        await read(ReadTool(str(tmp_path)), path="pipe")


async def test_unicode_paths_at_prefix_and_tilde(tmp_path, monkeypatch):
    folder = tmp_path / "données"
    folder.mkdir()
    (folder / "résumé ✓.md").write_text("bonjour\n")
    tool = ReadTool(str(tmp_path))
    assert text_of(await read(tool, path="données/résumé ✓.md")) == "bonjour\n"
    assert text_of(await read(tool, path="@données/résumé ✓.md")) == "bonjour\n"
    monkeypatch.setenv("HOME", str(folder))
    assert text_of(await read(ReadTool("/"), path="~/résumé ✓.md")) == "bonjour\n"


async def test_macos_screenshot_name_variant(tmp_path):
    (tmp_path / "Screenshot 2024-01-01 at 10.00.00\u202fAM.png").write_bytes(PNG)
    result = await read(ReadTool(str(tmp_path)), path="Screenshot 2024-01-01 at 10.00.00 AM.png")
    assert result.content[1].mime_type == "image/png"


async def test_numeric_strings_and_null_are_accepted():
    params = ReadTool.Params.model_validate({"path": "a", "offset": "3", "limit": None})
    assert params.offset == 3 and params.limit is None


# What Pi 1.6's read returned for these files and arguments (run side by side with the real Pi).
PI_READS = [
    (b"one\ntwo\n", {}, "one\ntwo\n"),
    (b"one\ntwo\n", {"offset": 3}, ""),
    (b"one\ntwo\n", {"limit": 1}, "one\n\n[2 more lines in file. Use offset=2 to continue.]"),
    (b"one\ntwo\n", {"limit": 2}, "one\ntwo\n\n[1 more lines in file. Use offset=3 to continue.]"),
    (b"", {}, ""),
    (b"a\nb", {"offset": 2}, "b"),
    (b"a\r\nb\r\n", {"limit": 1}, "a\r\n\n[2 more lines in file. Use offset=2 to continue.]"),
    (b"\n\n\n", {"limit": 0}, "\n\n[4 more lines in file. Use offset=1 to continue.]"),
    (b"\n\n\n", {"offset": 4}, ""),
    ("".join(f"l{i}\n" for i in range(10)).encode(), {"limit": 3},
     "l0\nl1\nl2\n\n[8 more lines in file. Use offset=4 to continue.]"),
    (b"short\n" + b"y" * 80_000 + b"\nafter\n", {},
     "short\n\n[Showing lines 1-1 of 4 (50.0KB limit). Use offset=2 to continue.]"),
    (b"short\n" + b"y" * 80_000 + b"\nafter\n", {"offset": 2, "limit": 1},
     "[Line 2 is 78.1KB, exceeds 50.0KB limit. Use bash: sed -n '2p' f.txt | head -c 51200]"),
    (b"\xef\xbb\xbfhello\nworld", {}, "\ufeffhello\nworld"),
    # Pi declares offset and limit as numbers: 1.5 reads as 1, and 10.0 is 10 (pi refused 1.5).
    (b"one\ntwo\n", {"offset": 1.5}, "one\ntwo\n"),
    (b"one\ntwo\n", {"offset": 2.0}, "two\n"),
]


@pytest.mark.parametrize(("data", "args", "expected"), PI_READS, ids=[f"case{i}" for i in range(len(PI_READS))])
async def test_windows_and_notices_match_pi(tmp_path, data, args, expected):
    (tmp_path / "f.txt").write_bytes(data)
    assert text_of(await read(ReadTool(str(tmp_path)), path="f.txt", **args)) == expected


async def test_exactly_2000_lines_with_final_newline_is_not_truncated(tmp_path):
    # 2,001 lines in Pi's count, but the empty last one does not count against the budget.
    (tmp_path / "f.txt").write_text("".join(f"{i}\n" for i in range(2000)))
    result = await read(ReadTool(str(tmp_path)), path="f.txt")
    assert text_of(result).endswith("1998\n1999\n") and result.details is None
