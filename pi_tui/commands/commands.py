"""The built-in slash commands, each declared once with its description (``COMMANDS``).

Prompt templates, ``/skill:name`` and extension commands are not handled here: they go to the
kernel as prompts, which expands or dispatches them. A handler gets the app, its session and
the argument text, and reports through inline notices or toasts; failures never escape as
tracebacks (``CommandRegistry.run``). Screens live in ``pi_tui/dialogs`` and the pane folders (one per file); this
module only decides what to open or call. Kernel calls that may take a while (compaction) run
in named workers so the app keeps drawing and Esc can cancel them. Declaration order is the
slash menu's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..flows.bound import transcript_of
from .command_registry import CommandRegistry

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..flows.host import PiHost

COMMANDS = CommandRegistry()
command = COMMANDS.command


# ---------------------------------------------------------------------- settings and models

@command("settings", "Open settings")
async def _settings(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.settings_screen import open_settings

    key, _, value = arg.partition(" ")
    if key == "theme" and value.strip():
        app.themes.apply(value.strip(), persist=True)
        return
    open_settings(app, session)


@command("model", "Select a model")
async def _model(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.model_picker import open_model_picker

    if not arg:
        open_model_picker(app, session)
        return
    registry = session.model_registry
    model = registry.lookup(arg) if registry is not None else None
    if model is None:
        hints = registry.suggest(arg) if registry is not None else []
        hint = f". Did you mean: {', '.join(hints)}?" if hints else ""
        await transcript_of(app, session).add_notice(f"Unknown model '{arg}'{hint}", "error")
        return
    await session.set_model(model)  # for this session; the picker's Ctrl+S saves a default
    app.show_status(f"Model: {model.id}")


@command("thinking", "Set the thinking level")
async def _thinking(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.thinking_picker import open_thinking_picker

    if not arg:
        open_thinking_picker(app, session)
        return
    level = await session.set_thinking_level(arg)
    app.notify(f"Thinking level: {level}", timeout=3)


@command("scoped-models", "Configure the models used by interactive cycling")
async def _scoped_models(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.scoped_models import open_scoped_models

    open_scoped_models(app, session)


@command("local", "Use a model server running on this machine")
async def _local(app: PiHost, session: SessionPort, arg: str) -> None:
    from .local_model import use_local_model

    await use_local_model(app, session, arg)


@command("login", "Configure provider authentication")
async def _login(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.login_prompt import open_login

    open_login(app, session, arg)


@command("logout", "Remove provider authentication")
async def _logout(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.login_prompt import open_logout

    open_logout(app, session, arg)


# ---------------------------------------------------------------------- sessions

@command("new", "Start a new session")
async def _new(app: PiHost, session: SessionPort, arg: str) -> None:
    result = await session.new_session()
    if not result.cancelled:
        app.notify("New session started", timeout=3)


@command("resume", "Resume another session")
async def _resume(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.nav_flows import open_resume

    open_resume(app, session)


@command("open", "Open a session in a new tab: /open [new|resume|fork|clone|attach] (this one keeps running)")
async def _open(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.open_flows import open_command

    await open_command(app, session, arg)


@command("close", "Close this tab's session (other tabs stay open)")
async def _close(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.open_flows import close_command

    await close_command(app, session)


@command("name", "Set the session display name")
async def _name(app: PiHost, session: SessionPort, arg: str) -> None:
    if not arg:
        await transcript_of(app, session).add_notice(f"Session name: {session.session_name or '(none)'}")
        return
    await session.set_session_name(arg)
    app.notify(f"Session name: {arg}", timeout=3)


def session_report(session: SessionPort) -> str:
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
    # Per physical model, as Pi's /session: a single entry repeats the total unless it names a model
    # other than the selected one (a virtual model's routes, OpenRouter's auto, summaries).
    spends = stats.cost_by_model
    selected = f"{session.model.provider}/{session.model.id}" if session.model is not None else ""
    if tokens.cost > 0 and spends and (len(spends) > 1 or spends[0].key != selected):
        from ..footer.figures import format_tokens

        lines += [f"  {spend.key}: ${spend.cost:.4f} ({format_tokens(spend.tokens)} tokens)" for spend in spends]
    usage = stats.context_usage
    if usage is not None and usage.tokens is not None:
        lines.append(f"Context:  {usage.tokens:,} of {usage.context_window:,} tokens ({usage.percent:.1f}%)")
    return "\n".join(lines)


@command("session", "Show current session information and statistics")
async def _session(app: PiHost, session: SessionPort, arg: str) -> None:
    await transcript_of(app, session).add_notice(session_report(session))


@command("tree", "Navigate the session tree")
async def _tree(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.nav_flows import open_tree

    open_tree(app, session)


@command("pane", "Show or hide a pane beside the transcript (/pane tree)")
async def _pane(app: PiHost, session: SessionPort, arg: str) -> None:
    if arg.strip() not in ("", "tree"):
        await transcript_of(app, session).add_notice(f"Unknown pane '{arg.strip()}' (panes: tree)", "error")
        return
    await app.tree_pane.toggle()


@command("fork", "Create a new session from an earlier user message")
async def _fork(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.nav_flows import open_fork_picker

    open_fork_picker(app, session)  # while the agent works too, as in Pi: forking then stops the run


@command("clone", "Duplicate the current session at its current position")
async def _clone(app: PiHost, session: SessionPort, arg: str) -> None:
    if session.is_streaming:  # as Pi: the run stops, then the branch is cloned
        await session.abort()
    result = await session.clone()
    if not result.cancelled:
        app.show_status("Cloned to new session")


@command("compact", "Compact the current context")
async def _compact(app: PiHost, session: SessionPort, arg: str) -> None:
    if session.is_streaming:
        await transcript_of(app, session).add_notice("Cannot compact while the agent is working (press Esc first)", "warning")
        return
    app.notify("Compacting… press Esc to cancel", timeout=3)
    app.run_worker(_compact_worker(app, session, arg or None), name="compact", group="kernel", exit_on_error=False)


async def _compact_worker(app: PiHost, session: SessionPort, instructions: str | None) -> None:
    from pi_runtime.frontend import CompactionError

    try:
        result = await session.compact(instructions)
    except CompactionError as exc:
        # Failures after compaction_start are shown by the transcript from compaction_end.
        if "extension" in str(exc):
            await transcript_of(app, session).add_notice(str(exc), "warning")
        return
    before = result.tokens_before
    after = result.estimated_tokens_after or 0
    text = f"Compacted: {before:,} → {after:,} tokens (ctrl+o shows the whole summary)"
    # After the transcript has rebuilt itself from compaction_end (queued before this).
    app.call_later(transcript_of(app, session).add_notice, text, "info")


# ---------------------------------------------------------------------- the conversation

@command("copy", "Copy the last assistant message")
async def _copy(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.view_actions import copy_message

    copy_message(app)


@command("export", "Export the session as HTML, or as a session file (/export name.jsonl)")
async def _export(app: PiHost, session: SessionPort, arg: str) -> None:
    from .session_transfer import export_command

    await export_command(app, session, arg)


@command("import", "Continue a session file (/import path.jsonl)")
async def _import(app: PiHost, session: SessionPort, arg: str) -> None:
    from .session_transfer import import_command

    await import_command(app, session, arg)


@command("share", "Share the session as a secret GitHub gist (needs the gh CLI)")
async def _share(app: PiHost, session: SessionPort, arg: str) -> None:
    from .session_transfer import share_command

    await share_command(app, session, arg)


@command("find", "Search the transcript")
async def _find(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..flows.view_actions import open_search

    open_search(app, arg)


# ---------------------------------------------------------------------- the app

@command("reload", "Reload keybindings, skills, templates, themes and context files")
async def _reload(app: PiHost, session: SessionPort, arg: str) -> None:
    await app.reload_resources()
    # The kernel rebuilds the system prompt at the start of every run; doing it now makes
    # /session and the RPC state show the reloaded context files at once.
    session.refresh_system_prompt()
    runner = session.extension_runner
    if runner is not None:
        if session.is_streaming:
            await transcript_of(app, session).add_notice("Extensions are reloaded once the agent is idle: run /reload then",
                                            "warning")
            return
        from ..flows.extension_host import bind_shortcuts

        await runner.reload()  # re-imports every extension's module
        bind_shortcuts(app, session)
        await transcript_of(app, session).add_notice(f"Reloaded {len(getattr(runner, 'extensions', []))} extension(s)")


@command("mcp", "MCP servers: sign in, reconnect, turn on or off, exposure (/mcp login|logout|reconnect <server>)")
async def _mcp(app: PiHost, session: SessionPort, arg: str) -> None:
    from pi_runtime.frontend import mcp_manager_for

    from ..dialogs.mcp_screen import McpScreen

    runner = getattr(session, "extension_runner", None)
    owner = runner.commands().get("mcp") if runner is not None else None
    if owner is not None and owner.extension.path != "builtin:mcp":  # builtin:mcp's /mcp is for print/RPC
        # An extension that registers /mcp replaces the built-in MCP support, this screen included.
        await session.prompt(f"/mcp {arg}".rstrip(), wait=False)
        return
    manager = mcp_manager_for(session)
    if manager is None:
        await transcript_of(app, session).add_notice(
            f"No MCP servers configured. Add them to {app.agent_dir / 'mcp.json'} or .pi/mcp.json "
            "(pi mcp add), then restart pi.")
        return
    action, _, name = arg.strip().partition(" ")
    if not action:
        app.push_screen(McpScreen(manager))
        return
    from ..dialogs.mcp_actions import run_mcp_action

    await run_mcp_action(app, manager, action, name.strip())


@command("hotkeys", "Show active keyboard shortcuts")
async def _hotkeys(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.hotkeys_screen import HotkeysScreen

    app.push_screen(HotkeysScreen(app.keymap))


@command("changelog", "Show changelog entries")
async def _changelog(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.text_viewer import TextViewer, changelog_head

    app.push_screen(TextViewer("What's new in pi", changelog_head(), id="changelog"))


@command("trust", "Save a trust decision for this project folder")
async def _trust(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.trust_prompt import TrustPrompt

    def answered(value: object) -> None:
        trusted, save_for = value if isinstance(value, tuple) else (False, None)
        if save_for is None:
            app.notify("Nothing saved (this session only)", timeout=3)
            return
        from pi_runtime.frontend.app_support import save_trust_decision

        try:
            save_trust_decision(save_for, trusted)
        except Exception as exc:  # noqa: BLE001 - trust.json says which file and why
            app.notify(f"Trust decision not saved: {exc}", severity="error", timeout=8)
            return
        what = "trusted" if trusted else "not trusted"
        app.notify(f"{save_for} is {what}; restart pi to apply it", timeout=6)

    app.push_screen(TrustPrompt(session.cwd), answered)


@command("quit", "Quit pi")
async def _quit(app: PiHost, session: SessionPort, arg: str) -> None:
    await app.action_quit()
