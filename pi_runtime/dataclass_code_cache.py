"""Compiled ``dataclass`` methods kept between runs, so that defining a class compiles nothing.

``dataclasses`` writes the source text of each method it generates (``__init__``, and a frozen
class's ``__setattr__`` and ``__delattr__``) and compiles it: about half a million instructions a
method. A ``pi -p`` run defines some 230 of them (pi's records, the HTTP client's classes), about
120 million instructions (callgrind): an eighth of the run. What compiling gives depends on that
text alone, so :func:`install` keeps the code objects in a file beside pi's bytecode
(``__pycache__``), keyed by the text, and the next run executes them without compiling. The
interactive app keeps its own (Textual's, pi_tui's) in a second file (:func:`use_file`), so a
headless run does not load them.

Only CPython 3.11 is changed: its ``dataclasses._create_fn`` is replaced by :func:`_create_fn`,
which builds the same text the same way and compiles it the same way (without this module's
``__future__`` flags); it differs only in where the code object comes from. On any other
version nothing is replaced (the classes are made as before, only slower).

The file is trusted as a ``.pyc`` in the same folder is. One that does not load (written by
another Python or pi, damaged) is ignored and replaced. It is written at exit when a run compiled
something new, unless bytecode writing is off (``PYTHONDONTWRITEBYTECODE``), as for ``.pyc``
files; ``python -m pi_runtime.dataclass_code_cache`` writes the headless file regardless (a
warm-up, as ``compileall`` is for the bytecode).
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import sys
from types import CodeType
from typing import Any

_MISSING: Any = dataclasses.MISSING
_FORMAT = b"pi-dataclass-methods-2\n"
"""Follows the magic number; a file of another format (an older pi's) is not read."""
_LIMIT = 4000
"""More methods than this in the file: it is written again with only this run's."""

_known: dict[str, CodeType] = {}
"""Every code object loaded, by source text."""
_in_file: dict[str, CodeType] = {}
"""What the file this run writes to held."""
_compiled: dict[str, CodeType] = {}
"""Code compiled in this run (not in the file yet)."""
_used: set[str] = set()
_base: str | None = None
_path: str | None = None


def install() -> None:
    """Serve ``dataclasses``' generated methods from the cache (CPython 3.11 only; once)."""
    global _base, _path
    if _path is not None or sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return
    original = getattr(dataclasses, "_create_fn", None)
    code = getattr(original, "__code__", None)
    if code is None or code.co_varnames[:2] != ("name", "args") or code.co_kwonlyargcount != 3:
        return  # not the function this module mirrors
    from importlib.util import cache_from_source

    try:
        _base = cache_from_source(__file__).removesuffix(".pyc")
    except (NotImplementedError, ValueError):
        return
    _path = _base + ".methods"
    _in_file.update(_load(_path))
    _known.update(_in_file)
    dataclasses._create_fn = _create_fn  # type: ignore[attr-defined]
    import atexit

    atexit.register(_save_if_new)


def use_file(name: str) -> None:
    """From now on, also serve and keep methods from the file of the program ``name``.

    The interactive app defines some 200 methods of its own (Textual's and pi_tui's); kept in
    ``<...>.app.methods`` they do not make every headless run load them too.
    """
    global _path
    if _base is None:
        return
    _path = f"{_base}.{name}.methods"
    _in_file.clear()
    _in_file.update(_load(_path))
    _known.update(_in_file)


def _create_fn(name: str, args: list[str], body: list[str], *, globals: Any = None,
               locals: Any = None, return_type: Any = _MISSING) -> Any:
    """CPython 3.11's ``dataclasses._create_fn`` (its parameter names too), with the compiled text
    taken from the cache."""
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not _MISSING:
        locals["_return_type"] = return_type
        return_annotation = "->_return_type"
    joined_args = ",".join(args)
    joined_body = "\n".join(f"  {b}" for b in body)
    txt = f" def {name}({joined_args}){return_annotation}:\n{joined_body}"
    local_vars = ", ".join(locals.keys())
    txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
    code = _known.get(txt) or _compiled.get(txt)
    if code is None:
        # dont_inherit: compiled as in dataclasses.py, without this module's ``from __future__
        # import annotations`` (which would turn the methods' annotations into strings).
        code = _compiled[txt] = compile(txt, "<string>", "exec", dont_inherit=True)
    _used.add(txt)
    ns: dict[str, Any] = {}
    exec(code, globals, ns)  # what dataclasses does with the same text
    return ns["__create_fn__"](**locals)


def _load(path: str) -> dict[str, CodeType]:
    from importlib.util import MAGIC_NUMBER

    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return {}
    head = MAGIC_NUMBER + _FORMAT
    if data[: len(head)] != head:
        return {}
    try:
        loaded = marshal.loads(data[len(head):])
    except (EOFError, ValueError, TypeError):
        return {}
    if type(loaded) is not dict:
        return {}
    return {k: v for k, v in loaded.items() if type(k) is str and type(v) is CodeType}


def _save_if_new() -> None:
    if _compiled and not sys.dont_write_bytecode:
        save()


def save() -> None:
    """Write the file: what it held plus what this run compiled (only this run's past ``_LIMIT``)."""
    if _path is None or not _compiled:
        return
    from importlib.util import MAGIC_NUMBER

    codes = {**_in_file, **_compiled}
    if len(codes) > _LIMIT:
        codes = {txt: code for txt, code in codes.items() if txt in _used}
    temporary = f"{_path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        with open(temporary, "wb") as fh:
            fh.write(MAGIC_NUMBER + _FORMAT + marshal.dumps(codes))
        os.replace(temporary, _path)  # a reader sees the old file or the new one, whole
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return
    _in_file.update(_compiled)
    _known.update(_compiled)
    _compiled.clear()


_HEADLESS_MODULES = (
    "pi_runtime.cli_main", "pi_runtime.modes.startup", "pi_runtime.sdk", "pi_runtime.tools",
    "pi_runtime.resources.loader", "pi_runtime.extensions.loader", "pi_runtime.auth", "pi_runtime.mcp.command",
    "pi_runtime.compaction.estimate", "pi_runtime.modes.print_mode", "pi_runtime.modes.json_mode",
    "pi_runtime.modes.rpc_mode", "pi_runtime.ai.providers.openai_completions",
    "pi_runtime.ai.providers.openai_responses", "pi_runtime.ai.providers.anthropic_messages",
    "pi_runtime.ai.providers.google_generative",
    # The HTTP client, and what its first request loads.
    "pi_runtime.http._client", "httpcore2", "anyio._backends._asyncio", "anyio.lowlevel", "anyio.streams.memory",
    "anyio.streams.stapled", "anyio.streams.tls", "anyio._core._sockets",
)
"""What a headless run (``pi -p``, ``--mode json|rpc``) imports that defines dataclasses."""


def warm() -> None:
    """Define the classes of a headless run and write the file (``python -m``)."""
    install()
    import importlib

    for name in _HEADLESS_MODULES:
        importlib.import_module(name)
    save()


if __name__ == "__main__":
    # Through the package's module, not this ``__main__`` copy: that one is what records.py installs.
    from pi_runtime import dataclass_code_cache

    dataclass_code_cache.warm()
