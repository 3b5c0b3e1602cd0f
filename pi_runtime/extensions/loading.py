"""``ExtensionLoading``: importing extensions and running their factories, and doing it again on reload.

It owns where the extensions came from (the discovery parameters, or the explicit sources an
SDK user passed) so ``/reload`` can load the same set afresh. Nothing here raises for a bad
extension: import errors, a missing ``extension(pi)``, a failing factory, even ``SystemExit``
or ``KeyboardInterrupt`` at module level become load failures, reported like any other.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from ..records import record
from .loader import ExtensionSource, LoadFailure, describe_load_error, discover_extensions, import_extension
from .provider import ProviderRegistrations
from .registry import Extension, ExtensionRegistry
from .reporter import ErrorReporter


@record
class Discovery:
    """What ``ExtensionRunner.discover`` was asked to find."""

    cwd: str
    agent_dir: str
    settings: Any
    project_trusted: bool
    paths: list[str]
    no_extensions: bool


class ExtensionLoading:
    """Loads extensions into a registry.

    Args:
        registry: Where loaded extensions go.
        reporter: Where load failures go.
        providers: Providers of a failed factory are taken back.
        make_api: Builds the ``pi`` object for an extension.
    """

    def __init__(self, registry: ExtensionRegistry, reporter: ErrorReporter, providers: ProviderRegistrations,
                 make_api: Callable[[Extension], Any]) -> None:
        self._registry = registry
        self._reporter = reporter
        self._providers = providers
        self._make_api = make_api
        self.discovery: Discovery | None = None
        self.on_failed: Callable[[str], None] | None = None
        """Told the path of an extension whose factory failed (its registrations are taken back)."""
        self._sources: list[ExtensionSource] = []

    def discover(self, discovery: Discovery) -> None:
        """Find the extensions for a folder (see :mod:`.loader`) and load them."""
        self.discovery = discovery
        sources, failures = discover_extensions(
            discovery.cwd, discovery.agent_dir, settings=discovery.settings, project_trusted=discovery.project_trusted,
            paths=discovery.paths, no_extensions=discovery.no_extensions,
        )
        for failure in failures:
            self._reporter.load_failed(failure)
        self.load(sources)

    def load(self, sources: Iterable[ExtensionSource | str]) -> None:
        """Import each source and run its ``extension(pi)``; failures are recorded, never raised."""
        for source in sources:
            if isinstance(source, str):
                source = ExtensionSource(source, "sdk")
            self._sources.append(source)
            try:
                module = import_extension(source.path)
                factory = getattr(module, "extension", None)
                if not callable(factory):
                    raise TypeError("the module defines no 'extension(pi)' function")
            except BaseException as exc:  # noqa: BLE001 - SystemExit/KeyboardInterrupt at import: contained
                self._reporter.load_failed(LoadFailure(source.path, describe_load_error(exc, source.path)))
                continue
            self.add(factory, source.path, source.scope)

    def add(self, factory: Callable[[Any], Any], path: str, scope: str = "sdk") -> Extension | None:
        """Run one factory (a module's ``extension`` or an inline function). Returns None when it failed."""
        ext = Extension(path, scope)
        try:
            result = factory(self._make_api(ext))
        except BaseException as exc:  # noqa: BLE001 - a broken extension is skipped, pi starts anyway
            self._providers.unregister_owner(path)
            if self.on_failed is not None:
                self.on_failed(path)
            self._reporter.load_failed(LoadFailure(path, describe_load_error(exc, path)))
            return None
        if inspect.isawaitable(result):
            ext.pending_init = result
        self._registry.add(ext)
        return ext

    def load_again(self) -> None:
        """Load the same extensions afresh (the caller has cleared the registry and the modules)."""
        sources, self._sources = self._sources, []
        if self.discovery is not None:
            self.discover(self.discovery)
        else:
            self.load(sources)
