"""The one table of the app's slash commands: each is declared once, with its description and
handler, where the handler is written (``@COMMANDS.command("tree", "Navigate the session tree")``).

The slash menu, ``/hotkeys``-style listings and dispatch all read this registry; extension
commands, prompt templates and skills are added to the menu from the session (they run in the
kernel, which expands or dispatches them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..flows.bound import transcript_of

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..flows.host import PiHost

Handler = Callable[["PiHost", "SessionPort", str], Awaitable[None]]


@dataclass(frozen=True)
class Command:
    """A built-in slash command."""

    name: str
    """Typed after the slash (``tree`` for ``/tree``)."""
    description: str
    """Shown in the slash menu."""
    run: Handler
    """Called with the app, its session and the text after the name (stripped)."""


class CommandRegistry:
    """Built-in commands in declaration order (the order the slash menu shows them)."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._screens: dict[str, tuple[str, Command]] = {}

    def screen_for(self, name: str, extension_path: str) -> Callable[[Handler], Handler]:
        """Decorator: the app's own screen for ``/name`` of a built-in extension (``builtin:llama.cpp``'s
        ``/llama``). It runs only while that extension registers the command, which then lists it in the
        slash menu as Pi does; without the extension (``-builtin:llama.cpp``) the command does not exist."""

        def declare(handler: Handler) -> Handler:
            self._screens[name] = (extension_path, Command(name, "", handler))
            return handler

        return declare

    def _screen_command(self, name: str, session: SessionPort) -> Command | None:
        found = self._screens.get(name)
        runner = getattr(session, "extension_runner", None)
        if found is None or runner is None:
            return None
        owner = runner.commands().get(name)
        return found[1] if owner is not None and owner.extension.path == found[0] else None

    def command(self, name: str, description: str) -> Callable[[Handler], Handler]:
        """Decorator declaring ``name`` with its handler."""

        def declare(handler: Handler) -> Handler:
            if name in self._commands:
                raise ValueError(f"/{name} is declared twice")
            self._commands[name] = Command(name, description, handler)
            return handler

        return declare

    def get(self, name: str) -> Command | None:
        return self._commands.get(name)

    def __iter__(self) -> Any:
        return iter(self._commands.values())

    def menu_entries(self, session: SessionPort | None) -> list[tuple[str, str]]:
        """``(name, description)`` for the slash menu: built-ins, then the session's extension
        commands, prompt templates and ``skill:`` commands."""
        out = [(c.name, c.description) for c in self._commands.values()]
        if session is None:
            return out
        runner = session.extension_runner
        # A served session's extensions run in pi serve: their commands as it last listed them.
        commands = runner.get_commands() if runner is not None else getattr(session, "extension_commands", [])
        # An extension command named like a built-in (builtin:mcp's /mcp) never runs here.
        # get_commands() lists templates and skills too (Pi's shape); they are added below.
        out += [(c["name"], c.get("description") or "") for c in commands
                if c.get("source") == "extension" and c["name"] not in self._commands]
        resources = getattr(session.resources, "resources", None)
        if resources is not None:
            from pi_runtime.frontend import typed_settings

            out += [(t.name, t.description or "prompt template") for t in resources.prompt_templates]
            if typed_settings(session.settings).enable_skill_commands:
                out += [(f"skill:{s.name}", s.description or "skill") for s in resources.skills]
        return out

    async def run(self, app: PiHost, text: str) -> bool:
        """Start ``text`` (``/name args``) if it names a built-in; False when it does not (it goes
        to the kernel as a prompt: an extension command, a template or a skill).

        The command runs in a worker, never inside the key handler that sent it: a command that
        waits on the kernel (``/new`` asking extensions first) may need the app to show a
        dialog and take its keys meanwhile. A failing command is reported inline.
        """
        name, _, arg = text.strip()[1:].partition(" ")
        command = self._commands.get(name)
        session = app.session
        if command is None and session is not None:
            command = self._screen_command(name, session)
        if command is None or session is None:
            return False

        async def run() -> None:
            try:
                await command.run(app, session, arg.strip())
            except Exception as exc:  # noqa: BLE001 - a failed command is reported, never a traceback
                await transcript_of(app, session).add_notice(f"/{name} failed: {exc}", "error")
            finally:
                app.key_hold.release_after_refresh()  # the keys typed after it, if no screen took them

        app.run_worker(run(), name=f"command:{name}", group="commands", exit_on_error=False)
        return True
