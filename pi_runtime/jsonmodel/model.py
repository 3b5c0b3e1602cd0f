"""``JsonModel``: a typed object read from JSON and written back to it.

What it is for now: config files (settings.json, models.json) and tool parameters (an
extension's ``ToolParams``), where a person reads the errors and the JSON schema is sent to
the model. Its errors are pydantic's (``compaction.enabled: Input should be a valid
boolean``), every problem of a file at once, and it keeps unknown keys a provider reads
(``model_extra``); msgspec stops at the first problem and drops unknown keys. The wire and
session types, where decoding speed matters, are msgspec structs (``pi_runtime.ai.wire``).

Declared like a pydantic model (annotations, defaults, ``Field``, ``model_config``), with the
subset of pydantic's API pi uses (``model_validate``, ``model_dump``, ``model_copy``,
``model_fields``, ``model_construct``, ``model_extra``, ``model_json_schema``). Importing it
costs nothing: pydantic took ~70 ms to import and build its validators. A class is compiled
(type hints resolved, validators built) the first time it is used.

Fields live in the instance ``__dict__`` and assignment is not validated. Unknown keys follow
``model_config["extra"]``: kept in ``model_extra`` and written back (``allow``), dropped
(``ignore``) or reported (``forbid``).
"""

from __future__ import annotations

import builtins
import copy
import functools
import inspect
import sys
import typing
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from .fields import MISSING, ConfigDict, Fail, Field, FieldInfo, ValidationError, fail
from .validators import compile_type, identity, with_constraints

_SCALARS = (str, int, float, bool, type(None))


class _Spec:
    __slots__ = ("by_key", "construct_defaults", "extra", "fields", "keys", "order", "prepare")

    def __init__(self, cls: Any) -> None:
        config = cls.model_config
        self.extra = config.get("extra", "ignore")
        strict = bool(config.get("strict"))
        generate = config.get("alias_generator")
        owners = _field_owners(cls)
        hints = _field_hints(cls, owners)
        self.fields: dict[str, FieldInfo] = {}
        for name, owner in owners.items():
            hint = hints[name]
            if typing.get_origin(hint) is ClassVar:
                continue
            info = _declared(owner, name)
            info.name = name
            info.alias = info.alias or (generate(name) if generate else None)
            info.annotation = hint
            validate = compile_type(hint, strict)
            if info.constraints:
                validate = with_constraints(validate, info.constraints)
            info.validate = validate
            info.dump = None if _plain(hint) else _dump_value
            self.fields[name] = info
        # (wire key, name, info, the type whose values pass as they are): a str field given a
        # str skips its validator call, the commonest case on a long session.
        self.order = [(info.alias or name, name, info, _exact_type(info)) for name, info in self.fields.items()]
        self.keys = {key for key, _, _, _ in self.order} | set(self.fields)
        self.by_key = {key: name for key, name, _, _ in self.order}
        # For model_construct_wire: immutable defaults shared, the others made per instance.
        fixed: dict[str, Any] = {}
        factories: list[tuple[str, Callable[[], Any]]] = []
        for name, info in self.fields.items():
            if info.default_factory is not None:
                factories.append((name, info.default_factory))
            elif info.default is not MISSING:
                if type(info.default) in _SCALARS:
                    fixed[name] = info.default
                else:
                    factories.append((name, functools.partial(copy.deepcopy, info.default)))
        self.construct_defaults = (fixed, factories)
        self.prepare: Callable[[Any], Any] | None = getattr(cls, "prepare_input", None)


def _exact_type(info: FieldInfo) -> type | None:
    hint = info.annotation
    if info.constraints or hint not in (str, int, bool):
        return None
    return hint


def _field_owners(cls: type) -> dict[str, type]:
    """Field name -> the most derived class that annotates it, in declaration order (bases first).

    One pass over the classes' annotations: looking each field's class up again (a copy of the
    annotations per field and class) cost ~3.5 M instructions for the 63 settings alone."""
    owners: dict[str, type] = {}
    for klass in reversed(cls.__mro__):
        for name in inspect.get_annotations(klass):
            if not name.startswith("_") and name != "model_config":
                owners[name] = klass  # a subclass takes the field over; its place stays the first
    return owners


def field_names(cls: type) -> list[str]:
    """The names of ``cls``'s fields, in order (``list(cls.model_fields)``), read from its
    annotations without compiling the class: for a caller that needs only the names (the keys a
    models.json entry may have), the compiled form cost ~1.5 M instructions."""
    names = []
    for name, owner in _field_owners(cls).items():
        annotation = inspect.get_annotations(owner)[name]
        if isinstance(annotation, str):
            head = annotation.split("[", 1)[0].strip()
            if head in ("ClassVar", "typing.ClassVar"):
                continue
        elif annotation is ClassVar or typing.get_origin(annotation) is ClassVar:
            continue
        names.append(name)
    return names


def _field_hints(cls: type, owners: dict[str, type]) -> dict[str, Any]:
    """The fields' annotations as objects, as ``typing.get_type_hints(cls, include_extras=True)``
    gives them, without what it does beside: it resolves every annotation of every class of the
    MRO (the base's ``model_config: ClassVar[...]`` string too: a compile() per class, 21 on
    ``pi -p``) and walks each object annotation for forward references. Here an object without a
    forward reference stays as it is, a plain name is looked up and another string evaluated where
    ``get_type_hints`` looks (the module, then the class, then the builtins); anything else (a
    forward reference inside, a string within a string) is left to ``get_type_hints`` itself."""
    hints: dict[str, Any] = {}
    complete: dict[str, Any] | None = None
    declared: dict[type, dict[str, Any]] = {}
    for name, owner in owners.items():
        annotations = declared.get(owner)
        if annotations is None:
            annotations = declared[owner] = inspect.get_annotations(owner)
        value = annotations[name]
        if isinstance(value, str):
            value = _evaluate(value, owner)
        if not _settled(value):
            if complete is None:
                complete = typing.get_type_hints(cls, include_extras=True)
            value = complete[name]
        hints[name] = value
    return hints


def _evaluate(text: str, owner: type) -> Any:
    """A string annotation of ``owner`` as an object (``_UNSETTLED`` when it cannot be read)."""
    module = vars(sys.modules[owner.__module__])
    if text.isidentifier():
        for namespace in (module, owner.__dict__, vars(builtins)):
            if text in namespace:
                value = namespace[text]
                return type(None) if value is None else value
        return _UNSETTLED
    try:
        # The namespaces the way get_type_hints passes them for a class (the class's as globals).
        value = eval(text, dict(vars(owner)), module)
    except Exception:  # noqa: BLE001 - get_type_hints then raises its own error for it
        return _UNSETTLED
    return type(None) if value is None else value


_UNSETTLED: Any = typing.ForwardRef("_UNSETTLED")
"""What ``_evaluate`` gives for what it leaves to ``get_type_hints`` (a forward reference: not settled)."""


def _settled(value: Any) -> bool:
    """Whether an annotation object holds no forward reference: no ``ForwardRef`` and no string
    among the arguments of a generic (a ``Literal``'s strings and ``Annotated`` metadata are values)."""
    if isinstance(value, (str, typing.ForwardRef)):
        return False
    origin = typing.get_origin(value)
    if origin is typing.Literal:
        return True
    args = typing.get_args(value)
    if origin is typing.Annotated:
        args = args[:1]
    return all(_settled(arg) for arg in args)


def _declared(owner: type, name: str) -> FieldInfo:
    """A fresh FieldInfo for ``name`` from ``owner``, the most derived class that annotates it."""
    value = owner.__dict__.get(name, MISSING)
    if isinstance(value, FieldInfo):
        return FieldInfo(value.default, value.default_factory, value.alias, value.description,
                         dict(value.constraints))
    return FieldInfo(value)


def _plain(hint: Any) -> bool:
    """Whether values of this type are immutable scalars (dumped as they are)."""
    if hint in _SCALARS:
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return True
    if origin is typing.Annotated:
        return _plain(typing.get_args(hint)[0])
    if origin is typing.Union or origin is _UnionType:
        return all(_plain(arg) for arg in typing.get_args(hint))
    return False


_UnionType = type(int | str)


def _dump_value(value: Any, by_alias: bool, exclude_none: bool, exclude_unset: bool) -> Any:
    if isinstance(value, JsonModel):
        return value.model_dump(by_alias=by_alias, exclude_none=exclude_none, exclude_unset=exclude_unset)
    kind = type(value)
    if kind is list or kind is tuple:
        return [_dump_value(v, by_alias, exclude_none, exclude_unset) for v in value]
    if kind is dict:
        return {k: _dump_value(v, by_alias, exclude_none, exclude_unset) for k, v in value.items()}
    return value


@typing.dataclass_transform(kw_only_default=True, field_specifiers=(Field,))
class _ModelMeta(type):
    @property
    def model_fields(cls) -> dict[str, FieldInfo]:
        """Field name → FieldInfo (``alias``, ``default``, ``description``, ``annotation``)."""
        return cls._jm_spec().fields  # type: ignore[attr-defined]


class JsonModel(metaclass=_ModelMeta):
    """Base class; see the module docstring."""

    __slots__ = ("__dict__", "__pydantic_extra__", "__pydantic_fields_set__")
    model_config: ClassVar[dict[str, Any]] = ConfigDict()

    # ------------------------------------------------------------------ building

    @classmethod
    def _jm_spec(cls) -> _Spec:
        spec = cls.__dict__.get("_jm_cache")
        if spec is None:
            spec = _Spec(cls)
            cls._jm_cache = spec  # type: ignore[attr-defined]
        return spec

    @classmethod
    def _jm_from_input(cls, value: Any) -> Any:
        if isinstance(value, cls):
            return value
        obj = cls.__new__(cls)
        obj._jm_fill(value)
        return obj

    def _jm_fill(self, data: Any) -> None:
        spec = type(self)._jm_spec()
        if spec.prepare is not None:
            data = spec.prepare(data)
        if not isinstance(data, dict):
            raise fail(f"Input should be a valid dictionary or instance of {type(self).__name__}", "model_type", data)
        values: dict[str, Any] = {}
        fields_set: set[str] = set()
        errors: list[Any] = []
        seen = 0
        for key, name, info, exact in spec.order:
            if key in data:
                raw = data[key]
            elif name in data:
                raw = data[name]
            else:
                if info.default_factory is not None:
                    values[name] = info.default_factory()
                elif info.default is MISSING:
                    errors.append(((key,), "Field required", "missing", data))
                else:
                    default = info.default
                    values[name] = default if type(default) in _SCALARS else copy.deepcopy(default)
                continue
            seen += 1
            fields_set.add(name)
            if type(raw) is exact:
                values[name] = raw
                continue
            try:
                values[name] = info.validate(raw)  # type: ignore[misc]
            except Fail as exc:
                errors.extend(((key, *loc), *rest) for loc, *rest in exc.items)
        extras: dict[str, Any] | None = {} if spec.extra == "allow" else None
        if seen < len(data):
            for key, value in data.items():
                if key in spec.keys:
                    continue
                if spec.extra == "allow":
                    extras[key] = value  # type: ignore[index]
                    fields_set.add(key)
                elif spec.extra == "forbid":
                    errors.append(((key,), "Extra inputs are not permitted", "extra_forbidden", value))
        if errors:
            raise Fail(errors)
        self.__dict__ = values
        self.__pydantic_extra__ = extras
        self.__pydantic_fields_set__ = fields_set

    def __init__(self, **data: Any) -> None:
        try:
            self._jm_fill(data)
        except Fail as exc:
            raise ValidationError(type(self).__name__, exc.items) from None

    @classmethod
    def model_validate(cls, obj: Any) -> Any:
        """``obj`` (a dict from JSON, or an instance) as this class; raises ValidationError."""
        try:
            return cls._jm_from_input(obj)
        except Fail as exc:
            raise ValidationError(cls.__name__, exc.items) from None

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Any:
        """An instance from trusted values, without validation (missing fields get defaults)."""
        spec = cls._jm_spec()
        obj = cls.__new__(cls)
        data: dict[str, Any] = {}
        for key, name, info, _ in spec.order:
            if name in values:
                data[name] = values.pop(name)
            elif key in values:
                data[name] = values.pop(key)
            elif info.default_factory is not None:
                data[name] = info.default_factory()
            elif info.default is not MISSING:
                data[name] = info.default
        given = set(data) if _fields_set is None else set(_fields_set)
        obj.__dict__ = data
        obj.__pydantic_extra__ = values if spec.extra == "allow" else None
        obj.__pydantic_fields_set__ = given | set(values)
        return obj

    @classmethod
    def model_construct_wire(cls, data: dict[str, Any]) -> Any:
        """An instance from a trusted dict keyed by wire names (aliases), without validation.

        Nested values stay as given (a nested model field must already hold the model); unknown
        keys are kept as extras when the class allows them. For generated data read many times
        over (the model catalogue), where ``model_validate`` would check what is known good.
        """
        spec = cls._jm_spec()
        names = spec.by_key
        given: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        for key, value in data.items():
            name = names.get(key)
            if name is None:
                extras[key] = value
            else:
                given[name] = value
        fixed, factories = spec.construct_defaults
        values = {**fixed, **given}
        for name, make in factories:
            if name not in given:
                values[name] = make()
        obj = cls.__new__(cls)
        obj.__dict__ = values
        obj.__pydantic_extra__ = extras if spec.extra == "allow" else None
        obj.__pydantic_fields_set__ = set(given) | set(extras)
        return obj

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """The JSON schema of this model (tool parameters are sent to the model this way)."""
        from .schema import model_schema

        return model_schema(cls)

    @classmethod
    def model_rebuild(cls) -> None:
        """Drop the compiled form (after a forward reference became resolvable)."""
        if "_jm_cache" in cls.__dict__:
            delattr(cls, "_jm_cache")

    # ------------------------------------------------------------------ reading back

    @property
    def model_extra(self) -> dict[str, Any] | None:
        return self.__pydantic_extra__

    @property
    def model_fields_set(self) -> set[str]:
        return self.__pydantic_fields_set__

    def model_dump(
        self,
        *,
        by_alias: bool = False,
        exclude_none: bool = False,
        exclude_unset: bool = False,
        mode: str = "python",
    ) -> dict[str, Any]:
        """The fields (and kept unknown keys) as plain dicts and lists, nested models included."""
        out: dict[str, Any] = {}
        values = self.__dict__
        fields_set = self.__pydantic_fields_set__ if exclude_unset else None
        for key, name, info, _ in type(self)._jm_spec().order:
            if fields_set is not None and name not in fields_set:
                continue
            value = values.get(name)
            if value is None and exclude_none:
                continue
            if info.dump is not None:
                try:
                    value = info.dump(value, by_alias, exclude_none, exclude_unset)
                except RecursionError:
                    pass  # raw JSON nested thousands deep (tool arguments Pi wrote): kept as it is
            out[key if by_alias else name] = value
        for key, value in (self.__pydantic_extra__ or {}).items():
            if value is None and exclude_none:
                continue
            out[key] = _dump_value(value, by_alias, exclude_none, exclude_unset)
        return out

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy, with ``update`` applied as given (not validated)."""
        new = copy.deepcopy(self) if deep else copy.copy(self)
        if update:
            fields = type(self)._jm_spec().fields
            for key, value in update.items():
                if key in fields:
                    new.__dict__[key] = value
                else:
                    if new.__pydantic_extra__ is None:
                        new.__pydantic_extra__ = {}
                    new.__pydantic_extra__[key] = value
                new.__pydantic_fields_set__.add(key)
        return new

    def __copy__(self) -> Any:
        new = type(self).__new__(type(self))
        new.__dict__ = dict(self.__dict__)
        extra = self.__pydantic_extra__
        new.__pydantic_extra__ = dict(extra) if extra is not None else None
        new.__pydantic_fields_set__ = set(self.__pydantic_fields_set__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new.__dict__ = copy.deepcopy(self.__dict__, memo)
        new.__pydantic_extra__ = copy.deepcopy(self.__pydantic_extra__, memo)
        new.__pydantic_fields_set__ = set(self.__pydantic_fields_set__)
        return new

    def __getstate__(self) -> Any:
        return (self.__dict__, self.__pydantic_extra__, self.__pydantic_fields_set__)

    def __setstate__(self, state: Any) -> None:
        self.__dict__, self.__pydantic_extra__, self.__pydantic_fields_set__ = state

    # ------------------------------------------------------------------ dunder protocol

    if not typing.TYPE_CHECKING:  # hidden from mypy, which would then accept any attribute name

        def __getattr__(self, name: str) -> Any:
            # Only reached when normal lookup failed: an unknown key kept from the input.
            if not name.startswith("__"):
                try:
                    extra = self.__pydantic_extra__
                except AttributeError:
                    extra = None
                if extra and name in extra:
                    return extra[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, JsonModel)
        return self.__dict__ == other.__dict__ and self.__pydantic_extra__ == other.__pydantic_extra__

    __hash__ = None  # type: ignore[assignment]  # mutable, as pydantic models are

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        yield from self.__dict__.items()
        yield from (self.__pydantic_extra__ or {}).items()

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self)
        return f"{type(self).__name__}({shown})"


__all__ = ["JsonModel", "identity"]
