"""Build an ``AgentSession`` in-process: the SDK entry point, also used by every pi mode.

Every boundary can be supplied (session manager, settings, resources, registry, tools,
model); whatever is not is built the standard way for ``cwd`` and the agent dir.

Example (fully offline, with the scripted provider):
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session import SessionManager
    from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text

    scripted = ScriptedProvider().push(scripted_text("Hello from pi"))
    session = create_agent_session(model=scripted.model(), session_manager=SessionManager.in_memory())
    await session.prompt("Say hello")
    print(session.get_last_assistant_text())
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .agent.agent import Agent
from .agent.tool import AgentTool
from .ai.types import Model
from .extensions.load_configured import load_extensions as load_extensions  # the SDK's; lives apart to stay light
from .kernel.session import AgentSession, typed_settings
from .kernel.thinking import clamp_thinking
from .settings_model import Settings

if TYPE_CHECKING:
    from .ai.models import ModelRegistry
    from .extensions.runner import ExtensionRunner
    from .resources.port import ResourceLoaderPort
    from .session.manager import SessionManager
    from .settings import SettingsManager

DEFAULT_TOOLS = ("read", "bash", "edit", "write")


def select_tools(
    available: dict[str, AgentTool],
    spec: str | Iterable[str] | None = None,
    *,
    defaults: Iterable[str] = DEFAULT_TOOLS,
    exclude: Iterable[str] = (),
    no_tools: bool = False,
) -> list[AgentTool]:
    """Pick the active tools the way ``--tools`` / ``defaultTools`` do.

    A list of plain names replaces the defaults; a list of only ``+name``/``-name`` entries
    changes them. ``exclude`` entries may use ``*`` patterns.

    Raises:
        ValueError: plain names mixed with +/- entries, or an unknown tool name.
    """
    import fnmatch

    if no_tools:
        return []
    names = list(defaults)
    if spec is not None:
        items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
        changes = [s for s in items if s[0] in "+-"]
        if changes and len(changes) != len(items):
            raise ValueError("--tools: plain names and +name/-name entries cannot be mixed")
        if changes:
            for item in changes:
                name = item[1:]
                if item[0] == "+" and name not in names:
                    names.append(name)
                elif item[0] == "-" and name in names:
                    names.remove(name)
        else:
            names = []
            for item in items:
                matched = [n for n in available if fnmatch.fnmatchcase(n, item)]
                if not matched:
                    raise ValueError(f"Unknown tool '{item}'. Available: {', '.join(sorted(available))}")
                names.extend(m for m in matched if m not in names)
    for name in names:
        if name not in available:
            raise ValueError(f"Unknown tool '{name}'. Available: {', '.join(sorted(available))}")
    excluded = list(exclude)
    return [available[n] for n in names if not any(fnmatch.fnmatchcase(n, p) for p in excluded)]


def _default_model(registry: Any, typed: Settings) -> Model | None:
    provider, model_id = typed.default_provider, typed.default_model
    if provider and model_id:
        found = registry.find(provider, model_id)
        if found is not None:
            return found
    if model_id:
        found = registry.lookup(model_id)
        if found is not None:
            return found
    # Pi's choice: the default model of the first provider (in Pi's order) that has credentials,
    # else the first model with credentials.
    from .ai.catalog import builtin_catalog

    catalog = builtin_catalog()
    with registry.credential_lookups():  # auth.json checked once, not for each of 43 providers
        for provider in catalog.default_model_order:
            info = catalog.providers.get(provider)
            if info is not None and info.default_model and registry.provider_has_credentials(provider):
                found = registry.find(provider, info.default_model)
                if found is not None:
                    return found
        available = registry.available()
    if available:
        return available[0]
    # Nothing has credentials: keep a sensible model so the first prompt explains how to connect.
    return registry.find("anthropic", "claude-sonnet-4-5") or (registry.all() or [None])[0]


def _enabled_scope(registry: Any, patterns: list[str]) -> tuple[list[tuple[Model, str | None]], list[str]]:
    """``enabledModels`` as scoped models: each pattern as ``--models`` reads it; one that matches
    nothing is left out with Pi's warning (a model that went away must not stop pi from starting)."""
    from .modes.model_select import scope_with_warnings

    return scope_with_warnings(registry, patterns)


def create_agent_session(
    *,
    cwd: str | None = None,
    agent_dir: str | None = None,
    model: Model | None = None,
    thinking_level: str | None = None,
    tools: Iterable[str] | str | None = None,
    exclude_tools: Iterable[str] = (),
    no_tools: bool = False,
    custom_tools: Iterable[AgentTool] = (),
    session_manager: SessionManager | None = None,
    settings: SettingsManager | None = None,
    resource_loader: ResourceLoaderPort | None = None,
    model_registry: ModelRegistry | None = None,
    scoped_models: list[tuple[Model, str | None]] | None = None,
    extensions: Iterable[str] = (),
    no_extensions: bool = False,
    extension_runner: ExtensionRunner | None = None,
    mcp: bool = False,
) -> AgentSession:
    """Create an ``AgentSession`` (see the module docstring for an offline example).

    Extensions are discovered from the agent dir, the trusted project and settings, plus
    ``extensions`` (paths or ``builtin:<name>``); ``no_extensions`` skips discovery. A
    prepared ``extension_runner`` (``pi_runtime.extensions.ExtensionRunner``) is used instead.
    When any extension loaded (or failed to), ``session.extension_runner`` is set.
    ``mcp`` adds the built-in MCP extension when an ``mcp.json`` exists, or when an extension
    registers an MCP server (``pi_runtime.mcp``; the CLI turns it on, SDK sessions opt in, as in
    Pi); ``-e builtin:mcp`` loads it too.
    """
    from .ai.models import ModelRegistry
    from .auth import AuthStorage
    from .paths import agent_dir as default_agent_dir
    from .resources.loader import ResourceLoader
    from .session.manager import SessionManager
    from .settings import SettingsManager
    from .tools import ToolOptions, create_all_tools

    cwd = os.path.abspath(cwd or os.getcwd())
    agent_dir = str(agent_dir or default_agent_dir())
    if settings is None:
        settings = SettingsManager.create(cwd, agent_dir)
    if model_registry is None:
        model_registry = ModelRegistry(
            os.path.join(agent_dir, "models.json"), AuthStorage(os.path.join(agent_dir, "auth.json"))
        )
    if model is not None and model_registry.find(model.provider, model.id) is None:
        model_registry.add_model(model)
    if resource_loader is None:
        resource_loader = ResourceLoader(cwd, agent_dir, settings=settings)
    if session_manager is None:
        session_manager = SessionManager.create(cwd)

    holder: dict[str, AgentSession] = {}

    def bash_env() -> dict[str, str]:
        # Read when each command starts, so it follows session switches and model changes.
        session = holder.get("session")
        if session is None:
            return {}
        # Pi's names: the selection (a virtual model's, not where a request was routed).
        env = {"PI_SESSION_ID": session.session_id}
        if session.session_file:
            env["PI_SESSION_FILE"] = session.session_file
        if session.model is not None:
            env.update(PI_PROVIDER=session.model.provider, PI_MODEL=session.model.id)
        env["PI_REASONING_LEVEL"] = session.thinking_level
        return env

    typed = typed_settings(settings)
    options = ToolOptions(bash_env=bash_env, shell_path=typed.shell_path or None,
                          shell_command_prefix=typed.shell_command_prefix or None,
                          auto_resize_images=lambda: typed_settings(settings).images.auto_resize,
                          current_model=lambda: current.model if (current := holder.get("session")) else None)
    own_tools = create_all_tools(cwd, options)
    # Pi lists a tool in the prompt's <tools> section when it is one of its own or gives a
    # prompt_snippet: an extension's, an SDK caller's or an MCP server's tool without one is left out.
    own_ids = {id(t) for t in own_tools}
    available = {t.name: t for t in own_tools}
    for tool in custom_tools:
        available[tool.name] = tool
    defaults = typed.default_tools
    base_defaults = list(DEFAULT_TOOLS) + [t.name for t in custom_tools]
    if extension_runner is None:
        trusted = getattr(resource_loader, "project_trusted", None)
        if trusted is None:
            trusted = getattr(settings, "project_trusted", True)
        extension_runner = load_extensions(
            cwd, agent_dir, settings, model_registry, bool(trusted), list(extensions), no_extensions,
            mcp=mcp, tools=tools, exclude_tools=exclude_tools,
        )
    runner = extension_runner
    if tools is not None and runner is not None and (
            any(e.path == "builtin:mcp" for e in runner.extensions) or runner.mcp_servers.builtin_on_demand):
        tools = _without_mcp_names(tools)  # MCP tools do not exist yet; the MCP extension applies these entries
    built_in = dict(available)  # before extension tools replace any (a reload brings these back)
    extension_defaults = []
    if runner is not None:
        # Extension tools can be chosen with --tools and are active unless they opt out.
        for tool in runner.registered_tools():
            available[tool.name] = tool
            # Registering activates (declares) only direct and model-only tools that do not opt out (Pi).
            if getattr(tool, "default_active", True) and getattr(tool, "exposure", "direct") in ("direct", "model-only"):
                extension_defaults.append(tool.name)
    if isinstance(defaults, list) and defaults:
        # After the extensions loaded: defaultTools may name their inactive tools ("+codemode").
        base_defaults = [t.name for t in select_tools(available, defaults, defaults=base_defaults)]
    base_defaults += [name for name in extension_defaults if name not in base_defaults]
    active = select_tools(available, tools, defaults=base_defaults, exclude=exclude_tools, no_tools=no_tools)

    scope_warnings: list[str] = []
    if scoped_models is None and typed.enabled_models:
        found, scope_warnings = _enabled_scope(model_registry, typed.enabled_models)
        scoped_models = found or None
        if model is None and scoped_models and getattr(session_manager, "leaf_id", None) is None:
            # A new session starts on the saved default when it is in the scope, else the first
            # scoped model (with its thinking level), as Pi does with enabledModels.
            saved = f"{typed.default_provider}/{typed.default_model}"
            model, scoped_level = next(((m, lv) for m, lv in scoped_models if m.ref == saved), scoped_models[0])
            thinking_level = thinking_level or scoped_level
    chosen = model or _default_model(model_registry, typed)
    default_level = None
    if settings is not None:
        # modelThinkingLevels: a start-up level for this exact provider/model wins over the default.
        per_model = typed.model_thinking_levels or {}
        default_level = (per_model.get(chosen.ref) if chosen is not None else None) or typed.default_thinking_level
    level = thinking_level or default_level or "off"

    agent = Agent(
        chosen,  # type: ignore[arg-type]  # None only when the registry has no model at all
        tools=active,
        thinking_level="off",
        steering_mode=typed.steering_mode,
        follow_up_mode=typed.follow_up_mode,
        session_id=session_manager.session_id,
    )
    agent.block_images = lambda: typed_settings(settings).images.block_images

    def build_prompt(session: AgentSession) -> Any:
        from .resources.system_prompt import DEFAULT_TOOL_DESCRIPTIONS

        resources = resource_loader.resources
        active = [t for t in session.agent.state.tools if not t.declaration_hidden]
        descriptions = {}
        for tool in active:
            snippet = getattr(tool, "prompt_snippet", None)
            if snippet:
                descriptions[tool.name] = snippet
            elif id(tool) in own_ids:
                descriptions[tool.name] = (DEFAULT_TOOL_DESCRIPTIONS.get(tool.name)
                                           or (tool.description or tool.name).split("\n")[0])
        ext = getattr(session, "extension_runner", None)
        if ext is None:
            return resources.system_prompt_sections(descriptions)
        return resources.system_prompt_sections(descriptions, guidelines=ext.prompt_guidelines([t.name for t in active]))

    session = AgentSession(
        agent=agent,
        session_manager=session_manager,
        settings=settings,
        model_registry=model_registry,
        resources=resource_loader,
        cwd=cwd,
        system_prompt_builder=build_prompt,
        scoped_models=scoped_models,
    )
    holder["session"] = session
    session.startup_warnings.extend(scope_warnings)
    session.load_context()
    if model is not None:
        agent.state.model = model
    if thinking_level is not None or not session_manager.raw_entries():
        agent.state.thinking_level = clamp_thinking(level, agent.state.model)
    _record_history_start(session_manager, agent)
    if runner is not None:
        runner.bind(session, built_in)
    session.refresh_system_prompt()
    return session


def _record_history_start(manager: Any, agent: Agent) -> None:
    """As Pi's SDK: a session without messages starts its history with the model and thinking
    level in force (so a resume restores them, whatever is appended first: a shell command, a
    name); an older file without a thinking level gets one."""
    has = manager.has_entries_of
    if not has("message") and not has("model_change") and agent.state.model is not None:
        manager.append_model_change(agent.state.model.provider, agent.state.model.id)
    if not has("thinking_level_change"):
        manager.append_thinking_level_change(agent.state.thinking_level)


def _without_mcp_names(spec: str | Iterable[str]) -> list[str]:
    from .mcp.manager import is_mcp_tool_name

    items = spec.split(",") if isinstance(spec, str) else list(spec)
    return [s for s in (i.strip() for i in items) if s and not is_mcp_tool_name(s.lstrip("+-"))]
