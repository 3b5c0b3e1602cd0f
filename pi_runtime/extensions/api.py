"""``pi``: the object handed to ``def extension(pi)``.

Registration methods (``on``, ``register_tool``, ``register_command``, ...) work while the
extension loads and afterwards. Methods that act on the session (``send_message``,
``append_entry``, ``set_active_tools``, ...) need the session, so call them from a handler
or command; during loading they raise a ``RuntimeError`` saying so.

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

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .events import EVENT_NAMES
from .process import ExecResult, run_process

if TYPE_CHECKING:
    from .runner import Extension, ExtensionRunner


class ExtensionAPI:
    """What one extension can register and do (``pi``)."""

    def __init__(self, runner: ExtensionRunner, extension: Extension) -> None:
        self._runner = runner
        self._ext = extension

    @property
    def events(self) -> Any:
        """A bus shared by all extensions: ``pi.events.on(name, fn)``, ``pi.events.emit(name, data)``."""
        return self._runner.bus

    @property
    def path(self) -> str:
        """This extension's path (or ``builtin:<name>``)."""
        return self._ext.path

    # ------------------------------------------------------------------ events

    def on(self, event: str, handler: Callable[..., Any]) -> Callable[[], None]:
        """Handle ``event`` with ``handler(event, ctx)`` (sync or async).

        Returns:
            A function removing this registration.

        Raises:
            ValueError: Unknown event name (see ``pi_runtime.extensions.events.EVENT_NAMES``).
        """
        if event not in EVENT_NAMES:
            raise ValueError(f"unknown extension event {event!r}; known: {', '.join(sorted(EVENT_NAMES))}")
        if not callable(handler):
            raise ValueError(f"pi.on({event!r}): handler must be callable")
        handlers = self._ext.handlers.setdefault(event, [])
        handlers.append(handler)
        self._runner.handler_added(event)

        def off() -> None:
            if handler in handlers:
                handlers.remove(handler)

        return off

    # ------------------------------------------------------------------ registration

    def register_tool(self, tool: Any = None, /, **definition: Any) -> Any:
        """Register a tool the model can call.

        Either an ``AgentTool`` instance, or keywords: ``name``, ``description``, ``params``
        (a pydantic model), ``execute(call_id, params, signal, on_update, ctx)``, and
        optionally ``label``, ``prompt_snippet``, ``prompt_guidelines``, ``execution_mode``
        (``"sequential"``), ``default_active`` and ``render`` (hints for front ends).
        A tool with a built-in's name replaces it.

        Returns:
            The registered tool.
        """
        from .tools import ExtensionTool

        if tool is None:
            tool = ExtensionTool(self._ext, **definition)
        elif definition:
            raise ValueError("register_tool: pass a tool object or keywords, not both")
        self._ext.tools[tool.name] = tool
        if self._runner.session is not None:
            self._runner.add_tool(tool)
        return tool

    def register_command(
        self,
        name: str,
        handler: Callable[..., Any] | None = None,
        *,
        description: str = "",
        get_argument_completions: Callable[[str], Any] | None = None,
    ) -> Any:
        """Register ``/name``: ``handler(args, ctx)`` runs when the user types it, even mid-run.

        ``get_argument_completions(prefix)`` returns completion items (strings or
        ``{"value", "label"}`` dicts) or None. Without ``handler`` this is a decorator.
        """
        from .runner import Command

        name = name.lstrip("/")
        if not name or " " in name:
            raise ValueError(f"register_command: invalid command name {name!r}")

        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._ext.commands[name] = Command(name, fn, self._ext, description, get_argument_completions)
            return fn

        return add(handler) if handler is not None else add

    def register_shortcut(self, key: str, handler: Callable[..., Any], *, description: str = "") -> None:
        """Bind ``key`` (Pi's format, e.g. ``ctrl+shift+p``) to ``handler(ctx)``; front ends bind it."""
        from .runner import Shortcut

        self._ext.shortcuts[key] = Shortcut(key, handler, self._ext, description)

    def register_flag(self, name: str, *, description: str = "", type: str = "boolean", default: Any = None) -> None:
        """Declare a command-line flag; read it with :meth:`get_flag`."""
        self._ext.flags[name] = {"description": description, "type": type, "default": default}

    def get_flag(self, name: str) -> Any:
        """A flag's value (its default until the command line sets it)."""
        spec = self._runner.flags().get(name)
        if spec is None:
            return None
        return spec.get("value", spec.get("default"))

    def register_provider(self, name: str, **config: Any) -> list[Any]:
        """Register models: ``models=[...]`` on ``api=``/``base_url=``/``api_key=``, or a ``stream=`` function.

        See :mod:`pi_runtime.extensions.provider`. Returns the models added.
        """
        from .provider import register_provider

        registry = self._runner.model_registry
        if registry is None:
            raise RuntimeError("register_provider: this session has no model registry")
        return register_provider(registry, name, **config)

    # ------------------------------------------------------------------ messages and entries

    def send_message(self, message: Any, *, deliver_as: str = "steer", trigger_turn: bool = False) -> None:
        """Add a custom message (``{"customType", "content", "display", "details"}``) to the conversation.

        Args:
            message: The message (custom messages reach the model as user text).
            deliver_as: While running: ``steer`` (after the current tool calls), ``followUp``
                (when the agent would stop) or ``nextTurn`` (with the next prompt).
            trigger_turn: When idle, start a run with it (else it is only stored). While
                running with False it is appended after the run ends.
        """
        from .sending import send_custom_message

        send_custom_message(self._runner, message, deliver_as=deliver_as, trigger_turn=trigger_turn)

    def send_user_message(self, content: Any, *, deliver_as: str | None = None) -> asyncio.Future[Any]:
        """Send a user message as if typed (the ``input`` event sees ``source="extension"``).

        Idle: starts a run. While running ``deliver_as`` (``steer``/``followUp``) is required.

        Returns:
            A future for the prompt's disposition (await it or not).
        """
        from .sending import send_user_message

        return send_user_message(self._runner, self._ext, content, deliver_as)

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Persist extension state as a ``custom`` entry (never sent to the model). Returns its id."""
        from .sending import append_entry

        return append_entry(self._runner, custom_type, data)

    def set_session_name(self, name: str) -> asyncio.Future[Any]:
        """Name the session (emits ``session_info_changed``)."""
        return asyncio.ensure_future(self._runner.require_session().set_session_name(name))

    def get_session_name(self) -> str | None:
        """The session's name, if set."""
        return self._runner.require_session().session_name

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry (None clears it)."""
        self._runner.require_session().set_label(entry_id, label)

    # ------------------------------------------------------------------ tools, model, thinking

    def get_active_tools(self) -> list[str]:
        """Names of the active tools."""
        return self._runner.active_tool_names()

    def get_all_tools(self) -> list[dict[str, Any]]:
        """Every tool that can be activated: name, description, parameters, source."""
        out = []
        for name, tool in self._runner.all_tools.items():
            ext = getattr(tool, "extension", None)
            out.append({
                "name": name, "description": tool.description, "parameters": tool.parameters_schema(),
                "promptGuidelines": list(getattr(tool, "prompt_guidelines", []) or []),
                "sourceInfo": {"path": ext.path, "source": ext.scope} if ext else {"path": f"builtin:{name}", "source": "builtin"},
            })
        return out

    def set_active_tools(self, names: list[str]) -> list[str]:
        """Activate exactly these tools (unknown names are ignored). Returns the active names."""
        return self._runner.set_active_tools(list(names))

    async def set_model(self, model: Any) -> bool:
        """Switch the session's model. Returns False (and changes nothing) without credentials."""
        session = self._runner.require_session()
        registry = session.model_registry
        if registry is not None and not registry.has_credentials(model):
            return False
        await session.set_model(model)
        return True

    def get_thinking_level(self) -> str:
        """The effective thinking level."""
        return self._runner.require_session().thinking_level

    async def set_thinking_level(self, level: str) -> str:
        """Set the thinking level (clamped to the model). Returns the level applied."""
        return await self._runner.require_session().set_thinking_level(level)

    # ------------------------------------------------------------------ misc

    async def exec(self, command: str, args: list[str] | tuple[str, ...] = (), **options: Any) -> ExecResult:
        """Run a program without a shell (``cwd``, ``timeout`` s, ``signal``, ``max_buffer``, ``env``, ``input``)."""
        options.setdefault("cwd", self._runner.cwd)
        return await run_process(command, list(args), **options)

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands invocable through ``prompt`` (name, description, source)."""
        return self._runner.get_commands()

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (file form)."""
        return self._runner.settings_dict()

    def get_setting(self, key: str, default: Any = None) -> Any:
        """One top-level setting (e.g. ``"permissionGate"``), or ``default``."""
        value = self._runner.settings_dict().get(key)
        return default if value is None else value
