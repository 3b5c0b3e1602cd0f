"""Several sessions at once, with extensions: each tab shows what its own extensions set
(statuses, widgets above and below the editor, a footer, an editor of their own); the tab
put in the background keeps its part and gets it back when shown; an extension of a background
tab that updates its status or widget is seen on return, not over the tab on screen."""

from __future__ import annotations

import textwrap

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_tui.editor.prompt_editor import PromptEditor
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, wait_for
from .test_commands_models import type_command
from .test_session_tabs import HoldTool, open_second, type_and_send

TABS = textwrap.dedent(
    """
    from textual.widgets import Static
    from pi_tui.extension_ui.custom_editor import CustomEditor

    class ModalEditor(CustomEditor):
        def handle_input(self, data):
            if data == "escape":
                self.border_title = "MODAL NORMAL"
                return True
            return False

    def extension(pi):
        runs = {"count": 0}  # each session loads its own copy of this module

        async def mark(args, ctx):
            ctx.ui.set_status("mark", f"status-{args}")
            ctx.ui.set_widget("above", [f"above-{args}"])
            ctx.ui.set_widget("below", [f"below-{args}"], placement="belowEditor")

        async def look(args, ctx):
            ctx.ui.set_footer(lambda tui, theme: Static(f"== footer-{args} ==", id=f"footer-{args}"))
            ctx.ui.set_widget("panel", lambda tui, theme: Static(f"panel-{args}"))
            ctx.ui.set_working_message(f"busy-{args}")
            ctx.ui.set_title(f"title-{args}")

        async def modal(args, ctx):
            ctx.ui.set_editor_component(lambda tui, theme, keys: ModalEditor(tui, theme, keys))

        def ended(event, ctx):
            runs["count"] += 1
            ctx.ui.set_status("runs", f"runs-{runs['count']}")
            ctx.ui.set_widget("after", ["finished-while-away"])
            ctx.ui.set_widget("late", lambda tui, theme: Static("late-panel"))
            ctx.ui.set_editor_component(lambda tui, theme, keys: ModalEditor(tui, theme, keys))
            ctx.ui.set_editor_text("written by the extension")

        pi.register_command("mark", mark)
        pi.register_command("look", look)
        pi.register_command("modal", modal)
        pi.on("agent_end", ended)
    """
)


def tabs_app(provider, workdir, agent_dir, **kwargs):
    """The app over a session whose extension is discovered in the agent dir (each tab loads it again)."""
    (agent_dir / "extensions").mkdir(exist_ok=True)
    (agent_dir / "extensions" / "tabs.py").write_text(TABS)
    session = make_session(provider, workdir, agent_dir=str(agent_dir), **kwargs)
    return session, create_app(session, static=True, agent_dir=str(agent_dir))


def shows(app, *words: str) -> bool:
    text = screen_text(app)
    return all(word in text for word in words)


def shows_none(app, *words: str) -> bool:
    text = screen_text(app)
    return not any(word in text for word in words)


async def second_started(pilot) -> None:
    """``/open``, then wait until the new tab's extensions have their UI."""
    app = pilot.app
    await open_second(pilot)
    assert await wait_for(pilot, lambda: app.workspace.sessions[1].extension_ui is not None)


async def test_each_tab_shows_its_own_statuses_and_widgets(provider, workdir, agent_dir):
    _, app = tabs_app(provider, workdir, agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.extension_ui is not None)
        await type_command(pilot, "/mark one")
        assert await wait_for(pilot, lambda: shows(app, "status-one", "above-one", "below-one"))

        await second_started(pilot)
        assert await wait_for(pilot, lambda: shows_none(app, "status-one", "above-one", "below-one"))
        await type_command(pilot, "/mark two")
        assert await wait_for(pilot, lambda: shows(app, "status-two", "above-two", "below-two"))
        assert shows_none(app, "status-one", "above-one", "below-one")

        await pilot.press("alt+pageup")  # tab 1: its own again, tab 2's put away
        assert await wait_for(pilot, lambda: shows(app, "status-one", "above-one", "below-one"))
        assert shows_none(app, "status-two", "above-two", "below-two")
        await pilot.press("alt+pagedown")  # and tab 2's back as they were
        assert await wait_for(pilot, lambda: shows(app, "status-two", "above-two", "below-two"))
        assert shows_none(app, "status-one", "above-one", "below-one")


async def test_a_footer_and_widget_of_a_tab_go_and_come_back_with_it(provider, workdir, agent_dir):
    _, app = tabs_app(provider, workdir, agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.extension_ui is not None)
        await second_started(pilot)
        await type_command(pilot, "/look two")
        assert await wait_for(pilot, lambda: shows(app, "== footer-two ==", "panel-two"))
        assert not app.footer_bar.display
        assert app.title == "title-two" and app.footer_bar.working_message == "busy-two"

        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: shows_none(app, "footer-two", "panel-two"))
        assert app.footer_bar.display  # pi's footer for the tab that did not replace it
        assert app.title == "π - project" and app.footer_bar.working_message is None  # pi's own
        await pilot.press("alt+pagedown")
        assert await wait_for(pilot, lambda: shows(app, "== footer-two ==", "panel-two"))
        assert app.title == "title-two" and app.footer_bar.working_message == "busy-two"
        footer = app.query_one("#footer-two")
        await type_and_send(pilot, "/close")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 1)
        assert await wait_for(pilot, lambda: not footer.is_attached)  # the closed tab's widgets went with it
        assert app.footer_bar.display and shows_none(app, "footer-two", "panel-two")


async def test_a_background_tabs_update_shows_when_it_is_shown_again(provider, workdir, agent_dir):
    hold = HoldTool()
    first, app = tabs_app(provider, workdir, agent_dir, custom_tools=[hold])
    provider.push(scripted_tool_call("hold", {}))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.extension_ui is not None)
        await type_and_send(pilot, "long task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await second_started(pilot)
        app.editor.insert("my own draft")
        provider.push(scripted_text("done in one"))
        hold.release.set()
        entry = app.workspace.sessions[0]
        assert await wait_for(pilot, lambda: entry.unseen == "done")
        await first.wait_for_idle()
        assert await wait_for(pilot, lambda: entry.extension_ui.statuses.get("runs") == "runs-1")
        # Tab 1's extension updated its status, widgets, editor and its text while tab 2 is shown:
        assert shows_none(app, "runs-1", "finished-while-away", "late-panel", "written by the extension")
        assert app.editor is app.default_editor and app.editor.text == "my own draft"

        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: shows(app, "runs-1", "finished-while-away", "late-panel"))
        assert type(app.editor).__name__ == "ModalEditor" and app.editor.display
        assert app.editor.text == "written by the extension"
        await pilot.press("alt+pagedown")
        assert await wait_for(pilot, lambda: shows_none(app, "runs-1", "finished-while-away", "late-panel"))
        assert app.editor is app.default_editor and app.editor.text == "my own draft"


async def test_an_editor_set_in_tab_two_does_not_replace_tab_ones(provider, workdir, agent_dir):
    _, app = tabs_app(provider, workdir, agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.extension_ui is not None)
        pis = app.editor
        await second_started(pilot)
        await type_command(pilot, "/modal")
        assert await wait_for(pilot, lambda: type(app.editor).__name__ == "ModalEditor")
        modal = app.editor
        await pilot.press(*"typed in two", "escape")  # the modal editor takes Esc
        assert await wait_for(pilot, lambda: "MODAL NORMAL" in screen_text(app))

        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.workspace.active.number == 1)
        assert app.editor is pis and pis.display and not modal.display
        assert app.editor.text == "" and app.focused is pis
        assert "MODAL NORMAL" not in screen_text(app)
        await pilot.press(*"draft one")  # keys reach pi's editor, not tab 2's
        assert pis.text == "draft one" and modal.text == "typed in two"

        await pilot.press("alt+pagedown")
        assert await wait_for(pilot, lambda: app.editor is modal)
        assert modal.display and not pis.display and app.focused is modal
        assert modal.text == "typed in two" and "MODAL NORMAL" in screen_text(app)  # as it was left
        assert len(app.query(PromptEditor)) == 2
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.editor is pis)
        assert pis.text == "draft one"

        # A tab opened from the one with the modal editor starts with pi's editor.
        await pilot.press("alt+pagedown")
        assert await wait_for(pilot, lambda: app.editor is modal)
        modal.clear()
        await type_and_send(pilot, "/open")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 3 and app.workspace.active.number == 3)
        assert app.editor is pis and pis.display and not modal.display and pis.text == ""


async def test_reload_in_one_tab_clears_what_its_old_extensions_set_and_leaves_the_other_tab_alone(
        provider, workdir, agent_dir):
    _, app = tabs_app(provider, workdir, agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.extension_ui is not None)
        await type_command(pilot, "/mark one")
        await second_started(pilot)
        await type_command(pilot, "/mark two")
        await type_command(pilot, "/look two")
        await type_command(pilot, "/modal")
        assert await wait_for(pilot, lambda: shows(app, "above-two", "== footer-two ==", "panel-two")
                              and type(app.editor).__name__ == "ModalEditor")
        await type_command(pilot, "/reload")
        # As Pi: the reloaded extensions start from pi's own UI (their old instance's parts are gone).
        assert await wait_for(pilot, lambda: "Reloaded 1 extension" in screen_text(app))
        assert shows_none(app, "status-two", "above-two", "below-two", "footer-two", "panel-two")
        assert app.editor is app.default_editor and app.footer_bar.display and not app.query("ModalEditor")
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: shows(app, "status-one", "above-one", "below-one"))
