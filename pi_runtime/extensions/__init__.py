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
(``get_agent_dir``, ``CONFIG_DIR_NAME``) and the local shell backend for ``user_bash``
(``create_local_bash_operations``). See ``docs/extensions.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .api import ExtensionAPI
from .calls import ExtensionCall
from .context import ExtensionCommandContext, ExtensionContext, ExtensionToolContext
from .events import EVENT_NAMES, EVENTS, ExtensionEvent, ExtensionEventT, is_tool_call_event_type
from .loader import BUNDLED, ExtensionSource, LoadFailure, discover_extensions
from .runner import ExtensionRunner
from .streaming import StreamWriter, text_stream
from .ui import ExtensionUI, GuardedUI, HeadlessUI

CONFIG_DIR_NAME = ".pi"
"""The project config folder name (``<cwd>/.pi``)."""

_HELPERS = {
    "truncate_head": "pi_runtime.tools.truncate", "truncate_tail": "pi_runtime.tools.truncate",
    "truncate_line": "pi_runtime.tools.truncate", "format_size": "pi_runtime.tools.truncate",
    "TruncationResult": "pi_runtime.tools.truncate",
    "DEFAULT_MAX_BYTES": "pi_runtime.tools.truncate", "DEFAULT_MAX_LINES": "pi_runtime.tools.truncate",
    "with_file_mutation_queue": "pi_runtime.tools.mutation_queue",
    "file_mutation_lock": "pi_runtime.tools.mutation_queue",
}


def __getattr__(name: str) -> Any:
    # The helpers live with the tools; loaded on first use so importing extensions stays light.
    module = _HELPERS.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_runtime.extensions' has no attribute {name!r}")
    import importlib

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
    from ..tools.mutation_queue import file_mutation_lock as file_mutation_lock
    from ..tools.mutation_queue import with_file_mutation_queue as with_file_mutation_queue
    from ..tools.truncate import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from ..tools.truncate import DEFAULT_MAX_LINES as DEFAULT_MAX_LINES
    from ..tools.truncate import TruncationResult as TruncationResult
    from ..tools.truncate import format_size as format_size
    from ..tools.truncate import truncate_head as truncate_head
    from ..tools.truncate import truncate_line as truncate_line
    from ..tools.truncate import truncate_tail as truncate_tail

__all__ = [
    "BUNDLED", "CONFIG_DIR_NAME", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_LINES", "EVENTS", "EVENT_NAMES", "ExtensionAPI",
    "ExtensionCall", "ExtensionCommandContext", "ExtensionContext", "ExtensionEvent", "ExtensionEventT",
    "ExtensionRunner", "ExtensionSource", "ExtensionToolContext", "ExtensionUI", "GuardedUI", "HeadlessUI",
    "LoadFailure", "StreamWriter", "TruncationResult", "create_local_bash_operations", "discover_extensions",
    "file_mutation_lock", "format_size", "get_agent_dir", "is_tool_call_event_type", "text_stream",
    "truncate_head", "truncate_line", "truncate_tail", "with_file_mutation_queue",
]
