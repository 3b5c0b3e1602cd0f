"""``resources_discover``: extensions add skill and prompt-template paths after ``session_start``.

Pi's dynamic-resources example returns ``{"skillPaths": [...], "promptPaths": [...],
"themePaths": [...]}``. The paths of every handler are collected (relative ones against the
extension's working directory), handed to the session's resource loader, which reads them
like ``--skill`` paths, and the system prompt is rebuilt so the model sees the new skills.
Theme paths are kept on the loader (``theme_paths()``) for the app, which draws themes.
Each discovery replaces the previous one's paths, so a reloaded extension that stops
returning a path drops it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .events import ResourcesDiscoverEvent, result_field

if TYPE_CHECKING:
    from .runner import ExtensionRunner


def _paths(value: Any, key: str, base: str) -> list[Path]:
    raw = result_field(value, key)
    if isinstance(raw, (str, Path)):
        raw = [raw]
    if not isinstance(raw, (list, tuple)):
        return []
    return [Path(base, str(p)).expanduser() for p in raw if isinstance(p, (str, Path)) and str(p)]


async def discover_resources(runner: ExtensionRunner, reason: str) -> None:
    """Run the handlers (``reason``: ``startup`` or ``reload``) and load what they returned."""
    session = runner.session
    loader: Any = getattr(session, "resources", None) if session is not None else None
    if not runner.registry.has_handlers("resources_discover") or not hasattr(loader, "discovered_skill_paths"):
        return
    event = ResourcesDiscoverEvent(cwd=runner.cwd, reason=reason)
    skills: list[Path] = []
    prompts: list[Path] = []
    themes: list[Path] = []
    for ext, handler in runner.registry.handlers("resources_discover"):
        outcome = await runner.dispatcher.call(ext, handler, (event,), event="resources_discover", abortable=False)
        if outcome.failed or outcome.aborted or outcome.value is None:
            continue
        skills += _paths(outcome.value, "skill_paths", runner.cwd)
        prompts += _paths(outcome.value, "prompt_paths", runner.cwd)
        themes += _paths(outcome.value, "theme_paths", runner.cwd)
    loader.discovered_theme_paths = themes
    if skills == loader.discovered_skill_paths and prompts == loader.discovered_prompt_paths:
        return
    loader.discovered_skill_paths, loader.discovered_prompt_paths = skills, prompts
    loader.reload()
    runner.actions.refresh_system_prompt()
