"""Typed JSON models without pydantic, for config files and tool parameters: see ``model.py``.

The wire and session types (messages, entries) are msgspec structs (``pi_runtime.ai.wire``).
"""

from .fields import ConfigDict, Field, FieldInfo, ValidationError, to_camel
from .model import JsonModel, field_names

__all__ = ["ConfigDict", "Field", "FieldInfo", "JsonModel", "ValidationError", "field_names", "to_camel"]
