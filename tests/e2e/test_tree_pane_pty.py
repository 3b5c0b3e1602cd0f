"""The tree pane in the installed ``pi`` on a real terminal: Alt+T opens it, a turn appears in it,
a row previews its path, Alt+T closes it and Ctrl+D quits (Pilot does not go through the
terminal's key decoding)."""

from __future__ import annotations

from test_interactive_pty import Terminal

ALT_T = b"\x1bt"
UP = b"\x1b[A"


def test_alt_t_docks_the_live_tree_and_previews_a_row(env):
    term = Terminal(["--demo"], env)
    try:
        assert term.wait_for("demo-model"), term.screen[-2000:]
        term.type(b"first words\r")
        assert term.wait_for("Youasked:firstwords"), term.screen[-2000:]
        term.type(ALT_T)
        assert term.wait_for("Sessiontree"), term.screen[-2000:]
        assert term.wait_for("user:firstwords"), term.screen[-2000:]
        assert term.wait_for("assistant:##Demoanswer"), term.screen[-2000:]  # the answer joined the tree
        term.type(ALT_T)  # opening left the keys in the editor; Alt+T on the open pane moves in
        assert term.wait_for("Sessiontree·keyshere"), term.screen[-2000:]
        term.type(b"\x1b[108;2u")  # Shift+L as tmux sends it with extended-keys on (csi-u)
        assert term.wait_for("Labelfor"), term.screen[-2000:]
        term.type(b"\x1b")
        term.type(UP)
        assert term.wait_for("PREVIEWofuser:firstwords"), term.screen[-2000:]
        term.type(ALT_T)  # closed: the editor has the keys again
        term.read(0.5)
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()
