"""``builtin:permission-gate``: ask before risky tool calls; deny when nobody can answer.

Risky:
- bash commands, parsed (not matched as text): every command of every list, pipeline,
  subshell, substitution and nested ``bash -c``/``eval``/``xargs``/``find -exec`` string is
  checked after quote removal, so ``"rm" -rf``, ``r\\m -rf`` and ``rm -r --force`` are the
  same command. Risky are recursive deletes (with or without ``-f``, as in Pi's example
  gate), moves out of the working directory (``mv victim ..``), ``find -delete``, ``git clean -f``,
  ``git reset --hard``, force pushes, ``sudo``, ``chmod 777``, disk tools, ``dd`` or a
  redirection to a device, shells fed from a pipe (``curl … | sh``, ``base64 -d | sh``),
  inline interpreter code that deletes or runs programs (``python -c "shutil.rmtree…"``),
  and any write or delete (redirection, ``cp``/``mv``/``tee``/``sed -i``…) of a protected
  path. A command name or a written path only known at run time, and text that does not
  parse, are risky too (see ``gate_bash`` and ``gate_commands``). A shell script file
  changed since the session began (written by the agent, or downloaded: ``curl -o x.sh``
  then ``sh x.sh``) is read and checked like the command line (``gate_scripts``), and so
  are the Makefile recipes and package.json scripts a build tool would run from a fresh
  file (``gate_build``). git settings that run code and aliases are checked, and ``git
  config`` changes write a protected file (``gate_git``); archivers that delete what they
  archive are recursive deletes (``gate_archives``); a write through a link the same
  command makes reaches the link's target; a protected path given to a program the gate
  has no rule for (and that is not a known reader) is risky;
- ``write``/``edit`` outside the working directory or on a protected path.

Protected: ``.env``, ``.env.*``, ``.git/``, the project's ``.pi/settings.json`` and
``.pi/extensions``, pi's agent dir, and credentials and shell start-up files in the home
folder (``~/.ssh``, ``~/.aws``, ``~/.bashrc``, ``~/.gitconfig``…). Paths are resolved through symlinks when
the call is about to run, so a link made by an earlier call is seen through.

With a UI the user confirms each risky call; a dialog nobody answers is denied after
``confirmTimeoutSeconds``. Headless (print and JSON mode) the call is blocked with a reason
that says how to allow it.

Settings (``"permissionGate"`` in settings.json)::

    {"permissionGate": {
        "bashPatterns": ["\\\\bterraform\\\\s+destroy\\\\b"],   # more risky commands (regex)
        "allowBashPatterns": ["^rm -rf \\\\./build$"],       # never ask for these commands
        "protectedPaths": ["secrets/*", "*.pem"],            # more protected paths (glob)
        "allowOutsideCwd": false,                            # writes outside cwd are fine
        "confirmTimeoutSeconds": 120,                        # an unanswered dialog denies
        "useDefaults": true                                  # keep the built-in rules
    }}

``bashPatterns`` are searched in the whole command and in each command of it;
``allowBashPatterns`` in each command alone (its words after quote removal, joined by
spaces), so ``rm -rf ./build; rm -rf x`` still asks for the second. An allowed command is
exempt from the verb rules only: its redirections and substitutions are still checked.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from ...paths import agent_dir
from .gate_bash import BashChecker
from .gate_paths import DEFAULT_PROTECTED, HOME_PROTECTED, PathPolicy

WRITE_TOOLS = ("write", "edit")
DEFAULT_CONFIRM_TIMEOUT = 120.0
"""Seconds a confirmation waits before it counts as "no"."""


class Rules:
    """The gate's rules, from defaults and the ``permissionGate`` setting."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = config or {}
        defaults = config.get("useDefaults", True)
        self.deny = [(re.compile(p), f"matches rule /{p}/") for p in config.get("bashPatterns", []) or []]
        self.allow_bash = [re.compile(p) for p in config.get("allowBashPatterns", []) or []]
        self.protected = ([*DEFAULT_PROTECTED, *HOME_PROTECTED] if defaults else []) + list(
            config.get("protectedPaths", []) or [])
        self.allow_outside = bool(config.get("allowOutsideCwd", False))
        self.use_defaults = bool(defaults)
        timeout = config.get("confirmTimeoutSeconds", DEFAULT_CONFIRM_TIMEOUT)
        self.confirm_timeout = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else (
            DEFAULT_CONFIRM_TIMEOUT)
        self.fresh_since = 0.0
        """Script files changed since then are read when run (the gate sets it to the session's start)."""

    def _paths(self) -> PathPolicy:
        # Read when checking: the agent dir and home are those of this moment.
        return PathPolicy(self.protected, str(agent_dir()) if self.use_defaults else None)

    def check(self, tool: str, args: dict[str, Any], cwd: str) -> str | None:
        """Why this call is risky, or None when it is not."""
        if tool == "bash":
            command = str(args.get("command", ""))
            checker = BashChecker(self._paths(), cwd, os.environ, self.deny, self.allow_bash, self.use_defaults,
                                  self.fresh_since, self.allow_outside)
            return checker.check(command)
        if tool in WRITE_TOOLS and args.get("path"):
            return self.check_path(str(args["path"]), cwd)
        return None

    def check_path(self, raw: str, cwd: str) -> str | None:
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(raw.lstrip("@"))))
        hit = self._paths().protected(path, cwd)
        if hit is not None:
            return f"touches a protected path ({hit})"
        root = os.path.realpath(cwd)
        inside = path == root or path.startswith(root + os.sep)
        if not inside and not self.allow_outside:
            return f"writes outside the working directory ({path})"
        return None


def extension(pi: Any) -> None:
    """Register the gate on ``tool_call``."""
    # A little before now: a file's ctime and time.time() come from clocks of different grain.
    started = time.time() - 2.0

    async def gate(event: Any, ctx: Any) -> dict[str, Any] | None:
        rules = Rules(pi.get_setting("permissionGate", {}))
        rules.fresh_since = started
        why = rules.check(event.tool_name, event.input, ctx.cwd)
        if why is None:
            return None
        summary = _describe(event.tool_name, event.input)
        if not ctx.has_ui:
            return {"block": True, "reason": (
                f"Blocked by permission-gate: {summary} {why}, and there is no UI to ask for approval. "
                "Run pi interactively, or allow it in the 'permissionGate' setting."
            )}
        allowed = await ctx.ui.confirm("Allow risky tool call?", f"{summary} {why}.", timeout=rules.confirm_timeout)
        if allowed is not True:
            return {"block": True, "reason": f"Blocked by the user (permission-gate): {summary} {why}"}
        return None

    pi.on("tool_call", gate)


def _describe(tool: str, args: dict[str, Any]) -> str:
    if tool == "bash":
        command = str(args.get("command", ""))
        return f"`{command[:200]}`"
    return f"{tool} {args.get('path', '')}".strip()
