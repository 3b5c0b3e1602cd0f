"""Resolving configured credential values: literal, ``$NAME`` / ``${NAME}``, or ``!command``.

Used for ``apiKey`` and header values in models.json and for ``key`` in auth.json. The
syntax is Pi's: ``$NAME`` and ``${NAME}`` interpolate environment variables, ``$$`` and
``$!`` give a literal ``$`` and ``!``, a leading ``!`` runs the rest as a shell command and
uses its standard output. A value that is exactly the name of a set environment variable
(``"OPENAI_API_KEY"``) also resolves to it, as older Pi versions documented.

A command runs once per process: its output — or its failure (non-zero exit, empty output,
timeout) — is cached, so a broken secret manager is not re-run on every request (as Pi's
auth.json docs describe). ``clear_command_cache()`` forgets the results, e.g. on reload.
A command ends when its shell exits: a background job it started may keep the output pipe
open, and is left running without being waited for. ``DEFAULT_COMMAND_TIMEOUT`` is Pi's.

Messages never include a resolved value, a command's output or its standard error (which a
failing secret manager may fill with the very secret), nor a command's arguments (``!echo
sk-…``, ``!curl -u user:pass …``): only the program's name, since a failure message is kept
in the session file; every resolved value, each
environment variable it used and each command's output are remembered as secrets, so error
texts built from server responses blank them (``redaction.py``).

Also here: the small types the registry and auth storage share (``CredentialSource``,
``RequestAuth``, ``NoCredentialsError``) and ``is_local_url`` for keyless local servers.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import field
from typing import Protocol
from urllib.parse import urlsplit

from ..records import record
from . import redaction

DEFAULT_COMMAND_TIMEOUT = 10.0
"""Seconds a ``!command`` may run (Pi stops it at 10 s as well)."""
_MAX_OUTPUT = 1 << 20
_DRAIN_SECONDS = 0.1
_BARE_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|([$!]))")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


class CredentialError(Exception):
    """A configured credential could not be resolved (the message never holds the secret)."""


class CredentialSource(Protocol):
    """Stored credentials (``pi_runtime.auth.AuthStorage`` implements this)."""

    def get_api_key(self, provider: str) -> str | None:
        """The stored key for ``provider`` (resolved), or None. May raise CredentialError."""

    def has_api_key(self, provider: str) -> bool:
        """Whether a key is stored for ``provider``, without running any command."""


class NoCredentialsError(CredentialError):
    """A model's provider has no usable key from any source."""


@record
class RequestAuth:
    """What a request needs to authenticate. Never printed with its secrets."""

    api_key: str | None = field(repr=False)
    headers: dict[str, str | None] = field(default_factory=dict, repr=False)
    """Headers to send; a None value removes a header the wire API would send (Pi's ``null``)."""
    source: str | None = None
    """Where the key came from: runtime, auth.json, models.json, env:<NAME>, local or None."""
    base_url: str | None = None
    """An endpoint the credential itself names (GitHub Copilot's account endpoint), used instead of
    the model's ``base_url``; None for every other credential."""


def is_local_url(url: str) -> bool:
    """Whether ``url`` points at this machine (keyless local servers such as Ollama).

    Args:
        url: A base URL.

    Returns:
        True for localhost, 127.x.x.x, ::1 and 0.0.0.0 hosts.
    """
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in _LOCAL_HOSTS or host.startswith("127.") or host.endswith(".localhost")


_cache: dict[str, tuple[str | None, str | None]] = {}
_cache_lock = threading.Lock()


def clear_command_cache() -> None:
    """Forget every cached command result, so the next use runs the command again."""
    with _cache_lock:
        _cache.clear()


def is_command(raw: str) -> bool:
    """Whether ``raw`` is a ``!command`` value."""
    return raw.startswith("!")


def referenced_env_names(raw: str) -> list[str]:
    """Environment variables a value refers to (``$NAME``, ``${NAME}``, or a bare name)."""
    if is_command(raw):
        return []
    names = [m.group(1) or m.group(2) for m in _REFERENCE.finditer(raw) if not m.group(3)]
    if not names and _BARE_ENV_NAME.fullmatch(raw):
        names = [raw]
    return names


def is_resolvable_without_running(raw: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether a value would resolve, without running a command (a command counts as yes).

    Args:
        raw: The configured value.
        env: Environment to consult; ``os.environ`` when None.

    Returns:
        False only when it refers to environment variables that are unset or empty.
    """
    if is_command(raw):
        return True
    env = os.environ if env is None else env
    if _BARE_ENV_NAME.fullmatch(raw) and "$" not in raw:
        return True  # a literal or a set variable: either way there is a value
    return all(env.get(name) for name in referenced_env_names(raw))


def interpolate(raw: str, env: Mapping[str, str] | None = None) -> str | None:
    """Expand ``$NAME``, ``${NAME}``, ``$$`` and ``$!`` in ``raw``.

    Args:
        raw: The configured value (not a command).
        env: Environment to consult; ``os.environ`` when None.

    Returns:
        The expanded text, or None when a referenced variable is unset or empty.
    """
    env = os.environ if env is None else env
    missing = False

    def sub(match: re.Match[str]) -> str:
        nonlocal missing
        if match.group(3):
            return match.group(3)
        value = env.get(match.group(1) or match.group(2) or "")
        if not value:
            missing = True
            return ""
        return value

    out = _REFERENCE.sub(sub, raw)
    return None if missing else out


def resolve_value(
    raw: str,
    *,
    where: str = "value",
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_COMMAND_TIMEOUT,
) -> str | None:
    """Resolve one configured credential value.

    Args:
        raw: Literal, ``$NAME`` / ``${NAME}`` text, a bare env var name, or ``!command``.
        where: What the value is (``models.json providers.x.apiKey``), for messages.
        env: Environment to consult; ``os.environ`` when None.
        timeout: Seconds a command may run.

    Returns:
        The value, or None when it refers to an unset environment variable.

    Raises:
        CredentialError: The command failed, timed out or printed nothing.
    """
    value: str | None
    if is_command(raw):
        value = run_command(raw[1:].strip(), where=where, timeout=timeout)
        redaction.remember(value)
        return value
    env = os.environ if env is None else env
    if _BARE_ENV_NAME.fullmatch(raw) and env.get(raw):
        value = env[raw]
    else:
        value = interpolate(raw, env)
        if value is not None:
            redaction.remember(*(env.get(name) for name in referenced_env_names(raw)))
    redaction.remember(value)
    return value


def run_command(command: str, *, where: str = "value", timeout: float = DEFAULT_COMMAND_TIMEOUT) -> str:
    """Run a credential command once per process and return its trimmed standard output.

    Args:
        command: Shell command line.
        where: What the value is, for messages.
        timeout: Seconds before the command (and its whole process group) is killed.

    Returns:
        The command's output without surrounding whitespace.

    Raises:
        CredentialError: Non-zero exit, empty output or timeout (also on later calls).
    """
    with _cache_lock:
        cached = _cache.get(command)
    if cached is None:
        cached = _run(command, timeout)
        with _cache_lock:
            cached = _cache.setdefault(command, cached)
    value, problem = cached
    if problem is not None:
        raise CredentialError(f"{where}: command `{_shown(command)}` {problem}")
    assert value is not None
    return value


def _shown(command: str) -> str:
    """The program a command runs, without its arguments (which may hold the secret itself)."""
    words = command.split(None, 1)
    program = words[0] if words else ""
    if not _PLAIN_PROGRAM.fullmatch(program):
        return "…"  # an assignment (TOKEN=… cmd), a substitution, or quoting: nothing safe to show
    name = os.path.basename(program)
    return f"{name} …" if len(words) > 1 else name


_PLAIN_PROGRAM = re.compile(r"[A-Za-z0-9_./+-]{1,64}")


def _run(command: str, timeout: float) -> tuple[str | None, str | None]:
    """Run ``command``; ``(output, None)`` or ``(None, problem)``. Returns within ``timeout``."""
    try:
        # Own session so a timeout can kill the shell and everything it started. Standard
        # error is not kept: it is never shown (see the module docstring).
        proc = subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        return None, f"could not start: {exc.strerror or exc}"
    assert proc.stdout is not None
    try:
        output, finished = _read_until_exit(proc, timeout)
    finally:
        proc.stdout.close()
    if not finished:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        return None, f"timed out after {timeout:g}s"
    if proc.returncode != 0:
        return None, f"failed with exit status {proc.returncode}"
    value = output.decode("utf-8", "replace").strip()
    if not value:
        return None, "printed nothing"
    return value, None


def _read_until_exit(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bool]:
    """Read the shell's output until it exits (or ``timeout``); ``(output, exited)``.

    Reading to end-of-file instead would wait for every process that inherited the pipe, so
    ``sleep 60 & echo key`` would hang for a minute (or for ever with ``setsid``).
    """
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    deadline = time.monotonic() + timeout
    drain_until: float | None = None
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        open_pipe = True
        while True:
            exited = proc.poll() is not None
            if exited and drain_until is None:
                drain_until = time.monotonic() + _DRAIN_SECONDS
            if open_pipe and (drain_until is None or time.monotonic() < drain_until):
                # After the exit only what is already in the pipe is taken (no waiting), and
                # a background job that keeps writing cannot hold the loop past the drain.
                wait = 0 if exited else min(0.05, max(0.0, deadline - time.monotonic()))
                if selector.select(wait):
                    data = _read_some(fd)
                    if data is None:
                        continue
                    if not data:
                        open_pipe = False
                        selector.unregister(fd)
                    elif size < _MAX_OUTPUT:
                        chunks.append(data)
                        size += len(data)
                    continue
            if exited:
                return b"".join(chunks), True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return b"".join(chunks), False
            if not open_pipe:
                try:
                    proc.wait(remaining)
                except subprocess.TimeoutExpired:
                    return b"".join(chunks), False


def _read_some(fd: int) -> bytes | None:
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None
