"""Extension values that end up in the session file, made into JSON.

A tool's ``details`` is stored with its result. In Pi any object an extension puts there is
serialised by ``JSON.stringify``; in Python a dataclass (pi's own ``TruncationResult``, say),
a pydantic model, a set or a path is not JSON, and writing it failed the whole run. Such values
are converted here, at the extension boundary, the way ``JSON.stringify`` would see them: an
object's ``to_dict()`` or ``model_dump()``, a dataclass's fields, a sequence as a list; anything
else becomes its ``str()`` rather than losing the result.
"""

from __future__ import annotations

import dataclasses
from typing import Any

_PLAIN = (str, int, float, bool, type(None))


def json_value(value: Any, _depth: int = 0) -> Any:
    """``value`` with everything that is not JSON replaced by its JSON form (see the module)."""
    if isinstance(value, _PLAIN):
        return value
    if _depth > 200:  # a cycle, or nesting no reader wants
        return str(value)
    deeper = _depth + 1
    if isinstance(value, dict):
        return {str(key): json_value(item, deeper) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_value(item, deeper) for item in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return json_value(to_dict(), deeper)
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        return json_value(model_dump(mode="json", by_alias=True), deeper)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_value(getattr(value, f.name), deeper) for f in dataclasses.fields(value)}
    return str(value)
