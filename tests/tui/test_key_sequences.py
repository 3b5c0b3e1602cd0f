"""Textual keys <-> xterm sequences, as extensions' terminal input listeners see them."""

from __future__ import annotations

import pytest
from textual import events

from pi_tui.terminal.key_sequences import events_for, sequence_for, sequence_for_key

XTERM = {
    "escape": "\x1b", "enter": "\r", "tab": "\t", "backspace": "\x7f", "space": " ",
    "up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D", "home": "\x1b[H", "end": "\x1b[F",
    "delete": "\x1b[3~", "pageup": "\x1b[5~", "f1": "\x1bOP", "f12": "\x1b[24~", "shift+tab": "\x1b[Z",
    "ctrl+a": "\x01", "ctrl+x": "\x18", "ctrl+up": "\x1b[1;5A", "shift+right": "\x1b[1;2C",
    "ctrl+delete": "\x1b[3;5~", "alt+enter": "\x1b\r", "alt+up": "\x1b[1;3A", "alt+b": "\x1bb",
    "shift+enter": "\x1b[13;2u", "ctrl+shift+p": "\x1b[112;6u", "ctrl+backslash": "\x1c",
}


@pytest.mark.parametrize(("key", "sequence"), XTERM.items())
def test_a_key_is_the_sequence_a_terminal_sends_and_reads_back_as_the_key(key, sequence):
    assert sequence_for_key(key) == sequence
    [event] = events_for(sequence)
    assert isinstance(event, events.Key) and event.key == key


def test_printable_keys_are_their_character_whatever_textual_calls_them():
    assert sequence_for(events.Key("number_sign", "#")) == "#"
    assert sequence_for(events.Key("A", "A")) == "A"
    # Textual's test driver gives Backspace the character \x08; the terminal sends \x7f.
    assert sequence_for(events.Key("backspace", "\x08")) == "\x7f"


def test_mixed_input_splits_into_keys_typed_text_and_pastes():
    parsed = events_for("hi\x1b[D\x1b\x1b[200~two\nlines\x1b[201~#")
    assert [(e.key, e.character) if isinstance(e, events.Key) else ("paste", e.text) for e in parsed] == [
        ("h", "h"), ("i", "i"), ("left", None), ("escape", "\x1b"), ("paste", "two\nlines"),
        ("number_sign", "#")]
    assert all(e.is_printable for e in parsed[:2])
