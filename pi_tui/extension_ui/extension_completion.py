"""``ctx.ui.add_autocomplete_provider``: extensions' completion, stacked on pi's as in Pi.

Each factory gets ``current`` (the provider below it; pi's own at the bottom) and returns a
provider: an object or dict with ``trigger_characters`` (e.g. ``["#"]``), ``get_suggestions(lines,
cursor_line, cursor_col, options)`` (sync or async) returning ``{"prefix": str, "items": [...]}``
or None, and optionally ``apply_completion(lines, cursor_line, cursor_col, item, prefix)``
returning ``{"lines", "cursor_line", "cursor_col"}`` (else ``current``'s is used). Items are
``{"value", "label", "description"}`` dicts or strings. The stack is asked when the word before
the cursor starts with one of the extensions' trigger characters, and on Tab (``options["force"]``;
pi's path completion runs when no provider answers); its answer is shown in the app's menu.
``options["signal"]`` is aborted once a newer request starts. Before
Tab asks, ``should_trigger_file_completion(lines, cursor_line, cursor_col)`` (optional, Pi's
``shouldTriggerFileCompletion``) may say False: then Tab completes nothing there. A provider that
raises counts as no suggestions (it is logged).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from pi_runtime.frontend import AbortController

from ..editor.completion import file_completions, slash_completions

log = logging.getLogger("pi.extensions")

Suggestions = dict[str, Any]


def _part(provider: Any, name: str) -> Any:
    return provider.get(name) if isinstance(provider, dict) else getattr(provider, name, None)


async def _settle(value: Any) -> Any:
    # A sync provider may return current's coroutine; an async one may return it un-awaited.
    while inspect.isawaitable(value):
        value = await value
    return value


def replace_prefix(lines: list[str], cursor_line: int, cursor_col: int, item: Any, prefix: str) -> dict[str, Any]:
    """Pi's default: ``prefix`` (the text just before the cursor) becomes the item's value and a
    space (none after a folder, which is continued)."""
    value = item.get("value", "") if isinstance(item, dict) else str(item)
    line = lines[cursor_line] if cursor_line < len(lines) else ""
    start = max(0, cursor_col - len(prefix))
    inserted = value + ("" if value.endswith("/") else " ")
    new = list(lines)
    new[cursor_line] = line[:start] + inserted + line[cursor_col:]
    return {"lines": new, "cursor_line": cursor_line, "cursor_col": start + len(inserted)}


class BuiltinProvider:
    """pi's completion (``/`` commands on the first line, ``@`` files) as the ``current`` an
    extension's provider falls back to."""

    trigger_characters = ["/", "@"]

    def __init__(self, commands: Callable[[], list[tuple[str, str]]], files: Callable[[], list[str] | None]) -> None:
        self._commands = commands
        self._files = files

    async def get_suggestions(self, lines: list[str], cursor_line: int, cursor_col: int,
                              options: Any = None) -> Suggestions | None:
        if isinstance(options, dict) and options.get("force"):
            return None  # Tab: pi's own path completion answers it (see CompletionController)
        line = lines[cursor_line] if cursor_line < len(lines) else ""
        before = line[:cursor_col]
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        token = before[start:]
        if cursor_line == 0 and start == 0 and token.startswith("/"):
            found = slash_completions(token[1:], self._commands())
        elif token.startswith("@"):
            found = file_completions(token[1:], self._files() or [])
        else:
            return None
        items = [{"value": c.value, "label": c.label, "description": c.description} for c in found]
        return {"prefix": token, "items": items} if items else None

    def apply_completion(self, lines: list[str], cursor_line: int, cursor_col: int, item: Any,
                         prefix: str) -> dict[str, Any]:
        return replace_prefix(lines, cursor_line, cursor_col, item, prefix)

    def should_trigger_file_completion(self, lines: list[str], cursor_line: int, cursor_col: int) -> bool:
        # As Pi's: a slash command being typed at the start of the line is not a path.
        before = (lines[cursor_line] if cursor_line < len(lines) else "")[:cursor_col].strip()
        return not (before.startswith("/") and " " not in before)


class StackedProvider:
    """An extension's provider with Pi's methods always there (what the next factory gets as ``current``)."""

    def __init__(self, provider: Any, below: Any) -> None:
        self._provider = provider
        self._below = below
        triggers = _part(provider, "trigger_characters") or []
        self.trigger_characters = [str(t) for t in triggers if t]

    async def get_suggestions(self, lines: list[str], cursor_line: int, cursor_col: int,
                              options: Any = None) -> Suggestions | None:
        fn = _part(self._provider, "get_suggestions")
        if not callable(fn):
            return await _settle(self._below.get_suggestions(lines, cursor_line, cursor_col, options))
        return await _settle(fn(lines, cursor_line, cursor_col, options))

    def apply_completion(self, lines: list[str], cursor_line: int, cursor_col: int, item: Any,
                         prefix: str) -> dict[str, Any]:
        fn = _part(self._provider, "apply_completion")
        if not callable(fn):
            fn = self._below.apply_completion
        return fn(lines, cursor_line, cursor_col, item, prefix)

    def should_trigger_file_completion(self, lines: list[str], cursor_line: int, cursor_col: int) -> bool:
        fn = _part(self._provider, "should_trigger_file_completion")
        if callable(fn):
            return bool(fn(lines, cursor_line, cursor_col))
        return bool(self._below.should_trigger_file_completion(lines, cursor_line, cursor_col))


class ProviderStack:
    """The providers extensions added, newest on top."""

    def __init__(self, base: BuiltinProvider) -> None:
        self.top: Any = base
        self.triggers: set[str] = set()
        """Trigger characters the extensions' providers declared."""
        self._asking: AbortController | None = None
        """The request in flight; a newer one aborts it (Pi's ``options.signal``)."""

    def add(self, factory: Callable[[Any], Any]) -> None:
        provider = factory(self.top)
        if provider is None:
            return
        stacked = StackedProvider(provider, self.top)
        self.top = stacked
        self.triggers.update(stacked.trigger_characters)

    def wants(self, token: str) -> bool:
        """Whether the word before the cursor is one for the extensions' providers."""
        return bool(token) and any(token.startswith(t) for t in self.triggers)

    async def suggest(self, lines: list[str], cursor_line: int, cursor_col: int, *,
                      force: bool = False) -> Suggestions | None:
        """The stack's answer; ``force`` (Tab) asks whatever the word is, as Pi's Tab does.

        ``options["signal"]`` is Pi's: it is aborted when a newer request starts (the user typed
        on), so a slow provider can stop and fall back, as Pi's GitHub-issue example does.
        """
        if self._asking is not None:
            self._asking.abort()
        self._asking = controller = AbortController()
        try:
            result = await self.top.get_suggestions(lines, cursor_line, cursor_col,
                                                    {"force": force, "signal": controller.signal})
        except Exception:
            log.exception("autocomplete provider failed")
            return None
        if not isinstance(result, dict) or not isinstance(result.get("items"), list):
            return None
        return result

    def wants_tab(self, lines: list[str], cursor_line: int, cursor_col: int) -> bool:
        """Whether Tab here should complete (``should_trigger_file_completion`` down the stack; a
        provider that raises is logged and does not take Tab away)."""
        try:
            return bool(self.top.should_trigger_file_completion(lines, cursor_line, cursor_col))
        except Exception:
            log.exception("autocomplete provider failed in should_trigger_file_completion")
            return True

    def apply(self, lines: list[str], cursor_line: int, cursor_col: int, item: Any, prefix: str) -> dict[str, Any]:
        """The text after choosing ``item`` (Pi's default when the provider's own fails)."""
        try:
            result = self.top.apply_completion(lines, cursor_line, cursor_col, item, prefix)
            if isinstance(result, dict) and isinstance(result.get("lines"), list):
                return result
        except Exception:
            log.exception("autocomplete provider failed to apply a completion")
        return replace_prefix(lines, cursor_line, cursor_col, item, prefix)
