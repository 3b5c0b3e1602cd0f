"""The cyclic garbage collector paused while start-up imports modules, from several threads at once.

Importing the kernel and the HTTP client after the app's first frame allocates a few hundred
thousand objects that live as long as the process and hold no garbage; the collections they
trigger on the way (about 40; 5-7 ms of CPU in the app, measured with ``gc.callbacks``, more on a
busy machine) sit between the first frame and the first request. ``collector_paused`` turns the collector off for such a block and back on when the last
block still running (on any thread) ends, if it was on when the first began; what was loaded is
then frozen out of the collector's reach (``gc.freeze``), as the other start-up paths do.

It composes with the plain ``gc.disable()`` / ``gc.enable()`` pairs of start-up (``cli.main``,
``build_session``): each side turns the collector back on only if it found it on, so it is never
left off. ``enable_collector`` (a mode starting) waits for the blocks still running.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_blocks = 0
_turn_back_on = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection while the block runs (imports of long-lived modules)."""
    global _blocks, _turn_back_on
    with _lock:
        if _blocks == 0:
            _turn_back_on = gc.isenabled()
            gc.disable()
        _blocks += 1
    try:
        yield
    finally:
        with _lock:
            _blocks -= 1
            if _blocks == 0:
                gc.freeze()
                if _turn_back_on:
                    gc.enable()


def enable_collector() -> None:
    """Turn the collector on, with what is loaded so far frozen out of its reach; while a paused
    block still runs (the HTTP client's imports on their own thread), only when the last one ends.

    ``cli_main`` calls it as a mode starts. Turning the collector on under a block still importing
    cost ``pi -p`` some 40 collections (~15 M instructions, 3 ms), of objects about to be frozen.
    """
    global _turn_back_on
    with _lock:
        if _blocks:
            _turn_back_on = True
            return
        if not gc.isenabled():
            gc.freeze()
            gc.enable()

