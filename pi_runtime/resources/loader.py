"""ResourceLoader: everything a session reads from disk besides settings and sessions.

For one working directory it gathers context files, skills, prompt templates and the
SYSTEM.md / APPEND_SYSTEM.md texts into a :class:`Resources` value, with the problems found
along the way as warnings (nothing here raises for a bad file). Project resources under
``.pi/`` and project ``.agents/skills`` are read only when the project is trusted; context
files always are. :meth:`ResourceLoader.reload` reads everything again (``/reload``).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from pi_runtime.paths import PROJECT_DIR_NAME
from pi_runtime.paths import agent_dir as default_agent_dir
from pi_runtime.resources.context_files import ContextFile, load_context_files
from pi_runtime.resources.diagnostics import ResourceDiagnostic
from pi_runtime.resources.own_docs import OwnDocs, find_own_docs
from pi_runtime.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_templates_from,
    merge_templates,
)
from pi_runtime.resources.skills import (
    Skill,
    expand_skill_command,
    load_skills_from,
    merge_skills,
    project_skill_dirs,
)
from pi_runtime.resources.system_prompt import SystemPromptSections, build_system_prompt_sections
from pi_runtime.settings import SettingsManager

from ..records import record

SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"


@record(frozen=True, slots=True)
class PromptText:
    """A system-prompt text and where it came from."""

    text: str
    """The text."""
    origin: Literal["cli", "project", "global"]
    """An explicit argument, the project's ``.pi/`` file or the agent dir's file."""
    path: Path | None = None
    """The file, when it came from one."""


@record
class Resources:
    """What was loaded for one working directory."""

    cwd: Path
    """Working directory the resources belong to."""
    agent_dir: Path
    """Agent dir used."""
    project_trusted: bool
    """Whether ``.pi/`` resources were allowed."""
    context_files: list[ContextFile] = field(default_factory=list)
    """AGENTS.md / CLAUDE.md files, outermost first."""
    skills: list[Skill] = field(default_factory=list)
    """Skills, including ones hidden from the model."""
    prompt_templates: list[PromptTemplate] = field(default_factory=list)
    """Prompt templates (``/name`` commands)."""
    system_prompt: PromptText | None = None
    """SYSTEM.md or ``--system-prompt`` (replaces the default preamble, tools and rules)."""
    append_system_prompt: PromptText | None = None
    """APPEND_SYSTEM.md or ``--append-system-prompt``."""
    warnings: list[ResourceDiagnostic] = field(default_factory=list)
    """Problems found while loading."""
    own_docs: OwnDocs | None = field(default_factory=find_own_docs)
    """pi's own README, docs and examples, named in the prompt's ``docs`` section."""

    def system_prompt_sections(
        self,
        tools: Mapping[str, str] | Sequence[str] | None = None,
        *,
        guidelines: Iterable[str] = (),
        today: _dt.date | None = None,
        include_date: bool = False,
        extra_sections: Mapping[str, str] | None = None,
    ) -> SystemPromptSections:
        """The system prompt sections for these resources and the given active tools.

        Args:
            tools: Active tools, name -> one-line description (or names; None = defaults).
            guidelines: Extra rules from tools or extensions.
            today: Date shown to the model (today when None).
            include_date: Add a ``date`` section (off by default: see ``build_system_prompt_sections``).
            extra_sections: Additional named sections.
        """
        return build_system_prompt_sections(
            cwd=self.cwd,
            tools=tools,
            guidelines=guidelines,
            custom_prompt=self.system_prompt.text if self.system_prompt else None,
            append_prompt=self.append_system_prompt.text if self.append_system_prompt else None,
            context_files=self.context_files,
            skills=self.skills,
            today=today,
            include_date=include_date,
            extra_sections=extra_sections,
            own_docs=self.own_docs,
        )

    def expand_input(self, text: str) -> str:
        """Expand ``/skill:name args`` or a ``/template args`` command; other text is unchanged.

        Raises:
            pi_runtime.resources.skills.SkillError: The skill's file can no longer be read.
        """
        expanded = expand_skill_command(text, self.skills)
        if expanded != text:
            return expanded
        return expand_prompt_template(text, self.prompt_templates)


class ResourceLoader:
    """Discovers resources for a working directory; call :meth:`reload` to (re)read them."""

    def __init__(
        self,
        cwd: str | os.PathLike[str] | None = None,
        agent_dir: str | os.PathLike[str] | None = None,
        *,
        settings: SettingsManager | None = None,
        project_trusted: bool | None = None,
        no_context_files: bool = False,
        no_skills: bool = False,
        no_prompt_templates: bool = False,
        skill_paths: Iterable[str | os.PathLike[str]] = (),
        prompt_paths: Iterable[str | os.PathLike[str]] = (),
        system_prompt: str | None = None,
        append_system_prompt: str | None = None,
        home: str | os.PathLike[str] | None = None,
    ) -> None:
        """Configure discovery.

        Args:
            cwd: Working directory (process cwd when omitted).
            agent_dir: Agent dir (``PI_CODING_AGENT_DIR`` / ``~/.pi/agent`` when omitted).
            settings: Supplies the ``skills`` / ``prompts`` path lists; optional.
            project_trusted: Allow ``.pi/`` resources. Defaults to the settings manager's
                trust, else True (the SDK default, as in Pi).
            no_context_files: Skip AGENTS.md / CLAUDE.md (``-nc``).
            no_skills: Skip skill discovery; ``skill_paths`` still load (``-ns``).
            no_prompt_templates: Skip template discovery; ``prompt_paths`` still load.
            skill_paths: Extra skill files or folders (``--skill``).
            prompt_paths: Extra template files or folders.
            system_prompt: Replaces any SYSTEM.md (``--system-prompt``).
            append_system_prompt: Replaces any APPEND_SYSTEM.md (``--append-system-prompt``).
            home: Home folder for ``~/.agents/skills`` (tests point it at a temp folder).
        """
        self.cwd = Path(cwd if cwd is not None else os.getcwd()).resolve()
        self.agent_dir = Path(agent_dir) if agent_dir is not None else default_agent_dir()
        self.settings = settings
        if project_trusted is None:
            project_trusted = settings.project_trusted if settings is not None else True
        self.project_trusted = project_trusted
        self.no_context_files = no_context_files
        self.no_skills = no_skills
        self.no_prompt_templates = no_prompt_templates
        self.skill_paths = [Path(p).expanduser() for p in skill_paths]
        self.prompt_paths = [Path(p).expanduser() for p in prompt_paths]
        self.discovered_skill_paths: list[Path] = []
        """Skill paths extensions returned from ``resources_discover`` (replaced at each discovery)."""
        self.discovered_prompt_paths: list[Path] = []
        """Prompt template paths from ``resources_discover``."""
        self.discovered_theme_paths: list[Path] = []
        """Theme files or folders from ``resources_discover`` (the app loads them)."""
        self.system_prompt_override = system_prompt
        self.append_system_prompt_override = append_system_prompt
        self.home = Path(home) if home is not None else Path.home()
        self._resources: Resources | None = None
        self._packages: Any = None
        self._fresh_packages = False

    @property
    def resources(self) -> Resources:
        """The last loaded resources (loaded on first use)."""
        if self._resources is None:
            return self.reload()
        return self._resources

    @property
    def packages(self) -> Any:
        """The configured pi packages' resources (``pi_runtime.packages``), or None without any.

        Resolved once per :meth:`reload`; nothing of the packages code is imported when no
        settings file declares ``packages``.
        """
        if self._packages is None:
            from pi_runtime.packages import has_packages

            self._packages = False
            if has_packages(self.settings, self.project_trusted):
                from pi_runtime.packages.resolve import resolve_packages

                self._packages = resolve_packages(self.settings, self.cwd, project_trusted=self.project_trusted,
                                                  fresh=self._fresh_packages)
            self._fresh_packages = False
        return self._packages or None

    def set_project_trusted(self, trusted: bool) -> Resources:
        """Apply a trust decision made after construction and reload."""
        self.project_trusted = trusted
        return self.reload()

    def reload(self) -> Resources:
        """Read everything again.

        Returns:
            The new :class:`Resources` (also kept in :attr:`resources`).
        """
        out = Resources(cwd=self.cwd, agent_dir=self.agent_dir, project_trusted=self.project_trusted)
        if self._resources is not None:
            self._packages = None  # a re-read (/reload): settings may list other packages now
            self._fresh_packages = True
        if not self.no_context_files:
            out.context_files, found = load_context_files(self.cwd, self.agent_dir)
            out.warnings.extend(found)
        out.skills, found = merge_skills(self._skill_groups())
        out.warnings.extend(found)
        out.prompt_templates, found = merge_templates(self._template_groups())
        out.warnings.extend(found)
        if self.packages is not None:
            out.warnings.extend(ResourceDiagnostic("package", None, w) for w in self.packages.warnings)
        out.system_prompt = self._prompt_text(SYSTEM_FILE, self.system_prompt_override, out.warnings)
        out.append_system_prompt = self._prompt_text(
            APPEND_SYSTEM_FILE, self.append_system_prompt_override, out.warnings
        )
        self._resources = out
        return out

    def theme_paths(self) -> list[Path]:
        """Theme files and folders beyond the agent dir's and the project's ``themes/``: what the
        configured packages offer, then what extensions returned from ``resources_discover``.
        Themes are drawn by the app, so the runtime only says where they are."""
        packages = self.packages
        offered = packages.paths("themes") if packages is not None else []
        return [*offered, *self.discovered_theme_paths]

    def _settings_paths(self, kind: Literal["skills", "prompts"]) -> list[Path]:
        if self.settings is None:
            return []
        return self.settings.resource_paths(kind)

    def _package_paths(self, kind: Literal["skills", "prompts"]) -> list[Path]:
        packages = self.packages
        return packages.paths(kind) if packages is not None else []

    def _skill_groups(self) -> list[tuple[list[Skill], list[ResourceDiagnostic]]]:
        groups = []
        if not self.no_skills:
            groups.append(load_skills_from(self.agent_dir / "skills", "user"))
            groups.append(load_skills_from(self.home / ".agents" / "skills", "user"))
            if self.project_trusted:
                groups.append(load_skills_from(self.cwd / PROJECT_DIR_NAME / "skills", "project"))
                for folder in project_skill_dirs(self.cwd, self.home):
                    groups.append(load_skills_from(folder, "project"))
            for path in self._settings_paths("skills"):
                groups.append(self._explicit(path, "skill", load_skills_from))
            for path in self._package_paths("skills"):
                groups.append(load_skills_from(path, "path"))
        for path in [*self.skill_paths, *self.discovered_skill_paths]:
            groups.append(self._explicit(path, "skill", load_skills_from))
        return groups

    def _template_groups(self) -> list[tuple[list[PromptTemplate], list[ResourceDiagnostic]]]:
        groups = []
        if not self.no_prompt_templates:
            groups.append(load_templates_from(self.agent_dir / "prompts", "user"))
            if self.project_trusted:
                groups.append(load_templates_from(self.cwd / PROJECT_DIR_NAME / "prompts", "project"))
            for path in self._settings_paths("prompts"):
                groups.append(self._explicit(path, "prompt", load_templates_from))
            for path in self._package_paths("prompts"):
                groups.append(load_templates_from(path, "path"))
        for path in [*self.prompt_paths, *self.discovered_prompt_paths]:
            groups.append(self._explicit(path, "prompt", load_templates_from))
        return groups

    def _explicit(self, path: Path, kind: str, load: Callable[[Path, Any], tuple[list[Any], list[ResourceDiagnostic]]]) -> tuple[list[Any], list[ResourceDiagnostic]]:
        resolved = path if path.is_absolute() else self.cwd / path
        if not resolved.exists():
            return [], [ResourceDiagnostic(kind, resolved, f"{kind} path does not exist")]
        return load(resolved, "path")

    def _prompt_text(
        self, name: str, override: str | None, warnings: list[ResourceDiagnostic]
    ) -> PromptText | None:
        if override is not None:
            return PromptText(override, "cli")
        candidates: list[tuple[Literal["project", "global"], Path]] = []
        if self.project_trusted:
            candidates.append(("project", self.cwd / PROJECT_DIR_NAME / name))
        candidates.append(("global", self.agent_dir / name))
        for origin, path in candidates:
            if not path.is_file():
                continue
            try:
                return PromptText(path.read_text(encoding="utf-8-sig"), origin, path)
            except (OSError, UnicodeDecodeError) as exc:
                warnings.append(ResourceDiagnostic("system", path, f"cannot read {name} ({exc})"))
        return None
