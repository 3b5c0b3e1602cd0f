"""The registry's models, built one provider at a time: catalogue + live overlay + extensions + models.json.

``ModelTable`` answers "which models does provider P have" and builds P's ``Model`` objects
the first time someone asks, in Pi's order of layers:

1. the shipped catalogue's rows (``catalog``),
2. the live catalogue Pi or ``pi update --models`` saved in models-store.json (``catalog.overlay``),
3. models added at run time (extensions' ``add_model``),
4. models.json: the provider's ``baseUrl``/``compat``, its ``models`` (added, or replacing a
   model with the same id) and ``modelOverrides`` (patches).

Providers that models.json mentions are built at once (so its mistakes are reported at
start-up); the ~40 others wait until asked. A run that uses one model builds one provider.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .models_json import ModelDef, ModelOverride, ModelsFile, ProviderConfig
from .types import Model

MODEL_FIELDS = {
    "name", "reasoning", "thinkingLevelMap", "input", "inputLimits", "cost", "promptCache",
    "contextWindow", "maxTokens", "samplingParams", "samplingParamsByThinkingLevel", "compat",
}
"""The model fields models.json may set (the rest of a definition is provider-level or ignored)."""


class ModelTable:
    """Models per provider, built on demand (see the module docstring).

    Args:
        builtins: Include the shipped catalogue and its live overlay.
        store: models-store.json to overlay; None reads none.
        errors: Where models.json mistakes that drop a model are appended.
        warnings: Where ignored models.json parts are appended.
    """

    def __init__(self, *, builtins: bool, store: Path | None, errors: list[str], warnings: list[str]) -> None:
        self._builtins = builtins
        self._store_path = store
        self.errors = errors
        self.warnings = warnings
        self._store_raw: dict[str, Any] = {}
        self._built: dict[str, dict[str, Model]] = {}
        self._order: list[str] = []
        self._extra: dict[tuple[str, str], Model] = {}
        self.configs: dict[str, ProviderConfig] = {}
        self.model_headers: dict[tuple[str, str], tuple[dict[str, str], str]] = {}
        """Per-model header templates from models.json and where they were configured."""

    def reset(self, loaded: ModelsFile | None, extra: dict[tuple[str, str], Model]) -> None:
        """Forget every built model and start over with ``loaded`` models.json and ``extra`` models."""
        from .catalog import builtin_catalog

        self._built, self.configs, self.model_headers = {}, {}, {}
        self._extra = extra
        order = list(builtin_catalog().chat_providers()) if self._builtins else []
        if self._builtins and self._store_path is not None:
            from .catalog.store import read_raw

            self._store_raw = read_raw(self._store_path)
        configs = loaded.providers.values() if loaded is not None else ()
        for cfg in configs:
            self.configs[cfg.id] = cfg
        order.extend(pid for pid, _ in extra)
        order.extend(cfg.id for cfg in configs)
        self._order = list(dict.fromkeys(order))
        for cfg in configs:
            self.models_of(cfg.id)  # models.json's providers now: their mistakes are reported at start-up

    # ------------------------------------------------------------------ reading

    def provider_ids(self) -> list[str]:
        """Providers with at least one model, catalogue order first."""
        return [pid for pid in self._order if self._has_models(pid)]

    def _has_models(self, pid: str) -> bool:
        if pid in self._built:
            return bool(self._built[pid])
        if pid in self._store_raw or pid in self.configs or any(p == pid for p, _ in self._extra):
            return bool(self.models_of(pid))
        from .catalog import builtin_catalog

        info = builtin_catalog().providers.get(pid)
        return bool(info and info.counts.get("chat"))

    def models_of(self, pid: str) -> list[Model]:
        """``pid``'s models in order (built on first call)."""
        built = self._built.get(pid)
        if built is None:
            built = self._build(pid)
            self._built[pid] = built
        return list(built.values())

    def find(self, pid: str, model_id: str) -> Model | None:
        """The model ``model_id`` of ``pid`` (exact id), or None."""
        if pid not in self._built:
            self.models_of(pid)
        return self._built[pid].get(model_id)

    def all(self) -> list[Model]:
        """Every model of every provider, in order."""
        return [m for pid in self._order for m in self.models_of(pid)]

    def is_built(self, pid: str) -> bool:
        """Whether ``pid``'s ``Model`` objects exist yet."""
        return pid in self._built

    def is_catalog_only(self, pid: str) -> bool:
        """Whether ``pid``'s models are exactly the shipped catalogue's (nothing overlays them)."""
        if not self._builtins or pid in self._store_raw or pid in self.configs:
            return False
        if any(p == pid for p, _ in self._extra):
            return False
        from .catalog import builtin_catalog

        return pid in builtin_catalog().providers

    def matching(self, test: Callable[[str, str, str], bool]) -> list[Model]:
        """Models for which ``test(provider, id, name)`` holds; only providers with a match are built.

        An unbuilt catalogue-only provider is searched in its rows' ids and names.
        """
        from .catalog import builtin_catalog

        out: list[Model] = []
        for pid in self._order:
            if pid not in self._built and self.is_catalog_only(pid):
                hits = [mid for mid, name in builtin_catalog().id_names(pid) if test(pid, mid, name)]
                out.extend(m for mid in hits if (m := self.find(pid, mid)) is not None)
            else:
                out.extend(m for m in self.models_of(pid) if test(pid, m.id, m.name))
        return out

    # ------------------------------------------------------------------ changing

    def put(self, model: Model) -> None:
        """Add or replace one model (an extension's ``add_model``)."""
        if model.provider not in self._order:
            self._order.append(model.provider)
        self.models_of(model.provider)
        self._built[model.provider][model.id] = model
        self._extra[(model.provider, model.id)] = model

    # ------------------------------------------------------------------ building

    def _build(self, pid: str) -> dict[str, Model]:
        models: dict[str, Model] = {}
        if self._builtins:
            for model in self._shipped(pid):
                models[model.id] = model
        for (provider, mid), model in self._extra.items():
            if provider == pid:
                models[mid] = model
        cfg = self.configs.get(pid)
        if cfg is not None:
            self._apply_provider(cfg, models)
        return models

    def _shipped(self, pid: str) -> list[Model]:
        from .catalog import builtin_catalog
        from .catalog.build import trusted_model

        catalog = builtin_catalog()
        cfg = self.configs.get(pid)
        if cfg is not None and cfg.fields.oauth == "radius" and cfg.fields.base_url:
            # Radius's shipped models are its own gateway's; another gateway's come from its refresh.
            from .catalog.refresh import DEFAULT_RADIUS_GATEWAY

            if not cfg.fields.base_url.rstrip("/").startswith(DEFAULT_RADIUS_GATEWAY):
                shipped = []
            else:
                shipped = [trusted_model(pid, row) for row in catalog.rows(pid)]
        else:
            shipped = [trusted_model(pid, row) for row in catalog.rows(pid)]
        raw = self._store_raw.get(pid)
        if raw is None:
            return shipped
        from .catalog.overlay import overlay
        from .catalog.store import decode_entry

        return overlay(pid, shipped, decode_entry(raw), catalog.generated_at_ms)

    def _apply_provider(self, cfg: ProviderConfig, models: dict[str, Model]) -> None:
        pid, f = cfg.id, cfg.fields
        # A provider-level baseUrl or compat re-points the provider's existing models too (not
        # a Radius gateway's: there baseUrl names the gateway, and its models say where to go).
        repoint = bool(f.base_url) and f.oauth != "radius"
        if repoint or f.compat:
            for model in list(models.values()):
                update: dict[str, Any] = {}
                if repoint:
                    update["base_url"] = f.base_url
                if f.compat:
                    update["compat"] = {**(model.compat or {}), **f.compat}
                models[model.id] = model.model_copy(update=update)
        if not models and not cfg.models:
            self.warnings.append(f"{cfg.where}: not a built-in provider and defines no models")
        for index, mdef in enumerate(cfg.models):
            defaults = _defaults_for(models.values(), mdef.id, mdef.api or f.api)
            built = self._build_model(pid, mdef, defaults, cfg, index)
            if built is not None:
                models[built.id] = built
        for mid, override in cfg.overrides.items():
            target = models.get(mid)
            if target is None:
                self.warnings.append(f"{cfg.where}.modelOverrides: no model '{mid}' to override; ignored")
                continue
            models[mid] = self._apply_override(target, override, f"{cfg.where}.modelOverrides.{mid}")

    def _build_model(self, pid: str, mdef: ModelDef, defaults: Model | None, cfg: ProviderConfig,
                     index: int) -> Model | None:
        where = f"{cfg.where}.models[{index}]"
        api = mdef.api or cfg.fields.api or (defaults.api if defaults else None)
        url = mdef.base_url or cfg.fields.base_url or (defaults.base_url if defaults else None)
        if not api or not url:
            missing = " and ".join(n for n, v in (("api", api), ("baseUrl", url)) if not v)
            self.errors.append(
                f"{where}: no {missing} for model '{mdef.id}' (set it on the provider or the model)"
            )
            return None
        data = {k: v for k, v in mdef.model_dump(by_alias=True, exclude_none=True).items()
                if k in MODEL_FIELDS}
        data.update(id=mdef.id, provider=pid, api=api, baseUrl=url)
        data.setdefault("name", mdef.id)
        if cfg.fields.compat or mdef.compat:
            data["compat"] = {**(cfg.fields.compat or {}), **(mdef.compat or {})}
        for key in ("contextWindow", "maxTokens"):
            if key in data:
                data[key] = int(data[key])
        if mdef.headers:
            self.model_headers[(pid, mdef.id)] = (dict(mdef.headers), f"{where}.headers")
        model: Model = Model.model_validate(data)
        return model

    def _apply_override(self, model: Model, override: ModelOverride, where: str) -> Model:
        data = model.to_wire()
        patch = override.model_dump(by_alias=True, exclude_unset=True)
        for key, value in patch.items():
            if key == "headers" and value:
                headers, _ = self.model_headers.get((model.provider, model.id), ({}, ""))
                self.model_headers[(model.provider, model.id)] = ({**headers, **value}, f"{where}.headers")
            elif key not in MODEL_FIELDS:
                continue
            elif key == "samplingParamsByThinkingLevel" and isinstance(data.get(key), dict):
                merged = dict(data[key])
                for level, params in value.items():
                    merged[level] = {**merged.get(level, {}), **params}
                data[key] = merged
            elif isinstance(value, dict) and isinstance(data.get(key), dict):
                data[key] = {**data[key], **value}
            else:
                data[key] = int(value) if key in ("contextWindow", "maxTokens") else value
        patched: Model = Model.model_validate(data)
        return patched


def _defaults_for(models: Iterable[Model], model_id: str, api: str | None) -> Model | None:
    """The model a models.json definition takes a missing ``api``/``baseUrl`` from, as Pi picks it:
    the same id, else one with the same API, else an openai-completions one, else the first."""
    pool = list(models)
    return (next((m for m in pool if m.id == model_id), None)
            or (next((m for m in pool if m.api == api), None) if api else None)
            or next((m for m in pool if m.api == "openai-completions"), None)
            or (pool[0] if pool else None))
