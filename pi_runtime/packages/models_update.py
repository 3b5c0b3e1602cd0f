"""``pi update --models``: refresh the live model catalogues and say in one line how it went.

The work is ``pi_runtime.ai.catalog.refresh``; this is the command's face, with Pi's wording:
``Model catalogs refreshed`` on success, else one ``Error: Could not refresh model catalogs:
<provider>: <reason>; ...`` line and exit status 1. As in Pi, it asks the network even under
``PI_OFFLINE`` (it was asked for explicitly).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

Out = Callable[[str], None]


def update_models(agent_dir: Path, out: Out, error: Out, *, base_url: str | None = None) -> int:
    """Refresh every configured provider's catalogue into ``<agent_dir>/models-store.json``.

    Returns:
        0 when every configured provider's catalogue was refreshed, else 1.
    """
    from ..ai.catalog.refresh import refresh_catalogs
    from ..ai.catalog.store import store_path
    from ..ai.models import ModelRegistry
    from ..auth import AuthStorage

    registry = ModelRegistry(agent_dir / "models.json", AuthStorage(agent_dir / "auth.json"))
    result = asyncio.run(refresh_catalogs(registry, store_path(agent_dir), base_url=base_url))
    if result.timed_out:
        error("Error: Model catalog refresh timed out.")
        return 1
    if result.errors:
        reasons = "; ".join(f"{pid}: {why}" for pid, why in result.errors.items())
        error(f"Error: Could not refresh model catalogs: {reasons}")
        return 1
    out("Model catalogs refreshed")
    return 0
