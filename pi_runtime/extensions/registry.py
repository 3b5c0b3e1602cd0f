"""What extensions registered besides handlers and tools: commands, shortcuts, flags, the event bus.

Kept apart from :mod:`.runner` so the dispatch core stays small; :class:`RegistryMixin`
is part of ``ExtensionRunner``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..background import spawn
from .loader import summarize_error

if TYPE_CHECKING:
    from .runner import Extension, ExtensionRunner


@dataclass
class Command:
    """A slash command registered by an extension."""

    name: str
    handler: Callable[..., Any]
    extension: Extension
    description: str = ""
    get_argument_completions: Callable[[str], Any] | None = None


@dataclass
class Shortcut:
    """A key binding registered by an extension (the app binds it)."""

    key: str
    handler: Callable[..., Any]
    extension: Extension
    description: str = ""


class RegistryMixin:
    def settings_dict(self: ExtensionRunner) -> dict[str, Any]:
        """The effective settings in file form (an empty dict without settings)."""
        data = getattr(self.settings, "settings", None)
        return data.model_dump(by_alias=True) if data is not None else {}

    def commands(self: ExtensionRunner) -> dict[str, Command]:
        """Invocable name -> command. A name two extensions share becomes ``name:1``, ``name:2``."""
        counts: dict[str, int] = {}
        for ext in self.extensions:
            for name in ext.commands:
                counts[name] = counts.get(name, 0) + 1
        out: dict[str, Command] = {}
        seen: dict[str, int] = {}
        for ext in self.extensions:
            for name, command in ext.commands.items():
                if counts[name] > 1:
                    seen[name] = seen.get(name, 0) + 1
                    out[f"{name}:{seen[name]}"] = command
                else:
                    out[name] = command
        return out

    def get_commands(self: ExtensionRunner) -> list[dict[str, Any]]:
        """Commands for ``get_commands`` / autocompletion (Pi's shape)."""
        return [
            {"name": name, "description": c.description, "source": "extension",
             "sourceInfo": {"path": c.extension.path, "source": c.extension.scope}}
            for name, c in self.commands().items()
        ]

    async def complete_command(self: ExtensionRunner, name: str, prefix: str) -> list[Any] | None:
        """Argument completions for ``/name prefix`` (None when there are none)."""
        command = self.commands().get(name)
        if command is None or command.get_argument_completions is None:
            return None
        try:
            items = command.get_argument_completions(prefix)
            if inspect.isawaitable(items):
                items = await items
        except Exception as exc:  # noqa: BLE001
            await self.report_error(command.extension.path, f"complete:{name}", summarize_error(exc))
            return None
        return list(items) if items else None

    async def run_command(self: ExtensionRunner, name: str, args: str = "") -> bool:
        """Run ``/name args``. Returns False when no such command exists."""
        command = self.commands().get(name)
        if command is None:
            return False
        try:
            result = command.handler(args, self.command_context(command.extension))
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # noqa: BLE001 - reported; the prompt still counts as handled
            await self.report_error(command.extension.path, f"command:{name}", summarize_error(exc, command.extension.path))
        return True

    def shortcuts(self: ExtensionRunner) -> dict[str, Shortcut]:
        """Key -> shortcut (a later extension's binding for the same key wins)."""
        return {key: s for ext in self.extensions for key, s in ext.shortcuts.items()}

    async def run_shortcut(self: ExtensionRunner, key: str) -> bool:
        """Run the handler bound to ``key``. Returns False when none is."""
        shortcut = self.shortcuts().get(key)
        if shortcut is None:
            return False
        try:
            await self.call(shortcut.extension, shortcut.handler)
        except Exception as exc:  # noqa: BLE001
            await self.report_error(shortcut.extension.path, f"shortcut:{key}", summarize_error(exc))
        return True

    def flags(self: ExtensionRunner) -> dict[str, dict[str, Any]]:
        """Flag name -> definition (``description``, ``type``, ``default``, ``value``)."""
        return {name: spec for ext in self.extensions for name, spec in ext.flags.items()}

    def set_flag_values(self: ExtensionRunner, values: dict[str, Any]) -> None:
        """Values for registered flags, from the command line."""
        for ext in self.extensions:
            for name, spec in ext.flags.items():
                if name in values:
                    spec["value"] = values[name]

    def registered_tools(self: ExtensionRunner) -> list[Any]:
        """Tools registered by extensions, in load order (a later registration of a name wins)."""
        merged: dict[str, Any] = {}
        for ext in self.extensions:
            merged.update(ext.tools)
        return list(merged.values())



class EventBus:
    """``pi.events``: a channel extensions use to talk to each other."""

    def __init__(self, runner: ExtensionRunner) -> None:
        self._runner = runner
        self._listeners: dict[str, list[Callable[[Any], Any]]] = {}

    def on(self, name: str, listener: Callable[[Any], Any]) -> Callable[[], None]:
        """Listen to ``name``. Returns an unsubscriber."""
        self._listeners.setdefault(name, []).append(listener)

        def off() -> None:
            if listener in self._listeners.get(name, []):
                self._listeners[name].remove(listener)

        return off

    def emit(self, name: str, data: Any = None) -> None:
        """Call every listener of ``name`` (async ones are scheduled); failures are reported."""
        for listener in list(self._listeners.get(name, [])):
            try:
                result = listener(data)
                if inspect.isawaitable(result):
                    spawn(result, name=f"listener:{name}")
            except Exception as exc:  # noqa: BLE001
                self._runner.report_error_soon("(events)", f"events:{name}", summarize_error(exc))
