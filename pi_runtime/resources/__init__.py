"""Resources a session loads from disk: context files, skills, prompt templates, system prompt, trust.

The names below load on first use: importing one submodule (``resources.trust``, which start-up
asks before anything else) must not import the whole loader with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_runtime.resources.context_files import ContextFile as ContextFile
    from pi_runtime.resources.context_files import load_context_files as load_context_files
    from pi_runtime.resources.diagnostics import ResourceDiagnostic as ResourceDiagnostic
    from pi_runtime.resources.frontmatter import FrontmatterError as FrontmatterError
    from pi_runtime.resources.frontmatter import parse_frontmatter as parse_frontmatter
    from pi_runtime.resources.loader import PromptText as PromptText
    from pi_runtime.resources.loader import ResourceLoader as ResourceLoader
    from pi_runtime.resources.loader import Resources as Resources
    from pi_runtime.resources.prompt_templates import PromptTemplate as PromptTemplate
    from pi_runtime.resources.prompt_templates import expand_prompt_template as expand_prompt_template
    from pi_runtime.resources.prompt_templates import parse_command_args as parse_command_args
    from pi_runtime.resources.prompt_templates import substitute_args as substitute_args
    from pi_runtime.resources.skills import Skill as Skill
    from pi_runtime.resources.skills import SkillError as SkillError
    from pi_runtime.resources.skills import expand_skill_command as expand_skill_command
    from pi_runtime.resources.skills import format_skills_for_prompt as format_skills_for_prompt
    from pi_runtime.resources.system_prompt import SystemPromptSections as SystemPromptSections
    from pi_runtime.resources.system_prompt import build_system_prompt as build_system_prompt
    from pi_runtime.resources.system_prompt import build_system_prompt_sections as build_system_prompt_sections
    from pi_runtime.resources.trust import TrustDecision as TrustDecision
    from pi_runtime.resources.trust import TrustStore as TrustStore
    from pi_runtime.resources.trust import TrustStoreError as TrustStoreError
    from pi_runtime.resources.trust import resolve_project_trust as resolve_project_trust

_WHERE = {
    "ContextFile": "context_files", "load_context_files": "context_files",
    "ResourceDiagnostic": "diagnostics",
    "FrontmatterError": "frontmatter", "parse_frontmatter": "frontmatter",
    "PromptText": "loader", "ResourceLoader": "loader", "Resources": "loader",
    "PromptTemplate": "prompt_templates", "expand_prompt_template": "prompt_templates",
    "parse_command_args": "prompt_templates", "substitute_args": "prompt_templates",
    "Skill": "skills", "SkillError": "skills", "expand_skill_command": "skills",
    "format_skills_for_prompt": "skills",
    "SystemPromptSections": "system_prompt", "build_system_prompt": "system_prompt",
    "build_system_prompt_sections": "system_prompt",
    "TrustDecision": "trust", "TrustStore": "trust", "TrustStoreError": "trust",
    "resolve_project_trust": "trust",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
