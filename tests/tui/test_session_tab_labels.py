"""Tabs say which session they hold (issue #37): numbered by their place in the bar, named by the
session's name or first prompt, and with five tabs at 80 columns each still shows its state;
``/open new`` is a new session, not a fork of the one shown."""

from __future__ import annotations

import json

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.sessions.session_tab import SessionTab

from .conftest import wait_for
from .test_commands_models import file_session, type_command


def labels(app) -> list[str]:
    return [str(tab.render()) for tab in app.query(SessionTab)]


async def test_five_tabs_at_80_columns(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    provider.push(scripted_text("ok"))
    await session.prompt("fix the flaky websocket test")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await session.wait_for_idle()
        for n in range(2, 6):
            await type_command(pilot, "/open")
            assert await wait_for(pilot, lambda n=n: len(app.workspace.sessions) == n)
        assert await wait_for(pilot, lambda: len(labels(app)) == 5)
        shown = labels(app)
        assert shown[0].startswith("1 ○ fix the flaky websocket test")
        assert [label[:4] for label in shown[1:]] == ["2 ○ ", "3 ○ ", "4 ○ ", "5 ○ "]
        assert all(tab.region.width >= 12 for tab in app.query(SessionTab))
        # What is drawn of each tab keeps its number and state mark.
        from .conftest import screen_text

        bar = next(line for line in screen_text(app).splitlines() if "1 ○ fix" in line)
        for n in range(1, 6):
            assert f"{n} ○ " in bar
        await type_command(pilot, "/close")  # tab 5 (shown) closes: the numbers stay 1-4
        assert await wait_for(pilot, lambda: len(labels(app)) == 4)
        await type_command(pilot, "/open")
        assert await wait_for(pilot, lambda: [label[:2] for label in labels(app)] == ["1 ", "2 ", "3 ", "4 ", "5 "])


async def test_open_new_is_no_fork_of_the_shown_session(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    provider.push(scripted_text("ok"), scripted_text("ok too"))
    await session.prompt("first")
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await session.wait_for_idle()
        await type_command(pilot, "/open new")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 2)
        fresh = app.workspace.sessions[1].session
        await fresh.prompt("second")
        from pathlib import Path

        header = json.loads(Path(fresh.session_file).read_text().splitlines()[0])
        assert "parentSession" not in header
