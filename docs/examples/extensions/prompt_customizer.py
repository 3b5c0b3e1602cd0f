"""Prompt customizer: a ``tool_guidance`` prompt section written from the active tools and
loaded skills (Pi's ``prompt-customizer.ts``, in Python).

``event.system_prompt_options`` is Pi's ``systemPromptOptions``: ``sections`` and
``selectedTools`` are the live collections, so setting or deleting a section here changes the
prompt the model gets, without re-parsing the rendered text.

    pi -e docs/examples/extensions/prompt_customizer.py
"""


from pi_runtime.extensions import ExtensionAPI


def build_tool_guidance(options):
    tools = options["selectedTools"] or []
    rules = []
    if "read" in tools:
        rules += ["- Use `read` for file contents; it supports text and images.",
                  "- For large files, use `offset` and `limit` to read in chunks."]
    if "bash" in tools:
        rules.append("- Use `bash` for file operations such as `ls`, `find`, and `grep`.")
    if "edit" in tools:
        rules.append("- Use `edit` for precise text replacements that match existing content exactly.")
    if "write" in tools:
        rules.append("- Use `write` to create new files or replace existing files completely.")
    skills = options["skills"]
    if skills:
        rules.append(f"- Available skills: {', '.join(s.name for s in skills)}.")
    return "\n".join(rules)


def extension(pi: ExtensionAPI) -> None:
    def before_agent_start(event, ctx):
        options = event.system_prompt_options
        guidance = build_tool_guidance(options)
        if guidance:
            options["sections"]["tool_guidance"] = guidance
        else:
            options["sections"].pop("tool_guidance", None)

    pi.on("before_agent_start", before_agent_start)
