"""Skills in the Agent Skills format: a folder with a ``SKILL.md`` (front matter + instructions).

Only each skill's name, description and location go into the system prompt; the model reads
the file when a task matches. ``/skill:name args`` forces a skill: :func:`expand_skill_command`
turns it into the message Pi sends (the skill body in a ``<skill>`` block, then the arguments).

Discovery in a folder: a folder holding ``SKILL.md`` is one skill (not searched further);
otherwise direct ``*.md`` files of the top folder are standalone skills when they have a
description, and subfolders are searched for ``SKILL.md``. Hidden folders and ``node_modules``
are skipped. A name collision keeps the first skill found and warns.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Literal

from pi_runtime.resources.diagnostics import ResourceDiagnostic

from ..records import record
from ..walk_guard import WalkGuard

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
SKILL_FILE = "SKILL.md"
_COMMAND_PREFIX = "/skill:"

SkillSource = Literal["user", "project", "path"]


# Compiled when first needed, not at import: a start-up without skills and a prompt that is not
# ``/skill:...`` use neither pattern.
@cache
def _name_pattern() -> re.Pattern[str]:
    return re.compile(r"^[a-z0-9-]+$")


@cache
def _command_pattern() -> re.Pattern[str]:
    return re.compile(r"^/skill:(\S+)(?:\s+(.*))?$", re.DOTALL)


def _xml_escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML entities (xml.sax.saxutils.escape costs ~13 ms to import)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@record(frozen=True, slots=True)
class Skill:
    """A discovered skill."""

    name: str
    """Command and display name (front matter ``name``, else the folder name)."""
    description: str
    """When the model should use it."""
    file_path: Path
    """The ``SKILL.md`` (or standalone ``.md``) file."""
    base_dir: Path
    """Folder that relative paths in the skill resolve against."""
    source: SkillSource
    """Where it came from: user (agent dir, ~/.agents), project, or an explicit path."""
    disable_model_invocation: bool = False
    """Only usable through ``/skill:name``; left out of the system prompt."""


class SkillError(Exception):
    """A skill could not be expanded (e.g. its file vanished or became unreadable)."""


def validate_name(name: str) -> list[str]:
    """Problems with a skill name under the Agent Skills rules (empty when valid)."""
    problems = []
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _name_pattern().match(name):
        problems.append("name may only contain lowercase letters a-z, digits 0-9 and hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def load_skill_file(path: Path, source: SkillSource) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """Read one skill file.

    Returns:
        The skill (None when it cannot be used) and warnings. A ``SKILL.md`` without a
        description is reported and not loaded; a standalone ``.md`` without one is silently
        not a skill.
    """
    declared = path.name == SKILL_FILE
    warnings: list[ResourceDiagnostic] = []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [ResourceDiagnostic("skill", path, f"cannot read skill file ({exc})")]
    # The front-matter parser loads with the first skill file found, not with every start-up.
    from pi_runtime.resources.frontmatter import FrontmatterError, parse_frontmatter

    try:
        fields, _ = parse_frontmatter(text)
    except FrontmatterError as exc:
        if declared:
            warnings.append(ResourceDiagnostic("skill", path, f"malformed front matter: {exc}; skill not loaded"))
        return None, warnings
    value = fields.get("description")
    description = value if isinstance(value, str) else ""
    has_description = bool(description.strip())
    if not declared and not has_description:
        return None, warnings
    if not has_description:
        warnings.append(ResourceDiagnostic("skill", path, "description is required; skill not loaded"))
    elif len(description) > MAX_DESCRIPTION_LENGTH:
        warnings.append(
            ResourceDiagnostic(
                "skill", path, f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})"
            )
        )
    declared_name = fields.get("name")
    if declared_name is not None and not isinstance(declared_name, str):
        warnings.append(ResourceDiagnostic("skill", path, "name must be a string; using the folder name"))
        declared_name = None
    name = declared_name or (path.parent.name if declared else path.stem)
    for problem in validate_name(name):
        warnings.append(ResourceDiagnostic("skill", path, problem))
    if not has_description:
        return None, warnings
    skill = Skill(
        name=name,
        description=description.strip(),
        file_path=path.resolve(),
        base_dir=path.parent.resolve(),
        source=source,
        disable_model_invocation=fields.get("disable-model-invocation") is True,
    )
    return skill, warnings


def _scan(root: Path, source: SkillSource, guard: WalkGuard) -> tuple[list[Skill], list[ResourceDiagnostic]]:
    """Skills under ``root`` in name order, depth first, without recursion (a tree nested 2,000
    folders deep must not exhaust the stack)."""
    skills: list[Skill] = []
    warnings: list[ResourceDiagnostic] = []
    open_folders: list[tuple[Iterator[os.DirEntry[str]], bool]] = []

    def add(path: Path) -> None:
        skill, found = load_skill_file(path, source)
        skills.extend([skill] if skill else [])
        warnings.extend(found)

    def visit(folder: Path, top: bool) -> None:
        if not guard.enter(folder):  # entered before through a link (a loop), or past the bound
            return
        if (folder / SKILL_FILE).is_file():
            add(folder / SKILL_FILE)
            return
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        open_folders.append((iter(entries), top))

    visit(root, True)
    while open_folders:
        entries, top = open_folders[-1]
        entry = next(entries, None)
        if entry is None:
            open_folders.pop()
            continue
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        try:
            is_dir = entry.is_dir()  # follows symlinks; a broken link is neither
            is_file = entry.is_file()
        except OSError:
            continue
        if is_dir:
            visit(Path(entry.path), False)
        elif is_file and top and entry.name.endswith(".md"):
            add(Path(entry.path))
    return skills, warnings


def load_skills_from(path: Path, source: SkillSource) -> tuple[list[Skill], list[ResourceDiagnostic]]:
    """Skills in a folder (searched as described above) or in a single ``.md`` file.

    Links are followed, but each folder is entered once and the walk is bounded
    (``walk_guard``): links that loop (``loop0 -> .``, ``loop1 -> .``) cannot hang start-up.
    """
    if path.is_dir():
        guard = WalkGuard()
        skills, warnings = _scan(path, source, guard)
        note = guard.note()
        if note:
            warnings.append(ResourceDiagnostic("skill", path, note))
        return skills, warnings
    if path.is_file() and path.suffix == ".md":
        skill, warnings = load_skill_file(path, source)
        return ([skill] if skill else []), warnings
    if path.exists():
        return [], [ResourceDiagnostic("skill", path, "skill path is not a folder or a .md file")]
    return [], []


def project_skill_dirs(cwd: Path, home: Path | None = None) -> list[Path]:
    """``.agents/skills`` folders from cwd up to the git repository root (or the filesystem root).

    The user's own ``~/.agents/skills`` is excluded: it is a user resource, not a project one.
    """
    cwd = cwd.resolve()
    user_dir = (home or Path.home()).resolve() / ".agents" / "skills"
    found = []
    for folder in [cwd, *cwd.parents]:
        candidate = folder / ".agents" / "skills"
        if candidate != user_dir and candidate.is_dir():
            found.append(candidate)
        if (folder / ".git").exists():
            break
    return found


def merge_skills(
    groups: Iterable[tuple[list[Skill], list[ResourceDiagnostic]]],
) -> tuple[list[Skill], list[ResourceDiagnostic]]:
    """Combine skill lists in priority order: the first of a name wins; a file seen twice counts once."""
    by_name: dict[str, Skill] = {}
    files: set[Path] = set()
    warnings: list[ResourceDiagnostic] = []
    collisions: list[ResourceDiagnostic] = []
    for skills, found in groups:
        warnings.extend(found)
        for skill in skills:
            real = skill.file_path.resolve()
            if real in files:
                continue
            winner = by_name.get(skill.name)
            if winner is not None:
                collisions.append(
                    ResourceDiagnostic(
                        "skill",
                        skill.file_path,
                        f'skill name "{skill.name}" is already used by {winner.file_path}; this one is ignored',
                    )
                )
                continue
            by_name[skill.name] = skill
            files.add(real)
    return list(by_name.values()), warnings + collisions


def format_skills_for_prompt(skills: Iterable[Skill], read_tool: str | None = "read") -> str:
    """The skills part of the system prompt ("" when no skill may be chosen by the model).

    Args:
        skills: Loaded skills; those with ``disable_model_invocation`` are left out.
        read_tool: Tool the model should read skill files with (``read`` or ``bash``).
    """
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    how = f"Use the {read_tool} tool to open" if read_tool else "Open"
    lines = [
        "Skills give you detailed instructions for particular kinds of task.",
        f"{how} a skill's file when the task matches its description, then follow it.",
        "Paths inside a skill file are relative to the folder holding that file; "
        "turn them into absolute paths before using them in tool calls.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_xml_escape(skill.name)}</name>",
            f"    <description>{_xml_escape(skill.description)}</description>",
            f"    <location>{_xml_escape(str(skill.file_path))}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def parse_skill_command(text: str) -> tuple[str, str] | None:
    """Split ``/skill:name args`` into ``(name, args)``; None when ``text`` is not one."""
    text = text.strip()
    if not text.startswith(_COMMAND_PREFIX):
        return None
    match = _command_pattern().match(text)
    if not match:
        return None
    return match.group(1), (match.group(2) or "").strip()


def expand_skill_command(text: str, skills: Iterable[Skill]) -> str:
    """Turn ``/skill:name args`` into the user message Pi sends for it.

    The skill file is read now (it may have changed since start-up) and its body, without
    front matter, is wrapped as ``<skill name=".." location="..">`` with a note on where
    relative paths point; the arguments follow after a blank line.

    Args:
        text: What the user typed.
        skills: Loaded skills (including ``disable-model-invocation`` ones).

    Returns:
        The expanded text, or ``text`` unchanged when it is not a command for a known skill.

    Raises:
        SkillError: The skill's file can no longer be read or parsed.
    """
    parsed = parse_skill_command(text)
    if parsed is None:
        return text
    name, args = parsed
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    from pi_runtime.resources.frontmatter import FrontmatterError, parse_frontmatter

    try:
        _, body = parse_frontmatter(skill.file_path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        raise SkillError(f"cannot load skill {name!r} from {skill.file_path}: {exc}") from exc
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n"
        f"{body.strip()}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block
