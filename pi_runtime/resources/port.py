"""``ResourceLoaderPort``: the resource loader as a session and its front ends hold it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .loader import Resources


class ResourceLoaderPort(Protocol):
    """Skills, prompt templates, context files and the system prompt's texts of one folder."""

    @property
    def resources(self) -> Resources:
        """What is loaded now."""

    def reload(self) -> Resources:
        """Read everything again from disk (``/reload``); returns what is loaded then."""
