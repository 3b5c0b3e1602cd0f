"""A shutdown request shared by the modes: stdin EOF or a signal, and the exit status it implies."""

from __future__ import annotations

import asyncio


class Shutdown:
    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.code = 0

    def request(self, code: int) -> None:
        """Ask for shutdown with exit status ``code``; later requests do not change it."""
        if not self.event.is_set():
            self.code = code
            self.event.set()
