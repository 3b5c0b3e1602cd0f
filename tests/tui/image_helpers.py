"""Test helpers for images: a tiny valid PNG, and a fake ``xclip`` (an external tool, so
faking it is fair) on a PATH that holds nothing else."""

from __future__ import annotations

import stat
import struct
import sys
import zlib

import pytest


def tiny_png() -> bytes:
    """A valid 1x1 red PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def fake_xclip(folder, *, targets: list[str], image: bytes = b"", text: str = "") -> None:
    """An ``xclip`` that answers like one holding ``targets`` (an external tool, not ours)."""
    (folder / "clip.png").write_bytes(image)
    (folder / "clip.txt").write_text(text, encoding="utf-8")
    script = folder / "xclip"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "args = sys.argv[1:]\n"
        "if 'TARGETS' in args:\n"
        f"    print('\\n'.join({targets!r}))\n"
        "elif 'image/png' in args:\n"
        f"    sys.stdout.buffer.write(open({str(folder / 'clip.png')!r}, 'rb').read())\n"
        "else:\n"
        f"    sys.stdout.write(open({str(folder / 'clip.txt')!r}, encoding='utf-8').read())\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def path_with_only(tmp_path, monkeypatch):
    """PATH holds only a folder for fake tools (empty until a test adds one); returns it."""
    if sys.platform in ("darwin", "win32"):
        pytest.skip("these clipboard tools are the Linux route")
    tools = tmp_path / "tools"
    tools.mkdir()
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return tools
