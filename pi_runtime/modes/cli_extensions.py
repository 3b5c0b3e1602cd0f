"""Extensions before (or without) a session: their flags and providers on the command line.

Pi loads extensions before it looks at the command line's unknown ``--flags``, before it
prints ``--help`` (which lists extensions' flags) and before ``--list-models`` (which lists
extensions' providers' models). pi does the same, with two economies:

- ``--help`` first asks :func:`might_have_extensions`, which reads a few folders and two
  settings files without importing anything, so ``pi --help`` with no extension stays as fast
  as it was;
- ``--export`` loads extensions only to check flags it was given.

The interactive app paints before it builds the session, so its flag check happens here, before
the app starts (:func:`preload_for_app`); the loaded extensions are handed to the build, which
reuses them when nothing changed on the way (same folder, same trust).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..cli_args import CliArgs, ExtensionFlagArg, UsageError, unknown_option_message
from ..records import record


@record
class LoadedExtensions:
    """What loading extensions for a command line took, so a session build can reuse it."""

    cwd: str
    agent_dir: Path
    settings: Any
    """The ``SettingsManager`` the extensions were loaded with."""
    trusted: bool
    registry: Any
    """The ``ModelRegistry`` the extensions' providers went to."""
    runner: Any
    """The ``ExtensionRunner``, or None when no extension is configured."""


def might_have_extensions(args: CliArgs, cwd: str, agent_dir: Path) -> bool:
    """False only when no extension can load: no ``-e``, no extension folder with entries, and no
    ``extensions``/``packages`` in a settings file. Reads, never imports (``--help`` stays fast);
    the project's folder and file only when the project is already trusted (a stranger's file is
    not read before the trust question)."""
    if args.extensions:
        return True
    if args.no_extensions:
        return False
    project = Path(cwd) / ".pi"
    folders, files = [agent_dir / "extensions"], [agent_dir / "settings.json"]
    if (project / "extensions").exists() or (project / "settings.json").exists():
        from ..resources.trust import settled_project_trust

        if settled_project_trust(cwd, agent_dir, args.approve):
            folders.append(project / "extensions")
            files.append(project / "settings.json")
    for folder in folders:
        try:
            if any(True for _ in os.scandir(folder)):
                return True
        except OSError:  # no such folder, or unreadable: the real load would find nothing there either
            pass
    from ..config_files import read_json_object

    for settings_file in files:
        data, _ = read_json_object(settings_file)
        if data is None:
            return True  # let the settings loader say what is wrong with it
        if data.get("extensions") or data.get("packages"):
            return True
    return False


def open_project_trust(args: CliArgs, cwd: str, agent_dir: Path, settings: Any) -> bool | None:
    """The project's trust as the flags, saved decisions and settings decide it; None while the
    question is open (an interactive front end asks it, a headless mode takes it as "no")."""
    from ..resources.trust import TrustStore, resolve_project_trust

    default = settings.global_settings.default_project_trust
    decision = resolve_project_trust(cwd, store=TrustStore(agent_dir), override=args.approve, default_trust=default)
    return None if decision.needs_prompt else decision.effective()


def load_for_command_line(args: CliArgs, cwd: str, agent_dir: Path, settings: Any, registry: Any, trusted: bool,
                          *, mcp: bool, llama_offered: bool | None = None) -> Any:
    """The run's extensions with their start-up work done; None when there are none.

    Async factories and ``refresh_models`` callbacks run to completion here (on a loop of their
    own, the mode's loop does not exist yet), so the providers they register can be chosen with
    ``--model`` and listed by ``--list-models``, as in Pi.
    """
    import asyncio

    from ..extensions.load_configured import load_extensions

    exclude = [s.strip() for s in (args.exclude_tools or "").split(",") if s.strip()]
    runner = load_extensions(cwd, str(agent_dir), settings, registry, trusted, list(args.extensions),
                             args.no_extensions,
                             # Pi's built-in MCP support: off with --no-mcp, and with -ne unless -e builtin:mcp.
                             mcp=mcp and not args.no_mcp and not args.no_extensions,
                             tools=args.tools, exclude_tools=exclude,
                             # RPC lists /llama before a router is set up (Pi); the app and -p load it once one is.
                             llama_offered=args.mode == "rpc" if llama_offered is None else llama_offered)
    if runner is not None and runner.needs_preparing():
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(runner.prepare())
    return runner


def load_without_session(args: CliArgs, *, mcp: bool = False, trusted: bool | None = None,
                         llama_offered: bool | None = False) -> LoadedExtensions:
    """Settings, trust, a model registry and the extensions, for a command that builds no session.

    MCP stays off unless asked for: its servers register neither flags nor providers.

    Raises:
        SettingsError / TrustStoreError / AuthFileError: a broken configuration file.
    """
    from ..ai.models import ModelRegistry
    from ..auth import AuthStorage
    from ..paths import agent_dir as default_agent_dir
    from ..settings import SettingsManager

    if args.offline:
        os.environ["PI_OFFLINE"] = "1"  # refresh_models callbacks read it
    cwd = os.getcwd()
    agent_dir = default_agent_dir()
    settings = SettingsManager.create(cwd, agent_dir, project_trusted=False)
    if trusted is None:
        trusted = bool(open_project_trust(args, cwd, agent_dir, settings))
    if trusted:
        settings.set_project_trusted(True)
    from ..http import apply_proxy_setting

    apply_proxy_setting(settings.global_settings.http_proxy)  # extensions may fetch while they load
    registry = ModelRegistry(agent_dir / "models.json", AuthStorage(agent_dir / "auth.json"))
    # Without a session (--list-models) llama.cpp's models are listed only once a router is configured.
    runner = load_for_command_line(args, cwd, agent_dir, settings, registry, trusted, mcp=mcp,
                                   llama_offered=llama_offered)
    return LoadedExtensions(cwd, agent_dir, settings, trusted, registry, runner)


def report_load_failures(runner: Any) -> None:
    """On stderr, in Pi's words, one line each: no session will report them for these commands."""
    for failure in getattr(runner, "failures", None) or []:
        reason = (str(failure.error).strip().splitlines() or ["error"])[0]  # "Type: message"
        print(f'pi: Failed to load extension "{failure.path}": {reason}', file=sys.stderr)


def preload_for_app(args: CliArgs) -> LoadedExtensions | None:
    """Before the interactive app paints: load the extensions and check the flags given for them.

    Only when the command line has ``--flags`` pi does not know (otherwise the app's own build
    loads extensions after the first frame, as before). None when the project's trust is still
    an open question: the app asks it, and the extensions it allows are known only then.

    Raises:
        UsageError: an unknown ``--flag``, or a string flag without a value (exit status 2).
    """
    if not args.extension_flags:
        return None
    from ..paths import agent_dir as default_agent_dir
    from ..settings import SettingsManager

    cwd = os.getcwd()
    agent_dir = default_agent_dir()
    trusted = open_project_trust(args, cwd, agent_dir, SettingsManager.create(cwd, agent_dir, project_trusted=False))
    if trusted is None:
        return None
    loaded = load_without_session(args, mcp=True, trusted=trusted, llama_offered=None)  # reused by the session
    apply_extension_flags(args, loaded.runner)
    return loaded


def apply_extension_flags(args: CliArgs, runner: Any) -> None:
    """Give extensions' ``register_flag`` flags their command-line values.

    A boolean flag is set by its presence (``--plan=false`` clears it); a word the parser took
    as its value goes back to the messages. A string flag needs a value. Applying twice (the
    interactive check, then the session build) gives nothing back twice.

    Raises:
        UsageError: A ``--flag`` no extension registered, or a string flag without a value.
    """
    flags = runner.flags() if runner is not None else {}
    unknown = [f"--{arg.name}" for arg in args.extension_flags if arg.name not in flags]
    if unknown:
        raise UsageError(unknown_option_message(unknown, tuple(f"--{n}" for n in flags)))
    values: dict[str, Any] = {}
    given_back = 0
    for position, arg in enumerate(args.extension_flags):
        flag = flags[arg.name]
        if flag.type == "boolean":
            values[arg.name] = not (arg.inline and (arg.value or "").lower() in ("false", "0", "no", "off"))
            if arg.value is not None and not arg.inline:
                args.messages.insert(arg.message_index + given_back, arg.value)
                given_back += 1
                # The word is a message now; the flag stands alone from here on.
                args.extension_flags[position] = ExtensionFlagArg(arg.name, None, False, arg.message_index)
        elif arg.value is None:
            raise UsageError(f'Extension flag "--{arg.name}" requires a value')
        else:
            values[arg.name] = arg.value
    if runner is not None and values:
        runner.set_flag_values(values)


def extension_flags_help(flags: dict[str, Any]) -> str:
    """The ``--help`` section listing extensions' flags ("" when there are none)."""
    if not flags:
        return ""
    lines = ["Extension flags:"]
    for flag in flags.values():
        usage = f"  --{flag.name}" + (" <value>" if flag.type == "string" else "")
        description = flag.description or f"Registered by {flag.extension.path}"
        lines.append(f"{usage:<30}{description}" if len(usage) < 30 else f"{usage} {description}")
    return "\n".join(lines) + "\n\n"


def help_text(args: CliArgs, base_help: str) -> str:
    """``pi --help``: ``base_help`` with the loaded extensions' flags before its last section.

    Nothing hides the help (as in Pi): a broken configuration file, an extension that failed to
    load or a ``--flag`` nobody registered is one line on stderr.
    """
    from ..paths import agent_dir as default_agent_dir

    runner = None
    if might_have_extensions(args, os.getcwd(), default_agent_dir()):
        from .startup import user_errors

        try:
            runner = load_without_session(args).runner
        except user_errors() as exc:
            print(f"pi: {exc}", file=sys.stderr)
            return base_help
        report_load_failures(runner)
    if args.extension_flags:
        try:
            apply_extension_flags(args, runner)
        except UsageError as exc:
            print(f"pi: {exc}", file=sys.stderr)
    if runner is None:
        return base_help
    section = extension_flags_help(runner.flags() if runner is not None else {})
    marker = "\nEnvironment:\n"
    head, found, tail = base_help.partition(marker)
    return f"{head}\n{section}{marker.lstrip()}{tail}" if found and section else base_help + section
