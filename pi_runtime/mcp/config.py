"""``mcp.json``: the MCP servers a user or a trusted project configures (mcp.md, "Configure servers").

Both files use the ``mcpServers`` object other MCP clients use, so an entry can be copied from
Claude Desktop, Cursor or Codex. Global servers come from ``<agent dir>/mcp.json``; a trusted
project's ``.pi/mcp.json`` is read after it and replaces a global entry of the same name. A project
entry without ``command``, ``url`` or ``type`` is an *override*: it may only set ``enabled``,
``exposure`` and ``toolExposure`` of the global server and keeps the rest (``env``, ``headers``).

Nothing here raises for a bad entry: it becomes a message in :attr:`McpConfig.errors` and the other
servers still load. Changing the files is :mod:`pi_runtime.mcp.config_edit`'s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ..config_files import ConfigJsonError, DroppedValue, parse_config_json, read_config_text
from ..records import record
from . import CONFIG_FILE as CONFIG_FILE
from . import global_path as global_path
from . import has_config as has_config
from . import project_path as project_path

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
EXPOSURES = ("codemode", "deferred", "direct", "hidden")
"""How a server's tools reach the model (mcp.md, "Control tool exposure"); ``codemode`` is the default."""
DEFAULT_EXPOSURE = "codemode"
_EXPOSURE_ALIASES = {"codemode-deferred": "codemode"}
_OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
MAX_TIMEOUT = 86_400
"""The longest per-request ``timeout`` accepted, in seconds (1e400 would read as infinity)."""
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")

Exposure = Literal["codemode", "deferred", "direct", "hidden"]
Scope = Literal["global", "project", "extension"]


class McpConfigError(Exception):
    """An ``mcp.json`` cannot be changed (unreadable, not an object); the file is left as it was."""


@record(frozen=True)
class McpServerEntry:
    """One configured server, validated."""

    name: str
    """The key under ``mcpServers``."""
    config: dict[str, Any]
    """The entry as written (exposure aliases resolved; unknown fields kept)."""
    source: str
    """The file that defines it (or ``extension:<path>`` for a registered server)."""
    scope: Scope
    """``global``, ``project`` or ``extension``."""
    override: str | None = None
    """The project file that overrides ``enabled``/``exposure``/``toolExposure``, if any."""

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``stdio`` for a ``command``, ``http`` for a ``url``."""
        return "http" if "url" in self.config else "stdio"

    @property
    def enabled(self) -> bool:
        """False when the entry says ``"enabled": false``."""
        return self.config.get("enabled") is not False

    @property
    def exposure(self) -> str:
        """The server's exposure (``codemode`` unless set)."""
        return str(self.config.get("exposure") or DEFAULT_EXPOSURE)

    @property
    def timeout(self) -> float:
        """Per-request timeout in seconds (60 unless set)."""
        value = self.config.get("timeout")
        return float(value) if isinstance(value, (int, float)) and value > 0 else 60.0

    def describe_transport(self) -> str:
        """The URL, or the command line, as ``pi mcp list`` shows it."""
        if self.transport == "http":
            return str(self.config["url"])
        return " ".join([str(self.config["command"]), *map(str, self.config.get("args") or [])])

    def tool_exposure(self, tool: str) -> str:
        """The exposure of one of its tools: an exact ``toolExposure`` key, else the first matching
        pattern, else the server's exposure."""
        overrides = self.config.get("toolExposure") or {}
        if tool in overrides:
            return str(overrides[tool])
        for pattern, exposure in overrides.items():
            if "*" in pattern and name_pattern(pattern).fullmatch(tool):
                return str(exposure)
        return self.exposure


@record
class McpConfig:
    """Everything read from the ``mcp.json`` files."""

    servers: list[McpServerEntry] = field(default_factory=list)
    """Valid servers, disabled ones included, global first then project."""
    errors: list[str] = field(default_factory=list)
    """One message per invalid file or entry (``<file>: <problem>``)."""
    auto_enable_codemode: bool | None = None
    """The top-level ``autoEnableCodemode`` (project over global), when set."""
    project_config: Path | None = None
    """The project file that was read (only when the project is trusted)."""

    def get(self, name: str) -> McpServerEntry | None:
        """The server named ``name``."""
        return next((s for s in self.servers if s.name == name), None)


def name_pattern(pattern: str) -> re.Pattern[str]:
    """A tool-name pattern where ``*`` matches any characters (``toolExposure``, ``--tools``)."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))


def namespace(server: str) -> str:
    """``mcp__<server>`` with ``-`` as ``_``: names differing only there share a namespace."""
    return "mcp__" + server.replace("-", "_")


# ----------------------------------------------------------------------------- validation


def _is_str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _loopback_http(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK and not parts.query and not parts.fragment


def _check_oauth(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return "oauth must be an object"
    for key in ("clientId", "clientSecret", "scope"):
        if key in value and not isinstance(value[key], str):
            return f"oauth.{key} must be a string"
    port = value.get("callbackPort")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        return "oauth.callbackPort must be a port number"
    callback = value.get("callbackUrl")
    if callback is not None:
        if not isinstance(callback, str) or not _loopback_http(callback):
            return "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment"
        url_port = urlsplit(callback).port
        if url_port and port is not None and url_port != port:
            return "oauth.callbackUrl and oauth.callbackPort name different ports"
    name = value.get("clientName")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return "oauth.clientName must be a non-empty string"
    registration = value.get("clientRegistration")
    if registration is not None and registration not in ("auto", "dcr", "cimd"):
        return 'oauth.clientRegistration must be "auto", "dcr", or "cimd"'
    if registration == "cimd" and ("clientId" in value or "clientName" in value):
        return 'oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName'
    metadata = value.get("authServerMetadataUrl")
    if metadata is not None:
        parts = urlsplit(metadata) if isinstance(metadata, str) else None
        if parts is None or not (parts.scheme == "https" or (parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK)):
            return "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]"
    return None


def _check_exposures(entry: Mapping[str, Any]) -> str | None:
    names = ", ".join(f'"{e}"' for e in EXPOSURES)
    exposure = entry.get("exposure")
    if exposure is not None and exposure not in EXPOSURES:
        return f"exposure must be one of {names}"
    overrides = entry.get("toolExposure")
    if overrides is not None:
        if not isinstance(overrides, dict):
            return "toolExposure must map tool names to exposures"
        for tool, value in overrides.items():
            if value not in EXPOSURES:
                return f'toolExposure "{tool}" must be one of {names}'
    return None


def _resolve_aliases(raw: dict[str, Any]) -> dict[str, Any]:
    entry = dict(raw)
    if isinstance(entry.get("exposure"), str):
        entry["exposure"] = _EXPOSURE_ALIASES.get(entry["exposure"], entry["exposure"])
    if isinstance(entry.get("toolExposure"), dict):
        entry["toolExposure"] = {k: _EXPOSURE_ALIASES.get(v, v) if isinstance(v, str) else v
                                 for k, v in entry["toolExposure"].items()}
    return entry


def validate_server(name: str, raw: Any) -> dict[str, Any] | str:
    """Check one ``mcpServers`` entry.

    Returns:
        The entry (a copy, exposure aliases resolved), or the error message.
    """
    if not SERVER_NAME.match(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not isinstance(raw, dict):
        return f'server "{name}" must be an object'
    entry = _resolve_aliases(raw)
    enabled, timeout, description = entry.get("enabled"), entry.get("timeout"), entry.get("description")
    problem: str | None = None
    if enabled is not None and not isinstance(enabled, bool):
        problem = "enabled must be a boolean"
    elif description is not None and not isinstance(description, str):
        problem = "description must be a string"
    elif timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                  or not timeout > 0):  # NaN is not > 0 either
        problem = "timeout must be a positive number of seconds"
    elif timeout is not None and timeout > MAX_TIMEOUT:  # 1e400 reads as infinity
        problem = f"timeout must be at most {MAX_TIMEOUT} seconds (a day)"
    if problem:
        return f'server "{name}": {problem}'
    kind, url, command = entry.get("type"), entry.get("url"), entry.get("command")
    if kind == "sse":
        return f'server "{name}": legacy SSE transport is not supported; use the streamable HTTP URL'
    if isinstance(url, str) and kind in (None, "http", "streamable-http"):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            problem = "url must be an http or https URL"
        elif "headers" in entry and not _is_str_map(entry["headers"]):
            problem = "headers must map names to strings"
        else:
            problem = _check_oauth(entry.get("oauth"))
        if problem is None and "auth" in entry:
            auth = entry["auth"]
            if not isinstance(auth, dict) or not isinstance(auth.get("provider"), str) or not auth["provider"]:
                problem = "auth.provider must be a provider name"
            elif parts.scheme != "https" and (parts.hostname or "") not in _LOOPBACK:
                problem = "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]"
    elif isinstance(command, str) and kind in (None, "stdio"):
        args, env, cwd = entry.get("args"), entry.get("env"), entry.get("cwd")
        if args is not None and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            problem = "args must be an array of strings"
        elif env is not None and not _is_str_map(env):
            problem = "env must map names to strings"
        elif cwd is not None and not isinstance(cwd, str):
            problem = "cwd must be a string"
    else:
        return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'
    problem = problem or _check_exposures(entry)
    return f'server "{name}": {problem}' if problem else entry


def is_override(entry: Mapping[str, Any]) -> bool:
    """An entry without ``command``, ``url`` or ``type`` overrides a server defined elsewhere."""
    return "command" not in entry and "url" not in entry and "type" not in entry


# ----------------------------------------------------------------------------- loading


def _read(path: Path) -> tuple[dict[str, Any] | None, list[DroppedValue], str | None]:
    """The parsed file (None when missing or unusable), the values left out of it, and the
    problem that made it unusable.

    Hardened as every config file (``config_files``): a FIFO is refused unread, a 100,000-digit
    number or a value nested 100,000 deep is left out (its server is then refused).
    """
    try:
        text = read_config_text(path)
    except FileNotFoundError:
        return None, [], None
    except (OSError, UnicodeDecodeError) as exc:
        return None, [], f"{path}: {exc}"
    try:
        data, dropped = parse_config_json(text)
    except ConfigJsonError as exc:
        return None, [], f"{path}: {exc}"
    if data is None:
        return {}, [], None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        return None, [], f'{path}: expected an object with an "mcpServers" object'
    return data, dropped, None


def _read_into(config: McpConfig, path: Path, scope: Scope, servers: dict[str, McpServerEntry]) -> None:
    data, dropped, problem = _read(path)
    if problem:
        config.errors.append(problem)
    if data is None:
        return
    # A server with a value left out is refused whole, as one with a bad value is: without
    # it (``"enabled": NaN``) it could run where the user meant it not to.
    refused: dict[str, DroppedValue] = {}
    for value in dropped:
        if len(value.path) > 2 and value.path[0] == "mcpServers" and isinstance(value.path[1], str):
            refused.setdefault(value.path[1], value)
        else:
            config.errors.append(f"{path}: {value}")
    auto = data.get("autoEnableCodemode")
    if isinstance(auto, bool):
        config.auto_enable_codemode = auto
    elif auto is not None:
        config.errors.append(f"{path}: autoEnableCodemode must be a boolean")
    for name, value in (data.get("mcpServers") or {}).items():
        if name in refused:
            config.errors.append(f'{path}: server "{name}": {refused[name].inside(2)}')
            continue
        if scope == "project" and isinstance(value, dict) and is_override(value):
            base = servers.get(name)
            extra = [k for k in value if k not in _OVERRIDE_KEYS]
            if base is None:
                config.errors.append(f'{path}: server "{name}" needs "command" or "url", or a global server to override')
            elif extra:
                config.errors.append(f'{path}: server "{name}": an override can only set {", ".join(_OVERRIDE_KEYS)}')
            else:
                merged = validate_server(name, {**base.config, **value})
                if isinstance(merged, str):
                    config.errors.append(f"{path}: {merged}")
                else:
                    servers[name] = replace(base, config=merged, override=str(path))
            continue
        checked = validate_server(name, value)
        if isinstance(checked, str):
            config.errors.append(f"{path}: {checked}")
            continue
        clash = next((other for other in servers if other != name and namespace(other) == namespace(name)), None)
        if clash is not None:
            config.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
            continue
        if scope == "project" and "url" in checked and "auth" in checked:
            config.errors.append(f'{path}: server "{name}": auth is only allowed in the global mcp.json')
            continue
        servers[name] = McpServerEntry(name, checked, str(path), scope)


def load_config(
    agent_dir: str | os.PathLike[str], cwd: str | os.PathLike[str], *, project_trusted: bool
) -> McpConfig:
    """Read the global file and, when the project is trusted, the project file.

    Disabled servers are included (``enabled`` False) so they can be listed and enabled again.
    """
    config = McpConfig()
    servers: dict[str, McpServerEntry] = {}
    _read_into(config, global_path(agent_dir), "global", servers)
    if project_trusted:
        config.project_config = project_path(cwd)
        _read_into(config, config.project_config, "project", servers)
    config.servers = list(servers.values())
    return config
