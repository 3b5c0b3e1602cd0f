"""Tab completes paths in the prompt editor (issue "Tab completes paths")."""

from __future__ import annotations

import pytest

from pi_tui.launch import create_app

from .conftest import make_session, screen_text


@pytest.fixture
def project(workdir):
    (workdir / "src").mkdir()
    (workdir / "src" / "main.py").write_text("x", encoding="utf-8")
    (workdir / "src" / "mailer.py").write_text("x", encoding="utf-8")
    (workdir / "src" / "deep").mkdir()
    (workdir / "src" / "deep" / "leaf.txt").write_text("x", encoding="utf-8")
    (workdir / "README.md").write_text("x", encoding="utf-8")
    return workdir


async def test_tab_with_one_match_inserts_it(provider, project, agent_dir):
    app = create_app(make_session(provider, project), static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"read READ", "tab")
        await pilot.pause()
        assert app.editor.text == "read README.md "
        assert not app.menu.is_open
        assert not provider.requests


async def test_tab_continues_into_folders(provider, project, agent_dir):
    app = create_app(make_session(provider, project), static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"see sr", "tab")
        await pilot.pause()
        assert app.editor.text == "see src/"
        await pilot.press("d", "tab")
        await pilot.pause()
        assert app.editor.text == "see src/deep/"
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.text == "see src/deep/leaf.txt "


async def test_tab_with_several_matches_extends_and_opens_the_menu(provider, project, agent_dir):
    app = create_app(make_session(provider, project), static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"open src/m", "tab")
        await pilot.pause()
        assert app.editor.text == "open src/mai"
        assert app.menu.is_open and app.menu.kind == "path"
        assert [i.label for i in app.menu.items] == ["mailer.py", "main.py"]
        assert "mailer.py" in screen_text(app) and "main.py" in screen_text(app)
        await pilot.press("n")  # typing narrows the list
        await pilot.pause()
        assert [i.label for i in app.menu.items] == ["main.py"]
        await pilot.press("enter")  # Enter picks the entry, it does not send
        await pilot.pause()
        assert app.editor.text == "open src/main.py "
        assert not app.menu.is_open and not provider.requests


async def test_path_menu_is_driven_by_arrows_tab_and_escape(provider, project, agent_dir):
    app = create_app(make_session(provider, project), static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"src/", "tab")
        await pilot.pause()
        assert [i.label for i in app.menu.items] == ["deep/", "mailer.py", "main.py"]
        await pilot.press("escape")
        assert not app.menu.is_open
        await pilot.press("tab")
        await pilot.pause()
        await pilot.press("down", "tab")
        await pilot.pause()
        assert app.editor.text == "src/mailer.py "
        await pilot.press("backspace")
        await pilot.press(*" src/", "tab")
        await pilot.pause()
        await pilot.press("tab")  # the first entry is a folder: no space, Tab goes on into it
        await pilot.pause()
        assert app.editor.text == "src/mailer.py src/deep/"
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.text == "src/mailer.py src/deep/leaf.txt "


async def test_tab_without_a_match_or_on_a_slash_command_changes_nothing(provider, project, agent_dir):
    app = create_app(make_session(provider, project), static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"look at nothing", "tab")
        await pilot.pause()
        assert app.editor.text == "look at nothing"
        assert not app.menu.is_open
        app.editor.take_text()
        await pilot.press(*"/src", "tab")  # a slash command, not the folder /src
        await pilot.pause()
        assert app.editor.text == "/src"
