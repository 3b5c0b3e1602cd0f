"""Built-in slash commands: the list for completion and the handlers the app runs.

Prompt templates and ``/skill:name`` are not handled here: they go to the kernel as
prompts, which expands them. A handler gets the app and the argument text and reports
through inline notices; failures never escape as tracebacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import PiApp

BUILTIN_COMMANDS: list[tuple[str, str]] = [
    ("settings", "Open settings (theme: /settings theme <name>)"),
    ("model", "Select a model"),
    ("thinking", "Set the thinking level"),
    ("scoped-models", "Configure the models used by interactive cycling"),
    ("login", "Add provider authentication"),
    ("logout", "Remove provider authentication"),
    ("new", "Start a new session"),
    ("resume", "Resume another session"),
    ("name", "Set the session display name"),
    ("session", "Show current session information and statistics"),
    ("tree", "Navigate the session tree"),
    ("fork", "Create a new session from an earlier user message"),
    ("clone", "Duplicate the current session at its current position"),
    ("compact", "Compact the current context"),
    ("copy", "Copy the last assistant message"),
    ("export", "Export the session as HTML"),
    ("reload", "Reload keybindings, skills, templates, themes and context files"),
    ("hotkeys", "Show active keyboard shortcuts"),
    ("quit", "Quit pi"),
]


def all_commands(session: Any) -> list[tuple[str, str]]:
    """Built-ins, then prompt templates, then ``skill:`` commands, with descriptions."""
    out = list(BUILTIN_COMMANDS)
    resources = getattr(getattr(session, "resources", None), "resources", None)
    if resources is not None:
        out += [(t.name, t.description or "prompt template") for t in resources.prompt_templates]
        out += [(f"skill:{s.name}", s.description or "skill") for s in resources.skills]
    return out


async def run_command(app: "PiApp", text: str) -> bool:
    """Run a built-in command. Returns False when ``text`` is not one (send it as a prompt)."""
    name, _, arg = text[1:].partition(" ")
    arg = arg.strip()
    handler = _HANDLERS.get(name)
    if handler is None:
        return False
    try:
        await handler(app, arg)
    except Exception as exc:  # noqa: BLE001 - a failed command is reported, never a traceback
        await app.transcript.add_notice(f"/{name} failed: {exc}", "error")
    return True


async def _model(app: "PiApp", arg: str) -> None:
    session = app.session
    if not arg:
        app.action_select_model()
        return
    registry = session.model_registry
    model = registry.lookup(arg) if registry is not None else None
    if model is None:
        hints = registry.suggest(arg) if registry is not None else []
        await app.transcript.add_notice(f"Unknown model '{arg}'" + (f". Did you mean: {', '.join(hints)}?" if hints else ""), "error")
        return
    await session.set_model(model)


async def _thinking(app: "PiApp", arg: str) -> None:
    session = app.session
    if not arg:
        levels = ", ".join(session.available_thinking_levels())
        await app.transcript.add_notice(f"Thinking level: {session.thinking_level} (available: {levels})")
        return
    level = await session.set_thinking_level(arg)
    await app.transcript.add_notice(f"Thinking level set to {level}")


async def _name(app: "PiApp", arg: str) -> None:
    if not arg:
        await app.transcript.add_notice(f"Session name: {app.session.session_name or '(none)'}")
        return
    await app.session.set_session_name(arg)


async def _session(app: "PiApp", arg: str) -> None:
    s = app.session
    stats = app.stats()
    lines = [
        f"File: {s.session_file or '(in memory)'}", f"ID: {s.session_id}",
        f"Messages: {len(s.messages)}", f"Tokens: ↑{stats.input} ↓{stats.output} R{stats.cache_read} W{stats.cache_write}",
        f"Cost: ${stats.cost:.4f}",
    ]
    await app.transcript.add_notice("\n".join(lines))


async def _new(app: "PiApp", arg: str) -> None:
    await app.session.new_session()


async def _compact(app: "PiApp", arg: str) -> None:
    await app.session.compact(arg or None)


async def _copy(app: "PiApp", arg: str) -> None:
    app.action_copy_last()


async def _export(app: "PiApp", arg: str) -> None:
    path = app.session.export_html(arg or None)
    await app.transcript.add_notice(f"Exported to {path}")


async def _reload(app: "PiApp", arg: str) -> None:
    await app.reload_resources()


async def _hotkeys(app: "PiApp", arg: str) -> None:
    from .keymap import MAIN_VIEW_IDS

    rows = [f"{aid:<28} {', '.join(app.keymap.pi_keys.get(aid) or ['(none)'])}" for aid in MAIN_VIEW_IDS]
    rows += [f"{aid:<28} {', '.join(app.keymap.pi_keys.get(aid) or ['(none)'])}"
             for aid in ("tui.input.submit", "tui.input.newLine")]
    await app.transcript.add_notice("\n".join(rows))


async def _settings(app: "PiApp", arg: str) -> None:
    key, _, value = arg.partition(" ")
    if key == "theme" and value.strip():
        app.apply_theme(value.strip(), persist=True)
        return
    await app.transcript.add_notice(
        f"Theme: {app.theme}. Available: {', '.join(sorted(app.pi_themes))}. Use /settings theme <name>."
    )


async def _quit(app: "PiApp", arg: str) -> None:
    await app.action_quit()


async def _not_yet(app: "PiApp", arg: str) -> None:
    await app.transcript.add_notice("This command is not available in this version yet.", "warning")


_HANDLERS = {
    "model": _model, "thinking": _thinking, "name": _name, "session": _session, "new": _new,
    "compact": _compact, "copy": _copy, "export": _export, "reload": _reload, "hotkeys": _hotkeys,
    "settings": _settings, "quit": _quit,
    "scoped-models": _not_yet, "login": _not_yet, "logout": _not_yet, "resume": _not_yet,
    "tree": _not_yet, "fork": _not_yet, "clone": _not_yet,
}
