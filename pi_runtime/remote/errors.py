"""What a failed command of ``pi serve`` raises on the client: the kernel's own error type when the
server names one it knows (``errorType``), so code written against a local session catches the
same exceptions; otherwise :class:`RemoteError`."""

from __future__ import annotations

from typing import Any


class RemoteError(Exception):
    """A command the server answered with ``success: false``.

    Attributes:
        command: The command's name.
        error_type: The server's name for the error (``errorType``), when it gave one.
    """

    def __init__(self, command: str, message: str, error_type: str | None = None) -> None:
        super().__init__(message)
        self.command = command
        self.error_type = error_type


class ConnectionLost(RemoteError):
    """The connection to the server closed before the answer came."""

    def __init__(self, command: str, message: str = "the connection to pi serve was lost") -> None:
        super().__init__(command, message)


def error_from_response(record: dict[str, Any]) -> Exception:
    """The exception a failed ``response`` stands for."""
    command = str(record.get("command", ""))
    message = str(record.get("error") or "command failed")
    kind = record.get("errorType")
    if kind == "PromptError":
        from ..kernel.errors import PromptError

        return PromptError(message)
    if kind == "SessionBusyError":
        from ..kernel.errors import SessionBusyError

        return SessionBusyError(message)
    if kind == "CompactionError":
        from ..kernel.errors import CompactionError

        return CompactionError(message)
    if kind == "QueueEditError" or command in ("edit_queued", "remove_queued", "move_queued"):
        return _queue_error(record, message)
    return RemoteError(command, message, kind if isinstance(kind, str) else None)


def _queue_error(record: dict[str, Any], message: str) -> Exception:
    from ..kernel.message_queue import QueueEditError

    message_id = str(record.get("messageId") or "")
    for fate, words in (("sent", "was already sent"), ("removed", "was removed from the queue"),
                        ("unknown", "is not a queued message")):
        if words in message:
            if not message_id and message.startswith("Queued message "):
                message_id = message[len("Queued message "):].split(" ", 1)[0]
            return QueueEditError(message_id, fate)  # type: ignore[arg-type]  # one of the three fates
    return RemoteError(str(record.get("command", "")), message, "QueueEditError")
