"""``pi install | remove | uninstall | list | update``: package commands (cli.md, "Package commands").

Personal installs go to ``<agent dir>/settings.json``; ``-l``/``--local`` writes the project's
``.pi/settings.json``, which needs project trust (``-a``/``--approve`` grants it for one command).
Messages and exit statuses follow Pi's. ``pi update`` without a package target would update pi
itself, which a pip-installed pi cannot do: it says so and exits 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from .settings_file import (
    Declared,
    PackageSettingsError,
    Scope,
    add_declared,
    read_declared,
    remove_declared,
    settings_path,
)
from .sources import Source, SourceError, parse_source
from .store import InstallError, install, installed_path, offline, uninstall, update

USAGE = {
    "install": "pi install <source> [-l] [--approve|--no-approve]",
    "remove": "pi remove <source> [-l] [--approve|--no-approve]",
    "uninstall": "pi uninstall <source> [-l] [--approve|--no-approve]",
    "list": "pi list [--approve|--no-approve]",
    "update": "pi update [source|self|pi] [--self|--extensions|--models|--all] [--extension <source>] "
              "[--approve|--no-approve] [--force]",
}
HELP = {
    "install": """Install a package and add it to settings.

Options:
  -l, --local       Install project-locally (.pi/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command

Examples:
  pi install pypi:pi-tools
  pi install pypi:pi-tools==1.2.0
  pi install git:github.com/user/repo
  pi install git:github.com/user/repo@v1
  pi install https://github.com/user/repo
  pi install git:file:///path/to/repo
  pi install ./local/path
""",
    "remove": """Remove a package and its source from settings.
Alias: pi uninstall <source> [-l]

Options:
  -l, --local       Remove from project settings (.pi/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command
""",
    "list": """List installed packages from user and project settings.

Options:
  -a, --approve      Trust project-local files for this command
  -na, --no-approve  Ignore project-local files for this command
""",
    "update": """Update installed packages (pi itself is updated with pip).

Options:
  --extensions            Update installed packages only
  --extension <source>    Update one package only
  --models                Refresh model catalogs only (into models-store.json, shared with Pi)
  --all                   Update pi and installed packages
  -a, --approve           Trust project-local files for this command
  -na, --no-approve       Ignore project-local files for this command
""",
}
HELP["uninstall"] = HELP["remove"]

Out = Callable[[str], None]


class _Args:
    def __init__(self, command: str) -> None:
        self.command = command
        self.positional: list[str] = []
        self.local = False
        self.approve: bool | None = None
        self.flags: set[str] = set()
        self.extension: str | None = None


def _parse(command: str, argv: list[str], error: Out) -> _Args | None:
    args = _Args(command)
    allowed = {"update": {"--self", "--extensions", "--models", "--all", "--force"}}.get(command, set())
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg in ("-l", "--local") and command in ("install", "remove", "uninstall"):
            args.local = True
        elif arg in ("-a", "--approve"):
            args.approve = True
        elif arg in ("-na", "--no-approve"):
            args.approve = False
        elif arg in allowed:
            args.flags.add(arg)
        elif arg == "--extension" and command == "update":
            if i >= len(argv):
                error(f"Missing value for {arg}.\nUsage: {USAGE[command]}")
                return None
            args.extension = argv[i]
            i += 1
        elif arg.startswith("-") and arg != "-":
            error(f'Unknown option {arg} for "{command}".\nUse "pi --help" or "{USAGE[command]}".')
            return None
        else:
            args.positional.append(arg)
    limit = 0 if command == "list" else 1
    if len(args.positional) > limit:
        error(f"Unexpected argument {args.positional[limit]}.\nUsage: {USAGE[command]}")
        return None
    return args


def _trusted(agent_dir: Path, cwd: str, approve: bool | None, saved_only: bool) -> bool:
    from ..resources.trust import TrustStore, TrustStoreError, resolve_project_trust
    from ..settings import SettingsManager

    store = TrustStore(agent_dir)
    if saved_only and approve is None:
        try:
            return store.get(cwd) is True
        except TrustStoreError:
            return False
    default = SettingsManager.create(cwd, agent_dir, project_trusted=False).global_settings.default_project_trust
    return resolve_project_trust(cwd, store=store, override=approve, default_trust=default).effective()


def _scopes(trusted: bool) -> list[Scope]:
    return ["user", "project"] if trusted else ["user"]


def _install(args: _Args, agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    raw = args.positional[0]
    out(f"Installing {raw}...")
    scope: Scope = "project" if args.local else "user"
    path = settings_path(scope, agent_dir, cwd)
    try:
        source = parse_source(raw, Path(cwd))
        root = install(source, path.parent, progress=out)
        add_declared(path, source)
    except (SourceError, InstallError, PackageSettingsError) as exc:
        error(f"Error: {exc}")
        return 1
    from .resolve import offered_by

    # What the package declares wrongly is said now, not found out later by what does not load.
    for problem in offered_by(source, root)[0].problems:
        error(f"Warning: {problem}")
    out(f"Installed {raw}")
    return 0


def _remove(args: _Args, agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    raw = args.positional[0]
    out(f"Removing {raw}...")
    scope: Scope = "project" if args.local else "user"
    path = settings_path(scope, agent_dir, cwd)
    try:
        source = parse_source(raw, Path(cwd))
        declared, _ = read_declared(path, scope)
        match = next((d for d in declared if d.source.identity == source.identity), None)
        if match is None or not remove_declared(path, source):
            error(f"No matching package found for {raw}")
            return 1
        uninstall(match.source, match.install_root)
    except (SourceError, PackageSettingsError, OSError) as exc:
        error(f"Error: {exc}")
        return 1
    out(f"Removed {raw}")
    return 0


def _list(agent_dir: Path, cwd: str, trusted: bool, out: Out) -> int:
    sections: list[tuple[str, list[tuple[str, Path | None]]]] = []
    problems: list[str] = []
    for scope in _scopes(trusted):
        declared, found = read_declared(settings_path(scope, agent_dir, cwd), scope)
        problems.extend(found)
        rows = [(d.raw + (" (filtered)" if d.filters else ""), installed_path(d.source, d.install_root)) for d in declared]
        if rows:
            sections.append(("User packages:" if scope == "user" else "Project packages:", rows))
    if not sections:
        out("No packages installed.")
    for index, (title, rows) in enumerate(sections):
        if index:
            out("")
        out(title)
        for display, where in rows:
            out(f"  {display}")
            if where is not None:
                out(f"    {where}")
    for problem in problems:
        out(f"Warning: {problem}")
    return 0


def _update(args: _Args, agent_dir: Path, cwd: str, trusted: bool, out: Out, error: Out) -> int:
    target = args.extension or (args.positional[0] if args.positional else None)
    packages = "--extensions" in args.flags or "--all" in args.flags or (target is not None and target not in ("self", "pi"))
    self_update = not packages or "--all" in args.flags or "--self" in args.flags or target in ("self", "pi")
    if "--models" in args.flags:
        if args.flags & {"--self", "--extensions", "--all"} or args.extension:
            error("--models cannot be combined with --self, --extensions, --all, or --extension")
            return 1
        if args.positional:
            error("--models cannot be combined with a positional source")
            return 1
        from .models_update import update_models

        return update_models(agent_dir, out, error)
    status = 0
    if packages:
        status = _update_packages(None if target in (None, "self", "pi") else target, agent_dir, cwd, trusted, out, error)
    if self_update:
        if not packages:
            out("Extensions are skipped. Run pi update --extensions to update extensions.")
        error("error: pi cannot self-update this installation.")
        error("Update it with pip: pip install --upgrade pi-agent")
        status = 1
    return status


def _update_packages(target: str | None, agent_dir: Path, cwd: str, trusted: bool, out: Out, error: Out) -> int:
    wanted: Source | None = None
    if target is not None:
        try:
            wanted = parse_source(target, Path(cwd))
        except SourceError as exc:
            error(f"Error: {exc}")
            return 1
    matched: list[Declared] = []
    for scope in _scopes(trusted):
        declared, _ = read_declared(settings_path(scope, agent_dir, cwd), scope)
        matched.extend(d for d in declared if wanted is None or d.source.identity == wanted.identity)
    if wanted is not None and not matched:
        error(f"Error: No matching package found for {target}")
        return 1
    if offline():
        out("Skipped package updates (offline mode)")
        return 0
    changes, failed = [], False
    for item in matched:
        try:
            change = update(item.source, item.install_root)
        except InstallError as exc:
            out(f"Warning: {item.raw}: {exc}")
            failed = True
            continue
        if change:
            changes.append(change)
    if not changes and failed:
        out(f"{target} was not updated, see the warnings above" if target else "No packages were updated, see the warnings above")
        return 1
    if not changes:
        out(f"{target} is already up to date" if target else "Packages are already up to date")
        return 0
    out(f"Updated {len(changes)} package{'' if len(changes) == 1 else 's'}:")
    for change in changes:
        out(f"  {change}")
    return 1 if failed else 0


def run(argv: list[str], *, agent_dir: Path | None = None, cwd: str | None = None) -> int:
    """Run ``pi <command> ...`` (``argv[0]`` is the command); returns the exit status."""
    from ..paths import agent_dir as default_agent_dir

    def out(line: str) -> None:
        print(line, flush=True)

    def error(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    command, rest = argv[0], argv[1:]
    base = agent_dir or default_agent_dir()
    folder = cwd or os.getcwd()
    if "-h" in rest or "--help" in rest:
        out(f"Usage:\n  {USAGE[command]}\n\n{HELP[command]}")
        return 0
    args = _parse(command, rest, error)
    if args is None:
        return 1
    if command in ("install", "remove", "uninstall") and not args.positional:
        error(f"Missing {command} source.\nUsage: {USAGE[command]}")
        return 1
    trusted = _trusted(base, folder, args.approve, saved_only=command == "update")
    if args.local and not trusted:
        error("Project is not trusted. Use --approve to modify local package config.")
        return 1
    if command == "install":
        return _install(args, base, folder, out, error)
    if command in ("remove", "uninstall"):
        return _remove(args, base, folder, out, error)
    if command == "list":
        return _list(base, folder, trusted, out)
    return _update(args, base, folder, trusted, out, error)
