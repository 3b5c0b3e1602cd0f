"""Images for a model: converted to a format it takes and resized to fit Pi's limits.

As Pi's ``images.autoResize`` (on by default): an image larger than 2000 x 2000 pixels, or whose
base64 is 4.5 MB or more (headroom below Anthropic's 5 MB), is scaled down to fit (Lanczos),
encoded as PNG and as JPEG (quality 80) and the smaller kept; if neither fits, JPEG at lower
qualities (85, 70, 55, 40), then the size is cut by a quarter at a time. The model is told the
original size and the factor to map coordinates back. Formats models do not take (BMP) become
PNG. An image that cannot be decoded, or not made small enough, is left out with a note.

Pillow does the work; it is imported only when an image is processed (about 50 ms), so no
start-up pays for it.
"""

from __future__ import annotations

import base64
import io
from dataclasses import field
from typing import Any

from ..records import record

MAX_WIDTH = 2000
MAX_HEIGHT = 2000
MAX_BASE64_BYTES = int(4.5 * 1024 * 1024)
JPEG_QUALITY = 80
_QUALITY_STEPS = (80, 85, 70, 55, 40)
"""Pi's steps: the configured quality first, then the fixed ones (80 appears once)."""
SUPPORTED_MIME = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

OMITTED_CONVERT = "[Image omitted: could not be converted to a supported inline image format.]"
OMITTED_RESIZE = "[Image omitted: could not be resized below the inline image size limit.]"


@record(slots=True)
class ProcessedImage:
    """What goes to the model: the image (None when it is left out) and the notes about it."""

    data: str | None
    """Base64, or None when the image was left out (``hints`` then says why)."""
    mime_type: str
    hints: list[str] = field(default_factory=list)


def _base64_size(n: int) -> int:
    return (n + 2) // 3 * 4


def _encode(image: Any, fmt: str, quality: int | None = None) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        # JPEG has no alpha or palette: flatten onto white like an opaque export would.
        if image.mode in ("RGBA", "LA", "P", "PA"):
            from PIL import Image

            rgba = image.convert("RGBA")
            flat = Image.new("RGB", rgba.size, (255, 255, 255))
            flat.paste(rgba, mask=rgba.getchannel("A"))
            image = flat
        elif image.mode != "RGB":
            image = image.convert("RGB")
        image.save(out, "JPEG", quality=quality)
    else:
        image.save(out, "PNG")
    return out.getvalue()


def _fit(width: int, height: int) -> tuple[int, int]:
    if width > MAX_WIDTH:
        height, width = round(height * MAX_WIDTH / width), MAX_WIDTH
    if height > MAX_HEIGHT:
        width, height = round(width * MAX_HEIGHT / height), MAX_HEIGHT
    return max(1, width), max(1, height)


def _shrink(image: Any, data: bytes, mime: str) -> tuple[bytes, str, int, int] | None:
    """Pi's search for the largest encoding under the byte limit; None when there is none."""
    from PIL import Image

    width, height = _fit(*image.size)
    while True:
        resized = image.resize((width, height), Image.Resampling.LANCZOS)
        png = _encode(resized, "PNG")
        jpeg = _encode(resized, "JPEG", JPEG_QUALITY)
        ordered = [(jpeg, "image/jpeg"), (png, "image/png")] if len(jpeg) < len(png) else [
            (png, "image/png"), (jpeg, "image/jpeg")]
        for quality in _QUALITY_STEPS[1:]:
            ordered.append((_encode(resized, "JPEG", quality), "image/jpeg"))
        for candidate, candidate_mime in ordered:
            if _base64_size(len(candidate)) < MAX_BASE64_BYTES:
                return candidate, candidate_mime, width, height
        if width == 1 and height == 1:
            return None
        next_w = 1 if width == 1 else max(1, width * 3 // 4)
        next_h = 1 if height == 1 else max(1, height * 3 // 4)
        if (next_w, next_h) == (width, height):
            return None
        width, height = next_w, next_h


def process_image(data: bytes, mime: str, *, auto_resize: bool = True) -> ProcessedImage:
    """Make ``data`` (an image of type ``mime``) fit to send to a model.

    Args:
        data: The image file's bytes.
        mime: Its detected type.
        auto_resize: Resize to Pi's limits (the ``images.autoResize`` setting).

    Returns:
        The image to send (or None with a note saying why not) and Pi's hints.
    """
    if not auto_resize and mime in SUPPORTED_MIME:
        return ProcessedImage(base64.b64encode(data).decode("ascii"), mime)  # sent as it is, as Pi does
    try:
        from PIL import Image, ImageOps
    except ImportError:  # a broken install: send the image as it is, as before resizing existed
        return ProcessedImage(base64.b64encode(data).decode("ascii"), mime)
    hints: list[str] = []
    image: Any
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Exception:  # noqa: BLE001 - Pillow raises many kinds for a damaged or unknown file
        return ProcessedImage(None, mime, [OMITTED_CONVERT if mime not in SUPPORTED_MIME else OMITTED_RESIZE])
    if mime not in SUPPORTED_MIME:
        try:
            data = _encode(image, "PNG")
        except Exception:  # noqa: BLE001 - as above
            return ProcessedImage(None, mime, [OMITTED_CONVERT])
        hints.append(f"[Image converted from {mime} to image/png.]")
        mime = "image/png"
    if not auto_resize:
        return ProcessedImage(base64.b64encode(data).decode("ascii"), mime, hints)
    image = ImageOps.exif_transpose(image)  # sizes as the picture is seen, like Pi
    width, height = image.size
    if width <= MAX_WIDTH and height <= MAX_HEIGHT and _base64_size(len(data)) < MAX_BASE64_BYTES:
        return ProcessedImage(base64.b64encode(data).decode("ascii"), mime, hints)
    try:
        shrunk = _shrink(image, data, mime)
    except Exception:  # noqa: BLE001 - as above
        shrunk = None
    if shrunk is None:
        return ProcessedImage(None, mime, [OMITTED_RESIZE])
    out, out_mime, new_w, new_h = shrunk
    if out_mime != mime and hints:
        hints[0] = hints[0].replace("to image/png.", f"to {out_mime}.")
    hints.append(f"[Image: original {width}x{height}, displayed at {new_w}x{new_h}. "
                 f"Multiply coordinates by {width / new_w:.2f} to map to original image.]")
    return ProcessedImage(base64.b64encode(out).decode("ascii"), out_mime, hints)


IMAGES_BLOCKED = "Image reading is disabled."


def without_images(messages: list[Any]) -> list[Any]:
    """``images.blockImages``: every image in a user or tool-result message becomes Pi's note.

    Consecutive notes are folded into one. The stored messages are not changed, only what
    this request sends, so turning the setting off sends the images again. Messages may be
    objects or the session file's dicts (a resumed transcript sent as it is stored).
    """
    from ..ai.types import TextContent

    def field(item: Any, name: str) -> Any:
        return item.get(name) if isinstance(item, dict) else getattr(item, name, None)

    out: list[Any] = []
    for message in messages:
        content = field(message, "content")
        if field(message, "role") not in ("user", "toolResult") or not isinstance(content, list) or not any(
                field(block, "type") == "image" for block in content):
            out.append(message)
            continue
        as_dicts = isinstance(message, dict)
        blocks: list[Any] = []
        for block in content:
            if field(block, "type") == "image":
                if blocks and field(blocks[-1], "text") == IMAGES_BLOCKED:
                    continue
                block = {"type": "text", "text": IMAGES_BLOCKED} if as_dicts else TextContent(text=IMAGES_BLOCKED)
            elif field(block, "text") == IMAGES_BLOCKED and blocks and field(blocks[-1], "text") == IMAGES_BLOCKED:
                continue
            blocks.append(block)
        out.append({**message, "content": blocks} if as_dicts else message.model_copy(update={"content": blocks}))
    return out
