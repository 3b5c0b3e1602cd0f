"""Extensions' renderers in the transcript (``register_tool_renderer`` / ``register_message_renderer``).

A renderer is the extension's own code, called while the transcript draws: whatever it raises
or returns that cannot be shown falls back to pi's own rendering (and is logged), so a broken
renderer never breaks the transcript.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

log = logging.getLogger("pi.extensions")


def as_renderable(value: Any) -> RenderableType | None:
    """What a renderer returned, as something Rich draws (None: use the default)."""
    if value is None or isinstance(value, Widget):
        return None
    if isinstance(value, str):
        return Text(value)
    if hasattr(value, "__rich_console__") or hasattr(value, "__rich__"):
        return value
    return Text(str(value))


def call_renderer(fn: Callable[..., Any] | None, *args: Any) -> Any:
    """``fn(*args)``, or None when there is no renderer or it failed."""
    if fn is None:
        return None
    try:
        return fn(*args)
    except Exception:
        log.exception("extension renderer failed")
        return None


def renderer_part(renderer: Any, name: str) -> Callable[..., Any] | None:
    """``render_call`` / ``render_result`` of a tool renderer (a dict or an object)."""
    part = renderer.get(name) if isinstance(renderer, dict) else getattr(renderer, name, None)
    return part if callable(part) else None


def render_options(session: Any, expanded: bool) -> dict[str, Any]:
    """Pi's renderer options: ``expanded`` (Ctrl+O) and ``outputPad`` (the setting, 0 or 1), which
    Pi's message-renderer example passes on as its box's horizontal padding."""
    pad = 1
    settings = getattr(session, "settings", None)
    if settings is not None:
        from pi_runtime.frontend import typed_settings

        pad = int(typed_settings(settings).output_pad)
    return {"expanded": expanded, "outputPad": pad}


def tool_renderer_lookup(session: Any) -> Callable[[str], Any]:
    """``name -> renderer`` of the session's extensions (always None without extensions)."""
    runner = getattr(session, "extension_runner", None)
    if runner is None:
        return lambda name: None
    return lambda name: call_renderer(runner.tool_renderer, name)


def custom_message_widget(session: Any, message: Any, *, expanded: bool, theme: Any) -> Widget | None:
    """The widget an extension's message renderer makes for a ``custom`` message (None: default)."""
    from .extension_block import ExtensionBlock

    runner = getattr(session, "extension_runner", None)
    renderer = runner.message_renderer(message.custom_type) if runner is not None else None
    result = call_renderer(renderer, message, render_options(session, expanded), theme)
    if isinstance(result, Widget):
        result.message = message  # type: ignore[attr-defined]  # blocks know their message
        return result
    content = as_renderable(result)
    return ExtensionBlock(content, message=message) if content is not None else None


def custom_entry_widget(session: Any, entry: Any, *, expanded: bool, theme: Any) -> Widget | None:
    """The widget an extension's entry renderer (``register_entry_renderer``) makes for a ``custom``
    entry, or None: as in Pi, a custom entry without a renderer (or one that draws nothing) is not shown."""
    from .extension_block import ExtensionBlock

    runner = getattr(session, "extension_runner", None)
    renderer = runner.entry_renderer(entry.custom_type) if runner is not None else None
    result = call_renderer(renderer, entry, render_options(session, expanded), theme)
    if isinstance(result, Widget):
        result.entry = entry  # type: ignore[attr-defined]  # like ExtensionBlock.entry
        return result
    content = as_renderable(result)
    return ExtensionBlock(content, entry=entry) if content is not None else None


def redraw_extension_blocks(session: Any, blocks: Any, *, expanded: bool, theme: Any) -> None:
    """Ctrl+O: blocks drawn from a renderer's text are drawn again with ``options["expanded"]``
    (as Pi's custom entry and message components are); a renderer that now returns a widget,
    nothing, or fails leaves its block as it was."""
    runner = getattr(session, "extension_runner", None)
    if runner is None:
        return
    for block in blocks:
        entry, message = getattr(block, "entry", None), getattr(block, "message", None)
        if entry is not None:
            renderer, subject = runner.entry_renderer(entry.custom_type), entry
        elif message is not None and getattr(message, "role", None) == "custom":
            renderer, subject = runner.message_renderer(message.custom_type), message
        else:
            continue
        content = as_renderable(call_renderer(renderer, subject, render_options(session, expanded), theme))
        if content is not None:
            block.update(content)
