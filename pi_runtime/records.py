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
import threading
import typing
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
        _complete(cls)  # the signature is the generated ``__init__``'s
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


class _FieldsOnFirstRead:
    """Stands in for ``__dataclass_fields__`` until the class is completed: ``dataclasses.fields``,
    ``replace``, ``asdict``, ``is_dataclass`` and msgspec all read it first, so reading it completes
    the class (and any record it inherits from) and answers with the real mapping."""

    def __get__(self, instance: object, owner: type | None = None) -> object:
        cls = owner if owner is not None else type(instance)
        _complete(cls)
        return cls.__dataclass_fields__  # type: ignore[attr-defined]


def _init_on_first_call(self: object, *args: object, **kwargs: object) -> None:
    """Stands in for the generated ``__init__`` until the first instance is made."""
    cls = type(self)
    _complete(cls)
    init = cls.__init__
    if init is _init_on_first_call:  # pragma: no cover - only if completing failed to replace it
        raise TypeError(f"record {cls.__qualname__} could not be completed")
    init(self, *args, **kwargs)


# Records declared but not yet completed: class -> (frozen, kw_only, defaults). ``defaults`` is None
# for a record without slots; for a slotted one it holds the class-level defaults (values or
# ``field(...)``) that had to leave the class for its slots. Completing runs ``dataclasses.dataclass``
# on the class in place; the lock keeps two threads from doing it twice.
_pending: dict[type, tuple[bool, bool, dict[str, object] | None]] = {}
_pending_lock = threading.RLock()


def _complete(cls: type) -> None:
    """Complete ``cls`` and every pending record it inherits from, bases first."""
    with _pending_lock:
        for klass in reversed(cls.__mro__):
            options = _pending.pop(klass, None)
            if options is None:
                continue
            frozen, kw_only, defaults = options
            # ``dataclass`` keeps an ``__init__`` the class itself defines, so the stand-ins go first.
            del klass.__init__  # type: ignore[misc]
            del klass.__dataclass_fields__  # type: ignore[attr-defined]
            if defaults is None:
                _build(klass, frozen=frozen, slots=False, kw_only=kw_only)
                continue
            # ``dataclass`` reads a field's default from the class attribute, which on a slotted
            # class is the slot itself (or a base's, for a field redeclared): the defaults stand there
            # while it looks, then the slots return.
            slots_by_name = {name: klass.__dict__.get(name) for name in defaults}
            try:
                for name, default in defaults.items():
                    setattr(klass, name, default)
                _build(klass, frozen=frozen, slots=False, kw_only=kw_only)
            finally:
                for name, slot in slots_by_name.items():
                    if slot is not None:
                        setattr(klass, name, slot)
                    elif name in klass.__dict__:
                        delattr(klass, name)
            if frozen and "__getstate__" not in klass.__dict__:
                # What ``dataclass(slots=True)`` adds to a frozen class: copy and pickle restore
                # its fields past the frozen ``__setattr__``.
                setattr(klass, "__getstate__", _frozen_getstate)  # noqa: B010 - mypy will not let a method be assigned
                setattr(klass, "__setstate__", _frozen_setstate)  # noqa: B010


def _frozen_getstate(self: object) -> list[object]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]


def _frozen_setstate(self: object, state: list[object]) -> None:
    for f, value in zip(dataclasses.fields(self), state):  # type: ignore[arg-type]
        object.__setattr__(self, f.name, value)


def complete_all() -> int:
    """Complete every record declared so far (a test does, to find a faulty declaration at once).
    Returns how many were pending."""
    with _pending_lock:
        waiting = list(_pending)
    for cls in waiting:
        _complete(cls)
    return len(waiting)


def _build(target: _T, *, frozen: bool, slots: bool, kw_only: bool) -> _T:
    doc = target.__dict__.get("__doc__")
    undocumented = doc is None or isinstance(doc, _SignatureDoc)
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


_NOT_SLOTS = ("__dict__", "__weakref__")


def _slotted(target: _T) -> tuple[_T, dict[str, object]] | None:
    """``target`` remade with a slot per field of its own, as ``dataclass(slots=True)`` remakes it,
    and the defaults taken out of it for the slots; None when it declares something beyond plain
    fields and class variables (an ``InitVar``, ``KW_ONLY``, its own ``__slots__``) or inherits
    from a class that is not slotted (``dataclass`` then gives it slots for inherited fields too)."""
    own = target.__dict__
    if "__slots__" in own or any("__slots__" not in base.__dict__ for base in target.__mro__[1:-1]):
        return None
    names = []
    for name, annotation in own.get("__annotations__", {}).items():
        kind = _annotation_kind(annotation)
        if kind is None:
            return None
        if kind == "field":
            names.append(name)
    inherited: set[str] = set()
    for base in target.__mro__[1:-1]:
        slots = base.__dict__["__slots__"]
        inherited.update((slots,) if isinstance(slots, str) else slots)
    namespace = {key: value for key, value in own.items() if key not in names and key not in _NOT_SLOTS}
    namespace["__slots__"] = tuple(name for name in names if name not in inherited)
    remade = type(target)(target.__name__, target.__bases__, namespace)
    remade.__qualname__ = target.__qualname__
    return remade, {name: own[name] for name in names if name in own}


def _annotation_kind(annotation: object) -> str | None:
    """"field", "classvar", or None for what ``_slotted`` leaves to ``dataclass``. A string
    annotation is read by its leading name, as ``dataclass`` reads it."""
    if isinstance(annotation, str):
        head = annotation.split("[", 1)[0].strip().rsplit(".", 1)[-1]
        return "classvar" if head == "ClassVar" else None if head in ("InitVar", "KW_ONLY") else "field"
    if annotation is typing.ClassVar or typing.get_origin(annotation) is typing.ClassVar:
        return "classvar"
    if annotation is dataclasses.KW_ONLY or isinstance(annotation, dataclasses.InitVar) \
            or annotation is dataclasses.InitVar:
        return None
    return "field"


@overload
def record(cls: _T, /) -> _T: ...
@overload
def record(*, frozen: bool = False, slots: bool = False, kw_only: bool = False) -> Callable[[_T], _T]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: _T | None = None, /, *, frozen: bool = False, slots: bool = False,
           kw_only: bool = False) -> _T | Callable[[_T], _T]:
    """``@dataclass`` with the same meaning for ``frozen``, ``slots`` and ``kw_only``.

    A record is completed (its ``__init__`` generated, its fields collected) when its first
    instance is made or its fields are first read, not when it is declared: ``pi -p`` declares
    about 150 records and makes instances of fewer than half. A slotted record gets its slots at
    once (they need a new class, made here as ``dataclass`` would make it) and the rest later."""

    def wrap(target: _T) -> _T:
        if "__init__" in target.__dict__:
            return _build(target, frozen=frozen, slots=slots, kw_only=kw_only)
        defaults: dict[str, object] | None = None
        if slots:
            slotted = _slotted(target)
            if slotted is None:  # something only ``dataclass`` itself handles: done at once
                return _build(target, frozen=frozen, slots=True, kw_only=kw_only)
            target, defaults = slotted
        target.__init__ = _init_on_first_call  # type: ignore[misc]
        target.__dataclass_fields__ = _FieldsOnFirstRead()  # type: ignore[attr-defined]
        if target.__dict__.get("__doc__") is None:
            target.__doc__ = _SignatureDoc()  # type: ignore[assignment]
        with _pending_lock:
            _pending[target] = (frozen, kw_only, defaults)
        return target

    return wrap if cls is None else wrap(cls)
