"""Point an author who types Pi's camelCase name (``ctx.ui.setStatus``) at pi's Python one.

Pi's docs and examples are the first thing a porter reads, so ``registerTool``,
``sessionManager`` and ``setStatus`` are the likeliest typos; a bare ``AttributeError``
leaves the author to guess the spelling.
"""

from __future__ import annotations

import re

_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_case(name: str) -> str:
    """``setStatus`` -> ``set_status``; a name without humps comes back unchanged."""
    return _HUMP.sub(r"_\1", name).lower()


def missing_attribute(obj: object, name: str, where: str) -> AttributeError:
    """The error for ``where.name``, naming the Python spelling when ``obj`` has it.

    A name that is already snake_case is looked up once more so that a property failing inside
    raises its own ``AttributeError``, not a vaguer one from here.

    Args:
        obj: The object that lacks ``name``.
        name: The attribute asked for.
        where: How the author reaches ``obj`` (``ctx.ui``, ``pi``, ``ctx``).
    """
    python_name = snake_case(name)
    if python_name == name:
        object.__getattribute__(obj, name)
    elif hasattr(obj, python_name):
        return AttributeError(
            f"{where} has no attribute {name!r} (Pi's name); in pi it is {where}.{python_name}"
        )
    return AttributeError(f"{type(obj).__name__!r} object has no attribute {name!r}")
