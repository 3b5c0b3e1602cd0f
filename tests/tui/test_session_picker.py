"""Pilot tests: the /resume picker over real session files (fixed ids and times)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from pi_runtime.session import SessionManager
from pi_runtime.session.paths import project_session_dir
from pi_tui.screenshots.nav_scenes import NOW, PROJECT, SIZE, make_scene, write_picker_sessions
from pi_tui.sessions.session_picker import SessionPicker
from pi_tui.sessions.session_rows import trash_session
from pi_tui.tree.nav_host import NavHostApp

from .conftest import screen_text


def picker_app(tmp_path: Path, **kwargs):
    root = tmp_path / "sessions"
    files = write_picker_sessions(root)

    def make():
        return SessionPicker(PROJECT, session_dir=project_session_dir(PROJECT, root), sessions_root=root,
                             now=NOW, system_trash=False, **kwargs)

    return NavHostApp(make, exit_on_dismiss=False), files, root


def names_in(folder: Path) -> dict[str, str | None]:
    return {info.path.name: info.name for info in SessionManager.list(PROJECT, folder)}


async def test_lists_searches_and_toggles_scope(tmp_path):
    app, files, root = picker_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        picker = app.screen
        text = screen_text(app)
        assert "Checkout refactor" in text and "18 msgs · 35 min ago" in text and "1 mo ago" in text
        assert "dotfiles" not in text and len(picker.state.visible) == 6

        await pilot.press(*"mondays")
        assert [i.path for i in picker.state.visible] == [files["02"]]
        assert "test_discounts" in screen_text(app) and "Bump Django" not in screen_text(app)
        await pilot.press("escape")  # clears the search first
        assert picker.state.query == "" and len(picker.state.visible) == 6

        await pilot.press("tab")
        assert picker.state.scope == "all" and len(picker.state.visible) == 8
        assert "dotfiles" in screen_text(app)
        await pilot.press(*"tmux")
        assert [i.path for i in picker.state.visible] == [files["07"]]
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [str(files["07"])]


async def test_sort_and_named_only(tmp_path):
    app, files, _ = picker_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        picker = app.screen
        assert picker.state.sort == "threaded"
        await pilot.press("ctrl+s", "ctrl+s")  # threaded -> recent -> name
        assert picker.state.sort == "name" and picker.state.visible[0].path == files["03"]  # "Add a --verbose…"
        await pilot.press("ctrl+n")
        assert [i.name for i in picker.state.visible] == ["Checkout refactor", "SQL logging"]
        assert "sort: name · named only" in screen_text(app)


async def test_forks_are_threaded_under_the_session_they_came_from(tmp_path):
    app, files, _ = picker_app(tmp_path)
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        picker = app.screen
        order = [i.path for i in picker.state.visible]
        # "SQL logging" (04) was forked from "Add a --verbose flag" (03): right below it, with a guide.
        assert order.index(files["04"]) == order.index(files["03"]) + 1
        assert picker.state.prefixes == {files["04"]: "└─ "}
        lines = screen_text(app).splitlines()
        row = next(i for i, line in enumerate(lines) if "Add a --verbose flag" in line)
        assert "└─ SQL logging" in lines[row + 1]
        await pilot.press("ctrl+s")  # recent: a flat list by time
        assert picker.state.prefixes == {}


async def test_rename_appends_session_info(tmp_path):
    app, files, root = picker_app(tmp_path)
    folder = project_session_dir(PROJECT, root)
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        picker = app.screen
        await pilot.press("down")  # "Why does test_discounts fail on Mondays?"
        assert picker.state.current.path == files["02"]
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press(*"Monday bug", "enter")
        await pilot.pause()
        assert names_in(folder)[files["02"].name] == "Monday bug"
        assert "Monday bug" in screen_text(app) and picker.state.current.path == files["02"]
    last = files["02"].read_text().splitlines()[-1]
    assert '"type":"session_info"' in last and '"name":"Monday bug"' in last


async def test_rename_of_a_locked_session_shows_the_error(tmp_path):
    app, files, root = picker_app(tmp_path)
    holder = SessionManager.open(files["01"])  # another writer holds the file
    before = files["01"].read_bytes()
    try:
        async with app.run_test(size=(110, 24)) as pilot:
            await pilot.pause()
            await pilot.press("ctrl+r")
            await pilot.pause()
            await pilot.press(*"New name", "enter")
            await pilot.pause()
            assert "Could not rename" in screen_text(app)
            assert app.screen.state.current.name == "Checkout refactor"
    finally:
        holder.close()
    assert files["01"].read_bytes() == before


async def test_delete_after_confirmation_goes_to_trash(tmp_path):
    app, files, root = picker_app(tmp_path)
    folder = project_session_dir(PROJECT, root)
    content = files["03"].read_bytes()
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        picker = app.screen
        await pilot.press("down", "down")
        assert picker.state.current.path == files["03"]
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("n")  # declined: nothing happens
        await pilot.pause()
        assert files["03"].exists() and len(picker.state.visible) == 6
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not files["03"].exists()
        assert files["03"] not in [i.path for i in picker.state.visible] and len(picker.state.visible) == 5
        assert "Moved to" in screen_text(app)
    trashed = folder / ".trash" / files["03"].name
    assert trashed.read_bytes() == content  # recoverable
    assert files["03"].name not in names_in(folder)


@contextlib.contextmanager
def written_by_another_process(path: Path) -> Iterator[None]:
    """A second process that has ``path`` open for writing (as a running pi has) until the block ends."""
    code = ("import sys; from pi_runtime.session import SessionManager; m = SessionManager.open(sys.argv[1]); "
            "print('held', flush=True); sys.stdin.read(); m.close()")
    holder = subprocess.Popen([sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


async def test_a_session_another_pi_writes_to_is_not_moved_to_the_trash(tmp_path):
    app, files, root = picker_app(tmp_path)
    folder = project_session_dir(PROJECT, root)
    with written_by_another_process(files["03"]):
        async with app.run_test(size=(110, 24)) as pilot:
            await pilot.pause()
            picker = app.screen
            await pilot.press("down", "down")
            assert picker.state.current.path == files["03"]
            await pilot.press("ctrl+d")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
            text = screen_text(app)
            assert "Not deleted:" in text and "still writing to it" in text, text
            assert files["03"].exists() and not (folder / ".trash").exists()
            assert files["03"] in [i.path for i in picker.state.visible]
    # Once that pi has let it go, the same delete goes through.
    where = Path(trash_session(files["03"], system_trash=False))
    assert not files["03"].exists() and where.parent == folder / ".trash"


async def test_the_open_session_is_not_deleted(tmp_path):
    root = tmp_path / "sessions"
    files = write_picker_sessions(root)
    app = NavHostApp(lambda: SessionPicker(PROJECT, session_dir=project_session_dir(PROJECT, root),
                                           current_path=files["01"], now=NOW, system_trash=False),
                     exit_on_dismiss=False)
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert files["01"].exists() and "open session" in screen_text(app)


def test_resume_snapshot(snap_compare, tmp_path):
    app, prepare = make_scene("resume", tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=prepare)


async def test_a_long_or_wide_title_leaves_the_count_and_age_whole(tmp_path):
    # The title was cut to the characters left and a space was added after it anyway, so the age
    # lost its last letter ("12 min ag"); a title in CJK, two cells a character, pushed it further.
    import json

    app, files, root = picker_app(tmp_path)
    source = files["01"]
    for suffix, title in (("long", "x" * 300), ("wide", "配置文件的解析错误" * 20)):
        lines = source.read_text().splitlines()
        entries = [json.loads(line) for line in lines]
        for entry in entries:
            if entry.get("type") == "session_info":  # the session's name is its title
                entry["name"] = title
        entries[0]["id"] = entries[0]["id"][:-4] + ("aaaa" if suffix == "long" else "bbbb")
        (source.parent / f"{suffix}_{source.name}").write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        rows = [line.rstrip() for line in screen_text(app).splitlines() if "msgs ·" in line]
        assert any("xxx…" in row for row in rows) and any("配置" in row for row in rows), rows
        assert all(row.endswith(" ago") for row in rows), rows
