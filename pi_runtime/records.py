"""``@record``: a dataclass that costs less to define.

pi declares about 170 dataclasses, and ``pi -p`` imports most of them before it can answer.
On Python 3.11 the standard decorator compiles every generated method from source (``__init__``,
``__repr__``, ``__eq__``, and ``__setattr__``, ``__delattr__`` and ``__hash__`` when frozen), about
0.1 ms each: some 40 ms of a 0.23 s start-up. ``record`` lets ``dataclasses`` generate only
``__init__`` (and, when frozen, the two attribute guards) and gives the class ``__repr__``,
``__eq__`` and ``__hash__`` written once here. The result is a real dataclass (``fields``,
``replace``, ``asdict`` work) that behaves like ``@dataclass``: the same repr, equality between
instances of the same class only, unhashable unless frozen, a method the class defines itself wins.
Measured with ``valgrind --tool=callgrind`` on ``pi -p``: about 11 % fewer instructions.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T", bound=type)


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    names = type(self).__record_repr__
    return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in names)})"


def _eq(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = type(self).__record_compare__
    return tuple(getattr(self, name) for name in names) == tuple(getattr(other, name) for name in names)


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, name) for name in type(self).__record_hash__))


class _SignatureDoc:
    """The ``__doc__`` ``dataclass`` gives a class without a docstring (``Name(a: int, b: str = 'x')``),
    worked out when it is read instead of when the class is made."""

    def __get__(self, instance: Any, owner: type | None = None) -> str:
        import inspect

        cls = owner if owner is not None else type(instance)
        try:
            text = str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            text = ""
        return cls.__name__ + text


def _finish(cls: _T, frozen: bool) -> _T:
    fields = dataclasses.fields(cls)
    own = cls.__dict__
    cls.__record_repr__ = tuple(f.name for f in fields if f.repr)  # type: ignore[attr-defined]
    cls.__record_compare__ = tuple(f.name for f in fields if f.compare)  # type: ignore[attr-defined]
    cls.__record_hash__ = tuple(  # type: ignore[attr-defined]
        f.name for f in fields if (f.compare if f.hash is None else f.hash))
    if "__repr__" not in own:
        cls.__repr__ = _repr  # type: ignore[assignment]
    if "__eq__" not in own:
        cls.__eq__ = _eq  # type: ignore[assignment]
        if "__hash__" not in own or own["__hash__"] is None:
            # What @dataclass does: equal-by-value objects are hashable only when frozen.
            cls.__hash__ = _hash if frozen else None  # type: ignore[assignment]
    return cls


@overload
def record(cls: _T, /) -> _T: ...
@overload
def record(*, frozen: bool = False, slots: bool = False, kw_only: bool = False) -> Callable[[_T], _T]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: _T | None = None, /, *, frozen: bool = False, slots: bool = False,
           kw_only: bool = False) -> _T | Callable[[_T], _T]:
    """``@dataclass`` with the same meaning for ``frozen``, ``slots`` and ``kw_only``."""

    def wrap(target: _T) -> _T:
        undocumented = target.__dict__.get("__doc__") is None
        if undocumented:
            # ``dataclass`` documents such a class with its signature, and ``inspect.signature``
            # costs more than the rest of the class (a quarter of pi's records have no
            # docstring): the same text is given when someone reads it.
            target.__doc__ = "(signature)"
        made: _T = dataclasses.dataclass(  # type: ignore[assignment]
            target, frozen=frozen, slots=slots, kw_only=kw_only, repr=False, eq=False)
        if undocumented:
            made.__doc__ = _SignatureDoc()  # type: ignore[assignment]
        return _finish(made, frozen)

    return wrap if cls is None else wrap(cls)
