"""Field declarations, model configuration and the validation error of ``JsonModel``."""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable
from typing import Any

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""No default: the field is required."""


class FieldInfo:
    """What one ``name: type = Field(...)`` declaration says, resolved when the class is first used."""

    __slots__ = (
        "alias",
        "annotation",
        "constraints",
        "default",
        "default_factory",
        "description",
        "dump",
        "name",
        "validate",
    )

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
        description: str | None = None,
        constraints: dict[str, Any] | None = None,
    ) -> None:
        self.name = ""
        self.alias = alias
        self.default = default
        self.default_factory = default_factory
        self.description = description
        self.constraints = constraints or {}
        self.annotation: Any = None
        self.validate: Callable[[Any], Any] | None = None
        self.dump: Callable[..., Any] | None = None

    def is_required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    def __repr__(self) -> str:
        return f"FieldInfo(name={self.name!r}, alias={self.alias!r}, required={self.is_required()})"


def Field(
    default: Any = MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    alias: str | None = None,
    description: str | None = None,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    min_length: int | None = None,
) -> Any:
    """A field's default, wire name, description and constraints.

    Used as a class attribute value (``x: int = Field(0, ge=0)``) or as ``Annotated`` metadata
    on a type (``Annotated[int, Field(ge=0)]``).
    """
    bounds = {"ge": ge, "gt": gt, "le": le, "lt": lt, "min_length": min_length}
    return FieldInfo(
        default, default_factory, alias, description,
        {k: v for k, v in bounds.items() if v is not None},
    )


def ConfigDict(
    *,
    alias_generator: Callable[[str], str] | None = None,
    extra: str = "ignore",
    strict: bool = False,
    populate_by_name: bool = True,
    **_ignored: Any,
) -> dict[str, Any]:
    """A model's configuration: wire names, what unknown keys do, strict types.

    ``extra`` is ``allow`` (kept and written back), ``ignore`` (dropped) or ``forbid`` (an
    error). ``strict`` refuses conversions (``"3"`` for an int, ``1`` for a bool). Names are
    always accepted beside their aliases. Other keys (pydantic's) are accepted and ignored.
    """
    return {"alias_generator": alias_generator, "extra": extra, "strict": strict}


_CAMEL = re.compile(r"_([a-z0-9])")


def to_camel(name: str) -> str:
    """``cache_read`` → ``cacheRead`` (the first letter stays lower case)."""
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


class Fail(Exception):
    """Raised inside validators; carries ``(loc, msg, type, input)`` tuples, loc innermost last."""

    def __init__(self, errors: list[tuple[tuple[Any, ...], str, str, Any]]) -> None:
        super().__init__()
        self.items = errors


def fail(msg: str, kind: str, value: Any) -> Fail:
    return Fail([((), msg, kind, value)])


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 3, 60, 60, 60


class ValidationError(ValueError):
    """Input that does not match a model. ``errors()`` lists each problem as pydantic does:
    ``{"type", "loc", "msg", "input"}``, ``loc`` being the path of keys and list indexes."""

    def __init__(self, title: str, items: list[tuple[tuple[Any, ...], str, str, Any]]) -> None:
        self.title = title
        self._items = items
        super().__init__(str(self))

    def errors(self, *, include_url: bool = False, include_input: bool = True) -> list[dict[str, Any]]:
        out = []
        for loc, msg, kind, value in self._items:
            item: dict[str, Any] = {"type": kind, "loc": loc, "msg": msg}
            if include_input:
                item["input"] = value
            out.append(item)
        return out

    def error_count(self) -> int:
        return len(self._items)

    def __str__(self) -> str:
        count = len(self._items)
        lines = [f"{count} validation error{'s' if count != 1 else ''} for {self.title}"]
        for loc, msg, kind, value in self._items:
            lines.append(".".join(str(p) for p in loc) or "(root)")
            shown = _SHORT.repr(value)  # bounded: an input may be huge or nested thousands deep
            if len(shown) > 60:
                shown = shown[:57] + "..."
            lines.append(f"  {msg} [type={kind}, input_value={shown}, input_type={type(value).__name__}]")
        return "\n".join(lines)
