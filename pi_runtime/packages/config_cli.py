"""``pi config [-l] [--approve|--no-approve]``: turn resources and built-in extensions on and off.

Options, messages and exit statuses are Pi's. The screen itself is ``pi_tui.config``, imported only
here, once the arguments are known to be good (``pi_runtime`` stays free of Textual, and a wrong
option answers without loading it). Project scope needs a trusted project: ``-l`` in an untrusted
one is refused, and without ``-l`` the project scope is not offered.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

USAGE = "pi config [-l] [--approve|--no-approve]"
HELP = """Open the resource configuration TUI to enable or disable package resources.
Without -l, starts in global settings (~/.pi/agent/settings.json).
Press Tab in the TUI to switch between global and project-local modes.

Options:
  -l, --local       Edit project overrides (.pi/settings.json)
  -a, --approve     Trust project-local files for this command with -l
  -na, --no-approve Ignore project-local files for this command with -l
"""


def run(argv: list[str], *, agent_dir: Path | None = None, cwd: str | None = None) -> int:
    """Run ``pi config ...`` (``argv[0]`` is ``config``); returns the exit status."""
    rest = argv[1:]
    if "-h" in rest or "--help" in rest:
        print(f"Usage:\n  {USAGE}\n\n{HELP}")
        return 0
    local, approve = False, None
    for arg in rest:
        if arg in ("-l", "--local"):
            local = True
        elif arg in ("-a", "--approve"):
            approve = True
        elif arg in ("-na", "--no-approve"):
            approve = False
        elif arg.startswith("-"):
            print(f'Unknown option {arg} for "config".\nUse "pi --help" or "{USAGE}".', file=sys.stderr)
            return 1
        else:
            print(f"Unexpected argument {arg}.\nUsage: {USAGE}", file=sys.stderr)
            return 1
    from ..paths import agent_dir as default_agent_dir
    from .cli import _trusted

    base = agent_dir or default_agent_dir()
    folder = cwd or os.getcwd()
    trusted = _trusted(base, folder, approve, saved_only=False)
    if local and not trusted:
        print("Project is not trusted. Use --approve to modify local resource config.", file=sys.stderr)
        return 1
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # A full-screen list on a pipe would wait for keys that never come.
        print("pi config needs a terminal: run it with stdin and stdout on a terminal", file=sys.stderr)
        return 1
    from .resource_config import ResourceConfig

    config = ResourceConfig(base, folder, project_available=trusted)
    config.items("project" if trusted else "global")
    for warning in config.warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    from ..settings import read_json_object

    settings, _ = read_json_object(config.settings_file("global"))
    theme = (settings or {}).get("theme")
    from pi_tui.config.config_app import ConfigApp

    app = ConfigApp(config, "project" if local else "global", theme_name=theme if isinstance(theme, str) else None)
    return app.run() or 0
