"""``pi``: the object handed to ``def extension(pi)``.

Registration methods (``on``, ``register_tool``, ``register_command``, ...) work while the
extension loads and afterwards. Methods that act on the session (``send_message``,
``append_entry``, ``set_active_tools``, ...) need the session, so call them from a handler
or command; during loading they raise a ``RuntimeError`` saying so. Asynchronous methods
(``set_model``, ``set_thinking_level``, ``exec``, ``send_user_message``...) start at once and
return an ``ExtensionCall``: ``await`` it for the result, or leave it and it still happens.

Example:
    from pydantic import BaseModel

    class GreetParams(BaseModel):
        name: str

    def extension(pi):
        async def greet(call_id, params, signal, on_update, ctx):
            return f"Hello, {params.name}!"

        pi.register_tool(name="greet", description="Greet someone", params=GreetParams, execute=greet)
        pi.on("tool_call", lambda event, ctx: {"block": True, "reason": "no"} if event.tool_name == "bash" else None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from .calls import ExtensionCall
from .events import EVENT_NAMES
from .process import ExecResult, run_process
from .registry import Command, Extension, Flag, Shortcut
from .subscriptions import EventSubscriptions

if TYPE_CHECKING:
    from ..agent.tool import AgentTool
    from .bus import EventBus
    from .runner import ExtensionRunner
    from .signatures import (
        CommandHandler,
        Completions,
        DeliverAs,
        ExecutionMode,
        Exposure,
        FlagType,
        MessageRenderer,
        RenderCall,
        RenderResult,
        ShortcutHandler,
        ToolExecute,
        UserDeliverAs,
    )

FLAG_TYPES = ("boolean", "string")


class ExtensionAPI(EventSubscriptions):
    """What one extension can register and do (``pi``)."""

    def __init__(self, runner: ExtensionRunner, extension: Extension) -> None:
        self._runner = runner
        self._ext = extension

    if not TYPE_CHECKING:  # hidden from type checkers, which would accept any name otherwise

        def __getattr__(self, name: str) -> Any:
            # Only reached when normal lookup failed: suggest the Python spelling of Pi's name.
            from .pi_names import missing_attribute

            raise missing_attribute(self, name, "pi")

    def _call(self, work: Any, what: str) -> ExtensionCall[Any]:
        return ExtensionCall(work, what, self._runner.reporter_for(self._ext, what))

    @property
    def events(self) -> EventBus:
        """A bus shared by all extensions: ``pi.events.on(name, fn)``, ``pi.events.emit(name, data)``."""
        return self._runner.bus

    @property
    def path(self) -> str:
        """This extension's path (or ``builtin:<name>``)."""
        return self._ext.path

    # ------------------------------------------------------------------ events

    def _subscribe(self, event: str, handler: Callable[..., Any]) -> Callable[[], None]:
        # pi.on (EventSubscriptions) holds the typed overloads; this is the registration.
        if event not in EVENT_NAMES:
            raise ValueError(f"unknown extension event {event!r}; known: {', '.join(sorted(EVENT_NAMES))}")
        if not callable(handler):
            raise ValueError(f"pi.on({event!r}): handler must be callable")
        handlers = self._ext.handlers.setdefault(event, [])
        handlers.append(handler)
        self._runner.registry.note_handler(event)

        def off() -> None:
            if handler in handlers:
                handlers.remove(handler)

        return off

    # ------------------------------------------------------------------ registration

    def register_tool(
        self,
        tool: AgentTool | None = None,
        /,
        *,
        name: str | None = None,
        description: str = "",
        params: type[Any] | None = None,
        execute: ToolExecute | None = None,
        label: str = "",
        prompt_snippet: str | None = None,
        prompt_guidelines: list[str] | None = None,
        execution_mode: ExecutionMode | None = None,
        default_active: bool = True,
        exposure: Exposure = "direct",
        output_schema: dict[str, Any] | None = None,
        render: dict[str, Any] | None = None,
        render_call: RenderCall | None = None,
        render_result: RenderResult | None = None,
        render_shell: Literal["self"] | None = None,
    ) -> AgentTool:
        """Register a tool the model can call.

        Either an ``AgentTool`` instance, or keywords: ``name``, ``description``, ``params``
        (a pydantic model), ``execute(call_id, params, signal, on_update, ctx)``, and
        optionally ``label``, ``prompt_snippet``, ``prompt_guidelines``, ``execution_mode``
        (``"sequential"``), ``default_active``, ``exposure`` (``"deferred"``: callable from codemode
        scripts and loaded by ``tool_search``; ``"model-only"``; ``"hidden"``), ``output_schema`` (what
        ``structured_content`` holds for scripts), ``render`` (hints), ``render_call``,
        ``render_result`` and ``render_shell`` (front-end renderers). A tool with a built-in's
        name replaces it.

        Returns:
            The registered tool.
        """
        from .tools import ExtensionTool

        if tool is None:
            if not name:
                raise ValueError("register_tool: a tool needs a name")
            if execute is None:
                raise ValueError(f"register_tool({name!r}): execute must be callable")
            tool = ExtensionTool(
                self._ext, name=name, description=description, params=params, execute=execute, label=label,
                prompt_snippet=prompt_snippet, prompt_guidelines=prompt_guidelines, execution_mode=execution_mode,
                default_active=default_active, render=render, render_call=render_call, render_result=render_result,
                render_shell=render_shell, exposure=exposure, output_schema=output_schema,
            )
        elif name is not None or execute is not None:
            raise ValueError("register_tool: pass a tool object or keywords, not both")
        if isinstance(tool, ExtensionTool):
            self._bind_tool(tool)
        self._ext.tools[tool.name] = tool
        if self._runner.tools.attached:
            self._runner.tools.add(tool)
        return tool

    def _bind_tool(self, tool: Any) -> None:
        tool.context_for = lambda call_id: self._runner.tool_context(self._ext, call_id)
        tool.report_failure = lambda event, error: self._runner.reporter.report(self._ext.path, event, error)

    def register_tools(self, tools: Iterable[Any]) -> None:
        """Register several ``AgentTool`` instances at once (as :meth:`register_tool` each), with
        one system-prompt rebuild after the last: what an MCP server's hundreds of tools need."""
        from .tools import ExtensionTool

        tools = list(tools)
        for tool in tools:
            if isinstance(tool, ExtensionTool):
                self._bind_tool(tool)
            self._ext.tools[tool.name] = tool
        if self._runner.tools.attached:
            self._runner.tools.add_many(tools)

    def register_command(
        self,
        name: str,
        handler: CommandHandler | None = None,
        *,
        description: str = "",
        get_argument_completions: Completions | None = None,
    ) -> Any:
        """Register ``/name``: ``handler(args, ctx)`` runs when the user types it, even mid-run.

        ``get_argument_completions(prefix)`` returns completion items (strings or
        ``{"value", "label", "description"}`` dicts) or None. Without ``handler`` this is a decorator.
        """
        name = name.lstrip("/")
        if not name or " " in name:
            raise ValueError(f"register_command: invalid command name {name!r}")

        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._ext.commands[name] = Command(name, fn, self._ext, description, get_argument_completions)
            return fn

        return add(handler) if handler is not None else add

    def register_shortcut(self, key: str, handler: ShortcutHandler | None = None, *,
                          description: str = "") -> Any:
        """Bind ``key`` (Pi's format, e.g. ``ctrl+shift+p``) to ``handler(ctx)``; the app binds it.

        Without ``handler`` this is a decorator.
        """
        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._ext.shortcuts[key] = Shortcut(key, fn, self._ext, description)
            return fn

        return add(handler) if handler is not None else add

    def register_flag(self, name: str, *, description: str = "", type: FlagType = "boolean",
                      default: str | bool | None = None) -> None:
        """Declare a command-line flag ``--name`` (``type`` ``boolean`` or ``string``); read it with :meth:`get_flag`."""
        if type not in FLAG_TYPES:
            raise ValueError(f"register_flag({name!r}): type is 'boolean' or 'string', not {type!r}")
        name = name.lstrip("-")
        if not name:
            raise ValueError("register_flag: a flag needs a name")
        self._ext.flags[name] = Flag(name, self._ext, description, type, default)

    def get_flag(self, name: str) -> Any:
        """A flag's value: what the command line set, else its default (None when not registered)."""
        flag = self._runner.registry.flags().get(name.lstrip("-"))
        return None if flag is None else flag.current

    def register_provider(self, name: str, **config: Any) -> list[Any]:
        """Register models: ``models=[...]`` on ``api=``/``base_url=``/``api_key=``/``headers=``, a
        ``stream=`` function of their own, and/or ``refresh_models=`` for a dynamic list.

        See :mod:`pi_runtime.extensions.provider`. Returns the models added.
        """
        return self._runner.providers.register(self._ext.path, name, **config)

    def unregister_provider(self, name: str) -> None:
        """Remove a provider this extension registered and its models (no effect otherwise)."""
        self._runner.providers.unregister(name, self._ext.path)

    def register_virtual_model(self, definition: dict[str, Any] | None = None, /, **fields: Any) -> Any:
        """List a model that routes each request to a physical one (Pi's ``registerVirtualModel``):
        ``provider``, ``id``, ``name``, ``route(request, ctx)``, optionally ``thinking_levels``,
        ``context_window``, ``max_tokens``, ``input`` (see :mod:`pi_runtime.extensions.virtual_models`).
        Registering the same provider and id again replaces it.

        Returns:
            The catalogue entry, or None when it was refused (reported as an ``extension_error``,
            as Pi reports it; the extension keeps loading).
        """
        from .virtual_models import definition_from

        ext, runner = self._ext, self._runner
        try:
            model = runner.providers.virtual.register(
                ext.path, definition_from({**(definition or {}), **fields}, lambda: runner.context(ext)))
        except ValueError as exc:
            runner.reporter.report_soon(ext.path, "register_virtual_model", str(exc))
            return None
        session = runner.session
        if session is not None and session.model is not None and session.model.ref == model.ref:
            session.agent.state.model = model  # the selection follows a replaced definition (as Pi)
        return model

    def unregister_virtual_model(self, provider: str, id: str) -> None:
        """Remove a virtual model (Pi's ``unregisterVirtualModel``); a session that has it selected
        keeps the selection, and its next request ends with an error saying it is not registered."""
        self._runner.providers.virtual.unregister(provider, id)

    def refresh_models(self, provider: str | None = None) -> ExtensionCall[list[Any]]:
        """Run the ``refresh_models`` callbacks (of ``provider``, or all) and publish their models."""
        return self._call(self._runner.refresh_models(provider), "pi.refresh_models(...)")

    # ------------------------------------------------------------------ MCP servers

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """Add an MCP server for this session: ``config`` is an ``mcpServers`` entry of ``mcp.json``,
        camelCase keys as there (``command``/``args``/``env``/``cwd`` or ``url``/``headers``/``oauth``,
        plus ``exposure``, ``toolExposure``, ``description``, ``enabled``, ``timeout``).

        Registered while loading, it connects when the session starts; later, right away. A
        ``mcp.json`` server of the same name takes precedence. Registering a name again replaces
        this extension's earlier registration. Nothing is saved: register again on every load.

        Raises:
            ValueError: An invalid name or config, or a name another extension registered.
        """
        self._runner.mcp_servers.register(self._ext.path, name, config)

    def unregister_mcp_server(self, name: str) -> None:
        """Remove a server this extension registered: its connection closes and its tools go
        (no effect for a name nobody registered).

        Raises:
            ValueError: Another extension registered ``name``.
        """
        self._runner.mcp_servers.unregister(self._ext.path, name)

    def get_mcp_servers(self) -> list[Any]:
        """Every registered MCP server (``name``, ``config``, ``extension_path``), in registration order."""
        return self._runner.mcp_servers.servers()

    # ------------------------------------------------------------------ renderers (front ends call them)

    def register_message_renderer(self, custom_type: str, renderer: MessageRenderer) -> None:
        """Draw custom messages of ``custom_type`` with ``renderer(message, options, theme)`` in the app."""
        self._ext.message_renderers[custom_type] = renderer

    def register_entry_renderer(self, custom_type: str, renderer: MessageRenderer) -> None:
        """Draw custom entries (``append_entry``) of ``custom_type`` with ``renderer(entry, options, theme)``."""
        self._ext.entry_renderers[custom_type] = renderer

    def register_tool_renderer(self, resolver: Callable[[str, Callable[[], Any]], Any]) -> None:
        """Choose how calls to any tool are drawn: ``resolver(tool_name, next)`` returns renderers
        (``{"render_call": fn, "render_result": fn}``) or ``next()`` to defer."""
        self._ext.tool_renderers.append(resolver)

    def register_markdown_transformer(self, transformer: Callable[[str, dict[str, Any]], str], *,
                                      message_types: list[str] | None = None) -> None:
        """Rewrite Markdown before the app renders it (display only); one per extension."""
        self._ext.markdown_transformer = (transformer, frozenset(message_types) if message_types else None)

    # ------------------------------------------------------------------ messages and entries

    def send_message(self, message: Any, *, deliver_as: DeliverAs = "steer", trigger_turn: bool | None = None) -> None:
        """Add a custom message (``{"customType", "content", "display", "details"}``) to the conversation.

        Args:
            message: The message (custom messages reach the model as user text).
            deliver_as: While running: ``steer`` (after the current tool calls), ``followUp``
                (when the agent would stop); ``nextTurn`` holds it for the next prompt.
            trigger_turn: Idle: True starts a run with it (else it is only stored). Running:
                False stores it when the current turn ends, after its tool results (the next
                model call sees it); unset or True steers or follows up as ``deliver_as`` says.
        """
        from .sending import send_custom_message

        send_custom_message(self._runner.actions, self._runner.messages, message, deliver_as=deliver_as,
                            trigger_turn=trigger_turn)

    def send_user_message(self, content: Any, *, deliver_as: UserDeliverAs | None = None,
                          expand_prompt_templates: bool = False) -> ExtensionCall[Any]:
        """Send a user message as if typed (the ``input`` event sees ``source="extension"``).

        Idle: starts a run. While running ``deliver_as`` (``steer``/``followUp``) is required,
        else it is rejected with an ``extension_error``. With ``expand_prompt_templates`` the
        text runs extension commands and expands ``/skill:`` and ``/template`` when idle;
        otherwise it reaches the model exactly as given.

        Returns:
            A call whose result is the prompt's disposition (``started``, ``queued``, ``handled``).
        """
        return self._call(self._runner.send_user_message(self._ext, content, deliver_as, expand_prompt_templates),
                          "pi.send_user_message(...)")

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Persist extension state as a ``custom`` entry (never sent to the model). Returns its id."""
        from .sending import append_entry

        return append_entry(self._runner.require_session(), self._runner.actions, custom_type, data)

    def set_session_name(self, name: str) -> ExtensionCall[None]:
        """Name the session (emits ``session_info_changed``)."""
        return self._call(self._runner.require_session().set_session_name(name), "pi.set_session_name(...)")

    def get_session_name(self) -> str | None:
        """The session's name, if set."""
        name = self._runner.require_session().session_name
        return None if name is None else str(name)

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry (None clears it)."""
        self._runner.require_session().set_label(entry_id, label)

    # ------------------------------------------------------------------ tools, model, thinking

    def get_active_tools(self) -> list[str]:
        """Names of the active tools."""
        return self._runner.tools.active_names()

    def get_all_tools(self) -> list[dict[str, Any]]:
        """Every tool that can be activated: name, description, parameters, source."""
        out = []
        for name, tool in self._runner.tools.all.items():
            ext = getattr(tool, "extension", None)
            out.append({
                "name": name, "description": tool.description, "parameters": tool.parameters_schema(),
                "promptGuidelines": list(getattr(tool, "prompt_guidelines", []) or []),
                "sourceInfo": {"path": ext.path, "source": ext.scope} if ext else {"path": f"builtin:{name}", "source": "builtin"},
            })
        return out

    def set_active_tools(self, names: list[str]) -> list[str]:
        """Activate exactly these tools (unknown names are ignored). Returns the active names."""
        return self._runner.tools.set_active(list(names))

    def set_model(self, model: Any) -> ExtensionCall[bool]:
        """Switch the session's model; the result is False (nothing changed) without credentials."""
        session = self._runner.require_session()

        async def run() -> bool:
            registry = session.model_registry
            if registry is not None and not registry.has_credentials(model):
                return False
            await session.set_model(model)
            return True

        return self._call(run(), "pi.set_model(...)")

    def get_thinking_level(self) -> str:
        """The effective thinking level."""
        return str(self._runner.require_session().thinking_level)

    def set_thinking_level(self, level: str) -> ExtensionCall[str]:
        """Set the thinking level (clamped to the model); the result is the level applied."""
        return self._call(self._runner.require_session().set_thinking_level(level), "pi.set_thinking_level(...)")

    # ------------------------------------------------------------------ misc

    def exec(self, command: str, args: list[str] | tuple[str, ...] = (), **options: Any) -> ExtensionCall[ExecResult]:
        """Run a program without a shell (``cwd``, ``timeout`` s, ``signal``, ``max_buffer``, ``env``, ``input``)."""
        options.setdefault("cwd", self._runner.cwd)
        return self._call(run_process(command, list(args), **options), f"pi.exec({command!r}, ...)")

    def get_commands(self) -> list[dict[str, Any]]:
        """Everything invocable through ``prompt``: extension commands, prompt templates, then
        skills (``skill:<name>``); each ``{"name", "description", "source", "sourceInfo"}``."""
        return self._runner.get_commands()

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (file form)."""
        return self._runner.settings_dict()

    def get_setting(self, key: str, default: Any = None) -> Any:
        """One top-level setting (e.g. ``"permissionGate"``), or ``default``."""
        value = self._runner.settings_dict().get(key)
        return default if value is None else value
