"""Extensions: Python modules exposing ``def extension(pi)`` that hook into a session.

- :mod:`.loader` finds and imports them; :mod:`.runner` composes the parts that serve them
  (:mod:`.registry`, :mod:`.dispatch`, :mod:`.agent_hooks`, :mod:`.kernel_hooks`,
  :mod:`.forwarder`, :mod:`.toolset`, :mod:`.commands`, :mod:`.provider`...);
- :mod:`.api` is the ``pi`` object, :mod:`.context` the ``ctx`` handlers receive,
  :mod:`.events` the typed events they get;
- :mod:`.ui` is the user-interaction protocol front ends implement (headless by default);
- :mod:`.streaming` helps write a provider's stream function;
- :mod:`.bundled` holds the opt-in extensions shipped with pi (``builtin:<name>``).

Helpers extension authors reach for are re-exported here: output truncation
(``truncate_head``, ``truncate_tail``, ``truncate_line``, ``format_size``, ``DEFAULT_MAX_BYTES``,
``DEFAULT_MAX_LINES``), the file mutation queue (``with_file_mutation_queue``), the agent dir
(``get_agent_dir``, ``CONFIG_DIR_NAME``), the local shell backend for ``user_bash``
(``create_local_bash_operations``) and ``AbortController``/``AbortSignal`` (to cancel a dialog). The
public types for annotations are in :mod:`.types`. See ``docs/extensions.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import ExtensionAPI as ExtensionAPI
    from .calls import ExtensionCall as ExtensionCall
    from .context import (
        ExtensionCommandContext as ExtensionCommandContext,
    )
    from .context import (
        ExtensionContext as ExtensionContext,
    )
    from .context import (
        ExtensionToolContext as ExtensionToolContext,
    )
    from .events import (
        EVENT_NAMES as EVENT_NAMES,
    )
    from .events import (
        EVENTS as EVENTS,
    )
    from .events import (
        ExtensionEvent as ExtensionEvent,
    )
    from .events import (
        ExtensionEventT as ExtensionEventT,
    )
    from .events import (
        is_tool_call_event_type as is_tool_call_event_type,
    )
    from .loader import (
        BUNDLED as BUNDLED,
    )
    from .loader import (
        ExtensionSource as ExtensionSource,
    )
    from .loader import (
        LoadFailure as LoadFailure,
    )
    from .loader import (
        discover_extensions as discover_extensions,
    )
    from .runner import ExtensionRunner as ExtensionRunner
    from .streaming import StreamWriter as StreamWriter
    from .streaming import text_stream as text_stream
    from .ui import ExtensionUI as ExtensionUI
    from .ui import GuardedUI as GuardedUI
    from .ui import HeadlessUI as HeadlessUI

_PARTS = {
    "ExtensionAPI": ".api", "ExtensionCall": ".calls",
    "ExtensionCommandContext": ".context", "ExtensionContext": ".context", "ExtensionToolContext": ".context",
    "EVENT_NAMES": ".events", "EVENTS": ".events", "ExtensionEvent": ".events", "ExtensionEventT": ".events",
    "is_tool_call_event_type": ".events",
    "BUNDLED": ".loader", "ExtensionSource": ".loader", "LoadFailure": ".loader", "discover_extensions": ".loader",
    "ExtensionRunner": ".runner", "StreamWriter": ".streaming", "text_stream": ".streaming",
    "ExtensionUI": ".ui", "GuardedUI": ".ui", "HeadlessUI": ".ui",
}
"""Loaded on first use: a session without extensions never pays for the runner (~25 ms)."""

CONFIG_DIR_NAME = ".pi"
"""The project config folder name (``<cwd>/.pi``)."""

_HELPERS = {
    "truncate_head": "pi_runtime.tools.truncate", "truncate_tail": "pi_runtime.tools.truncate",
    "truncate_line": "pi_runtime.tools.truncate", "format_size": "pi_runtime.tools.truncate",
    "TruncationResult": "pi_runtime.tools.truncate",
    "DEFAULT_MAX_BYTES": "pi_runtime.tools.truncate", "DEFAULT_MAX_LINES": "pi_runtime.tools.truncate",
    "with_file_mutation_queue": "pi_runtime.tools.mutation_queue",
    # pi's own HTTP client for a provider's stream: timeouts, proxies, abort, secrets redacted.
    "post_sse": "pi_runtime.ai.providers._http", "ProviderError": "pi_runtime.ai.providers._http",
    "file_mutation_lock": "pi_runtime.tools.mutation_queue",
    # Pi's helpers for a summary of one's own (session_before_compact, session_before_tree).
    "serialize_conversation": "pi_runtime.compaction.serialize", "convert_to_llm": "pi_runtime.agent.convert",
    # JavaScript has these built in; Pi's examples cancel dialogs and calls with them.
    "AbortController": "pi_runtime.ai.abort", "AbortSignal": "pi_runtime.ai.abort",
    # pi-tui's fuzzyFilter, for completion providers (kernel-side: no Textual import).
    "fuzzy_filter": "pi_runtime.extensions.fuzzy",
    # Pi's create<Name>ToolDefinition(cwd): a built-in to wrap (same name, other renderers).
    "create_tools": "pi_runtime.tools",
    # Pi's parseFrontmatter (skills, prompt templates, an extension's own markdown files).
    "parse_frontmatter": "pi_runtime.resources.frontmatter", "FrontmatterError": "pi_runtime.resources.frontmatter",
    # Pi's ToolOptions / FileOperations / SpawnContext: replacing the built-in tools' file and shell layer.
    "ToolOptions": "pi_runtime.tools", "FileOperations": "pi_runtime.tools.operations",
    "ShellOperations": "pi_runtime.tools.operations", "SpawnContext": "pi_runtime.tools.bash",
}


def __getattr__(name: str) -> Any:
    # The parts and the tools' helpers load on first use, so importing extensions stays light.
    import importlib

    if name == "VERSION":  # Pi's VERSION: the running pi's version
        from .. import __version__

        return __version__
    part = _PARTS.get(name)
    if part is not None:
        value = getattr(importlib.import_module(part, __name__), name)
        globals()[name] = value
        return value
    module = _HELPERS.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_runtime.extensions' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def get_agent_dir() -> str:
    """The agent dir (``~/.pi/agent``, or ``PI_CODING_AGENT_DIR``)."""
    from ..paths import agent_dir

    return str(agent_dir())


def create_local_bash_operations(shell_path: str | None = None) -> Any:
    """pi's own shell backend, for a ``user_bash`` handler that wraps it (``{"operations": ...}``).

    ``await ops.exec(command, cwd, on_data=fn, signal=None, timeout=None, env=os.environ)`` (every keyword given) returns an
    outcome with ``exit_code`` and ``aborted``.
    """
    from ..tools.shell import LocalShellOperations

    return LocalShellOperations(shell_path)


if TYPE_CHECKING:
    from ..agent.convert import convert_to_llm as convert_to_llm
    from ..ai.abort import AbortController as AbortController
    from ..ai.abort import AbortSignal as AbortSignal
    from ..ai.providers._http import ProviderError as ProviderError
    from ..ai.providers._http import post_sse as post_sse
    from ..compaction.serialize import serialize_conversation as serialize_conversation
    from ..resources.frontmatter import FrontmatterError as FrontmatterError
    from ..resources.frontmatter import parse_frontmatter as parse_frontmatter
    from ..tools import ToolOptions as ToolOptions
    from ..tools import create_tools as create_tools
    from ..tools.bash import SpawnContext as SpawnContext
    from ..tools.operations import FileOperations as FileOperations
    from ..tools.operations import ShellOperations as ShellOperations

    VERSION: str
    from ..tools.mutation_queue import file_mutation_lock as file_mutation_lock
    from ..tools.mutation_queue import with_file_mutation_queue as with_file_mutation_queue
    from ..tools.truncate import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from ..tools.truncate import DEFAULT_MAX_LINES as DEFAULT_MAX_LINES
    from ..tools.truncate import TruncationResult as TruncationResult
    from ..tools.truncate import format_size as format_size
    from ..tools.truncate import truncate_head as truncate_head
    from ..tools.truncate import truncate_line as truncate_line
    from ..tools.truncate import truncate_tail as truncate_tail
    from .fuzzy import fuzzy_filter as fuzzy_filter

__all__ = [
    "BUNDLED",
    "CONFIG_DIR_NAME",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "EVENTS",
    "EVENT_NAMES",
    "VERSION",
    "AbortController",
    "AbortSignal",
    "ExtensionAPI",
    "ExtensionCall",
    "ExtensionCommandContext",
    "ExtensionContext",
    "ExtensionEvent",
    "ExtensionEventT",
    "ExtensionRunner",
    "ExtensionSource",
    "ExtensionToolContext",
    "ExtensionUI",
    "FileOperations",
    "FrontmatterError",
    "GuardedUI",
    "HeadlessUI",
    "LoadFailure",
    "ProviderError",
    "ShellOperations",
    "SpawnContext",
    "StreamWriter",
    "ToolOptions",
    "TruncationResult",
    "convert_to_llm",
    "create_local_bash_operations",
    "create_tools",
    "discover_extensions",
    "file_mutation_lock",
    "format_size",
    "fuzzy_filter",
    "get_agent_dir",
    "is_tool_call_event_type",
    "parse_frontmatter",
    "post_sse",
    "serialize_conversation",
    "text_stream",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "with_file_mutation_queue",
]
