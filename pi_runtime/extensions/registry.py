"""What the loaded extensions registered, and the queries hosts and the runner make of it.

:class:`ExtensionRegistry` owns the list of loaded :class:`Extension` records and nothing
else: handlers by event, commands (with Pi's ``name:1``/``name:2`` suffixes for clashes),
shortcuts, flags, tools, renderers and providers. It knows no session; the runner's other
parts ask it who handles what.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
from typing import Any

from ..records import record


@record
class Command:
    """A slash command registered by an extension."""

    name: str
    handler: Callable[..., Any]
    extension: Extension
    description: str = ""
    get_argument_completions: Callable[[str], Any] | None = None
    """``fn(prefix)`` -> completion items (strings or ``{"value", "label", "description"}``) or None."""


@record
class Shortcut:
    """A key binding registered by an extension; the app binds ``key`` and calls ``runner.run_shortcut``."""

    key: str
    """Pi's key format, e.g. ``ctrl+shift+p``."""
    handler: Callable[..., Any]
    extension: Extension
    description: str = ""


@record
class Flag:
    """A command-line flag registered by an extension (``--name``)."""

    name: str
    extension: Extension
    description: str = ""
    type: str = "boolean"
    """``boolean`` (present or not) or ``string`` (takes a value)."""
    default: Any = None
    value: Any = None
    """What the command line set; None until then."""
    is_set: bool = False

    @property
    def current(self) -> Any:
        """The command line's value when given, else the default."""
        return self.value if self.is_set else self.default


@record
class Extension:
    """One loaded extension and everything it registered."""

    path: str
    """Its file or package folder, or ``builtin:<name>``."""
    scope: str
    """``global``, ``project``, ``settings``, ``cli``, ``builtin`` or ``sdk``."""
    handlers: dict[str, list[Callable[..., Any]]] = field(default_factory=dict)
    tools: dict[str, Any] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    shortcuts: dict[str, Shortcut] = field(default_factory=dict)
    flags: dict[str, Flag] = field(default_factory=dict)
    message_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """``customType`` -> ``renderer(message, options, theme)`` for custom messages."""
    entry_renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """``customType`` -> ``renderer(entry, options, theme)`` for custom entries."""
    tool_renderers: list[Callable[..., Any]] = field(default_factory=list)
    """``resolver(tool_name, next)`` -> renderer dict or None (see ``ExtensionAPI.register_tool_renderer``)."""
    markdown_transformer: tuple[Callable[..., Any], frozenset[str] | None] | None = None
    providers: list[str] = field(default_factory=list)
    """Provider ids it registered (removed again on reload or ``unregister_provider``)."""
    pending_init: Any = None
    """An async factory's coroutine, awaited by the runner's ``start``."""


class ExtensionRegistry:
    """The loaded extensions, in load order, and what they registered."""

    def __init__(self) -> None:
        self.extensions: list[Extension] = []
        self._handled: set[str] = set()

    def __iter__(self) -> Iterator[Extension]:
        return iter(self.extensions)

    def __len__(self) -> int:
        return len(self.extensions)

    def add(self, ext: Extension) -> None:
        self.extensions.append(ext)
        self.refresh_handled()

    def clear(self) -> None:
        self.extensions.clear()
        self._handled.clear()

    # ------------------------------------------------------------------ handlers

    def refresh_handled(self) -> None:
        self._handled = {n for ext in self.extensions for n, hs in ext.handlers.items() if hs}

    def note_handler(self, name: str) -> None:
        self._handled.add(name)

    def has_handlers(self, name: str) -> bool:
        """Whether any extension handles ``name`` (cheap; asked on every streamed delta)."""
        return name in self._handled

    def handlers(self, name: str) -> list[tuple[Extension, Callable[..., Any]]]:
        """Handlers for ``name`` in load order, then registration order (a snapshot)."""
        if name not in self._handled:
            return []
        return [(ext, h) for ext in self.extensions for h in list(ext.handlers.get(name, ()))]

    # ------------------------------------------------------------------ commands, shortcuts, flags

    def commands(self) -> dict[str, Command]:
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

    def shortcuts(self) -> dict[str, Shortcut]:
        """Key -> shortcut (a later extension's binding for the same key wins)."""
        return {key: s for ext in self.extensions for key, s in ext.shortcuts.items()}

    def flags(self) -> dict[str, Flag]:
        """Flag name -> definition (a later extension's flag of the same name wins)."""
        return {name: flag for ext in self.extensions for name, flag in ext.flags.items()}

    # ------------------------------------------------------------------ tools and renderers

    def tools(self) -> list[Any]:
        """Tools registered by extensions, in load order (a later registration of a name wins)."""
        merged: dict[str, Any] = {}
        for ext in self.extensions:
            merged.update(ext.tools)
        return list(merged.values())

    def message_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        """The renderer for custom messages of ``custom_type`` (the last registration wins)."""
        found = None
        for ext in self.extensions:
            found = ext.message_renderers.get(custom_type, found)
        return found

    def entry_renderer(self, custom_type: str) -> Callable[..., Any] | None:
        """The renderer for custom entries of ``custom_type`` (the last registration wins)."""
        found = None
        for ext in self.extensions:
            found = ext.entry_renderers.get(custom_type, found)
        return found

    def tool_renderer(self, tool_name: str, registered: Any = None) -> Any:
        """What draws calls to ``tool_name``: resolvers in load order, each able to defer to ``next()``.

        Args:
            tool_name: The tool.
            registered: The tool's own render hints (``render_call``/``render_result``), the fallback.

        Returns:
            Whatever the first resolver returned, else ``registered``.
        """
        resolvers = [r for ext in self.extensions for r in ext.tool_renderers]

        def resolve(index: int) -> Any:
            if index >= len(resolvers):
                return registered
            return resolvers[index](tool_name, lambda: resolve(index + 1))

        return resolve(0)

    def markdown_transformers(self, message_type: str) -> list[Callable[..., Any]]:
        """Markdown transformers that run on ``message_type`` (``user``, ``assistant``...), in load order."""
        defaults = {"user", "assistant", "assistant-thinking"}
        out = []
        for ext in self.extensions:
            if ext.markdown_transformer is None:
                continue
            fn, types = ext.markdown_transformer
            if message_type in (types if types is not None else defaults):
                out.append(fn)
        return out
