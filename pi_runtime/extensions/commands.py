"""``Commands``: running extension commands and shortcuts, completing arguments, listing commands.

``list_commands`` is Pi's ``get_commands`` list: extension commands first, then prompt
templates, then skills (``skill:<name>``), each with ``source`` and ``sourceInfo``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dispatch import Dispatcher
from .registry import Command, Extension, ExtensionRegistry
from .reporter import ErrorReporter

_SCOPE = {"user": "user", "project": "project", "path": "temporary"}
_SOURCE = {"user": "auto", "project": "auto", "path": "cli"}


def resource_commands(resources: Any) -> list[dict[str, Any]]:
    """Prompt templates, then skills, as ``get_commands`` entries (Pi's shape)."""
    out: list[dict[str, Any]] = []
    for template in getattr(resources, "prompt_templates", None) or []:
        out.append({
            "name": template.name, "description": template.description, "source": "prompt",
            "sourceInfo": {"path": str(template.file_path), "source": _SOURCE.get(template.source, "local"),
                           "scope": _SCOPE.get(template.source, "user"), "origin": "top-level"},
        })
    for skill in getattr(resources, "skills", None) or []:
        out.append({
            "name": f"skill:{skill.name}", "description": skill.description, "source": "skill",
            "sourceInfo": {"path": str(skill.file_path), "source": _SOURCE.get(skill.source, "local"),
                           "scope": _SCOPE.get(skill.source, "user"), "origin": "top-level"},
        })
    return out


def _extension_source_info(path: str, scope: str) -> dict[str, str]:
    """Pi's ``sourceInfo`` for an extension loaded from ``scope`` (where the loader found it)."""
    source = {"global": "auto", "project": "auto", "cli": "cli", "settings": "local"}.get(scope, scope)
    where = {"global": "user", "project": "project", "settings": "user"}.get(scope, "temporary")
    return {"path": path, "source": source, "scope": where, "origin": "top-level"}


class Commands:
    """Extension commands and shortcuts of one runner.

    Args:
        registry: What was registered.
        dispatcher: Calls handlers safely (commands and shortcuts are never aborted or timed out).
        reporter: Where a failing argument completion goes.
        command_context: ``ctx`` for a command handler of an extension.
        resources: The session's current resources (templates, skills), or None.
    """

    def __init__(
        self,
        registry: ExtensionRegistry,
        dispatcher: Dispatcher,
        reporter: ErrorReporter,
        command_context: Callable[[Extension], Any],
        resources: Callable[[], Any],
    ) -> None:
        self._registry = registry
        self._dispatcher = dispatcher
        self._reporter = reporter
        self._command_context = command_context
        self._resources = resources

    def list_commands(self) -> list[dict[str, Any]]:
        """Everything invocable through ``prompt``: extension commands, templates, skills (Pi's order)."""
        out = [
            {"name": name, "description": c.description, "source": "extension",
             "sourceInfo": _extension_source_info(c.extension.path, c.extension.scope)}
            for name, c in self._registry.commands().items()
        ]
        return out + resource_commands(self._resources())

    def find(self, name: str) -> Command | None:
        return self._registry.commands().get(name)

    async def complete(self, name: str, prefix: str) -> list[Any] | None:
        """Argument completions for ``/name prefix`` (None when there are none)."""
        command = self.find(name)
        if command is None or command.get_argument_completions is None:
            return None
        outcome = await self._dispatcher.call(
            command.extension, command.get_argument_completions, (prefix,), event=f"complete:{name}",
            ctx=self._command_context(command.extension), abortable=False)
        items = outcome.value
        if outcome.failed or not items:
            return None
        try:
            return list(items)
        except TypeError:
            await self._reporter.report(command.extension.path, f"complete:{name}",
                                        f"ResultShapeError: completions must be a list, not {type(items).__name__}")
            return None

    async def run(self, name: str, args: str = "") -> bool:
        """Run ``/name args``. Returns False when no such command exists (a failure still counts as run)."""
        command = self.find(name)
        if command is None:
            return False
        await self._dispatcher.call(command.extension, command.handler, (args,), event=f"command:{name}",
                                    ctx=self._command_context(command.extension), abortable=False, timeout=None)
        return True

    async def run_shortcut(self, key: str) -> bool:
        """Run the handler bound to ``key``. Returns False when none is."""
        shortcut = self._registry.shortcuts().get(key)
        if shortcut is None:
            return False
        await self._dispatcher.call(shortcut.extension, shortcut.handler, (), event=f"shortcut:{key}",
                                    ctx=self._command_context(shortcut.extension), abortable=False, timeout=None)
        return True
