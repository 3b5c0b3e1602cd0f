"""Incremental Server-Sent Events decoder (the framing every provider here streams in)."""

from __future__ import annotations

import codecs


class SSEDecoder:
    """Feed raw bytes, get back complete ``(event, data)`` pairs.

    Lines end with LF, CRLF or CR; a blank line dispatches the event; several ``data:``
    lines join with LF; comment lines (``:``) and unknown fields are ignored.
    """

    __slots__ = ("_buffer", "_data", "_decoder", "_event", "_pending_cr")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._event: str | None = None
        self._data: list[str] = []
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        text = self._decoder.decode(chunk)
        if not text:
            return []
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]
        if (
            text.startswith("data: ")
            and text.endswith("\n\n")
            and not self._buffer
            and not self._data
            and self._event is None
            and text.count("\n") == 2
            and "\r" not in text
        ):
            # Fast path: one network chunk holding exactly one single-line event, which
            # is how most servers stream tokens.
            self._pending_cr = False
            return [(None, text[6:-2])]
        self._pending_cr = text.endswith("\r")
        buffer = self._buffer + text if self._buffer else text
        if "\r" in buffer:
            buffer = buffer.replace("\r\n", "\n").replace("\r", "\n")
        lines = buffer.split("\n")
        self._buffer = lines.pop()
        out: list[tuple[str | None, str]] = []
        # The common lines (data, blank) are handled inline: this runs once per streamed
        # token, and a method call per line was a visible share of a long stream's CPU.
        data = self._data
        for line in lines:
            if not line:
                if data:
                    out.append((self._event, data[0] if len(data) == 1 else "\n".join(data)))
                    data = self._data = []
                self._event = None
            elif line.startswith("data:"):
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
            else:
                self._line(line, out)
        return out

    def flush(self) -> list[tuple[str | None, str]]:
        """End of stream: dispatch whatever is complete enough to use."""
        out: list[tuple[str | None, str]] = []
        rest = self._buffer + self._decoder.decode(b"", final=True)
        self._buffer = ""
        if rest:
            self._line(rest, out)
        self._line("", out)
        return out

    def _line(self, line: str, out: list[tuple[str | None, str]]) -> None:
        if not line:
            if self._data:
                out.append((self._event, "\n".join(self._data)))
            self._event = None
            self._data = []
            return
        if line[0] == ":":
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
