"""Names a module exports on first use, listed once: in its ``if TYPE_CHECKING:`` imports.

mypy reads those imports as the module's names and their types; at run time nothing under
``TYPE_CHECKING`` runs, so the first lookup reads the same block from the module's source
(with ``ast``) to learn where each name lives. Importing the module thus costs nothing, and
the names mypy checks are exactly the names it exports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


class LazyExports:
    """The ``__getattr__`` and ``__dir__`` of a module whose exports load on first use."""

    def __init__(self, module_name: str) -> None:
        self.module_name = module_name
        self._where: dict[str, str] | None = None

    def hooks(self) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
        return self.attribute, self.names

    def attribute(self, name: str) -> Any:
        if name == "__all__":
            return sorted(self.where())
        source = self.where().get(name)
        if source is None:
            raise AttributeError(f"module {self.module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        vars(sys.modules[self.module_name])[name] = value  # later lookups skip this hook
        return value

    def names(self) -> list[str]:
        return sorted(set(vars(sys.modules[self.module_name])) | set(self.where()))

    def where(self) -> dict[str, str]:
        """Exported name → the module it comes from."""
        if self._where is None:
            self._where = exports_of(self.module_name)
        return self._where


def exports_of(module_name: str) -> dict[str, str]:
    """Every name imported under the module's top-level ``if TYPE_CHECKING:`` (absolute
    ``from ... import`` statements), with the module it comes from."""
    import ast

    spec = sys.modules[module_name].__spec__
    get_source = getattr(spec and spec.loader, "get_source", None)
    source = get_source(module_name) if get_source else None
    if source is None:
        raise ImportError(f"{module_name} lists its names in its source, which is not installed")
    where: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                    where.update((alias.asname or alias.name, statement.module) for alias in statement.names)
    return where
