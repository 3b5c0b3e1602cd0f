"""Keys typed right after a slash command is sent wait for what the command opens.

``/model``, Enter, ``sma``, Enter typed in one go: the picker is pushed by a worker, after the
editor has already taken ``sma`` and Enter, so pi sent "sma" to the model as a prompt and left
the picker open. Pi gives the keys to the picker. From the moment the editor sends a slash
command, the keys that follow (those the editor has been handed and those the app has not yet
forwarded) are kept, in order, and posted again once the command has shown its screen or has
finished; whatever is focused then (the picker's filter, or the editor) takes them.
"""

from __future__ import annotations

from typing import Any

from textual import events

HOLD_LIMIT = 1.0
"""Seconds at most that keys are kept (a command that neither ends nor opens a screen)."""


class KeyHold:
    """Keys kept between a slash command's Enter and its screen (or its end)."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._keys: list[events.Key] | None = None
        self._timer: Any = None

    def start(self) -> None:
        if self._keys is None:
            self._keys = []
            self._timer = self._app.set_timer(HOLD_LIMIT, self.release)

    @property
    def holding(self) -> bool:
        """Keys are being kept (a slash command's screen is on its way)."""
        return self._keys is not None

    def keep(self, event: events.Event) -> bool:
        """Keep ``event`` if keys are held (True: the caller drops it)."""
        if self._keys is None or not isinstance(event, events.Key):
            return False
        self._keys.append(event)
        return True

    def release_after_refresh(self) -> None:
        """Give the keys back once the screen has been drawn (a pushed screen has its focus)."""
        if self._keys is not None:
            self._app.call_after_refresh(self.release)

    def release(self) -> None:
        keys, self._keys = self._keys, None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        for key in keys or ():
            self._app.post_message(events.Key(key.key, key.character))
