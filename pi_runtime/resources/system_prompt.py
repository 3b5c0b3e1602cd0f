"""The system prompt, built from named sections.

Sections, in order: ``preamble`` (who the assistant is), ``tools`` (one line per active tool),
``rules`` (working guidelines), ``docs`` (where pi's own documentation is), ``addendum`` (APPEND_SYSTEM.md / ``--append-system-prompt``),
``project_context`` (context files), ``skills``, ``cwd``, ``date``, then any extra sections
(e.g. from extensions). As in Pi, ``preamble`` is plain text and every other section is wrapped
in a tag of its own name, so a later change to one section can be told to the model by name.

A ``SYSTEM.md`` (or ``--system-prompt``) replaces the default preamble, tools, rules and docs; the
addendum, project context, skills and cwd are still added after it.

Front ends list :meth:`SystemPromptSections.names` to show what was loaded; extensions call
:meth:`SystemPromptSections.set` / :meth:`~SystemPromptSections.remove` to change a section.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path

from pi_runtime.resources.context_files import ContextFile
from pi_runtime.resources.own_docs import OwnDocs, render_docs_section
from pi_runtime.resources.skills import Skill, format_skills_for_prompt

from ..records import record

_SECTION_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")

DEFAULT_PREAMBLE = (
    "You are an expert software engineer working as a coding assistant inside pi, a coding agent "
    "harness. You help the user by reading files, running commands, editing code and writing new "
    "files, using the tools listed below."
)

#: One-line descriptions of the built-in tools for the ``tools`` section. The model gets each
#: tool's full description with its parameters as well: repeating it here cost ~190 tokens
#: per request, which a small local model's context feels.
DEFAULT_TOOL_DESCRIPTIONS: dict[str, str] = {
    "read": "Read a file's contents (text or image)",
    "bash": "Run a shell command in the working directory",
    "edit": "Change parts of a file by replacing exact text, several changes in one call",
    "write": "Create a file or overwrite it completely",
    "grep": "Search file contents for a pattern (respects .gitignore)",
    "find": "Find files by glob pattern (respects .gitignore)",
    "ls": "List a directory",
}
DEFAULT_TOOLS = ("read", "bash", "edit", "write")


@record
class SystemPromptSections:
    """Ordered, named parts of the system prompt (raw text, before tag wrapping)."""

    sections: dict[str, str] = field(default_factory=dict)
    """Section name -> text, in prompt order; ``preamble`` first."""

    def names(self) -> list[str]:
        """Section names in order."""
        return list(self.sections)

    def get(self, name: str) -> str | None:
        """A section's text, or None."""
        return self.sections.get(name)

    def set(self, name: str, text: str, *, before: str | None = None) -> None:
        """Replace a section, or add it (at the end, or before ``before`` when that exists).

        Raises:
            ValueError: ``name`` is not lowercase letters, digits, ``_`` or ``-``.
        """
        if not _SECTION_NAME_RE.match(name):
            raise ValueError(f"invalid system prompt section name: {name!r}")
        if name in self.sections or before is None or before not in self.sections:
            self.sections[name] = text
            return
        reordered: dict[str, str] = {}
        for key, value in self.sections.items():
            if key == before:
                reordered[name] = text
            reordered[key] = value
        self.sections = reordered

    def remove(self, name: str) -> None:
        """Drop a section if present."""
        self.sections.pop(name, None)

    def wrapped(self) -> dict[str, str]:
        """Sections as the model sees them (Pi's ``SystemMessage.sections`` shape)."""
        out: dict[str, str] = {}
        for name, text in self.sections.items():
            if not text:
                continue
            out[name] = text if name == "preamble" else f"<{name}>\n{text}\n</{name}>"
        return out

    def render(self) -> str:
        """The whole prompt text."""
        return "\n\n".join(self.wrapped().values())


def build_system_prompt(sections: SystemPromptSections) -> str:
    """Render sections into the system prompt string.

    Args:
        sections: The sections to render.

    Returns:
        Non-empty sections joined by blank lines, all but ``preamble`` wrapped in tags.
    """
    return sections.render()


def build_rules(tool_names: Sequence[str], extra: Iterable[str] = ()) -> str:
    """Working guidelines that fit the active tools, plus ``extra`` ones (duplicates dropped)."""
    tools = set(tool_names)
    rules: list[str] = []

    def add(rule: str) -> None:
        rule = rule.strip()
        if rule and rule not in rules:
            rules.append(rule)

    explorers = tools & {"grep", "find", "ls"}
    if "bash" in tools and not explorers:
        add("Use bash for file operations such as ls, rg and find")
    elif "bash" in tools:
        add("Prefer the grep, find and ls tools to bash for exploring files: they are faster and respect .gitignore")
    if {"read", "edit"} <= tools:
        add("Read a file with the read tool before editing it; do not use cat or sed to look at files")
    if "edit" in tools:
        add("Use edit for targeted changes: each oldText must match the file exactly and only once;"
            " merge nearby changes into one edit and keep oldText short")
    if "write" in tools:
        add("Use write only for new files or complete rewrites")
    if tools & {"edit", "write"}:
        add("When you describe what you changed, write it as plain text; do not print it with bash or cat")
    for rule in extra:
        add(rule)
    add("Keep your answers concise")
    add("Show file paths clearly when you mention files")
    return "\n".join(f"- {rule}" for rule in rules)


def render_tools(tool_names: Sequence[str], descriptions: Mapping[str, str]) -> str:
    """One ``- name: description`` line per tool that has a description."""
    lines = [f"- {name}: {descriptions[name]}" for name in tool_names if descriptions.get(name)]
    listing = "\n".join(lines) if lines else "(none)"
    return f"{listing}\n\nDepending on the project, other tools may be available besides these."


def render_project_context(files: Iterable[ContextFile]) -> str:
    """Context files as ``<project_instructions path="...">`` blocks ("" when there are none)."""
    blocks = [
        f'<project_instructions path="{f.path}">\n{f.content}\n</project_instructions>' for f in files
    ]
    if not blocks:
        return ""
    return "\n\n".join(["Instructions and conventions for this project:", *blocks])


def build_system_prompt_sections(
    *,
    cwd: str | Path,
    tools: Mapping[str, str] | Sequence[str] | None = None,
    guidelines: Iterable[str] = (),
    custom_prompt: str | None = None,
    append_prompt: str | None = None,
    context_files: Iterable[ContextFile] = (),
    skills: Iterable[Skill] = (),
    today: _dt.date | None = None,
    include_date: bool = False,
    extra_sections: Mapping[str, str] | None = None,
    own_docs: OwnDocs | None = None,
) -> SystemPromptSections:
    """Assemble the sections for one session.

    Args:
        cwd: Working directory (shown to the model, with ``/`` separators).
        tools: Active tools, either name -> one-line description, or names only (built-in
            descriptions are then used). None means pi's default read/bash/edit/write.
        guidelines: Extra rules from tools or extensions.
        custom_prompt: SYSTEM.md text or ``--system-prompt``; replaces preamble, tools and rules.
        append_prompt: APPEND_SYSTEM.md text or ``--append-system-prompt``.
        context_files: Loaded context files, outermost first.
        skills: Loaded skills; listed only when the model has ``read`` or ``bash`` to open them.
        today: Date to show; today's date when None.
        include_date: Add a ``date`` section. Off by default, as in Pi 1.6: the date would change
            the prompt's first message every day, so a session resumed the next day would miss
            the provider's prompt cache for its whole history.
        extra_sections: More sections appended in order (name -> text).
        own_docs: Where pi's README, docs and examples are (``find_own_docs()``), named in a
            ``docs`` section after the rules so the agent can explain pi; None: no section.

    Returns:
        The sections; render them with :func:`build_system_prompt`.
    """
    if tools is None:
        descriptions = {name: DEFAULT_TOOL_DESCRIPTIONS[name] for name in DEFAULT_TOOLS}
    elif isinstance(tools, Mapping):
        descriptions = dict(tools)
    else:
        descriptions = {name: DEFAULT_TOOL_DESCRIPTIONS.get(name, "") for name in tools}
    tool_names = list(descriptions)

    result = SystemPromptSections()
    if custom_prompt is not None and custom_prompt.strip():
        result.set("preamble", custom_prompt.strip())
    else:
        result.set("preamble", DEFAULT_PREAMBLE)
        result.set("tools", render_tools(tool_names, descriptions))
        result.set("rules", build_rules(tool_names, guidelines))
        if own_docs is not None:
            result.set("docs", render_docs_section(own_docs))
    if append_prompt and append_prompt.strip():
        result.set("addendum", append_prompt.strip())
    project = render_project_context(context_files)
    if project:
        result.set("project_context", project)
    reader = next((name for name in ("read", "bash") if name in tool_names), None)
    if reader is not None:
        listing = format_skills_for_prompt(skills, reader)
        if listing:
            result.set("skills", listing)
    result.set("cwd", str(cwd).replace("\\", "/"))
    if include_date:
        result.set("date", (today or _dt.date.today()).isoformat())
    for name, text in (extra_sections or {}).items():
        if name == "preamble":
            raise ValueError("extra sections cannot replace the preamble; use custom_prompt")
        result.set(name, text)
    return result
