"""pi's full-screen Textual app. Imported only when the interactive mode starts."""

import os

# Two of Textual's settings are read once, from the environment, when its constants load:
#
# - TEXTUAL_FPS. Textual composes a frame on the first tick of its update timer after a
#   change. At its default 60 ticks a second a typed key could wait up to 17 ms for that tick
#   on top of a streaming frame in progress; 120 halves the wait. Frames are still only drawn
#   when something changed, so an idle app costs nothing more.
# - ESCDELAY. How long a lone ESC waits for more bytes before it counts as the Esc key:
#   Textual's 100 ms turned Esc followed quickly by a letter (stop the run, type the next
#   message) into Alt+letter, and the run went on. Pi waits 10 ms; a terminal sends an Alt
#   key's bytes in one write. A user's own ESCDELAY is kept.
#
# They are taken out of the environment again so that the commands pi runs for the user do
# not inherit them.
_SETTINGS = {"TEXTUAL_FPS": "120", "ESCDELAY": "10"}
_added = [name for name in _SETTINGS if name not in os.environ]
if _added:
    os.environ.update({name: _SETTINGS[name] for name in _added})
    import textual.constants  # noqa: F401

    for _name in _added:
        del os.environ[_name]

# Before any other part of pi_tui loads: a Textual without the private parts pi uses stops pi here with
# one line naming the part (terminal/textual_internals.py), not with a traceback from deep in the app.
from .terminal.textual_internals import check as _check_textual  # noqa: E402

_check_textual()
