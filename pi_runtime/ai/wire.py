"""``WireStruct``: the base of the wire and session types, a msgspec ``Struct``.

msgspec decodes and validates a list of 20,000 messages in tens of milliseconds (the
home-made ``jsonmodel`` took 0.6-0.8 s), so a resumed session's messages are typed in one
call. Field names are snake_case in Python and camelCase on the wire (``rename="camel"``);
a class's ``role``/``type`` is its msgspec tag, also readable as a class attribute.

Unknown fields: msgspec drops them while decoding, so the session store keeps every line as
the dict it was read from and copies those (fork, clone, export): what Pi wrote and pi does
not know reaches the file again unchanged. A struct made from a stored dict also keeps a
reference to it (``attach_wire``), so its ``to_wire()`` gives the unknown keys back as well
(``model_extra``), nested ones included (taken from the same place in that dict when written).

The few methods of pydantic's API the code base and extensions use on these types are here
as a thin face (``to_wire``, ``model_dump``, ``model_copy``, ``model_validate``,
``model_construct``). Assignment is not validated: a provider grows one live message in place.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

import msgspec

S = TypeVar("S", bound="WireStruct")

_SCALARS = (str, int, float, bool)


def wire_value(value: Any, exclude_none: bool = True, raw: Any = None) -> Any:
    """A field's value as plain JSON data: structs become dicts, lists and dicts are copied.

    ``raw`` is the same value as it was decoded (when known): a nested struct takes the keys
    it has no field for from it (Pi's ``usage.cost.totalFromProvider``).
    """
    if isinstance(value, WireStruct):
        return value.model_dump(by_alias=True, exclude_none=exclude_none, wire=raw)
    kind = type(value)
    if kind is list or kind is tuple:
        # The decoded list lines up with this one only while nothing was added or removed.
        if type(raw) is not list or len(raw) != len(value):
            return [wire_value(v, exclude_none) for v in value]
        return [wire_value(v, exclude_none, r) for v, r in zip(value, raw)]
    if kind is dict:
        # Raw JSON (tool arguments, details): an explicit null in it is data, kept.
        return {k: wire_value(v, False) for k, v in value.items()}
    return value


def attach_wire(struct: Any, data: dict[str, Any]) -> Any:
    """Remember the dict ``struct`` was decoded from (its unknown keys are written back)."""
    struct.__dict__["_wire"] = data
    return struct


class WireStruct(msgspec.Struct, rename="camel", kw_only=True, dict=True):
    """Base for everything serialised to Pi's JSON (see the module docstring)."""

    @property
    def model_extra(self) -> dict[str, Any]:
        """The keys of the dict this struct was decoded from that it has no field for."""
        return self._extra(self.__dict__.get("_wire"))

    def _extra(self, data: Any) -> dict[str, Any]:
        if type(data) is not dict:
            return {}
        known = set(self.__struct_encode_fields__)
        tag_field = self.__struct_config__.tag_field
        if tag_field is not None:
            known.add(tag_field)
        return {k: v for k, v in data.items() if k not in known}

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict in Pi's shape (camelCase, fields set to None left out)."""
        return self.model_dump(by_alias=True, exclude_none=True)

    def model_dump(self, *, by_alias: bool = False, exclude_none: bool = False, wire: Any = None,
                   **_ignored: Any) -> dict[str, Any]:
        """The fields as plain dicts and lists (``by_alias``: camelCase keys, the tag, and the
        unknown keys of the dict it was decoded from, ``wire`` for a nested struct)."""
        config = self.__struct_config__
        out: dict[str, Any] = {}
        if config.tag_field is not None and by_alias:
            out[config.tag_field] = config.tag
        raw = self.__dict__.get("_wire", wire) if by_alias else None
        if type(raw) is not dict:
            raw = None
        keys = self.__struct_encode_fields__ if by_alias else self.__struct_fields__
        for name, key in zip(self.__struct_fields__, keys):
            value = getattr(self, name)
            if value is None:
                if exclude_none:
                    continue
            elif type(value) not in _SCALARS:
                try:
                    value = wire_value(value, exclude_none, raw.get(key) if raw is not None else None)
                except RecursionError:
                    pass  # raw JSON nested thousands deep (tool arguments Pi wrote): kept as it is
            out[key] = value
        if raw is not None:
            for key, value in self._extra(raw).items():
                out[key] = wire_value(value, False)
        return out

    def model_copy(self: S, *, update: dict[str, Any] | None = None, deep: bool = False) -> S:
        """A copy, with ``update`` (field names) applied as given (not validated)."""
        new = copy.deepcopy(self) if deep else copy.copy(self)
        data = self.__dict__.get("_wire")
        if data is not None:  # copies drop a struct's __dict__; the unknown keys come along
            new.__dict__["_wire"] = copy.deepcopy(data) if deep else data
        for name, value in (update or {}).items():
            setattr(new, name, value)
        return new

    @classmethod
    def model_validate(cls: type[S], obj: Any) -> S:
        """``obj`` (a wire dict, camelCase) as this class; raises ``msgspec.ValidationError``
        (a ``ValueError``) naming the field, e.g. ``Expected `str`, got `int` - at `$.text```."""
        if isinstance(obj, cls):
            return obj
        struct = msgspec.convert(obj, cls, strict=False)
        return attach_wire(struct, obj) if isinstance(obj, dict) else struct

    @classmethod
    def model_construct(cls: type[S], **values: Any) -> S:
        """An instance from trusted values (field names), without validation."""
        return cls(**values)


def field_names(cls: type[WireStruct]) -> dict[str, str]:
    """Python name → wire name of every field of a struct class."""
    return dict(zip(cls.__struct_fields__, cls.__struct_encode_fields__))
