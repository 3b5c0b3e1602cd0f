"""Incremental Server-Sent Events decoder (the framing every provider here streams in)."""

from __future__ import annotations

import codecs

DEFAULT_MAX_EVENT_SIZE = 64 * 1024 * 1024
"""Characters one event may hold (its data, its name and any unfinished line).

Generous on purpose: a model may send an image or a very large tool argument in one event,
and a base64 image of tens of megabytes must still pass. The cap is there so that a server
that never ends its event cannot grow the process without bound."""


class SSEEventTooLarge(ValueError):
    """One event (or one line of it) grew past the decoder's size cap."""


class SSEDecoder:
    """Feed raw bytes, get back complete ``(event, data)`` pairs.

    Lines end with LF, CRLF or CR (a CR at the end of one chunk and an LF at the start of
    the next are one line end); a blank line dispatches the event; several ``data:`` lines
    join with LF; comment lines (``:``) and unknown fields are ignored; a UTF-8 byte order
    mark at the start of the stream is dropped. Work is linear in the bytes fed, however
    the stream is cut: an unfinished line is kept as a list of pieces and joined once.
    ``feed`` raises :class:`SSEEventTooLarge` when one event exceeds ``max_event_size``
    characters.
    """

    __slots__ = (
        "_at_start", "_data", "_decoder", "_event", "_fix_start", "_max", "_partial", "_partial_size",
        "_pending_cr", "_size",
    )

    def __init__(self, max_event_size: int | None = None) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        # Read at construction (not bound at import) so a test can lower the module default.
        self._max = DEFAULT_MAX_EVENT_SIZE if max_event_size is None else max_event_size
        self._at_start = True
        self._partial: list[str] = []
        """Pieces of the line not ended yet, in order."""
        self._partial_size = 0
        self._event: str | None = None
        self._data: list[str] = []
        self._size = 0
        """Characters held by the event being built (data lines and name)."""
        self._pending_cr = False
        self._fix_start = True
        """The next text needs :meth:`_fixed_start` (first text, or a CR pending)."""

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        text = self._decoder.decode(chunk)
        if not text:
            return []
        if self._fix_start:
            # Rare: the stream's first text (a BOM to drop) or a CR that ended the last chunk.
            text = self._fixed_start(text)
            if not text:
                return []
        if (
            text.startswith("data: ")
            and text.endswith("\n\n")
            and not self._partial
            and not self._data
            and self._event is None
            and text.count("\n") == 2
            and "\r" not in text
        ):
            # Fast path: one network chunk holding exactly one single-line event, which
            # is how most servers stream tokens.
            if len(text) - 8 > self._max:
                self._too_large()
            return [(None, text[6:-2])]
        self._pending_cr = self._fix_start = text[-1] == "\r"
        if "\r" in text:
            # Only the new text is rewritten; a CRLF cut between chunks was handled above.
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        rest = lines.pop()
        out: list[tuple[str | None, str]] = []
        if lines and self._partial:
            self._partial.append(lines[0])
            lines[0] = "".join(self._partial)
            self._partial = []
            self._partial_size = 0
        # The common lines (data, blank) are handled inline: this runs once per streamed
        # token, and a method call per line was a visible share of a long stream's CPU.
        data = self._data
        for line in lines:
            if not line:
                if data:
                    out.append((self._event, data[0] if len(data) == 1 else "\n".join(data)))
                    data = self._data = []
                self._event = None
                self._size = 0
            elif line.startswith("data:"):
                value = line[6:] if line.startswith(" ", 5) else line[5:]
                self._size += len(value) + 1
                if self._size > self._max:
                    self._too_large()
                data.append(value)
            else:
                self._line(line, out)
                data = self._data
        if rest:
            self._partial.append(rest)
            self._partial_size += len(rest)
            if self._size + self._partial_size > self._max:
                self._too_large()
        return out

    def _fixed_start(self, text: str) -> str:
        if self._at_start:
            self._at_start = False
            if text[0] == "\ufeff":
                text = text[1:]
        if self._pending_cr and text[:1] == "\n":
            text = text[1:]
        self._pending_cr = self._fix_start = False
        return text

    def flush(self) -> list[tuple[str | None, str]]:
        """End of stream: dispatch whatever is complete enough to use."""
        out: list[tuple[str | None, str]] = []
        tail = self._decoder.decode(b"", final=True)
        if self._at_start and tail.startswith("\ufeff"):
            tail = tail[1:]
        rest = "".join(self._partial) + tail
        self._partial = []
        self._partial_size = 0
        if rest:
            self._line(rest, out)
        self._line("", out)
        return out

    def _too_large(self) -> None:
        # Drop what was held so the memory goes back at once; the stream cannot go on.
        self._data = []
        self._partial = []
        self._size = self._partial_size = 0
        raise SSEEventTooLarge(
            f"The server sent one stream event larger than {self._max:,} characters; the response was abandoned"
        )

    def _line(self, line: str, out: list[tuple[str | None, str]]) -> None:
        if not line:
            if self._data:
                out.append((self._event, "\n".join(self._data)))
            self._event = None
            self._data = []
            self._size = 0
            return
        if line[0] == ":":
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._size += len(value) + 1
            if self._size > self._max:
                self._too_large()
            self._data.append(value)
        elif name == "event":
            self._size += len(value) - len(self._event or "")
            if self._size > self._max:
                self._too_large()
            self._event = value
