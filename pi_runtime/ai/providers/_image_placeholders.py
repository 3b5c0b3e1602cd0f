"""Images for a model that takes none: each run of images becomes one line of text (Pi's words).

Shared by the wire APIs whose messages hold pi's own content blocks (Anthropic, the Responses
family, Mistral); the chat-completions converter works on its own block type.
"""

from __future__ import annotations

from typing import Any

from ..types import ImageContent, TextContent


def images_as_placeholders(content: list[Any], placeholder: str) -> list[Any]:
    """``content`` with every image replaced by ``placeholder``, never two placeholders in a row."""
    out: list[Any] = []
    for block in content:
        if not isinstance(block, ImageContent):
            out.append(block)
        elif not (out and isinstance(out[-1], TextContent) and out[-1].text == placeholder):
            out.append(TextContent(text=placeholder))
    return out
