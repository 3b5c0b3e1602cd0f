"""Images attached to a prompt: recognising a dragged-in file, markers, and what is sent.

Dragging a file into a terminal pastes its path, spelled the terminal's way: plain,
quoted (GNOME Terminal), with backslash-escaped blanks (iTerm2) or as a ``file://`` URI
(kitty, some file managers). ``dropped_image_path`` undoes that. A file counts as an image
only when its extension is one we send *and* its first bytes say so, so a text file named
``.png`` is pasted as text.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

IMAGE_EXTENSIONS = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                    ".gif": "image/gif", ".webp": "image/webp"}
"""Extensions a dropped path may have to be read as an image."""
MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Larger files are refused: providers reject them long before this anyway."""

_MARKER = re.compile(r"\[image \d+: [^\]\n]*\]")


@dataclass(frozen=True)
class AttachedImage:
    """An image waiting in the editor for the prompt to be sent."""

    name: str
    """File name shown in the marker (``clipboard.png`` for a clipboard image)."""
    mime_type: str
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``."""
    data: bytes
    """The file's bytes."""

    def to_content(self) -> Any:
        """The kernel's ``ImageContent`` (base64 data and MIME type)."""
        from pi_runtime.frontend import ImageContent

        return ImageContent(data=base64.b64encode(self.data).decode("ascii"), mime_type=self.mime_type)


def dropped_image_path(text: str) -> str | None:
    """The absolute path ``text`` spells when it is one dropped image file, else None.

    Only absolute paths (``/``, ``~``, ``file://``) count: a terminal always drops absolute
    ones, and a relative name the user pastes is more likely meant as text.
    """
    raw = text.strip()
    if not raw or "\n" in raw:
        return None
    if raw.startswith("file://"):
        parsed = urlparse(raw)
        if parsed.netloc not in ("", "localhost"):
            return None
        path = unquote(parsed.path)
    elif len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        path = raw[1:-1]
    elif os.name != "nt":
        path = re.sub(r"\\(.)", r"\1", raw)  # iTerm2 and others escape blanks and quotes
    else:
        path = raw
    path = os.path.expanduser(path)
    if not os.path.isabs(path) or os.path.splitext(path)[1].lower() not in IMAGE_EXTENSIONS:
        return None
    return path if os.path.isfile(path) else None


def load_image(path: str) -> AttachedImage | str:
    """The image at ``path``, or a one-line reason it cannot be attached."""
    try:
        size = os.path.getsize(path)
        if size > MAX_IMAGE_BYTES:
            return f"{os.path.basename(path)} is too large to attach ({format_size(size)})"
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return f"Cannot read {path}: {exc.strerror or exc}"
    mime = _mime(data[:16])
    if mime is None:
        return f"{os.path.basename(path)} is not a PNG, JPEG, GIF or WebP image"
    return AttachedImage(os.path.basename(path), mime, data)


def _mime(head: bytes) -> str | None:
    # The read tool's check, so pi has one list of image types; imported here, not at the top,
    # because this module loads with the app and the tools must not slow its first frame.
    from pi_runtime.frontend.app_support import detect_image_mime

    return detect_image_mime(head)


def image_from_bytes(data: bytes, name_stem: str = "clipboard") -> AttachedImage | None:
    """Clipboard bytes as an attachment (None when they are not an image we send)."""
    mime = _mime(data[:16])
    if mime is None:
        return None
    extension = {"image/jpeg": "jpg"}.get(mime, mime.split("/")[1])
    return AttachedImage(f"{name_stem}.{extension}", mime, data)


def marker(image: AttachedImage, number: int) -> str:
    """The placeholder put in the editor for image number ``number``."""
    # "]" and newlines would end the marker early; the name is only a label.
    name = image.name.replace("]", ")").replace("\n", " ")
    return f"[image {number}: {name}]"


def images_in(text: str, images: dict[str, AttachedImage]) -> list[AttachedImage]:
    """The attached images whose markers are still in ``text``, in the order they appear.

    A marker deleted by the user drops its image; one typed twice sends the image once.
    """
    out: list[AttachedImage] = []
    for found in _MARKER.finditer(text):
        image = images.get(found.group(0))
        if image is not None and not any(image is seen for seen in out):
            out.append(image)
    return out


def format_size(size: int) -> str:
    """``512 B``, ``12 KB``, ``1.4 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def describe_content(block: object) -> str:
    """A sent ``ImageContent`` block as one transcript line, e.g. ``[image/png 12 KB]``."""
    data = getattr(block, "data", "") or ""
    # Base64 carries 3 bytes in every 4 characters, minus the padding.
    size = len(data) * 3 // 4 - data[-2:].count("=")
    return f"[{getattr(block, 'mime_type', 'image')} {format_size(max(size, 0))}]"
