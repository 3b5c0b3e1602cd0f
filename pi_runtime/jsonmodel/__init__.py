"""Typed JSON models without pydantic: see ``model.py`` for why and what is supported."""

from .fields import ConfigDict, Discriminator, Field, FieldInfo, Tag, ValidationError, to_camel
from .model import JsonModel, TypeAdapter

__all__ = [
    "ConfigDict", "Discriminator", "Field", "FieldInfo", "JsonModel", "Tag", "TypeAdapter",
    "ValidationError", "to_camel",
]
