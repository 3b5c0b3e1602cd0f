"""An image's size in pixels read from its first bytes, for the text shown in place of an image.

The terminal pi draws in shows no pictures, so an image in a tool result is shown as Pi shows it
in such a terminal: ``[Image: [image/png] 64x48]``. Only the header is decoded (a few dozen bytes
of the base64 data, more for a JPEG whose size comes after its metadata), never the picture.
"""

from __future__ import annotations

import base64
import binascii

_JPEG_SCAN_BYTES = 65536
"""How far into a JPEG to look for the frame header (EXIF thumbnails come before it)."""


def image_fallback(data: str, mime_type: str) -> str:
    """Pi's text for an image a terminal cannot show: its type and, when the header tells, its size."""
    size = image_size(data, mime_type)
    return f"[Image: [{mime_type}] {size[0]}x{size[1]}]" if size else f"[Image: [{mime_type}]]"


def image_size(data: str, mime_type: str) -> tuple[int, int] | None:
    """Width and height of the base64 image ``data``, or None when its header does not say."""
    wanted = _JPEG_SCAN_BYTES if mime_type == "image/jpeg" else 32
    chunk = data[: (wanted + 2) // 3 * 4]
    try:
        head = base64.b64decode(chunk + "=" * (-len(chunk) % 4))
    except (binascii.Error, ValueError):
        return None
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head.startswith((b"GIF87a", b"GIF89a")) and len(head) >= 10:
        return int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little")
    if head.startswith(b"BM") and len(head) >= 26:
        return int.from_bytes(head[18:22], "little", signed=True), abs(
            int.from_bytes(head[22:26], "little", signed=True))
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        return _webp_size(head)
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(head)
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    kind = head[12:16]
    if kind == b"VP8X":  # 24-bit sizes, minus one
        return int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1
    if kind == b"VP8L":  # 14 bits each, minus one, after the signature byte
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8 ":  # a key frame's 14-bit sizes after its start code
        return int.from_bytes(head[26:28], "little") & 0x3FFF, int.from_bytes(head[28:30], "little") & 0x3FFF
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 9 < len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # padding before a marker
            at += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            at += 2
            continue
        length = int.from_bytes(head[at + 2:at + 4], "big")
        # Start-of-frame markers (all but DHT, JPG and DAC) carry the height, then the width.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(head[at + 7:at + 9], "big"), int.from_bytes(head[at + 5:at + 7], "big")
        at += 2 + length
    return None
