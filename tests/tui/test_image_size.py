"""The size shown in place of an image is read from its header, for every type read takes."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from pi_tui.transcript.image_size import image_fallback, image_size


def encoded(fmt: str, size: tuple[int, int], **options) -> str:
    out = io.BytesIO()
    mode = "RGBA" if fmt == "WEBP" and options.pop("alpha", False) else "RGB"
    Image.new(mode, size, (10, 200, 30, 128)[: len(mode)]).save(out, fmt, **options)
    return base64.b64encode(out.getvalue()).decode()


@pytest.mark.parametrize(("fmt", "mime", "options"), [
    ("PNG", "image/png", {}),
    ("GIF", "image/gif", {}),
    ("BMP", "image/bmp", {}),
    ("JPEG", "image/jpeg", {}),
    ("JPEG", "image/jpeg", {"progressive": True, "exif": b"Exif\x00\x00" + b"\x00" * 3000}),
    ("WEBP", "image/webp", {"lossless": True}),
    ("WEBP", "image/webp", {"quality": 50}),
    ("WEBP", "image/webp", {"alpha": True, "quality": 50}),
])
def test_the_size_of_each_type(fmt, mime, options):
    assert image_size(encoded(fmt, (321, 123), **options), mime) == (321, 123)


def test_the_text_pi_shows_and_what_is_left_out_when_the_header_does_not_tell():
    assert image_fallback(encoded("PNG", (64, 48)), "image/png") == "[Image: [image/png] 64x48]"
    assert image_fallback("not base64 at all!", "image/png") == "[Image: [image/png]]"
    assert image_fallback(base64.b64encode(b"\xff\xd8\xff\xe0").decode(), "image/jpeg") == "[Image: [image/jpeg]]"
