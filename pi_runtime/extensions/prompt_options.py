"""Pi's ``systemPromptOptions``: the inputs the system prompt is built from, as one dict.

Pi's prompt-customizer example edits ``event.systemPromptOptions.sections`` and reads
``selectedTools`` and ``skills``. Here the dict holds the *live* collections of the
``before_agent_start`` event — ``sections`` is the prompt's own section dict and
``selectedTools`` the event's ``selected_tools`` list — so ``options["sections"]["x"] = text``,
``del options["sections"]["x"]`` and ``options["selectedTools"].remove("bash")`` take effect
exactly as ``event.sections.set`` / ``event.selected_tools`` edits do.
"""

from __future__ import annotations

from typing import Any


def _resources(session: Any) -> Any:
    loader = getattr(session, "resources", None)
    # The session holds a ResourceLoader whose ``resources`` are the loaded set (or the set itself).
    return getattr(loader, "resources", loader)


def system_prompt_options(session: Any, cwd: str, sections: Any, selected_tools: list[str]) -> dict[str, Any]:
    """Pi's ``BuildSystemPromptOptions`` keys (camelCase, as Pi's examples index them).

    Args:
        session: The agent session (for its loaded skills and context files).
        cwd: The working directory.
        sections: The prompt's ``SystemPromptSections`` (None for a plain-string prompt).
        selected_tools: The list whose edits change the active tools.
    """
    resources = _resources(session)
    return {
        "sections": sections.sections if sections is not None else {},
        "selectedTools": selected_tools,
        "cwd": cwd,
        "skills": list(getattr(resources, "skills", None) or []),
        "contextFiles": list(getattr(resources, "context_files", None) or []),
    }
