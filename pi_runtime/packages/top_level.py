"""The resources pi finds by itself in a settings file's folder, as ``pi config`` lists them: the
agent folder's (personal) or the project's ``.pi`` (project) ``extensions/``, ``skills/``,
``prompts/`` and ``themes/`` (packages.md, "Enable and Disable Resources"; Pi's "User (…)" and
"Project (.pi/)" groups).

A resource is named in its settings file's list by its path from that folder (a skill by its
``SKILL.md``), and turned off or on with ``-path``/``+path`` there, which sessions apply through
:mod:`pi_runtime.resources.overrides`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .manifest import Kind


def found_in(base: Path, *, skills_only: bool = False) -> Iterator[tuple[Kind, Path, str]]:
    """``(kind, path, name shown)`` of each resource in ``base``'s resource folders, by kind and name
    (``skills_only``: its ``skills/`` alone, as in ``~/.agents``)."""
    from ..extensions.discovery import extensions_in
    from ..resources.prompt_templates import load_templates_from
    from ..resources.skills import load_skills_from

    for path in [] if skills_only else extensions_in(base / "extensions"):
        yield "extensions", path, path.name
    skills, _problems = load_skills_from(base / "skills", "user")
    for skill in sorted(skills, key=lambda s: s.name):
        shown = skill.file_path.parent.name if skill.file_path.name == "SKILL.md" else skill.file_path.name
        yield "skills", skill.file_path, shown
    if skills_only:
        return
    templates, _problems = load_templates_from(base / "prompts", "user")
    for template in sorted(templates, key=lambda t: t.file_path.name):
        yield "prompts", template.file_path, template.file_path.name
    themes = base / "themes"
    for path in sorted(themes.glob("*.json")) if themes.is_dir() else []:
        yield "themes", path, path.name


def loaded(path: Path, entries: Any, base: Path) -> bool:
    """Whether the settings list ``entries`` (of the file in ``base``) leaves ``path`` on."""
    from ..resources.overrides import enabled

    signed = [e.strip() for e in entries if isinstance(e, str) and e.strip()[:1] in ("!", "+", "-")] \
        if isinstance(entries, list) else []
    return enabled(path, signed, base)


def group_label(base: Path, personal: bool) -> str:
    """Pi's heading: ``User (~/.pi/agent/)`` or ``Project (.pi/)``."""
    if not personal:
        return "Project (.pi/)"
    home = Path.home()
    shown = f"~/{base.relative_to(home).as_posix()}" if base.is_relative_to(home) else base.as_posix()
    return f"User ({shown.rstrip('/')}/)"
