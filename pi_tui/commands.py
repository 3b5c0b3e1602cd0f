"""Built-in slash commands and the app actions behind search, message selection and copy.

Prompt templates and ``/skill:name`` are not handled here: they go to the kernel as
prompts, which expands them. A handler gets the app and the argument text and reports
through inline notices or toasts; failures never escape as tracebacks. Screens live in
``pi_tui/screens`` (one per file); this module only decides what to open or call.
Kernel calls that may take a while (compaction) run in named workers so the app keeps
drawing and Esc can cancel them.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import PiApp

BUILTIN_COMMANDS: list[tuple[str, str]] = [
    ("settings", "Open settings"),
    ("model", "Select a model"),
    ("thinking", "Set the thinking level"),
    ("scoped-models", "Configure the models used by interactive cycling"),
    ("local", "Use a model server running on this machine"),
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
    ("find", "Search the transcript"),
    ("reload", "Reload keybindings, skills, templates, themes and context files"),
    ("hotkeys", "Show active keyboard shortcuts"),
    ("changelog", "Show changelog entries"),
    ("quit", "Quit pi"),
]

DOUBLE_ESCAPE_SECONDS = 0.5
"""Two Esc presses closer than this on an empty, idle editor are a double Esc."""


def all_commands(session: Any) -> list[tuple[str, str]]:
    """Built-ins, then extension commands, prompt templates and ``skill:`` commands, with descriptions."""
    from .extension_host import extension_commands

    out = list(BUILTIN_COMMANDS) + extension_commands(session)
    resources = getattr(getattr(session, "resources", None), "resources", None)
    if resources is not None:
        out += [(t.name, t.description or "prompt template") for t in resources.prompt_templates]
        out += [(f"skill:{s.name}", s.description or "skill") for s in resources.skills]
    return out


async def run_command(app: PiApp, text: str) -> bool:
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


# ---------------------------------------------------------------------- models and thinking

async def _model(app: PiApp, arg: str) -> None:
    from .screens.model_picker import open_model_picker

    session = app.session
    if not arg:
        open_model_picker(app)
        return
    registry = session.model_registry
    model = registry.lookup(arg) if registry is not None else None
    if model is None:
        hints = registry.suggest(arg) if registry is not None else []
        await app.transcript.add_notice(f"Unknown model '{arg}'" + (f". Did you mean: {', '.join(hints)}?" if hints else ""), "error")
        return
    await session.set_model(model, persist_default=True)
    app.notify(f"Model: {model.ref} (saved as default)", timeout=3)


async def _thinking(app: PiApp, arg: str) -> None:
    from .screens.thinking_picker import open_thinking_picker

    if not arg:
        open_thinking_picker(app)
        return
    level = await app.session.set_thinking_level(arg)
    app.notify(f"Thinking level: {level}", timeout=3)


async def _scoped_models(app: PiApp, arg: str) -> None:
    from .screens.scoped_models import open_scoped_models

    open_scoped_models(app)


async def _login(app: PiApp, arg: str) -> None:
    from .screens.login_prompt import open_login

    open_login(app, arg)


async def _logout(app: PiApp, arg: str) -> None:
    from .screens.login_prompt import open_logout

    open_logout(app, arg)


# ---------------------------------------------------------------------- sessions

async def _name(app: PiApp, arg: str) -> None:
    if not arg:
        await app.transcript.add_notice(f"Session name: {app.session.session_name or '(none)'}")
        return
    await app.session.set_session_name(arg)
    app.notify(f"Session name: {arg}", timeout=3)


def session_report(session: Any) -> str:
    """``/session``: file, id, name, message counts, tokens, cost and context use."""
    stats = session.get_session_stats()
    tokens = stats.usage
    lines = [
        f"File:     {stats.session_file or '(in memory)'}",
        f"ID:       {stats.session_id}",
        f"Name:     {session.session_name or '(none)'}",
        f"Messages: {stats.total_messages} ({stats.user_messages} user, {stats.assistant_messages} assistant, "
        f"{stats.tool_calls} tool calls, {stats.tool_results} tool results)",
        f"Tokens:   {tokens.total_tokens:,} (input {tokens.input:,}, output {tokens.output:,}, "
        f"cache read {tokens.cache_read:,}, cache write {tokens.cache_write:,})",
        f"Cost:     ${tokens.cost:.4f}",
    ]
    usage = stats.context_usage
    if usage is not None and usage.tokens is not None:
        lines.append(f"Context:  {usage.tokens:,} of {usage.context_window:,} tokens ({usage.percent}%)")
    return "\n".join(lines)


async def _session(app: PiApp, arg: str) -> None:
    await app.transcript.add_notice(session_report(app.session))


async def _new(app: PiApp, arg: str) -> None:
    result = await app.session.new_session()
    if not result.cancelled:
        app.notify("New session started", timeout=3)


async def _resume(app: PiApp, arg: str) -> None:
    from .screens.nav_flows import open_resume

    open_resume(app)


async def _tree(app: PiApp, arg: str) -> None:
    from .screens.nav_flows import open_tree

    open_tree(app)


async def _fork(app: PiApp, arg: str) -> None:
    from .screens.fork_picker import open_fork_picker

    if app.session.is_streaming:
        await app.transcript.add_notice("Wait for the agent to finish (or press Esc) before forking", "warning")
        return
    open_fork_picker(app)


async def _clone(app: PiApp, arg: str) -> None:
    result = await app.session.clone()
    if not result.cancelled:
        app.notify(f"Cloned into {app.session.session_file or 'a new in-memory session'}", timeout=4)


async def _compact(app: PiApp, arg: str) -> None:
    if app.session.is_streaming:
        await app.transcript.add_notice("Cannot compact while the agent is working (press Esc first)", "warning")
        return
    app.notify("Compacting… press Esc to cancel", timeout=3)
    app.run_worker(_compact_worker(app, arg or None), name="compact", group="kernel", exit_on_error=False)


async def _compact_worker(app: PiApp, instructions: str | None) -> None:
    from pi_runtime.frontend import CompactionError

    try:
        result = await app.session.compact(instructions)
    except CompactionError as exc:
        # Failures after compaction_start are shown by the transcript from compaction_end.
        if "extension" in str(exc):
            await app.transcript.add_notice(str(exc), "warning")
        return
    before = result.tokens_before
    after = result.estimated_tokens_after or 0
    text = f"Compacted: {before:,} → {after:,} tokens (ctrl+o shows the whole summary)"
    # After the transcript has rebuilt itself from compaction_end (queued before this).
    app.call_later(app.transcript.add_notice, text, "info")


async def _export(app: PiApp, arg: str) -> None:
    path = app.session.export_html(arg or None)
    await app.transcript.add_notice(f"Exported to {path}")


# ---------------------------------------------------------------------- app

async def _copy(app: PiApp, arg: str) -> None:
    copy_message(app)


async def _reload(app: PiApp, arg: str) -> None:
    await app.reload_resources()
    # The kernel rebuilds the system prompt at the start of every run; doing it now makes
    # /session and the RPC state show the reloaded context files at once.
    app.session.refresh_system_prompt()
    if app.session.extension_runner is not None:
        await app.transcript.add_notice("Extensions are not reloaded; restart pi to reload them", "warning")


async def _hotkeys(app: PiApp, arg: str) -> None:
    from .screens.hotkeys_screen import HotkeysScreen

    app.push_screen(HotkeysScreen(app.keymap))


async def _settings(app: PiApp, arg: str) -> None:
    from .screens.settings_screen import open_settings

    key, _, value = arg.partition(" ")
    if key == "theme" and value.strip():
        app.apply_theme(value.strip(), persist=True)
        return
    open_settings(app)


async def _changelog(app: PiApp, arg: str) -> None:
    from .screens.text_viewer import TextViewer, changelog_head

    app.push_screen(TextViewer("What's new in pi", changelog_head(), id="changelog"))


async def _find(app: PiApp, arg: str) -> None:
    open_search(app, arg)


async def _quit(app: PiApp, arg: str) -> None:
    await app.action_quit()


_HANDLERS = {
    "model": _model, "thinking": _thinking, "scoped-models": _scoped_models, "login": _login,
    "logout": _logout, "name": _name, "session": _session, "new": _new, "resume": _resume,
    "tree": _tree, "fork": _fork, "clone": _clone, "compact": _compact, "copy": _copy,
    "export": _export, "reload": _reload, "hotkeys": _hotkeys, "settings": _settings,
    "changelog": _changelog, "find": _find, "quit": _quit,
}


async def _local(app: PiApp, arg: str) -> None:
    from .local_model import use_local_model

    await use_local_model(app, arg)


_HANDLERS["local"] = _local


# ---------------------------------------------------------------------- actions (bound in app.py)

def search_bar(app: PiApp) -> Any:
    """The open search bar, or None."""
    from .widgets.search_bar import SearchBar

    found = app.query(SearchBar)
    return found.first() if found else None


def open_search(app: PiApp, query: str = "") -> None:
    """Open (or focus) the transcript search bar above the editor."""
    from .widgets.search_bar import SearchBar

    bar = search_bar(app)
    if bar is None:
        bar = SearchBar(app.transcript)
        app.mount(bar, before=app.editor)
    if query:
        app.call_after_refresh(bar.set_query, query)
    app.call_after_refresh(lambda: bar.query_one("#search-input").focus())


def close_search(app: PiApp) -> bool:
    """Close the search bar; True when one was open."""
    bar = search_bar(app)
    if bar is None:
        return False
    bar.close()
    app.editor.focus()
    return True


def copy_message(app: PiApp) -> None:
    """Copy the current search match or selected message, else the last answer (source text)."""
    from .clipboard import copy_text
    from .widgets.transcript_nav import selected_block, source_text

    bar = search_bar(app)
    widget = (bar.current_widget if bar is not None else None) or selected_block(app.transcript)
    text = source_text(widget) if widget is not None else (app.session.get_last_assistant_text() if app.session else None)
    if not text:
        app.notify("Nothing to copy yet", timeout=2)
        return
    how = copy_text(app, text)
    what = "the selected message" if widget is not None else "the last answer"
    app.notify(f"Copied {what}" + ("" if how else " (no clipboard available)"), timeout=2)


def run_action(app: PiApp, name: str) -> None:
    """Actions the app binds to keys: search, search_next, search_prev, select_prev, select_next, copy."""
    from .widgets.transcript_nav import move_selection

    if len(app.screen_stack) > 1:  # a picker or dialog is open: its keys win
        return
    if name == "search":
        open_search(app)
    elif name in ("search_next", "search_prev"):
        bar = search_bar(app)
        if bar is None:
            open_search(app)
        else:
            bar.action_step(-1 if name == "search_next" else 1)
    elif name in ("select_prev", "select_next"):
        from .widgets.search_bar import ensure_highlight_css

        ensure_highlight_css(app)
        move_selection(app.transcript, -1 if name == "select_prev" else 1)
    elif name == "copy":
        copy_message(app)
    elif name in ("tree", "fork", "resume", "new"):
        app.call_later(run_command, app, f"/{name}")


def escape_pressed(app: PiApp, *, idle: bool) -> bool:
    """Esc before the app's own handling (``idle=False``) and on an idle session (``idle=True``).

    Before: closes the search bar, then clears a message selection. Idle: a second Esc
    within ``DOUBLE_ESCAPE_SECONDS`` on an empty editor runs ``doubleEscapeAction``
    (``tree``, ``fork`` or ``none``). Returns True when the key was used.
    """
    from .widgets.transcript_nav import clear_selection

    if not idle:
        return close_search(app) or clear_selection(app.transcript)
    if app.editor.text.strip():
        return False
    now = time.monotonic()
    last = getattr(app, "_last_escape", 0.0)
    app._last_escape = now
    if now - last > DOUBLE_ESCAPE_SECONDS:
        return False
    app._last_escape = 0.0
    from pi_runtime.frontend import typed_settings

    action = typed_settings(app.session.settings).double_escape_action
    if action in ("tree", "fork"):
        app.call_later(run_command, app, f"/{action}")
        return True
    return False
