"""A flow acts on the session it was started in: a tab switch while it waits (on the kernel, on an
extension) must not send what follows to the session shown by then."""

from __future__ import annotations

import sys
import textwrap

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.transcript.notice import Notice

from .conftest import make_session, settle, started, wait_for, workers_done
from .test_commands_models import entries, file_session, type_command
from .test_commands_session import converse, small_keep

# Holds a tree move in ``session_before_tree`` (or a compaction in ``session_before_compact``)
# until the test lets it go (each session that loads the file runs its own copy, with its own gate).
HELD_TREE_MOVE = textwrap.dedent(
    """
    import asyncio

    entered = asyncio.Event()
    release = asyncio.Event()

    def extension(pi):
        async def before_tree(event, ctx):
            entered.set()
            await release.wait()

        pi.on("session_before_tree", before_tree)
    """
)


def extension_modules(path) -> list:
    """The modules in ``sys.modules`` the extension file runs in."""
    return [m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(path)]


HELD_COMPACTION = HELD_TREE_MOVE.replace("session_before_tree", "session_before_compact")


def notices(transcript) -> str:
    return "\n".join(str(notice.render()) for notice in transcript.query(Notice))


def user_texts(session) -> list[str]:
    return [m.content[0].text for m in session.messages if getattr(m, "role", "") == "user"]


async def test_a_tree_move_finishes_in_its_own_tab_after_a_switch(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "held_tree.py"
    ext.write_text(HELD_TREE_MOVE)
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        # The first session's copy (a second session's load takes its place in sys.modules).
        [first_tab_gate] = extension_modules(ext)
        for text in ("alpha", "beta"):
            provider.push(scripted_text(f"answer to {text}"))
            await type_command(pilot, text)
            await settle(pilot, session)
        await type_command(pilot, "/open")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 2 and app.session is not session)
        second = app.session
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is session)

        await type_command(pilot, "/tree")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "TreeBrowser")
        browser = app.screen
        browser.dismiss(next(row.entry_id for row in browser.tree_rows.rows if "beta" in row.text))
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "SummarizePrompt")
        await pilot.press("enter")  # "No summary": the move starts and the extension holds it
        assert await wait_for(pilot, lambda: first_tab_gate.entered.is_set())
        await pilot.press("alt+pagedown")  # the other tab comes on screen meanwhile
        assert await wait_for(pilot, lambda: app.session is second)
        first_tab_gate.release.set()
        await workers_done(pilot)
        await settle(pilot, session)

        assert user_texts(session) == ["alpha"]  # the first session moved back to before "beta"
        assert user_texts(second) == []
        assert app.editor.text == ""  # the shown tab's editor did not get the first one's message
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is session)
        assert app.editor.text == "beta"  # it waited in the first tab's draft


async def test_a_compaction_notice_goes_to_the_tab_it_was_asked_in(provider, workdir, agent_dir, tmp_path):
    small_keep(agent_dir)
    ext = tmp_path / "held_compaction.py"
    ext.write_text(HELD_COMPACTION)
    session = file_session(provider, workdir, agent_dir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 40)) as pilot:
        [first_tab_gate] = extension_modules(ext)
        await converse(pilot, session, provider, ["x " * 150, "y " * 150, "z " * 150])
        await type_command(pilot, "/open")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 2 and app.session is not session)
        first_tab, second_tab = app.workspace.sessions
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is session)

        provider.push(scripted_text("The summary."))
        await type_command(pilot, "/compact")
        assert await wait_for(pilot, lambda: first_tab_gate.entered.is_set())
        await pilot.press("alt+pagedown")  # the other tab comes on screen while it compacts
        assert await wait_for(pilot, lambda: app.session is second_tab.session)
        first_tab_gate.release.set()
        await workers_done(pilot)
        await settle(pilot, session)

        assert any(e["type"] == "compaction" for e in entries(session))
        assert await wait_for(pilot, lambda: "Compacted: " in notices(first_tab.transcript))
        assert "Compacted: " not in notices(second_tab.transcript)


async def test_a_fork_puts_its_message_back_in_its_own_tab_after_a_switch(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "held_fork.py"
    ext.write_text(HELD_TREE_MOVE.replace("session_before_tree", "session_before_fork"))
    session = file_session(provider, workdir, agent_dir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        [first_tab_gate] = extension_modules(ext)
        await converse(pilot, session, provider, ["alpha", "beta"])
        await type_command(pilot, "/open")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 2 and app.session is not session)
        second = app.session
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is session)
        old_file = session.session_file

        await type_command(pilot, "/fork")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ForkPicker")
        beta = next(m["entryId"] for m in session.get_fork_messages() if m["text"] == "beta")
        app.screen.dismiss(beta)
        assert await wait_for(pilot, lambda: first_tab_gate.entered.is_set())
        await pilot.press("alt+pagedown")
        assert await wait_for(pilot, lambda: app.session is second)
        first_tab_gate.release.set()
        await workers_done(pilot)
        await settle(pilot, session)

        assert session.session_file != old_file and user_texts(session) == ["alpha"]
        assert app.editor.text == ""  # the shown tab's editor did not get the first one's message
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is session)
        assert app.editor.text == "beta"
