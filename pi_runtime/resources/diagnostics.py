"""Problems found while loading resources, reported to the user instead of stopping pi."""

from __future__ import annotations

from pathlib import Path

from ..records import record


@record(frozen=True, slots=True)
class ResourceDiagnostic:
    """A resource that was skipped or loaded with a problem."""

    kind: str
    """What was being loaded: ``context``, ``skill``, ``prompt``, ``system``, ``trust``."""
    path: Path | None
    """The file or folder concerned."""
    message: str
    """What is wrong, in words a user can act on."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path is not None else self.message
