"""Reading ``<agent dir>/models.json``: custom providers, models and overrides.

The format is Pi's (models-configuration.md, schemas/models.schema.json): a top-level
``providers`` object keyed by provider id, each with ``baseUrl``, ``api``, ``apiKey``,
``headers``, ``compat``, ``authHeader``, ``models[]`` and ``modelOverrides{}``. Comments and
trailing commas are allowed (Pi parses the file as JSONC).

Loading never raises: every problem becomes a message naming the file and the field
(``providers.ollama.models[0].contextWindow: ...``) and only the broken part is dropped —
a bad model entry loses that model, a bad provider field loses that provider's
configuration, invalid JSON loses the file. Messages never quote values, because a value
may be a key. Credential values (``apiKey``, header values) are resolved later, at request
time, by ``pi_runtime.ai.credentials``.
"""

# Annotations are objects, not strings (no ``from __future__ import annotations``): the JsonModel
# classes below resolve theirs at import (``model_fields``), a compile() and eval() per string.
import functools
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from ..config_files import ConfigFileError, ConfigJsonError, DroppedValue, parse_config_json, read_config_text
from ..jsonmodel import ConfigDict, Field, JsonModel, ValidationError, field_names, to_camel
from ..records import record


class _Strict(JsonModel):
    # Strict: "128000" for a number or "true" for a boolean is a mistake worth reporting,
    # not something to coerce silently. Unknown fields are kept (newer Pi versions).
    # Validators are built on first use: a file without overrides or costs never needs
    # theirs, and the bases are never validated themselves.
    model_config = ConfigDict(alias_generator=to_camel, strict=True, extra="allow")


Headers = dict[str, str]


class ProviderFields(_Strict):
    """The provider-level fields of one ``providers.<id>`` entry (models validated apart)."""

    name: str | None = Field(None, min_length=1)
    base_url: str | None = Field(None, min_length=1)
    api_key: str | None = Field(None, min_length=1)
    api: str | None = Field(None, min_length=1)
    oauth: str | None = None
    headers: Headers | None = None
    compat: dict[str, Any] | None = None
    auth_header: bool = False
    models: list[Any] | None = None
    model_overrides: dict[str, Any] | None = None


class _ModelCommon(_Strict):
    name: str | None = Field(None, min_length=1)
    reasoning: bool | None = None
    thinking_level_map: dict[str, str | None] | None = None
    input: list[Literal["text", "image"]] | None = None
    input_limits: dict[str, Any] | None = None
    cost: dict[str, Any] | None = None
    prompt_cache: dict[str, Any] | None = None
    context_window: float | None = Field(None, gt=0)
    max_tokens: float | None = Field(None, gt=0)
    sampling_params: dict[str, Any] | None = None
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    headers: Headers | None = None
    compat: dict[str, Any] | None = None


class ModelDef(_ModelCommon):
    """One ``models[]`` entry: adds a model, or replaces one with the same id."""

    id: str = Field(min_length=1)
    api: str | None = Field(None, min_length=1)
    base_url: str | None = Field(None, min_length=1)


class ModelOverride(_ModelCommon):
    """One ``modelOverrides.<id>`` entry: patches an existing model's metadata."""


class _Cost(_Strict):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    tiers: list[dict[str, Any]] | None = None


@record
class ProviderConfig:
    """One provider's validated configuration."""

    id: str
    fields: ProviderFields
    models: list[ModelDef] = field(default_factory=list)
    overrides: dict[str, ModelOverride] = field(default_factory=dict)
    where: str = ""
    """``<file>: providers.<id>`` — the prefix for messages about this provider."""


@record
class ModelsFile:
    """What a models.json yielded: valid provider configs plus every problem found."""

    path: Path
    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    exists: bool = False


@functools.cache
def _known_keys() -> tuple[set[str], set[str], set[str]]:
    """The keys a provider, a model and a model override may have. Worked out with the first
    models.json read, from the classes' annotations (``field_names``): compiling the classes for
    them (``model_fields``) cost ~3.5 M instructions, and ``_ModelCommon`` is never validated itself."""
    common = {to_camel(k) for k in field_names(_ModelCommon)}
    return {to_camel(k) for k in field_names(ProviderFields)}, common | {"id", "api", "baseUrl", "type"}, common


def strip_jsonc(text: str) -> str:
    """Blank out ``//`` and ``/* */`` comments and trailing commas, outside strings.

    Removed characters become spaces (newlines are kept) so a JSON error still points at
    the right line and column of the original file.

    Args:
        text: JSONC source.

    Returns:
        Plain JSON of the same length.
    """
    out = list(text)
    i, n = 0, len(text)
    in_string = False
    last_comma = -1  # index of a comma that may turn out to be trailing
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            last_comma = -1
        elif ch == "/" and i + 1 < n and text[i + 1] in "/*":
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2)
            end = n if end < 0 else (end if text[i + 1] == "/" else end + 2)
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
            continue
        elif ch == ",":
            last_comma = i
        elif ch in "}]":
            if last_comma >= 0:
                out[last_comma] = " "
            last_comma = -1
        elif not ch.isspace():
            last_comma = -1
        i += 1
    return "".join(out)


def _loc(parts: tuple[Any, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(exc: ValidationError, prefix: str) -> list[str]:
    # Only the location and the message: never ``input``, which may hold a key.
    out = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = _loc(tuple(err["loc"]))
        out.append(f"{prefix}.{loc}: {err['msg']}" if loc else f"{prefix}: {err['msg']}")
    return out


def _unknown_keys(raw: dict[str, Any], known: set[str], where: str) -> list[str]:
    notes = []
    for key in raw:
        if key in known or key.startswith("$"):
            continue
        import difflib  # only for a misspelt field (a start-up with a clean models.json skips it)

        lowered = {k.lower(): k for k in known}  # "baseURL" should find "baseUrl"
        close = difflib.get_close_matches(key.lower(), sorted(lowered), n=1, cutoff=0.75)
        hint = f" (did you mean '{lowered[close[0]]}'?)" if close else ""
        notes.append(f"{where}: unknown field '{key}' ignored{hint}")
    return notes


def parse_models_data(data: Any, path: Path, known_apis: set[str] | None = None) -> ModelsFile:
    """Validate already-decoded models.json content.

    Args:
        data: The decoded JSON value.
        path: The file it came from (used in messages).
        known_apis: Wire protocol ids to accept for ``api``; None accepts any.

    Returns:
        The valid parts and the problems, each message prefixed with the file path.
    """
    result = ModelsFile(path=path, exists=True)
    where = f"{path}"
    if not isinstance(data, dict):
        result.errors.append(f"{where}: the top level must be an object with a 'providers' field")
        return result
    providers = data.get("providers")
    if providers is None:
        result.errors.append(f"{where}: missing required field 'providers'")
        return result
    if not isinstance(providers, dict):
        result.errors.append(f"{where}: providers: must be an object keyed by provider id")
        return result
    for pid, raw in providers.items():
        cfg = _parse_provider(str(pid), raw, where, known_apis, result)
        if cfg is not None:
            result.providers[cfg.id] = cfg
    return result


def _check_api(api: str | None, known: set[str] | None, where: str, errors: list[str]) -> bool:
    if api is None or known is None or api in known:
        return True
    import difflib  # only for an unknown api

    close = difflib.get_close_matches(api, sorted(known), n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(sorted(known))}"
    errors.append(f"{where}: unknown api '{api}'{hint}")
    return False


def _parse_provider(
    pid: str, raw: Any, file: str, known_apis: set[str] | None, result: ModelsFile
) -> ProviderConfig | None:
    where = f"{file}: providers.{pid}"
    if not isinstance(raw, dict):
        result.errors.append(f"{where}: must be an object")
        return None
    try:
        fields = ProviderFields.model_validate(raw)
    except ValidationError as exc:
        result.errors.extend(_describe(exc, where))
        return None
    provider_keys, model_keys, common_keys = _known_keys()
    result.warnings.extend(_unknown_keys(raw, provider_keys, where))
    if not _check_api(fields.api, known_apis, f"{where}.api", result.errors):
        return None
    cfg = ProviderConfig(id=pid, fields=fields, where=where)
    for index, entry in enumerate(fields.models or []):
        mwhere = f"{where}.models[{index}]"
        model = _validate_entry(ModelDef, entry, mwhere, result.errors)
        if model is None or not _check_api(model.api, known_apis, f"{mwhere}.api", result.errors):
            continue
        result.warnings.extend(_unknown_keys(entry, model_keys, mwhere))
        cfg.models.append(model)
    for mid, entry in (fields.model_overrides or {}).items():
        owhere = f"{where}.modelOverrides.{mid}"
        override = _validate_entry(ModelOverride, entry, owhere, result.errors)
        if override is None:
            continue
        result.warnings.extend(_unknown_keys(entry, common_keys, owhere))
        cfg.overrides[mid] = override
    return cfg


def _validate_entry(cls: type[_ModelCommon], entry: Any, where: str, errors: list[str]) -> Any:
    if not isinstance(entry, dict):
        errors.append(f"{where}: must be an object")
        return None
    try:
        obj = cls.model_validate(entry)
    except ValidationError as exc:
        errors.extend(_describe(exc, where))
        return None
    if obj.cost is not None:
        try:
            _Cost.model_validate(obj.cost)
        except ValidationError as exc:
            errors.extend(_describe(exc, f"{where}.cost"))
            return None
    return obj


def load_models_json(path: str | Path, known_apis: set[str] | None = None) -> ModelsFile:
    """Read and validate a models.json file. Never raises.

    Args:
        path: The file; a missing file is not an error (nothing configured).
        known_apis: Wire protocol ids to accept for ``api``; None accepts any.

    Returns:
        The valid provider configurations and the errors and warnings found.
    """
    path = Path(path)
    try:
        text = read_config_text(path)
    except FileNotFoundError:
        return ModelsFile(path=path)
    except ConfigFileError as exc:
        return ModelsFile(path=path, exists=True, errors=[str(exc)])
    except (OSError, UnicodeDecodeError) as exc:
        return ModelsFile(path=path, exists=True, errors=[f"{path}: cannot read: {exc}"])
    if not text.strip():
        return ModelsFile(path=path, exists=True)
    try:
        data, dropped = parse_config_json(strip_jsonc(text))
    except ConfigJsonError as exc:
        return ModelsFile(path=path, exists=True, errors=[f"{path}: {exc}"])
    errors = _refuse_what_lost_a_value(data, dropped, path) if dropped else []
    found = parse_models_data(data, path, known_apis)
    found.errors[:0] = errors
    return found


def _refuse_what_lost_a_value(data: dict[str, Any], dropped: list[DroppedValue], path: Path) -> list[str]:
    """Take out of ``data`` each model (or provider) a value was left out of (a number of
    100,000 digits, a value nested 100,000 deep), as one with a bad value is refused; one
    message each."""
    errors: list[str] = []
    found = data.get("providers")
    providers: dict[str, Any] = found if isinstance(found, dict) else {}
    gone_models: dict[str, set[int]] = {}
    for value in dropped:
        where = value.path
        if len(where) < 3 or where[0] != "providers" or where[1] not in providers:
            errors.append(f"{path}: {value}")
            continue
        pid = str(where[1])
        models = providers[pid].get("models") if isinstance(providers[pid], dict) else None
        if len(where) > 4 and where[2] == "models" and isinstance(where[3], int) and isinstance(models, list):
            errors.append(f"{path}: providers.{pid}.models[{where[3]}]: {value.inside(4)}; model left out")
            gone_models.setdefault(pid, set()).add(where[3])
        else:
            errors.append(f"{path}: providers.{pid}: {value.inside(2)}; provider left out")
            del providers[pid]
    for pid, indexes in gone_models.items():
        if pid in providers:
            providers[pid]["models"] = [m for i, m in enumerate(providers[pid]["models"]) if i not in indexes]
    return errors
