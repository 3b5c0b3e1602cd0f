"""Values in ``mcp.json`` that are resolved when a server starts: ``${VAR}``, ``!command``, ``~/``.

``env`` and ``headers`` values expand ``$NAME`` / ``${NAME}`` (``$$`` is a literal ``$``) or, when
the whole value starts with ``!``, run a shell command and use its output (mcp.md, "Configuration
rules"); unlike ``models.json`` keys, a bare word is a literal. A leading ``~/`` in ``command``,
an argument or ``cwd`` names the home folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..ai.credentials import CredentialError, interpolate, is_command, referenced_env_names, run_command


class McpValueError(Exception):
    """A value refers to an unset environment variable, or its command failed."""


def resolve_value(raw: str, where: str) -> str:
    """The value to send or set.

    Args:
        raw: The configured text.
        where: What it is (``MCP server "x" env "KEY"``), for the message.

    Raises:
        McpValueError: An unset variable, or a failing command.
    """
    if is_command(raw):
        try:
            return run_command(raw[1:].strip(), where=where)
        except CredentialError as exc:
            raise McpValueError(str(exc)) from exc
    value = interpolate(raw)
    if value is None:
        missing = [n for n in referenced_env_names(raw) if not os.environ.get(n)]
        raise McpValueError(f"Failed to resolve {where} from environment variable: {', '.join(missing) or raw}")
    return value


def expand_home(value: str) -> str:
    """``~`` and ``~/...`` as the home folder; anything else unchanged."""
    if value == "~":
        return str(Path.home())
    if value.startswith("~/"):
        return str(Path.home() / value[2:])
    return value
