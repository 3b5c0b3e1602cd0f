"""The external editor's command and outcome, with real programs as editors."""

from __future__ import annotations

from pi_tui.editor.external_editor import edit_in_editor, editor_command


def _script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def test_the_setting_comes_before_visual_and_editor_then_nano(monkeypatch):
    monkeypatch.setenv("VISUAL", "vis")
    monkeypatch.setenv("EDITOR", "ed")
    assert editor_command("code --wait") == "code --wait"
    assert editor_command("  ") == "vis"
    monkeypatch.delenv("VISUAL")
    assert editor_command(None) == "ed"
    monkeypatch.delenv("EDITOR")
    assert editor_command(None) == "nano"


def test_the_edited_text_comes_back_without_the_newline_the_editor_added(tmp_path):
    editor = _script(tmp_path, "append.sh", 'printf "%s\\nsecond line\\n" "$(cat "$1")" > "$1"')
    outcome = edit_in_editor(editor, "first line")
    assert outcome.problem is None and outcome.text == "first line\nsecond line"


def test_a_missing_editor_or_a_failing_one_leaves_the_prompt_and_says_why(tmp_path):
    missing = str(tmp_path / "no-such-editor")
    assert edit_in_editor(missing, "x").problem == f"Failed to launch external editor: {missing}"
    assert edit_in_editor('"unbalanced', "x").problem == 'Failed to launch external editor: "unbalanced'
    failing = _script(tmp_path, "fail.sh", 'echo changed > "$1"; exit 3')
    outcome = edit_in_editor(failing, "x")
    assert outcome.text is None and outcome.problem == "External editor exited with code 3; prompt unchanged"
    killed = _script(tmp_path, "killed.sh", "kill -TERM $$")
    assert edit_in_editor(killed, "x").problem == "External editor exited with SIGTERM; prompt unchanged"
