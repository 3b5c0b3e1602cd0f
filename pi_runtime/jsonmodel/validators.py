"""Validators compiled from type annotations: one closure per type, built once and cached.

A validator takes a decoded JSON value and returns the Python value (a model, a list, a
number), or raises ``Fail`` with what is wrong and where. The rules follow pydantic's lax and
strict modes for the types pi declares (``str``, ``int``, ``float``, ``bool``, ``None``,
``Literal``, unions, ``list``, ``dict``, models, ``Annotated`` constraints), with its error
messages, so error texts and settings warnings read as before.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

from .fields import Fail, FieldInfo, fail

Validator = Callable[[Any], Any]


def identity(value: Any) -> Any:
    return value


_cache: dict[tuple[Any, bool], Validator] = {}


def compile_type(tp: Any, strict: bool) -> Validator:
    """The validator for ``tp`` (cached)."""
    key = (tp, strict)
    try:
        return _cache[key]
    except (KeyError, TypeError):
        pass
    validator = _build(tp, strict)
    try:
        _cache[key] = validator
    except TypeError:
        pass
    return validator


def _build(tp: Any, strict: bool) -> Validator:
    if tp is Any or tp is object:
        return identity
    if tp is None or tp is type(None):
        return _none
    scalar = (_STRICT if strict else _LAX).get(tp)
    if scalar is not None:
        return scalar
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _annotated(tp, strict)
    if origin is typing.Literal:
        return _literal(typing.get_args(tp))
    if origin is typing.Union or origin is types.UnionType:
        return _union(typing.get_args(tp), strict)
    if origin is list or tp is list:
        args = typing.get_args(tp)
        return _list(compile_type(args[0], strict) if args else identity, strict)
    if origin is dict or tp is dict:
        args = typing.get_args(tp)
        keys, values = (compile_type(args[0], strict), compile_type(args[1], strict)) if args else (identity, identity)
        return _dict(keys, values)
    if origin is tuple or tp is tuple:
        return _list(identity, strict)
    from_input = getattr(tp, "_jm_from_input", None)
    if from_input is not None:
        return from_input
    if isinstance(tp, type):
        return _instance_of(tp)
    raise TypeError(f"jsonmodel cannot validate {tp!r}")


# --------------------------------------------------------------------------- scalars


def _none(value: Any) -> Any:
    if value is None:
        return None
    raise fail("Input should be None", "none_required", value)


def _str_strict(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    raise fail("Input should be a valid string", "string_type", value)


def _str_lax(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode()
        except UnicodeDecodeError:
            pass
    raise fail("Input should be a valid string", "string_type", value)


def _int_strict(value: Any) -> Any:
    if type(value) is int:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise fail("Input should be a valid integer", "int_type", value)


def _int_lax(value: Any) -> Any:
    if type(value) is int:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise fail("Input should be a valid integer, got a number with a fractional part", "int_from_float", value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            try:
                number = float(value.strip())
            except ValueError:
                number = 0.5
            if number.is_integer():
                return int(number)
        raise fail("Input should be a valid integer, unable to parse string as an integer", "int_parsing", value)
    raise fail("Input should be a valid integer", "int_type", value)


def _float_strict(value: Any) -> Any:
    if type(value) is float:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise fail("Input should be a valid number", "float_type", value)


def _float_lax(value: Any) -> Any:
    if type(value) is float:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise fail("Input should be a valid number, unable to parse string as a number", "float_parsing", value) from None
    raise fail("Input should be a valid number", "float_type", value)


def _bool_strict(value: Any) -> Any:
    if value is True or value is False:
        return value
    raise fail("Input should be a valid boolean", "bool_type", value)


_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


def _bool_lax(value: Any) -> Any:
    if value is True or value is False:
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    if isinstance(value, (int, float, str)):
        raise fail("Input should be a valid boolean, unable to interpret input", "bool_parsing", value)
    raise fail("Input should be a valid boolean", "bool_type", value)


_STRICT: dict[Any, Validator] = {str: _str_strict, int: _int_strict, float: _float_strict, bool: _bool_strict}
_LAX: dict[Any, Validator] = {str: _str_lax, int: _int_lax, float: _float_lax, bool: _bool_lax}


def _instance_of(cls: type) -> Validator:
    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        raise fail(f"Input should be an instance of {cls.__name__}", "is_instance_of", value)

    return check


def _literal(values: tuple[Any, ...]) -> Validator:
    allowed = {(type(v), v) for v in values}
    shown = [repr(v) for v in values]
    expected = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    message = f"Input should be {expected}"

    def check(value: Any) -> Any:
        try:
            if (type(value), value) in allowed:
                return value
        except TypeError:  # an unhashable input (a list or dict) matches no literal
            pass
        raise fail(message, "literal_error", value)

    return check


# --------------------------------------------------------------------------- containers


def _list(item: Validator, strict: bool) -> Validator:
    accepted: tuple[type, ...] = (list,) if strict else (list, tuple)

    def check(value: Any) -> Any:
        if not isinstance(value, accepted):
            raise fail("Input should be a valid list", "list_type", value)
        value = typing.cast(list[Any], value)
        if item is identity:
            return list(value)
        out = []
        errors: list[Any] = []
        for index, element in enumerate(value):
            try:
                out.append(item(element))
            except Fail as exc:
                errors.extend(((index, *loc), *rest) for loc, *rest in exc.items)
        if errors:
            raise Fail(errors)
        return out

    return check


def _dict(keys: Validator, values: Validator) -> Validator:
    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            raise fail("Input should be a valid dictionary", "dict_type", value)
        if keys is identity and values is identity:
            return dict(value)
        out = {}
        errors: list[Any] = []
        for key, element in value.items():
            try:
                out[keys(key)] = values(element)
            except Fail as exc:
                errors.extend(((key, *loc), *rest) for loc, *rest in exc.items)
        if errors:
            raise Fail(errors)
        return out

    return check


# --------------------------------------------------------------------------- unions and metadata


def _annotated(tp: Any, strict: bool) -> Validator:
    inner, *metadata = typing.get_args(tp)
    constraints: dict[str, Any] = {}
    for meta in metadata:
        if isinstance(meta, FieldInfo):
            constraints.update(meta.constraints)
    base = compile_type(inner, strict)
    return with_constraints(base, constraints) if constraints else base


def _union(members: tuple[Any, ...], strict: bool) -> Validator:
    optional = type(None) in members
    # ``X | None`` is X that may be null: errors name only X's problems, as pydantic's do.
    members = tuple(m for m in members if m is not type(None))
    if optional and len(members) == 1:
        inner = compile_type(members[0], strict)
        return lambda value: None if value is None else inner(value)
    exact = [compile_type(m, True) for m in members]
    loose = exact if strict else [compile_type(m, False) for m in members]

    def check(value: Any) -> Any:
        if value is None and optional:
            return None
        for validator in exact:
            try:
                return validator(value)
            except Fail:
                pass
        errors: list[Any] = []
        for validator in loose:
            try:
                return validator(value)
            except Fail as exc:
                errors.extend(exc.items)
        raise Fail(errors)

    return check


def with_constraints(base: Validator, constraints: dict[str, Any]) -> Validator:
    """``base`` followed by the bounds a ``Field`` sets (``None`` passes untouched)."""
    ge, gt, le, lt = (constraints.get(k) for k in ("ge", "gt", "le", "lt"))
    min_length = constraints.get("min_length")

    def check(value: Any) -> Any:
        value = base(value)
        if value is None:
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if ge is not None and not value >= ge:
                raise fail(f"Input should be greater than or equal to {ge}", "greater_than_equal", value)
            if gt is not None and not value > gt:
                raise fail(f"Input should be greater than {gt}", "greater_than", value)
            if le is not None and not value <= le:
                raise fail(f"Input should be less than or equal to {le}", "less_than_equal", value)
            if lt is not None and not value < lt:
                raise fail(f"Input should be less than {lt}", "less_than", value)
        if min_length is not None and isinstance(value, (str, list, dict)) and len(value) < min_length:
            if isinstance(value, str):
                plural = "s" if min_length != 1 else ""
                raise fail(f"String should have at least {min_length} character{plural}", "string_too_short", value)
            plural = "s" if min_length != 1 else ""
            raise fail(f"List should have at least {min_length} item{plural} after validation, not {len(value)}",
                       "too_short", value)
        return value

    return check
