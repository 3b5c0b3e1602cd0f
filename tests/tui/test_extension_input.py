"""Extensions in the app's input and transcript: entry renderers, terminal input listeners, a
replaced editor and autocomplete providers, driven through the real app."""

from __future__ import annotations

import textwrap

from pi_tui.launch import create_app

from .conftest import make_session, screen_text, started, wait_for, workers_done
from .test_commands_models import type_command

ENTRIES = textwrap.dedent(
    """
    def extension(pi):
        pi.register_entry_renderer("card", lambda entry, options, theme:
                                   theme.bold("CARD " + entry.data["title"])
                                   + (" (all details)" if options["expanded"] else ""))

        async def card(args, ctx):
            pi.append_entry("card", {"title": args or "none"})
            pi.append_entry("silent", {"title": "never drawn"})

        pi.register_command("card", card)
    """
)


async def start(provider, workdir, agent_dir, tmp_path, source, size=(100, 30)):
    ext = tmp_path / "ext.py"
    ext.write_text(source)
    session = make_session(provider, workdir, extensions=[str(ext)])
    return session, create_app(session, static=True, agent_dir=str(agent_dir))


async def test_an_entry_renderer_draws_appended_custom_entries(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, ENTRIES)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/card Indexed files")
        assert await wait_for(pilot, lambda: "CARD Indexed files" in screen_text(app))
        # An entry type without a renderer stays out of the transcript (as in Pi).
        assert "never drawn" not in screen_text(app)
        await pilot.press("ctrl+o")  # expanded: the renderer draws it again
        assert await wait_for(pilot, lambda: "CARD Indexed files (all details)" in screen_text(app))


async def test_custom_entries_of_a_restored_history_are_drawn_where_they_were_appended(provider, workdir, agent_dir,
                                                                                      tmp_path):
    from pi_runtime.ai.providers.scripted import scripted_text

    session, app = await start(provider, workdir, agent_dir, tmp_path, ENTRIES)
    provider.push(scripted_text("answer one"), scripted_text("answer two"))
    await session.prompt("question one")
    await session.wait_for_idle()
    session.session_manager.append_custom("card", {"title": "between"})
    await session.prompt("question two")
    await session.wait_for_idle()
    async with app.run_test(size=(100, 40)) as pilot:
        # The first frame may hold part of the history (its layout settles a frame later).
        assert await wait_for(pilot, lambda: all(word in screen_text(app)
                                                 for word in ("answer one", "CARD between", "question two")))
        text = screen_text(app)
        assert text.index("answer one") < text.index("CARD between") < text.index("question two")


LISTENER = textwrap.dedent(
    """
    def extension(pi):
        seen = []
        handles = {}

        def listen(data):
            seen.append(data)
            if data == "x" or data == "\\x1b":
                return {"consume": True}
            return None

        def session_start(event, ctx):
            handles["off"] = ctx.ui.on_terminal_input(listen)

        async def report(args, ctx):
            ctx.ui.set_status("keys", "seen=" + ",".join(repr(d) for d in seen))

        async def stop(args, ctx):
            handles["off"]()

        pi.on("session_start", session_start)
        pi.register_command("report", report)
        pi.register_command("stop", stop)
    """
)


async def test_a_terminal_input_listener_sees_raw_terminal_data_first_and_may_swallow_it(provider, workdir,
                                                                                        agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, LISTENER)
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        await pilot.press("a", "x", "b")
        await pilot.pause()
        assert app.editor.text == "ab"  # "x" never reached the editor
        # Escape is an app key (a priority binding); a listener still sees it first, as ESC.
        await pilot.press("escape", "left", "ctrl+x", "tab", "backspace", "shift+tab", "ctrl+up", "f5")
        app.editor.set_text("")
        await type_command(pilot, "/report")
        expected = ("seen='a','x','b','\\x1b','\\x1b[D','\\x18','\\t','\\x7f','\\x1b[Z','\\x1b[1;5A',"
                    "'\\x1b[15~'")
        assert await wait_for(pilot, lambda: expected in screen_text(app)), screen_text(app)
        await type_command(pilot, "/stop")
        await pilot.press("x")
        await pilot.pause()
        assert app.editor.text == "x"  # unsubscribed: the key goes through again


REWRITE = textwrap.dedent(
    """
    def extension(pi):
        pastes = []

        def expand(data):
            if data == "h":
                return {"data": "hello"}
            if data == "\\x18":  # ctrl+x: two steps left
                return {"data": "\\x1b[D\\x1b[D"}
            if data == "!":
                return {"data": ""}
            if data.startswith("\\x1b[200~"):
                pastes.append(data)
                if "secret" in data:
                    return {"data": "\\x1b[200~[redacted]\\x1b[201~"}
                if "drop" in data:
                    return {"consume": True}
            return None

        def shout(data):
            # The second listener sees what the first made of the input.
            return {"data": data.upper()} if data == "hello" else None

        def session_start(event, ctx):
            ctx.ui.on_terminal_input(expand)
            ctx.ui.on_terminal_input(shout)

        async def report(args, ctx):
            ctx.ui.set_status("pastes", "pastes=" + ",".join(repr(p) for p in pastes))

        pi.on("session_start", session_start)
        pi.register_command("report", report)
    """
)


async def test_a_listener_may_rewrite_keys_and_pastes(provider, workdir, agent_dir, tmp_path):
    from textual import events

    session, app = await start(provider, workdir, agent_dir, tmp_path, REWRITE)
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        await pilot.press("h", "!", " ", "w")
        await pilot.pause()
        assert app.editor.text == "HELLO w"  # "h" became "hello", then "HELLO"; "!" was swallowed
        await pilot.press("ctrl+x", "Z")  # ctrl+x became two Left keys
        await pilot.pause()
        assert app.editor.text == "HELLOZ w"
        app.editor.set_text("")
        app.post_message(events.Paste("my secret"))
        await pilot.pause()
        assert app.editor.text == "[redacted]"  # the rewritten paste is pasted
        app.post_message(events.Paste("drop this"))
        app.post_message(events.Paste(" kept"))
        await pilot.pause()
        assert app.editor.text == "[redacted] kept"
        app.editor.set_text("")
        await type_command(pilot, "/report")
        expected = ("pastes='\\x1b[200~my secret\\x1b[201~','\\x1b[200~drop this\\x1b[201~',"
                    "'\\x1b[200~ kept\\x1b[201~'")
        assert await wait_for(pilot, lambda: expected in screen_text(app)), screen_text(app)


MODAL = textwrap.dedent(
    """
    from pi_tui.extension_ui.custom_editor import CustomEditor

    class VimEditor(CustomEditor):
        mode = "insert"

        def handle_input(self, data):
            if data == "escape" and self.mode == "insert":
                self.mode = "normal"
                self.border_title = "NORMAL"
                return True
            if self.mode == "normal":
                if data == "i":
                    self.mode = "insert"
                    self.border_title = "INSERT"
                elif data == "h":
                    self.action_cursor_left()
                elif data == "x":
                    self.action_delete_right()
                return len(data) == 1  # other keys (Enter, Esc) keep their meaning
            return False

    def extension(pi):
        async def vim(args, ctx):
            ctx.ui.set_editor_component(lambda tui, theme, keys: VimEditor(tui, theme, keys))
            ctx.ui.notify("factory " + ("set" if ctx.ui.get_editor_component() else "missing"))

        async def plain(args, ctx):
            ctx.ui.set_editor_component(None)

        pi.register_command("vim", vim)
        pi.register_command("plain", plain)
    """
)


async def test_an_extension_editor_replaces_pis_and_still_submits(provider, workdir, agent_dir, tmp_path):
    from pi_runtime.ai.providers.scripted import scripted_text

    session, app = await start(provider, workdir, agent_dir, tmp_path, MODAL)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        default = app.editor
        await type_command(pilot, "/vim")
        assert await wait_for(pilot, lambda: type(app.editor).__name__ == "VimEditor")
        assert not default.display and app.focused is app.editor
        assert any("factory set" in str(n.message) for n in app._notifications)
        await pilot.press(*"helo", "escape")  # Esc is the editor's here (normal mode), not pi's abort
        await pilot.pause()
        assert "NORMAL" in screen_text(app)
        await pilot.press("h", "x", "i", "p")
        await pilot.pause()
        assert app.editor.text == "help"
        provider.push(scripted_text("sure"))
        await pilot.press("enter")  # the normal submit path: a prompt, answered
        assert await wait_for(pilot, lambda: "sure" in screen_text(app))
        assert [m.content for m in session.messages if m.role == "user"][-1][0].text == "help"
        await pilot.press(*"draft")
        session.extension_runner.ui.set_editor_component(None)  # what ctx.ui does, without a command
        assert await wait_for(pilot, lambda: app.editor is default and not app.query("VimEditor"))
        assert default.display
        assert default.text == "draft" and app.focused is default  # the text came back with it
        await type_command(pilot, "/plain")
        assert app.editor is default


ISSUES = textwrap.dedent(
    """
    import re

    ISSUES = [{"value": "#2983", "label": "#2983", "description": "Extension API for autocomplete"},
              {"value": "#2753", "label": "#2753", "description": "Reload stale resource settings"}]

    def extension(pi):
        def issues(current):
            class Issues:
                trigger_characters = ["#"]

                async def get_suggestions(self, lines, cursor_line, cursor_col, options):
                    before = lines[cursor_line][:cursor_col]
                    match = re.search(r"(?:^|[ \\t])#([^\\s#]*)$", before)
                    if not match:
                        return await current.get_suggestions(lines, cursor_line, cursor_col, options)
                    prefix = "#" + match.group(1)
                    return {"prefix": prefix, "items": [i for i in ISSUES if i["value"].startswith(prefix)]}

                def apply_completion(self, lines, cursor_line, cursor_col, item, prefix):
                    return current.apply_completion(lines, cursor_line, cursor_col, item, prefix)

            return Issues()

        def session_start(event, ctx):
            ctx.ui.add_autocomplete_provider(issues)

        pi.on("session_start", session_start)
    """
)


async def test_an_autocomplete_provider_fills_the_menu_for_its_trigger(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, ISSUES)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"fix #2")
        assert await wait_for(pilot, lambda: app.menu.is_open and app.menu.kind == "ext")
        assert [c.value for c in app.menu.items] == ["#2983", "#2753"]
        assert "Reload stale resource settings" in screen_text(app)
        await pilot.press("9")
        assert await wait_for(pilot, lambda: [c.value for c in app.menu.items] == ["#2983"])
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.text == "fix #2983 " and not app.menu.is_open
        # pi's own completion is untouched: "/" still opens the command menu.
        app.editor.set_text("")
        await pilot.press("/")
        assert await wait_for(pilot, lambda: app.menu.is_open and app.menu.kind == "slash")


async def test_the_modal_editor_example_edits_in_normal_mode_and_submits(provider, workdir, agent_dir, tmp_path):
    from pathlib import Path

    from pi_runtime.ai.providers.scripted import scripted_text

    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions" / "modal_editor.py"
    session = make_session(provider, workdir, extensions=[str(example)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: type(app.editor).__name__ == "ModalEditor")
        assert "INSERT" in screen_text(app)
        await pilot.press("a", "b", "escape")
        await pilot.pause()
        assert "NORMAL" in screen_text(app)
        await pilot.press("h", "x", "q")  # left, delete "b"; "q" means nothing in normal mode
        await pilot.pause()
        assert app.editor.text == "a"
        await pilot.press("0", "a", "c")  # append after "a"
        await pilot.pause()
        assert app.editor.text == "ac" and "INSERT" in screen_text(app)
        provider.push(scripted_text("fine"))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: "fine" in screen_text(app))


async def test_a_new_session_drops_what_extensions_installed_before_its_session_start(provider, workdir, agent_dir,
                                                                                     tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, LISTENER + ISSUES.replace(
        "def extension(pi):", "def extension_issues(pi):") + "\n\nextension_listener = extension\n\n"
        "def extension(pi):\n    extension_listener(pi)\n    extension_issues(pi)\n")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        first_id = session.session_id
        await type_command(pilot, "/new")
        assert await wait_for(pilot, lambda: session.session_id != first_id)
        await workers_done(pilot)  # the new session's extensions started
        await pilot.press("b")
        await type_command(pilot, "/report")
        # session_start ran twice; the listener is there once, so each key was seen once.
        assert await wait_for(pilot, lambda: "seen='\\r','b','\\r'" in screen_text(app))
        assert app.completion.providers is not None and len(app.completion.providers.triggers) == 1
        top = app.completion.providers.top
        assert type(top._below).__name__ == "BuiltinProvider"  # one provider on pi's, not two


BROKEN = textwrap.dedent(
    """
    from textual.widgets import Static

    def extension(pi):
        def listen(data):
            raise RuntimeError("listener broke")

        def provider(current):
            class Broken:
                trigger_characters = ["$"]

                def get_suggestions(self, lines, cursor_line, cursor_col, options):
                    raise RuntimeError("provider broke")

            return Broken()

        def session_start(event, ctx):
            ctx.ui.on_terminal_input(listen)
            ctx.ui.add_autocomplete_provider(provider)
            ctx.ui.set_editor_component(lambda tui, theme, keys: Static("not an editor"))

        pi.on("session_start", session_start)
    """
)


async def test_broken_listeners_providers_and_editor_factories_leave_pis_input_working(provider, workdir, agent_dir,
                                                                                        tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, BROKEN)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        default = app.editor
        assert await wait_for(pilot, lambda: "must return a CustomEditor" in screen_text(app))
        assert app.editor is default and default.display and "not an editor" not in screen_text(app)
        await pilot.press(*"pay $5")
        await workers_done(pilot)  # the (broken) providers were asked
        assert app.editor.text == "pay $5" and not app.menu.is_open


EMOJI = textwrap.dedent(
    """
    def extension(pi):
        def emoji(current):
            def get_suggestions(lines, cursor_line, cursor_col, options):
                word = lines[cursor_line][:cursor_col].split(" ")[-1]
                if options.get("force") and word.startswith(":"):
                    return {"prefix": word, "items": [":smile:", ":sob:"]}
                return current.get_suggestions(lines, cursor_line, cursor_col, options)

            return {"get_suggestions": get_suggestions}

        def session_start(event, ctx):
            ctx.ui.add_autocomplete_provider(emoji)

        pi.on("session_start", session_start)
    """
)


async def test_tab_asks_the_providers_first_and_falls_back_to_path_completion(provider, workdir, agent_dir, tmp_path):
    (workdir / "notes.txt").write_text("x")
    session, app = await start(provider, workdir, agent_dir, tmp_path, EMOJI)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"hi :s", "tab")
        assert await wait_for(pilot, lambda: app.menu.is_open and app.menu.kind == "ext")
        await pilot.press("down", "enter")  # Enter picks the highlighted one, it does not send
        assert await wait_for(pilot, lambda: app.editor.text == "hi :sob: ")
        await pilot.press(*"no", "tab")  # nothing from the provider: pi's path completion
        assert await wait_for(pilot, lambda: app.editor.text == "hi :sob: notes.txt ")


NO_PATHS_IN_NOTES = textwrap.dedent(
    """
    def extension(pi):
        def quiet(current):
            class Quiet:
                def get_suggestions(self, lines, cursor_line, cursor_col, options):
                    return current.get_suggestions(lines, cursor_line, cursor_col, options)

                def should_trigger_file_completion(self, lines, cursor_line, cursor_col):
                    # Inside a "note:" line Tab completes nothing; elsewhere ask the provider below.
                    if lines[cursor_line].startswith("note:"):
                        return False
                    return current.should_trigger_file_completion(lines, cursor_line, cursor_col)

            return Quiet()

        def session_start(event, ctx):
            ctx.ui.add_autocomplete_provider(quiet)

        pi.on("session_start", session_start)
    """
)


async def test_should_trigger_file_completion_false_keeps_tab_from_completing(provider, workdir, agent_dir,
                                                                              tmp_path):
    (workdir / "notes.txt").write_text("x")
    session, app = await start(provider, workdir, agent_dir, tmp_path, NO_PATHS_IN_NOTES)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"note: no", "tab")
        await workers_done(pilot)  # the providers were asked
        assert app.editor.text == "note: no" and not app.menu.is_open
        app.editor.set_text("")
        await pilot.press(*"read no", "tab")  # the provider below (pi's) says yes: path completion
        assert await wait_for(pilot, lambda: app.editor.text == "read notes.txt ")


BROKEN_LISTENERS = textwrap.dedent(
    """
    def extension(pi):
        def explodes(data):
            raise RuntimeError("listener bug")

        def numbers(data):
            return {"data": 42}

        async def later(data):
            raise ValueError("async listener bug")

        def session_start(event, ctx):
            ctx.ui.on_terminal_input(explodes)
            ctx.ui.on_terminal_input(numbers)
            ctx.ui.on_terminal_input(later)

        pi.on("session_start", session_start)
    """
)


async def test_broken_listeners_are_reported_once_and_the_keys_go_on(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, BROKEN_LISTENERS)
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        await pilot.press("a", "b", "c")

        def reported() -> list[str]:
            return [error for _, _, error in session.extension_runner.errors]

        # The async listener fails in a task of its own: its report comes last.
        assert await wait_for(pilot, lambda: "on_terminal_input listener failed: ValueError: async listener bug"
                              in reported())
        assert app.editor.text == "abc"  # no key lost, none turned into "42"
        errors = reported()
        assert errors.count("on_terminal_input listener failed: RuntimeError: listener bug") == 1, errors
        assert sum("not a string (int)" in e for e in errors) == 1, errors
        assert "on_terminal_input listener failed: ValueError: async listener bug" in errors, errors


BAD_TREE_SUMMARY = textwrap.dedent(
    """
    def extension(pi):
        pi.on("session_before_tree", lambda event, ctx: {"summary": {"summary": "s", "details": {1, 2}}})
    """
)


async def test_a_tree_move_that_fails_says_why_and_stays_put(provider, workdir, agent_dir, tmp_path):
    from pi_runtime.ai.providers.scripted import scripted_text
    from pi_tui.flows.nav_flows import _navigate

    session, app = await start(provider, workdir, agent_dir, tmp_path, BAD_TREE_SUMMARY)
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        provider.push(scripted_text("first answer"))
        await session.prompt("first")
        first_answer = session.session_manager.leaf_id
        provider.push(scripted_text("second answer"))
        await session.prompt("second")
        leaf = session.session_manager.leaf_id
        await _navigate(app, session, first_answer, True)
        await pilot.pause()
        messages = [str(n.message) for n in app._notifications]
        assert any(m.startswith("Could not move in the session tree:") and "details" in m for m in messages), messages
        assert session.session_manager.leaf_id == leaf
