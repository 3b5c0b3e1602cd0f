"""SIGTERM and SIGHUP end the app the way quitting does, as Pi's interactive mode ends on them.

Left to the default action, either signal killed pi on the spot: the terminal stayed in the
alternate screen with raw input, mouse reporting and modifyOtherKeys on, runs were not saved
as aborted and extensions never got ``session_shutdown``. Now the first signal asks the app to
exit (its unmount shuts every open session down, Textual restores the terminal) and the exit
status is 0, as Pi's; the conversation is not printed afterwards (the terminal may be gone).
A second signal while that is under way ends the process at once.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def install(app: Any) -> None:
    """Handle the signals on the app's running loop; ``app.ended_by_signal`` names the one taken."""
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        if app.ended_by_signal is not None:
            os._exit(128 + signum)  # asked twice: every session entry on disk is already whole
        app.ended_by_signal = signum
        app.exit(0)

    for signum in SIGNALS:
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such signal here
            pass
