"""Pi's built-in coding tools: read, bash, edit, write (the default set) and grep, find, ls.

Build them with :func:`create_coding_tools` / :func:`create_all_tools`, or one at a time
through :data:`TOOL_FACTORIES`. Every tool acts on ``cwd`` and through injectable
operations (``file_ops``, ``shell_ops``) so another machine can stand in for this one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..agent.tool import AgentTool
from ..records import record
from .bash import BashTool, EnvSource, SpawnContext, SpawnHook
from .edit import EditTool
from .find import FindTool
from .grep import GrepTool
from .ls import LsTool
from .mutation_queue import file_mutation_lock, with_file_mutation_queue
from .operations import (
    FileInfo,
    FileOperations,
    LocalFileOperations,
    ShellExit,
    ShellOperations,
    find_ripgrep,
)
from .read import ReadTool
from .shell import LocalShellOperations
from .truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from .write import WriteTool

if TYPE_CHECKING:
    from ..ai.types import Model

DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")
ALL_TOOL_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")


@record(slots=True)
class ToolOptions:
    """Shared construction options; each factory takes what applies to its tool."""

    file_ops: FileOperations | None = None
    shell_ops: ShellOperations | None = None
    bash_env: EnvSource = None
    """Extra environment for bash commands (e.g. ``PI_SESSION_ID``), or a callable for it."""
    shell_path: str | None = None
    """The ``shellPath`` setting (ignored when ``shell_ops`` is given)."""
    shell_command_prefix: str | None = None
    """The ``shellCommandPrefix`` setting."""
    spawn_hook: SpawnHook | None = None
    use_ripgrep: bool = True
    """False forces grep/find onto the Python fallback."""
    auto_resize_images: bool | Callable[[], bool] = True
    """``images.autoResize`` for read (a callable is asked at each read)."""
    current_model: Callable[[], Model | None] | None = None
    """The session's model, asked at each read: an image read for a model that takes no images
    says so in the result's details, as Pi's ``imageUnsupportedByModel``."""


ToolFactory = Callable[[str, ToolOptions], AgentTool]


def _bash(cwd: str, o: ToolOptions) -> AgentTool:
    shell_ops = o.shell_ops or LocalShellOperations(shell=o.shell_path)
    return BashTool(cwd, shell_ops=shell_ops, env=o.bash_env,
                    command_prefix=o.shell_command_prefix, spawn_hook=o.spawn_hook)


TOOL_FACTORIES: dict[str, ToolFactory] = {
    "read": lambda cwd, o: ReadTool(cwd, file_ops=o.file_ops, auto_resize_images=o.auto_resize_images,
                                    current_model=o.current_model),
    "bash": _bash,
    "edit": lambda cwd, o: EditTool(cwd, file_ops=o.file_ops),
    "write": lambda cwd, o: WriteTool(cwd, file_ops=o.file_ops),
    "grep": lambda cwd, o: GrepTool(cwd, use_ripgrep=o.use_ripgrep),
    "find": lambda cwd, o: FindTool(cwd, use_ripgrep=o.use_ripgrep),
    "ls": lambda cwd, o: LsTool(cwd, file_ops=o.file_ops),
}
"""Tool name → factory ``(cwd, options) -> AgentTool``."""


def create_tools(cwd: str, names: tuple[str, ...] | list[str], options: ToolOptions | None = None) -> list[AgentTool]:
    """Build the named built-in tools, in the given order.

    Args:
        cwd: Working directory for every tool.
        names: Tool names from :data:`TOOL_FACTORIES`.
        options: Shared options.

    Returns:
        The tools.
    """
    opts = options or ToolOptions()
    unknown = [n for n in names if n not in TOOL_FACTORIES]
    if unknown:
        raise ValueError(f"Unknown built-in tool(s): {', '.join(unknown)}. Available: {', '.join(ALL_TOOL_NAMES)}")
    return [TOOL_FACTORIES[n](cwd, opts) for n in names]


def create_coding_tools(cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    """Pi's default set: read, bash, edit, write.

    Args:
        cwd: Working directory.
        options: Shared options.

    Returns:
        The four tools.
    """
    return create_tools(cwd, DEFAULT_TOOL_NAMES, options)


def create_all_tools(cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    """Every built-in tool: read, bash, edit, write, grep, find, ls.

    Args:
        cwd: Working directory.
        options: Shared options.

    Returns:
        The seven tools.
    """
    return create_tools(cwd, ALL_TOOL_NAMES, options)


__all__ = [
    "ALL_TOOL_NAMES", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_LINES", "DEFAULT_TOOL_NAMES",
    "GREP_MAX_LINE_LENGTH", "TOOL_FACTORIES", "BashTool", "EditTool", "FileInfo",
    "FileOperations", "FindTool", "GrepTool", "LocalFileOperations", "LocalShellOperations",
    "LsTool", "ReadTool", "ShellExit", "ShellOperations", "SpawnContext", "ToolOptions",
    "TruncationResult", "WriteTool", "create_all_tools", "create_coding_tools", "create_tools",
    "file_mutation_lock", "find_ripgrep", "format_size", "truncate_head", "truncate_line",
    "truncate_tail", "with_file_mutation_queue",
]
