"""Resources a session loads from disk: context files, skills, prompt templates, system prompt, trust."""

from pi_runtime.resources.context_files import ContextFile, load_context_files
from pi_runtime.resources.diagnostics import ResourceDiagnostic
from pi_runtime.resources.frontmatter import FrontmatterError, parse_frontmatter
from pi_runtime.resources.loader import PromptText, ResourceLoader, Resources
from pi_runtime.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    parse_command_args,
    substitute_args,
)
from pi_runtime.resources.skills import Skill, SkillError, expand_skill_command, format_skills_for_prompt
from pi_runtime.resources.system_prompt import (
    SystemPromptSections,
    build_system_prompt,
    build_system_prompt_sections,
)
from pi_runtime.resources.trust import TrustDecision, TrustStore, TrustStoreError, resolve_project_trust

__all__ = [
    "ContextFile",
    "FrontmatterError",
    "PromptTemplate",
    "PromptText",
    "ResourceDiagnostic",
    "ResourceLoader",
    "Resources",
    "Skill",
    "SkillError",
    "SystemPromptSections",
    "TrustDecision",
    "TrustStore",
    "TrustStoreError",
    "build_system_prompt",
    "build_system_prompt_sections",
    "expand_prompt_template",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_context_files",
    "parse_command_args",
    "parse_frontmatter",
    "resolve_project_trust",
    "substitute_args",
]
