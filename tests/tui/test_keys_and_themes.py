"""Keymap conversion and overrides, terminal Alt sequences, theme files and colours."""

from __future__ import annotations

import json

import pytest

from pi_tui.keys.keymap import KeySyntaxError, load_keymap, to_textual_key
from pi_tui.terminal import terminal_keys
from pi_tui.theme.colors import ColorError, parse_color
from pi_tui.theme.theme import ALL_TOKENS, BUILTIN_DIR, REQUIRED_TOKENS, ThemeError, load_theme_file, parse_theme


def _keys(data: str) -> list[str]:
    from textual import events
    from textual._xterm_parser import XTermParser

    terminal_keys.install()
    parser = XTermParser()
    out = [e.key for e in parser.feed(data) if isinstance(e, events.Key)]
    out += [e.key for e in parser.feed("") if isinstance(e, events.Key)]
    return out


def test_alt_sequences_arrive_as_alt_keys():
    assert _keys("\x1b\r") == ["alt+enter"]
    assert _keys("\x1b[1;3A") == ["alt+up"]


def test_a_lone_esc_is_the_esc_key_once_its_wait_is_over_whatever_follows():
    # Esc, then a letter 40 ms later (stop the run, type the next message): Textual settled the
    # 10 ms wait after an ESC only when its input thread woke (every 100 ms), so it read Alt+s.
    from textual import events
    from textual._xterm_parser import XTermParser

    from pi_tui.terminal import escape_key

    escape_key.install()
    parser = XTermParser()
    assert list(parser.feed("\x1b")) == []  # waiting: an Alt key's letter would come in this write
    assert escape_key._wake_at is not None  # the input thread wakes when the wait runs out
    parser._timeout_time = 0.0  # the wait ran out (as 40 ms later) before the next byte came
    keys = [e.key for e in parser.feed("s") if isinstance(e, events.Key)]
    assert keys == ["escape", "s"]
    assert escape_key._wake_at is None
    assert _keys("\x1bs") == ["alt+s"]  # in one write it is still Alt+S


@pytest.mark.parametrize("pi_key, textual", [
    ("shift+ctrl+p", "ctrl+shift+p"), ("pageUp", "pageup"), ("ctrl+]", "ctrl+right_square_bracket"),
    ("esc", "escape"), ("alt+enter", "alt+enter"), ("ctrl+-", "ctrl+minus"), ("f5", "f5"),
])
def test_pi_keys_convert_to_textual_names(pi_key, textual):
    assert to_textual_key(pi_key) == textual


@pytest.mark.parametrize("bad", ["hyper+x", "ctrl+ctrl+x", "ctrl+notakey", ""])
def test_bad_keys_are_rejected(bad):
    with pytest.raises(KeySyntaxError):
        to_textual_key(bad)


def test_default_keymap_has_every_documented_id():
    schema_ids = {
        "app.interrupt", "app.clear", "app.exit", "app.message.followUp", "app.message.dequeue",
        "app.tools.expand", "app.thinking.toggle", "app.thinking.cycle", "tui.input.submit", "tui.input.newLine",
    }
    keymap = load_keymap(None)
    pi_own = {"app.pane.tree", "app.session.open", "app.session.next", "app.session.previous"}  # pi's additions in Pi's app namespace
    assert pi_own <= set(keymap.pi_keys)
    assert len([i for i in keymap.pi_keys if not i.startswith("pi.") and i not in pi_own]) == 90  # Pi's ids; pi.* are pi's own
    assert schema_ids <= set(keymap.pi_keys)
    assert keymap.keys("app.message.followUp") == ["alt+enter"]
    assert keymap.keys("app.session.new") == []
    assert keymap.problems == []


def test_user_overrides_replace_and_report(tmp_path):
    path = tmp_path / "keybindings.json"
    path.write_text(json.dumps({"app.tools.expand": "ctrl+t", "app.nope": "x", "app.exit": ["ctrl+bogus+q"],
                                "app.interrupt": []}), encoding="utf-8")
    keymap = load_keymap(path)
    assert keymap.keys("app.tools.expand") == ["ctrl+t"]
    assert keymap.keys("app.interrupt") == []
    assert keymap.textual_keymap()["app.interrupt"] == "pi_disabled_key"
    text = "\n".join(keymap.problems)
    assert "unknown action id 'app.nope'" in text
    assert "ctrl+bogus+q" in text
    assert "several actions" in text and "app.thinking.toggle" in text


def test_builtin_themes_define_every_token():
    for name in ("dark", "light", "frost", "ember"):
        data = json.loads((BUILTIN_DIR / f"{name}.json").read_text())
        assert set(REQUIRED_TOKENS) <= set(data["colors"])
        theme = load_theme_file(BUILTIN_DIR / f"{name}.json")
        assert set(theme.colors) == set(ALL_TOKENS)
        assert all(v.startswith("#") and len(v) == 7 for v in theme.colors.values())
        variables = theme.to_textual().variables
        assert variables["pi-tool-diff-added"] == theme.colors["toolDiffAdded"]


def test_theme_validation_names_the_problem():
    base = json.loads((BUILTIN_DIR / "dark.json").read_text())
    broken = dict(base, colors=dict(base["colors"], bogusToken="#fff"))
    with pytest.raises(ThemeError, match="bogusToken"):
        parse_theme(broken)
    missing = dict(base, colors={k: v for k, v in base["colors"].items() if k != "accent"})
    with pytest.raises(ThemeError, match="missing colour token.*accent"):
        parse_theme(missing)
    cyclic = dict(base, vars={"a": "b", "b": "a"}, colors=dict(base["colors"], accent="a"))
    with pytest.raises(ThemeError, match="circular"):
        parse_theme(cyclic)
    with pytest.raises(ThemeError, match="reserved"):
        parse_theme(dict(base, name="system"))


def test_colour_forms():
    assert parse_color("#0af", {}) == "#00aaff"
    assert parse_color(196, {}) == "#ff0000"
    assert parse_color(244, {}) == "#808080"
    assert parse_color("", {}) is None
    assert parse_color("primary", {"primary": "#123456"}) == "#123456"
    white = parse_color("oklch(100% 0 0)", {})
    assert white == "#ffffff"
    red = parse_color("okhsl(29 100% 60%)", {})
    assert int(red[1:3], 16) > int(red[3:5], 16) and int(red[1:3], 16) > int(red[5:7], 16)
    with pytest.raises(ColorError):
        parse_color("nope", {})
    with pytest.raises(ColorError):
        parse_color(300, {})
