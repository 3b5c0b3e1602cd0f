"""From parsed command-line arguments to a ready ``AgentSession`` — shared by every mode.

Order as in Pi: agent dir, project trust (``--approve``/``--no-approve``), settings,
models (``--model``/``--provider``/``--thinking``/``--models``/``--api-key``/``--demo``),
the session (``--continue``/``--session``/``--session-id``/``--fork``/``--no-session``,
stored under ``--session-dir`` / the ``sessionDir`` setting / ``PI_CODING_AGENT_SESSION_DIR``),
tools and resources. Every user mistake raises one of the typed errors listed in
``USER_ERRORS`` with a one-line message; the CLI prints it without a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..ai.models import ModelNotFoundError
from ..cli_args import CliArgs, UsageError, check_model_choice
from ..kernel.session import AgentSession, typed_settings
from .cli_extensions import LoadedExtensions, apply_extension_flags, load_for_command_line, open_project_trust
from .model_select import ThinkingLevelError, check_level, custom_model, resolve_model_arg, scope_with_warnings


class StartupError(Exception):
    """A start-up problem the user can fix (session not found, unreadable prompt file...)."""


class SessionFolderGone(StartupError):
    """The session chosen at start-up recorded a working directory that no longer exists.

    Pi's wording and behaviour: the headless modes stop with this message (exit 1); the app
    asks instead (``resume_folder.missing_folder_choices``) and builds again with
    ``folder_gone_ok`` or on a fork of the file.
    """

    def __init__(self, session_file: str, recorded: str, current: str) -> None:
        # Pi's three lines as one: start-up errors are one line on stderr.
        super().__init__(f"Stored session working directory does not exist: {recorded} "
                         f"(session file: {session_file}; current working directory: {current})")
        self.session_file = session_file
        self.recorded = recorded
        self.current = current


def user_errors() -> tuple[type[BaseException], ...]:
    """Exception types whose message is shown as-is (one line on stderr, no traceback)."""
    from ..auth import AuthFileError
    from ..kernel.errors import PromptError
    from ..resources.trust import TrustStoreError
    from ..session.storage import SessionFileError
    from ..settings import SettingsError

    return (UsageError, StartupError, ModelNotFoundError, ThinkingLevelError, SessionFileError,
            PromptError, SettingsError, AuthFileError, TrustStoreError)


def _text_or_file(value: str, cwd: str) -> str:
    """``--system-prompt`` / ``--append-system-prompt``: the contents of an existing file, else the text."""
    candidate = Path(value).expanduser()
    if not candidate.is_absolute():
        candidate = Path(cwd) / candidate
    try:
        if len(value) < 4096 and candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StartupError(f"Cannot read {candidate}: {exc}") from exc
    return value


def _split(value: str | None) -> list[str]:
    return [s.strip() for s in (value or "").split(",") if s.strip()]


def _trust(args: CliArgs, cwd: str, agent_dir: Path, settings: Any) -> bool:
    # Headless modes cannot ask: an open question counts as "not trusted" (as in Pi).
    return bool(open_project_trust(args, cwd, agent_dir, settings))


def trust_question(args: CliArgs, cwd: str | None = None) -> str | None:
    """The folder an interactive front end should ask about before the session is built (None
    when a flag, a saved decision, ``defaultProjectTrust`` or the absence of project resources
    decides it). The answer goes back as ``args.approve`` (and :func:`save_trust_decision`)."""
    from ..paths import agent_dir as default_agent_dir
    from ..resources.trust import TrustStore, resolve_project_trust
    from ..settings import SettingsManager

    cwd = cwd or os.getcwd()
    agent_dir = default_agent_dir()
    store = TrustStore(agent_dir)
    settings = SettingsManager.create(cwd, agent_dir, project_trusted=False)
    default = settings.global_settings.default_project_trust
    if resolve_project_trust(cwd, store=store, override=args.approve, default_trust=default).trusted:
        settings.set_project_trusted(True)  # its sessionDir may say where ``--session`` looks
    # ``--session`` of another folder's session runs (and is trusted or not) there.
    folder = _resumed_folder(args, cwd, settings)
    decision = resolve_project_trust(folder, store=store, override=args.approve, default_trust=default)
    return folder if decision.needs_prompt else None


def save_trust_decision(folder: str, trusted: bool) -> None:
    """Remember the user's trust decision for ``folder`` (and what is below it) in trust.json.

    Raises:
        TrustStoreError: trust.json is broken (it is left as it is) or cannot be written.
    """
    from ..paths import agent_dir as default_agent_dir
    from ..resources.trust import TrustStore

    TrustStore(default_agent_dir()).set(folder, trusted)


def session_dir_for(args: CliArgs, settings: Any, cwd: str) -> str | None:
    """The flat folder sessions go to when the CLI or settings choose one, else None.

    ``PI_CODING_AGENT_SESSION_DIR`` needs no handling here: it moves the default sessions
    root, which the session package reads itself.
    """
    value = args.session_dir
    if value is None and not os.environ.get("PI_CODING_AGENT_SESSION_DIR", "").strip():
        value = settings.project_session_dir() or settings.settings.session_dir
    if not value:
        return None
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else Path(cwd) / path)


def _find_session(ref: str, cwd: str, session_dir: str | None, *, new_file_ok: bool = False) -> Path:
    """The file ``ref`` names: a path, or a full or partial session id.

    With ``new_file_ok`` (``--session``) a path to no file is where a new session goes, as in
    Pi; ``--fork`` needs a session to copy.
    """
    from ..session.listing import header_id, session_files
    from ..session.manager import SessionManager
    from ..session.paths import session_id_from_file_name

    path = Path(ref).expanduser()
    if not path.is_absolute():
        path = Path(cwd) / path
    if path.is_file() or ref.endswith(".jsonl") or os.sep in ref:
        if path.is_dir() or (not path.is_file() and not new_file_ok):
            raise StartupError(f"Session file not found: {path}")
        return path
    if session_dir is not None:
        needle = ref.lower()
        files = session_files(Path(session_dir))
        hits = [f for f in files if (session_id_from_file_name(f.name) or "").lower().startswith(needle)]
        if not hits:
            # A file named by the user (``--session /dir/x.jsonl``) carries its id only in its header.
            hits = [f for f in files if (header_id(f) or "").lower().startswith(needle)]
        if hits:
            return max(hits, key=lambda p: p.stat().st_mtime)
    found = SessionManager.find(ref, cwd)
    if found is None:
        raise StartupError(f"No session found matching '{ref}'")
    return Path(found)


def open_session_manager(args: CliArgs, cwd: str, settings: Any) -> Any:
    """The ``SessionManager`` the flags ask for.

    Raises:
        StartupError: No session matches ``--session``/``--fork``; ``--resume`` without a picker.
        SessionFileError: The file is not a session, or another process has it open.
    """
    from ..session.manager import SessionManager

    directory = session_dir_for(args, settings, cwd)
    if args.no_session:
        return SessionManager.in_memory(cwd)
    if args.resume:
        raise StartupError("--resume needs the interactive session picker; use --session <id> or --continue")
    if args.fork:
        if args.session_id and _project_session_with_id(args.session_id, cwd, directory) is not None:
            raise StartupError(f"Session already exists with id '{args.session_id}'")
        return SessionManager.fork_from(_find_session(args.fork, cwd, directory), cwd, directory,
                                        session_id=args.session_id)
    if args.session:
        path = _find_session(args.session, cwd, directory, new_file_ok=True)
        return SessionManager.open(path, directory, cwd=cwd)
    if args.continue_:
        return SessionManager.continue_recent(cwd, directory)
    if args.session_id:
        found = _project_session_with_id(args.session_id, cwd, directory)
        if found is not None:
            return SessionManager.open(found, found.parent, cwd=cwd)
        return SessionManager.create(cwd, directory, session_id=args.session_id)
    return SessionManager.create(cwd, directory)


def _project_session_with_id(session_id: str, cwd: str, directory: str | None) -> Path | None:
    """This project's session file whose id is exactly ``session_id`` (None when there is none)."""
    from ..session.listing import session_files
    from ..session.paths import project_session_dir, session_id_from_file_name

    folder = Path(directory) if directory else project_session_dir(cwd)
    return next((f for f in session_files(folder) if session_id_from_file_name(f.name) == session_id), None)


def _resumed_folder(args: CliArgs, cwd: str, settings: Any) -> str:
    """The folder a ``--session`` file runs in: the one it recorded when that exists, else ``cwd``."""
    if not args.session or args.fork or args.no_session:
        return cwd
    from ..session.listing import header_cwd

    try:
        path = _find_session(args.session, cwd, session_dir_for(args, settings, cwd), new_file_ok=True)
    except StartupError:
        return cwd  # the build says so
    recorded = header_cwd(Path(path))
    return recorded if recorded and recorded != cwd and os.path.isdir(recorded) else cwd


def _check_folder_exists(manager: Any, cwd: str) -> None:
    """Raise ``SessionFolderGone`` when the opened session file recorded a folder that is gone."""
    recorded = (getattr(manager, "header", None) or {}).get("cwd")
    session_file = getattr(manager, "session_file", None)
    if session_file and isinstance(recorded, str) and recorded and not os.path.isdir(recorded):
        raise SessionFolderGone(str(session_file), recorded, cwd)


def _session_cwd(manager: Any, cwd: str) -> str:
    """Resume a session in its own working directory when that still exists (as Pi does)."""
    recorded = (getattr(manager, "header", None) or {}).get("cwd")
    if isinstance(recorded, str) and recorded != cwd and os.path.isdir(recorded):
        return recorded
    return cwd


def build_session(args: CliArgs, *, cwd: str | None = None, preloaded: LoadedExtensions | None = None,
                  folder_gone_ok: bool = False) -> AgentSession:
    """Build the session every mode (and the interactive app) runs on; see ``_build_session``.

    The collector is off while the session loads: a long session creates hundreds of
    thousands of objects, and each collection on the way would rescan them all. What was
    loaded is then frozen out of the collector's reach, since it lives as long as the
    process; on a 20k-message session this saves ~0.3 s.
    """
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build_session(args, cwd=cwd, preloaded=preloaded, folder_gone_ok=folder_gone_ok)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def _build_session(args: CliArgs, *, cwd: str | None = None, preloaded: LoadedExtensions | None = None,
                   folder_gone_ok: bool = False) -> AgentSession:
    """Build the session every mode (and the interactive app) runs on.

    Args:
        args: Parsed command line (``pi_runtime.cli_args.parse_args``).
        cwd: Working directory; the process cwd when omitted.
        preloaded: Extensions the interactive app loaded before it painted
            (``cli_extensions.preload_for_app``); used when they were loaded for this folder.
        folder_gone_ok: Run a session whose recorded folder is gone in ``cwd`` (the user chose
            to continue there) instead of raising ``SessionFolderGone``.

    Returns:
        A ready ``AgentSession`` (not yet prompted).

    Raises:
        One of ``user_errors()`` for anything the user can fix.
    """
    from ..ai.models import ModelRegistry
    from ..auth import AuthStorage
    from ..paths import agent_dir as default_agent_dir
    from ..settings import SettingsManager

    check_model_choice(args)
    cwd = os.path.abspath(cwd or os.getcwd())
    if args.offline:
        os.environ["PI_OFFLINE"] = "1"
    agent_dir = default_agent_dir()
    if preloaded is not None and (preloaded.cwd, preloaded.agent_dir) != (cwd, agent_dir):
        preloaded = None  # loaded for another folder: this build loads its own
    if preloaded is not None:
        settings, trusted, registry = preloaded.settings, preloaded.trusted, preloaded.registry
    else:
        settings = SettingsManager.create(cwd, agent_dir, project_trusted=False)
        trusted = _trust(args, cwd, agent_dir, settings)
        if trusted:
            settings.set_project_trusted(True)
        registry = ModelRegistry(agent_dir / "models.json", AuthStorage(agent_dir / "auth.json"))
    from ..http import apply_proxy_setting

    apply_proxy_setting(settings.global_settings.http_proxy)  # before any request, as Pi does
    manager = open_session_manager(args, cwd, settings)
    try:
        if not folder_gone_ok:
            _check_folder_exists(manager, cwd)
        return _build_with_manager(args, cwd, agent_dir, settings, trusted, registry, manager, preloaded)
    except BaseException:
        manager.close()
        raise


def _build_with_manager(args: CliArgs, cwd: str, agent_dir: Path, settings: Any, trusted: bool, registry: Any,
                        manager: Any, preloaded: LoadedExtensions | None) -> AgentSession:
    from ..resources.loader import ResourceLoader
    from ..sdk import create_agent_session
    from ..settings import SettingsManager

    session_cwd = _session_cwd(manager, cwd)
    if session_cwd != cwd:
        # A session of another folder runs there: that folder's settings and trust decision
        # apply, never the launch folder's (its project extensions must not load on the
        # strength of a folder that has none).
        cwd = session_cwd
        settings = SettingsManager.create(cwd, agent_dir, project_trusted=False)
        trusted = _trust(args, cwd, agent_dir, settings)
        if trusted:
            settings.set_project_trusted(True)
    # Extensions load before models are resolved (their providers can be chosen with --model)
    # and before their flags are checked (as Pi).
    if preloaded is not None and preloaded.cwd == cwd:
        runner = preloaded.runner
    else:
        if preloaded is not None:
            # A resumed session in another folder gets that folder's extensions, and a registry
            # without the models of the ones loaded for the first folder.
            from ..ai.models import ModelRegistry
            from ..auth import AuthStorage

            registry = ModelRegistry(agent_dir / "models.json", AuthStorage(agent_dir / "auth.json"))
        runner = load_for_command_line(args, cwd, agent_dir, settings, registry, trusted, mcp=True)
    apply_extension_flags(args, runner)
    model, level = None, None
    model_warnings: list[str] = []
    if args.demo:
        from .demo import demo_model

        model = demo_model()
        registry.add_model(model)
    elif args.model:
        try:
            model, level = resolve_model_arg(registry, args.model, args.provider)
        except ModelNotFoundError:
            fallback = custom_model(registry, args.model, args.provider, bool(args.thinking))
            if fallback is None:
                raise
            model, level, warning = fallback
            requested = args.thinking or level
            if requested and requested != "off":  # a level asked for: Pi takes the model to reason
                model = model.model_copy(update={"reasoning": True})
            model_warnings.append(warning)
    # (enabledModels from the settings are the SDK's: create_agent_session applies them.)
    scoped, scope_warnings = scope_with_warnings(registry, args.models.split(",")) if args.models else (None, [])
    scoped = scoped or None
    if model is None and scoped and not manager.raw_branch():
        # A new session starts on the saved default when it is in the scope, else on its first model (Pi).
        typed = typed_settings(settings)
        default = f"{typed.default_provider}/{typed.default_model}"
        model, level = next((item for item in scoped if item[0].ref == default), scoped[0])
    if args.thinking:
        level = check_level(args.thinking)
    elif level is not None:
        check_level(level)
    if args.api_key:
        if model is None:
            raise UsageError("--api-key needs a model chosen with --model or --models")
        registry.set_runtime_api_key(model.provider, args.api_key)

    append = "\n\n".join(_text_or_file(v, cwd) for v in args.append_system_prompt) or None
    loader = ResourceLoader(
        cwd, agent_dir, settings=settings, project_trusted=trusted,
        no_context_files=args.no_context_files, no_skills=args.no_skills,
        no_prompt_templates=args.no_prompt_templates,
        skill_paths=args.skills, prompt_paths=args.prompt_templates,
        system_prompt=_text_or_file(args.system_prompt, cwd) if args.system_prompt else None,
        append_system_prompt=append,
    )
    try:
        session = create_agent_session(
            cwd=cwd, agent_dir=str(agent_dir), model=model, thinking_level=level,
            tools=args.tools, exclude_tools=_split(args.exclude_tools),
            no_tools=args.no_tools or args.no_builtin_tools,
            session_manager=manager, settings=settings, resource_loader=loader,
            model_registry=registry, scoped_models=scoped,
            # No runner (nothing loaded): the SDK would discover again, so it must get -ne too.
            extension_runner=runner, extensions=args.extensions, no_extensions=args.no_extensions,
        )
    except ValueError as exc:  # select_tools: unknown tool / mixed +/- entries
        raise UsageError(str(exc)) from exc
    session.startup_warnings[:0] = model_warnings + scope_warnings
    if args.name:
        manager.append_session_info(args.name)
    return session
