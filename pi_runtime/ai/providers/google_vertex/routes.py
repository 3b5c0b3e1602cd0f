"""Where a Vertex AI request goes: host, API version, project path and the model's resource name.

As Pi 1.6 (through Google's ``@google/genai``) builds it:

- with Application Default Credentials, ``https://{location}-aiplatform.googleapis.com/v1/projects/
  {project}/locations/{location}/{model}`` (``aiplatform.googleapis.com`` for ``global``,
  ``aiplatform.{us|eu}.rep.googleapis.com`` for the multi-regions);
- with an API key (Vertex express mode), ``https://aiplatform.googleapis.com/v1/{model}``;
- with a custom ``baseUrl`` (one without the catalogue's ``{location}`` placeholder), that URL,
  ``/v1`` unless it names a version itself, then ``{model}``: no project path.

``{model}`` is ``publishers/google/models/{id}``, ``publishers/{publisher}/models/{name}`` for
``publisher/name`` ids, or the id itself when it is already a resource name.

Claude models (publisher ``anthropic``, or a bare ``claude-…`` id) go to ``:streamRawPredict``
with an Anthropic Messages body, which is how Vertex serves them. Pi 1.6 has no Claude models
on Vertex and would send a Claude id to ``:streamGenerateContent``; this route is pi's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from ...types import Model

Route = Literal["gemini", "anthropic"]
_VERSION_SEGMENT = re.compile(r"^v\d+(?:beta\d*)?$")
_MULTI_REGIONS = ("us", "eu")
ANTHROPIC_VERSION = "vertex-2023-10-16"


class VertexConfigError(Exception):
    """Project or location missing for Application Default Credentials; ``str()`` names what to set."""


@dataclass(frozen=True)
class Place:
    """Project and location (both None with an API key or a custom base URL)."""

    project: str | None
    location: str | None


def resource_name(model_id: str) -> str:
    """The model's resource name, as Google's SDK makes it from an id."""
    if model_id.startswith(("publishers/", "projects/", "models/")):
        return model_id
    if "/" in model_id:
        publisher, name = model_id.split("/", 1)
        return f"publishers/{publisher}/models/{name.split('/', 1)[0]}"
    if model_id.startswith("claude-"):
        return f"publishers/anthropic/models/{model_id}"
    return f"publishers/google/models/{model_id}"


def route(model_id: str) -> Route:
    """``anthropic`` for Claude (served through rawPredict), else ``gemini``."""
    return "anthropic" if "/publishers/anthropic/" in f"/{resource_name(model_id)}" else "gemini"


def custom_base(model: Model) -> str | None:
    """The model's base URL when it replaces Vertex's hosts (the catalogue's template does not)."""
    base = (model.base_url or "").strip()
    return base if base and "{location}" not in base else None


def project_and_location(env: Mapping[str, str], extra: Mapping[str, object]) -> Place:
    """Pi's names: ``GOOGLE_CLOUD_PROJECT`` (or ``GCLOUD_PROJECT``) and ``GOOGLE_CLOUD_LOCATION``.

    Raises:
        VertexConfigError: Either is missing (the message is Pi's).
    """
    project = extra.get("project") or env.get("GOOGLE_CLOUD_PROJECT") or env.get("GCLOUD_PROJECT")
    if not project:
        raise VertexConfigError("Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT "
                                "or pass project in options.")
    location = extra.get("location") or env.get("GOOGLE_CLOUD_LOCATION")
    if not location:
        raise VertexConfigError("Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location "
                                "in options.")
    return Place(str(project), str(location))


def _host(location: str) -> str:
    if location == "global":
        return "https://aiplatform.googleapis.com"
    if location in _MULTI_REGIONS:
        return f"https://aiplatform.{location}.rep.googleapis.com"
    return f"https://{location}-aiplatform.googleapis.com"


def _names_version(url: str) -> bool:
    try:
        path = urlsplit(url).path
    except ValueError:
        path = url
    return any(_VERSION_SEGMENT.match(part) for part in path.split("/"))


def url(model: Model, place: Place | None, env: Mapping[str, str]) -> str:
    """The streaming URL for ``model`` (``place`` None: API key, no project path)."""
    name = resource_name(model.id)
    method = "streamRawPredict" if route(model.id) == "anthropic" else "streamGenerateContent?alt=sse"
    base = custom_base(model)
    if base is not None:
        version = "" if _names_version(base) else "/v1"
        return f"{base.rstrip('/')}{version}/{name}:{method}"
    root = env.get("GOOGLE_VERTEX_BASE_URL") or (
        _host(place.location) if place is not None and place.location else "https://aiplatform.googleapis.com")
    prefix = ""
    if place is not None and not name.startswith("projects/"):
        prefix = f"projects/{place.project}/locations/{place.location}/"
    return f"{root.rstrip('/')}/v1/{prefix}{name}:{method}"
