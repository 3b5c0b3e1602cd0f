"""``builtin:permission-gate``: ask before risky tool calls; deny when nobody can answer.

Risky: bash commands such as ``rm -rf``, ``sudo``, ``chmod 777``, ``curl … | sh``, ``mkfs``,
``dd of=/dev/…``; ``write``/``edit`` outside the working directory or on protected paths
(``.env``, ``.env.*``, ``.git/``). With a UI the user confirms each one; headless (print
and JSON mode) the call is blocked with a reason that says how to allow it.

Settings (``"permissionGate"`` in settings.json)::

    {"permissionGate": {
        "bashPatterns": ["\\\\bterraform\\\\s+destroy\\\\b"],   # more risky commands (regex)
        "allowBashPatterns": ["^rm -rf \\\\./build\\\\b"],       # never ask for these
        "protectedPaths": ["secrets/*", "*.pem"],            # more protected paths (glob)
        "allowOutsideCwd": false,                            # writes outside cwd are fine
        "useDefaults": true                                  # keep the built-in rules
    }}
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import Any

DEFAULT_BASH_RULES: list[tuple[str, str]] = [
    (r"\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR]|(-[rRf]\s+)+-[rRf]|--recursive\s+--force|--force\s+--recursive)", "recursive forced delete (rm -rf)"),
    (r"(^|[;&|(]\s*|\s)sudo\s", "runs as root (sudo)"),
    (r"\bchmod\s+(-[a-zA-Z]+\s+)*0?777\b", "world-writable permissions (chmod 777)"),
    (r"\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b", "pipes a download into a shell"),
    (r"\bmkfs(\.\w+)?\b", "formats a file system (mkfs)"),
    (r"\bdd\b[^;&|]*\bof=/dev/", "writes to a device (dd of=/dev/...)"),
    (r">\s*/dev/sd[a-z]", "writes to a disk device"),
    (r"\bgit\s+push\b[^;&|]*(--force\b|\s-f\b)", "force-pushes (git push --force)"),
]
DEFAULT_PROTECTED = [".env", ".env.*", ".git", ".git/*", "*/.git/*"]
WRITE_TOOLS = ("write", "edit")


class Rules:
    """The gate's rules, from defaults and the ``permissionGate`` setting."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = config or {}
        defaults = config.get("useDefaults", True)
        self.bash = [(re.compile(p), why) for p, why in (DEFAULT_BASH_RULES if defaults else [])]
        for pattern in config.get("bashPatterns", []) or []:
            self.bash.append((re.compile(pattern), f"matches rule /{pattern}/"))
        self.allow_bash = [re.compile(p) for p in config.get("allowBashPatterns", []) or []]
        self.protected = (list(DEFAULT_PROTECTED) if defaults else []) + list(config.get("protectedPaths", []) or [])
        self.allow_outside = bool(config.get("allowOutsideCwd", False))

    def check(self, tool: str, args: dict[str, Any], cwd: str) -> str | None:
        """Why this call is risky, or None when it is not."""
        if tool == "bash":
            command = str(args.get("command", ""))
            if any(p.search(command) for p in self.allow_bash):
                return None
            for pattern, why in self.bash:
                if pattern.search(command):
                    return why
            return None
        if tool in WRITE_TOOLS and args.get("path"):
            return self.check_path(str(args["path"]), cwd)
        return None

    def check_path(self, raw: str, cwd: str) -> str | None:
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(raw.lstrip("@"))))
        root = os.path.realpath(cwd)
        inside = path == root or path.startswith(root + os.sep)
        if not inside and not self.allow_outside:
            return f"writes outside the working directory ({path})"
        relative = os.path.relpath(path, root) if inside else path
        parts = relative.split(os.sep)
        for pattern in self.protected:
            if fnmatch.fnmatch(relative, pattern) or any(fnmatch.fnmatch(p, pattern) for p in parts):
                return f"touches a protected path ({relative})"
        return None


def extension(pi: Any) -> None:
    """Register the gate on ``tool_call``."""

    async def gate(event: Any, ctx: Any) -> dict[str, Any] | None:
        rules = Rules(pi.get_setting("permissionGate", {}))
        why = rules.check(event.tool_name, event.input, ctx.cwd)
        if why is None:
            return None
        summary = _describe(event.tool_name, event.input)
        if not ctx.has_ui:
            return {"block": True, "reason": (
                f"Blocked by permission-gate: {summary} {why}, and there is no UI to ask for approval. "
                "Run pi interactively, or allow it in the 'permissionGate' setting."
            )}
        allowed = await ctx.ui.confirm("Allow risky tool call?", f"{summary} {why}.")
        if not allowed:
            return {"block": True, "reason": f"Blocked by the user (permission-gate): {summary} {why}"}
        return None

    pi.on("tool_call", gate)


def _describe(tool: str, args: dict[str, Any]) -> str:
    if tool == "bash":
        command = str(args.get("command", ""))
        return f"`{command[:200]}`"
    return f"{tool} {args.get('path', '')}".strip()
