"""pi's full-screen Textual app. Imported only when the interactive mode starts."""

import os

# Textual composes a frame on the first tick of its update timer after a change. At its
# default 60 ticks a second a typed key could wait up to 17 ms for that tick on top of a
# streaming frame in progress; 120 halves the wait. Frames are still only drawn when
# something changed, so an idle app costs nothing more. Textual reads the setting once, when
# its constants load; it is then taken out of the environment again so that the commands
# pi runs for the user do not inherit it.
if "TEXTUAL_FPS" not in os.environ:
    os.environ["TEXTUAL_FPS"] = "120"
    import textual.constants  # noqa: F401

    del os.environ["TEXTUAL_FPS"]
