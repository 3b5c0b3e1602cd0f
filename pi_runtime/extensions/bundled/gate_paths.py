"""Which paths the permission gate protects, checked against the file system as it is now.

A path is looked at twice: as written (``.git/config``) and with every symlink resolved,
at the moment of the check, so a link made by an earlier call (``keys -> ~/.ssh``) is seen
through. The gate runs each checked call just before it executes (see ``tool_exec``), so
"now" is the state the call runs in.

Patterns (``protectedPaths`` and the defaults):
- without ``/`` (``.env``, ``*.pem``): any component of the path;
- with ``/`` (``secrets/*``, ``.git/*``): the path relative to the working directory;
- starting with ``~/`` or ``/``: that absolute place and everything under it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable

DEFAULT_PROTECTED = [".env", ".env.*", ".git", ".git/*", "*/.git/*", ".pi/settings.json", ".pi/extensions"]
HOME_PROTECTED = [
    "~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.kube", "~/.docker/config.json", "~/.config/gcloud",
    "~/.netrc", "~/.npmrc", "~/.pypirc", "~/.git-credentials", "~/.bashrc", "~/.bash_profile", "~/.bash_login",
    "~/.profile", "~/.zshrc", "~/.zshenv", "~/.zprofile", "~/.config/fish", "~/.gitconfig", "~/.config/git",
]
"""Credentials, shell start-up files and git's own configuration (its aliases, pager and hooks path run code in
every repository): writing them hands over the account."""
SAFE_DEVICES = ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/full")
SAFE_DEVICE_DIRS = ("/dev/fd/", "/dev/pts/", "/dev/shm/")


def _home() -> str:
    return os.path.expanduser("~")


class PathPolicy:
    """Protected paths for one check (the agent dir, home and patterns are read when built).

    Args:
        patterns: Protected patterns (module docstring), defaults included or not.
        agent_dir: pi's own config folder (settings, credentials, extensions): always protected.
    """

    def __init__(self, patterns: Iterable[str], agent_dir: str | None = None) -> None:
        self.home = os.path.realpath(_home())
        self.relative: list[str] = []
        self.absolute: list[str] = []
        for pattern in patterns:
            if pattern.startswith("~/") or pattern == "~":
                self.absolute.append(os.path.join(self.home, pattern[2:]) if pattern != "~" else self.home)
            elif pattern.startswith("/"):
                self.absolute.append(pattern.rstrip("/") or "/")
            else:
                self.relative.append(pattern)
        if agent_dir:
            self.absolute.append(os.path.realpath(agent_dir))

    def protected(self, path: str, cwd: str) -> str | None:
        """The protected path ``path`` (absolute, or relative to ``cwd``) touches, or None."""
        written = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
        for candidate in dict.fromkeys((written, os.path.realpath(written))):
            hit = self._match(candidate, cwd)
            if hit is not None:
                return hit
        return None

    def _match(self, path: str, cwd: str) -> str | None:
        for place in self.absolute:
            if fnmatch.fnmatchcase(path, place) or fnmatch.fnmatchcase(path, place.rstrip("/") + "/*"):
                return _shown(path, self.home)
        root = os.path.realpath(cwd)
        for base in dict.fromkeys((os.path.normpath(cwd), root)):
            if path == base or path.startswith(base.rstrip("/") + "/"):
                relative = os.path.relpath(path, base)
                break
        else:
            relative = path.lstrip("/")
        parts = relative.split(os.sep)
        for pattern in self.relative:
            if "/" in pattern:
                if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern + "/*"):
                    return relative
            elif any(fnmatch.fnmatchcase(part, pattern) for part in parts):
                return relative
        return None

    def needles(self) -> re.Pattern[str] | None:
        """A regex for protected names as they would appear in inline code (``'.ssh'``, ``".env"``)."""
        names: set[str] = set()
        for pattern in [*self.relative, *self.absolute]:
            for part in pattern.split("/"):
                if part.startswith(".") and len(part) > 1 and not any(c in part for c in "*?["):
                    names.add(part)
        if not names:
            return None
        alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        return re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w-])")


def is_device(path: str) -> bool:
    """A device node or other ``/dev`` entry that is not a harmless sink (``/dev/null``...)."""
    if not path.startswith("/dev/"):
        return False
    return path not in SAFE_DEVICES and not path.startswith(SAFE_DEVICE_DIRS)


def _shown(path: str, home: str) -> str:
    return "~" + path[len(home):] if path == home or path.startswith(home + "/") else path
