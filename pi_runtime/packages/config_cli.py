"""``pi config [-l] [--approve|--no-approve]``: turn resources and built-in extensions on and off.

Options, messages and exit statuses are Pi's. The screen itself is ``pi_tui.config``, imported only
here, once the arguments are known to be good (``pi_runtime`` stays free of Textual, and a wrong
option answers without loading it). Project scope needs a trusted project: when nothing has decided
yet and ``defaultProjectTrust`` is ``ask``, the screen asks first (Pi's question); ``-l`` in a project
that is not trusted is refused, and without ``-l`` the project scope is not offered.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

USAGE = "pi config [-l] [--approve|--no-approve]"
REFUSAL = "Project is not trusted. Use --approve to modify local resource config."
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
    from ..resources.trust import TrustStore, resolve_project_trust
    from ..settings import SettingsManager, read_json_object

    base = agent_dir or default_agent_dir()
    folder = cwd or os.getcwd()
    default = SettingsManager.create(folder, base, project_trusted=False).global_settings.default_project_trust
    decision = resolve_project_trust(folder, store=TrustStore(base), override=approve, default_trust=default)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    # An open question ("defaultProjectTrust": "ask", nothing saved) is asked on the screen, as Pi
    # asks it; without a terminal it counts as "no".
    ask = decision.needs_prompt and terminal
    if local and not decision.effective() and not ask:
        print(REFUSAL, file=sys.stderr)
        return 1
    if not terminal:
        # A full-screen list on a pipe would wait for keys that never come.
        print("pi config needs a terminal: run it with stdin and stdout on a terminal", file=sys.stderr)
        return 1
    from .resource_config import ResourceConfig

    config = ResourceConfig(base, folder, project_available=decision.effective())
    config.items("project" if decision.effective() else "global")
    for warning in config.warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    settings, _ = read_json_object(config.settings_file("global"))
    theme = (settings or {}).get("theme")
    import importlib

    # The screen is the app's (as cli_main starts the interactive app): named at run time, so the
    # runtime never imports the UI layer.
    ConfigApp = importlib.import_module("pi_tui.config.config_app").ConfigApp
    app = ConfigApp(config, "project" if local else "global", theme_name=theme if isinstance(theme, str) else None,
                    ask_trust=folder if ask else None)
    status = app.run() or 0
    if local and not config.project_available:  # the question on screen was answered "no"
        print(REFUSAL, file=sys.stderr)
        return 1
    return status
