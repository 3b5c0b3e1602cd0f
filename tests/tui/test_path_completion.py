"""Tab path completion logic (pi_tui.editor.path_completion) on a real temporary folder."""

from __future__ import annotations

import pytest

from pi_tui.editor import path_completion as pc


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("x", encoding="utf-8")
    (tmp_path / "src" / "mailer.py").write_text("x", encoding="utf-8")
    (tmp_path / "src" / "util.py").write_text("x", encoding="utf-8")
    (tmp_path / "setup.cfg").write_text("x", encoding="utf-8")
    (tmp_path / "README.md").write_text("x", encoding="utf-8")
    (tmp_path / ".env").write_text("x", encoding="utf-8")
    (tmp_path / ".github").mkdir()
    (tmp_path / "My Files").mkdir()
    (tmp_path / "My Files" / "notes.txt").write_text("x", encoding="utf-8")
    return tmp_path


def test_one_file_is_completed_with_a_space(tree):
    assert pc.complete("src/u", str(tree)) == pc.PathCompletion("src/util.py ")


def test_one_folder_is_completed_with_a_slash_and_tab_again_continues(tree):
    assert pc.complete("sr", str(tree)).replacement == "src/"
    result = pc.complete("src/", str(tree))
    assert result.replacement == "src/"
    assert [c.label for c in result.candidates] == ["mailer.py", "main.py", "util.py"]


def test_several_matches_extend_to_their_common_prefix_and_are_listed(tree):
    result = pc.complete("src/m", str(tree))
    assert result.replacement == "src/mai"
    assert [(c.value, c.label) for c in result.candidates] == [("src/mailer.py", "mailer.py"), ("src/main.py", "main.py")]


def test_folders_are_listed_with_a_slash(tree):
    result = pc.complete("s", str(tree))
    assert result.replacement == "s"
    assert [c.label for c in result.candidates] == ["setup.cfg", "src/"]
    assert [c.value for c in result.candidates] == ["setup.cfg", "src/"]


def test_no_match_changes_nothing(tree):
    assert pc.complete("nothing", str(tree)) is None
    assert pc.complete("missing/dir/x", str(tree)) is None


def test_hidden_entries_only_when_the_name_starts_with_a_dot(tree):
    assert all(not c.label.startswith(".") for c in pc.candidates("", str(tree)))
    result = pc.complete(".", str(tree))
    assert [c.label for c in result.candidates] == [".env", ".github/"]
    assert pc.complete(".g", str(tree)).replacement == ".github/"


def test_dot_dot_and_relative_folders(tree):
    assert pc.complete("..", str(tree / "src")).replacement == "../"
    assert pc.complete("../READ", str(tree / "src")).replacement == "../README.md "
    assert pc.complete("./src/ut", str(tree)).replacement == "./src/util.py "


def test_absolute_paths_and_home(tree, monkeypatch):
    assert pc.complete(f"{tree}/READ", "/").replacement == f"{tree}/README.md "
    monkeypatch.setenv("HOME", str(tree / "src"))
    assert pc.complete("~", str(tree)).replacement == "~/"
    assert pc.complete("~/ut", "/").replacement == "~/util.py "


def test_blanks_are_escaped_and_an_escaped_blank_stays_in_the_token(tree):
    assert pc.complete("My", str(tree)).replacement == "My\\ Files/"
    line = "read My\\ Files/no"
    start = pc.token_start(line)
    assert line[start:] == "My\\ Files/no"
    assert pc.complete(line[start:], str(tree)).replacement == "My\\ Files/notes.txt "
    assert pc.token_start("look at src") == len("look at ")
