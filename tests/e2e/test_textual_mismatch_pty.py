"""The installed ``pi`` on a terminal, with a Textual that lacks a part pi relies on.

Textual 8.2.6 had no ``XTermParser._parse_extended_key`` (it came in 8.2.7), and pi ended with a
raw traceback from deep in its start-up; a user who had 8.2.6 got that, since pip saw
``textual>=5.0`` met. Now pi says in one line which part is missing and how to get the tested
Textual. The older Textual is played by a ``sitecustomize`` that removes the part.
"""

from __future__ import annotations

from test_interactive_pty import Terminal


def test_pi_says_in_one_line_which_part_of_textual_is_missing(env, tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text("import textual._xterm_parser as p\ndel p.XTermParser._parse_extended_key\n")
    term = Terminal([], {**env, "PYTHONPATH": str(shim)})
    try:
        assert term.exit_status(timeout=60) == 1, term.screen
        lines = [line for line in term.screen.replace("\r", "").splitlines() if line.strip()]
        assert lines[-1].startswith("pi: interactive mode cannot start: Textual "), term.screen
        assert "missing or changed: textual._xterm_parser.XTermParser._parse_extended_key" in lines[-1]
        assert "pip install 'textual==8.2.8'" in lines[-1]
        assert "Traceback" not in term.screen
    finally:
        term.close()
