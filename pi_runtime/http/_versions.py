"""httpx2 and httpcore2 without ``importlib.metadata``.

Both packages read their own version when they load (``version("httpx2")``,
``version("httpcore2")``), and importing ``importlib.metadata`` for that pulls in zipfile, csv and
importlib's resource readers, then parses their METADATA files (40 KB with the readmes). Measured
A/B over 40 alternating runs of ``pi -p``: 7-10 ms of its ~0.22 s of CPU, on the path to every
first request. Nothing else pi runs at start-up needs the module.

``loading_without_metadata`` lets the two packages load with a stand-in for the module that
answers ``version()`` for them from their ``.dist-info`` folder names, the way pip installs
them; anything else asked of it (another package's version, ``distributions()``, …) loads the
real module and is answered by it, so a thread that meets the stand-in meanwhile gets the same
answers. Once the packages have loaded, the stand-in is gone; when the real module is already
loaded, nothing is done at all.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_NAME = "importlib.metadata"
_lock = threading.RLock()


def _real() -> types.ModuleType:
    """The real ``importlib.metadata``, loaded now if needed (the stand-in steps aside first)."""
    with _lock:
        current = sys.modules.get(_NAME)
        if isinstance(current, _StandIn):
            del sys.modules[_NAME]
            if getattr(importlib, "metadata", None) is current:
                del importlib.metadata
        return importlib.import_module(_NAME)


def _normalized(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def dist_info_version(name: str) -> str | None:
    """The version in the first ``<name>-<version>.dist-info`` folder on ``sys.path`` (where
    ``importlib.metadata`` finds it too), read from its METADATA; None when there is none."""
    wanted = _normalized(name)
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            stem, dot, suffix = folder.rpartition(".")
            if not dot or suffix != "dist-info" or "-" not in stem:
                continue
            if _normalized(stem.split("-", 1)[0]) != wanted:
                continue
            try:
                with open(os.path.join(entry or ".", folder, "METADATA"), encoding="utf-8") as metadata:
                    for line in metadata:
                        if not line.strip():
                            break  # the headers end at the first blank line
                        if line.lower().startswith("version:"):
                            return line.split(":", 1)[1].strip()
            except OSError:
                pass
            return None
    return None


class _StandIn(types.ModuleType):
    """``importlib.metadata`` as far as the packages loading need it; the real module for the rest."""

    def __init__(self, packages: frozenset[str]) -> None:
        super().__init__(_NAME)
        self._packages = packages

    def version(self, distribution_name: str) -> str:
        if _normalized(distribution_name) in self._packages:
            found = dist_info_version(distribution_name)
            if found is not None:
                return found
        version: Any = _real().version
        return str(version(distribution_name))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real(), name)


@contextmanager
def loading_without_metadata(*packages: str) -> Iterator[None]:
    """While the block imports ``packages``, their ``version()`` lookups skip ``importlib.metadata``."""
    with _lock:
        if _NAME in sys.modules:
            installed = None
        else:
            installed = _StandIn(frozenset(_normalized(p) for p in packages))
            sys.modules[_NAME] = installed
            importlib.metadata = installed  # as an import would bind it
    try:
        yield
    finally:
        if installed is not None:
            with _lock:
                if sys.modules.get(_NAME) is installed:
                    del sys.modules[_NAME]
                if getattr(importlib, "metadata", None) is installed:
                    del importlib.metadata
