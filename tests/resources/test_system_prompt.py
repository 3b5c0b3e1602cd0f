"""System prompt sections: order, tag wrapping, SYSTEM.md replacement and section edits."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pi_runtime.resources.context_files import ContextFile
from pi_runtime.resources.skills import Skill
from pi_runtime.resources.system_prompt import (
    DEFAULT_PREAMBLE,
    SystemPromptSections,
    build_system_prompt,
    build_system_prompt_sections,
)

DAY = dt.date(2025, 3, 4)
SKILL = Skill("pdf", "Read PDFs.", Path("/s/pdf/SKILL.md"), Path("/s/pdf"), "user")


def test_default_sections_in_order_and_rendered_with_tags() -> None:
    sections = build_system_prompt_sections(
        cwd="/work/app",
        tools={"read": "Read files", "bash": "Run commands", "mytool": "Custom thing"},
        append_prompt="Always answer in French.",
        context_files=[ContextFile(Path("/work/AGENTS.md"), "Use tabs.")],
        skills=[SKILL],
        today=DAY,
        include_date=True,
    )
    assert sections.names() == ["preamble", "tools", "rules", "addendum", "project_context", "skills", "cwd", "date"]
    assert sections.get("preamble") == DEFAULT_PREAMBLE
    assert sections.get("tools").splitlines()[:3] == ["- read: Read files", "- bash: Run commands", "- mytool: Custom thing"]
    text = build_system_prompt(sections)
    assert text.startswith(DEFAULT_PREAMBLE + "\n\n<tools>\n- read: Read files")
    assert '<project_instructions path="/work/AGENTS.md">\nUse tabs.\n</project_instructions>' in text
    assert "<addendum>\nAlways answer in French.\n</addendum>" in text
    assert "<name>pdf</name>" in text
    assert text.endswith("<cwd>\n/work/app\n</cwd>\n\n<date>\n2025-03-04\n</date>")
    wrapped = sections.wrapped()
    assert wrapped["preamble"] == DEFAULT_PREAMBLE
    assert wrapped["cwd"] == "<cwd>\n/work/app\n</cwd>"


def test_rules_follow_the_tools() -> None:
    only_bash = build_system_prompt_sections(cwd="/", tools=["bash"], include_date=False).get("rules")
    assert "Use bash for file operations" in only_bash
    assert "edit" not in only_bash
    full = build_system_prompt_sections(
        cwd="/", tools=["read", "bash", "edit", "write", "grep"], guidelines=["Run tests after changes", "Run tests after changes"]
    ).get("rules")
    assert "Prefer the grep, find and ls tools" in full
    assert "Use edit for targeted changes" in full
    assert full.count("Run tests after changes") == 1
    assert full.splitlines()[-1] == "- Show file paths clearly when you mention files"


def test_custom_prompt_replaces_preamble_tools_and_rules_only() -> None:
    sections = build_system_prompt_sections(
        cwd="/w",
        custom_prompt="You are a pirate.\n",
        append_prompt="Arr.",
        context_files=[ContextFile(Path("/w/AGENTS.md"), "ctx")],
        include_date=False,
    )
    assert sections.names() == ["preamble", "addendum", "project_context", "cwd"]
    assert sections.get("preamble") == "You are a pirate."


def test_skills_need_a_tool_to_read_them_and_no_tools_says_none() -> None:
    no_reader = build_system_prompt_sections(cwd="/", tools=["edit"], skills=[SKILL], include_date=False)
    assert "skills" not in no_reader.names()
    via_bash = build_system_prompt_sections(cwd="/", tools=["bash"], skills=[SKILL], include_date=False)
    assert "Use the bash tool" in via_bash.get("skills")
    assert build_system_prompt_sections(cwd="/", tools={}, include_date=False).get("tools").startswith("(none)")


def test_sections_can_be_replaced_inserted_and_removed() -> None:
    sections = build_system_prompt_sections(cwd="C:\\proj", tools=["read"], today=DAY, include_date=True)
    assert sections.get("cwd") == "C:/proj"
    sections.set("rules", "- only this rule")
    sections.set("memory", "remember x", before="cwd")
    sections.set("tail", "last")
    sections.remove("date")
    assert sections.names() == ["preamble", "tools", "rules", "memory", "cwd", "tail"]
    assert "<rules>\n- only this rule\n</rules>" in sections.render()
    with pytest.raises(ValueError, match="invalid system prompt section name"):
        sections.set("Bad Name", "x")
    with pytest.raises(ValueError, match="preamble"):
        build_system_prompt_sections(cwd="/", extra_sections={"preamble": "x"})
    assert SystemPromptSections({"preamble": "p", "empty": ""}).render() == "p"


def test_no_date_by_default_so_a_resumed_session_keeps_its_cached_prompt() -> None:
    # Pi 1.6 left the date out: with it, the first message changed every day and a session
    # resumed the next day missed the provider's prompt cache for its whole history.
    sections = build_system_prompt_sections(cwd="/work/app", tools=["read"])
    assert "date" not in sections.names()
    assert dt.date.today().isoformat() not in sections.render()
