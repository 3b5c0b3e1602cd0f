"""Prompt templates: Markdown files that become ``/name`` commands, expanded before sending.

``<agent dir>/prompts/*.md`` and ``.pi/prompts/*.md`` (direct children only); the file name is
the command. Front matter may give ``description`` (else the first non-empty line is used) and
``argument-hint``. Arguments are split shell-style and substituted as documented in Pi's
prompt-templates.md: ``$1``, ``$@``, ``$ARGUMENTS``, ``${1:-default}``, ``${@:-default}``,
``${@:N}`` and ``${@:N:L}``. Substitution is one pass over the template, so an argument that
itself contains ``$1`` is inserted literally.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Literal

from pi_runtime.resources.diagnostics import ResourceDiagnostic

from ..records import record

TemplateSource = Literal["user", "project", "path"]
_DESCRIPTION_FALLBACK_LENGTH = 60



# The patterns are compiled when first needed, not at import: a plain prompt (no leading ``/``)
# never uses them, and compiling both cost ~1.7 M instructions of every ``pi -p`` start-up.
@cache
def _command_pattern() -> re.Pattern[str]:
    return re.compile(r"^/(\S+)(?:\s+(.*))?$", re.DOTALL)


@cache
def _placeholder_pattern() -> re.Pattern[str]:
    return re.compile(
        r"\$\{@:(?P<start>\d+)(?::(?P<length>\d+))?\}"  # ${@:N} / ${@:N:L}
        r"|\$\{@:-(?P<all_default>[^}]*)\}"  # ${@:-default}
        r"|\$\{(?P<pos>\d+):-(?P<pos_default>[^}]*)\}"  # ${1:-default}
        r"|\$(?P<all>ARGUMENTS|@)"  # $ARGUMENTS / $@
        r"|\$(?P<num>\d+)"  # $1
    )


@record(frozen=True, slots=True)
class PromptTemplate:
    """A loaded template."""

    name: str
    """Command name (file name without ``.md``)."""
    description: str
    """Shown in command completion."""
    content: str
    """Template text after the front matter."""
    file_path: Path
    """Where it was loaded from."""
    source: TemplateSource
    """user (agent dir), project (.pi) or an explicit path."""
    argument_hint: str | None = None
    """E.g. ``"<file> [focus]"``."""


def load_template_file(path: Path, source: TemplateSource) -> tuple[PromptTemplate | None, list[ResourceDiagnostic]]:
    """Read one template file; a broken one is reported and skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [ResourceDiagnostic("prompt", path, f"cannot read prompt template ({exc})")]
    # The front-matter parser (and its patterns) loads with the first template file found, not
    # with every start-up: most folders have none.
    from pi_runtime.resources.frontmatter import FrontmatterError, parse_frontmatter

    try:
        fields, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        return None, [ResourceDiagnostic("prompt", path, f"malformed front matter: {exc}; template not loaded")]
    content = body.strip()
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        first = next((line.strip() for line in content.splitlines() if line.strip()), "")
        description = first[:_DESCRIPTION_FALLBACK_LENGTH] + ("..." if len(first) > _DESCRIPTION_FALLBACK_LENGTH else "")
    hint = fields.get("argument-hint")
    template = PromptTemplate(
        name=path.stem,
        description=description.strip(),
        content=content,
        file_path=path.resolve(),
        source=source,
        argument_hint=hint if isinstance(hint, str) and hint.strip() else None,
    )
    return template, []


def load_templates_from(path: Path, source: TemplateSource) -> tuple[list[PromptTemplate], list[ResourceDiagnostic]]:
    """Templates in a folder (direct ``*.md`` children, sorted) or a single ``.md`` file."""
    if path.is_file():
        if path.suffix != ".md":
            return [], [ResourceDiagnostic("prompt", path, "prompt template path is not a .md file")]
        template, problems = load_template_file(path, source)
        return ([template] if template else []), problems
    if not path.is_dir():
        return [], []
    templates: list[PromptTemplate] = []
    warnings: list[ResourceDiagnostic] = []
    for child in sorted(path.iterdir()):
        if child.suffix == ".md" and not child.name.startswith(".") and child.is_file():
            template, found = load_template_file(child, source)
            warnings.extend(found)
            if template:
                templates.append(template)
    return templates, warnings


def merge_templates(
    groups: Iterable[tuple[list[PromptTemplate], list[ResourceDiagnostic]]],
) -> tuple[list[PromptTemplate], list[ResourceDiagnostic]]:
    """Combine template lists in priority order; the first of a name wins, later ones are reported."""
    by_name: dict[str, PromptTemplate] = {}
    warnings: list[ResourceDiagnostic] = []
    for templates, found in groups:
        warnings.extend(found)
        for template in templates:
            winner = by_name.get(template.name)
            if winner is None:
                by_name[template.name] = template
            elif winner.file_path != template.file_path:
                warnings.append(
                    ResourceDiagnostic(
                        "prompt",
                        template.file_path,
                        f"/{template.name} is already defined by {winner.file_path}; this one is ignored",
                    )
                )
    return list(by_name.values()), warnings


def parse_command_args(text: str) -> list[str]:
    """Split arguments the way prompt-templates.md describes.

    Whitespace separates arguments. A quote (``"`` or ``'``) starts quoting only at the start of
    an argument and must be closed, otherwise it is ordinary text. Inside quotes a backslash
    before the same quote character yields the quote; other backslashes are kept as typed.
    """
    args: list[str] = []
    index, length = 0, len(text)
    while index < length:
        if text[index].isspace():
            index += 1
            continue
        quote = text[index]
        if quote in "\"'":
            value, end = _read_quoted(text, index)
            if end is not None:
                args.append(value)
                index = end
                continue
        end = index
        while end < length and not text[end].isspace():
            end += 1
        args.append(text[index:end])
        index = end
    return args


def _read_quoted(text: str, start: int) -> tuple[str, int | None]:
    """Read a quoted argument at ``start``; ``(value, index after it)`` or ``("", None)`` if unclosed."""
    quote = text[start]
    out: list[str] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] == quote:
            out.append(quote)
            index += 2
            continue
        if char == quote:
            index += 1
            # Text glued to the closing quote (e.g. "a b"c) stays part of the argument.
            while index < len(text) and not text[index].isspace():
                out.append(text[index])
                index += 1
            return "".join(out), index
        out.append(char)
        index += 1
    return "", None


def substitute_args(content: str, args: list[str]) -> str:
    """Replace the argument placeholders in ``content`` (one pass; missing arguments are empty)."""
    joined = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        if match.group("start") is not None:
            begin = max(int(match.group("start")) - 1, 0)
            if match.group("length") is not None:
                return " ".join(args[begin : begin + int(match.group("length"))])
            return " ".join(args[begin:])
        if match.group("all_default") is not None:
            return joined if joined else match.group("all_default")
        if match.group("pos") is not None:
            position = int(match.group("pos"))
            value = args[position - 1] if 0 < position <= len(args) else ""
            return value if value else match.group("pos_default")
        if match.group("all") is not None:
            return joined
        position = int(match.group("num"))
        return args[position - 1] if 0 < position <= len(args) else ""

    return _placeholder_pattern().sub(replace, content)


def expand_prompt_template(text: str, templates: Iterable[PromptTemplate]) -> str:
    """Expand ``/name args`` with the matching template.

    Args:
        text: What the user typed.
        templates: Loaded templates.

    Returns:
        The template with its arguments substituted, or ``text`` unchanged when it does not
        start with ``/`` followed by a known template name.
    """
    if not text.startswith("/"):
        return text
    match = _command_pattern().match(text)
    if match is None:
        return text
    name, rest = match.group(1), match.group(2) or ""
    template = next((t for t in templates if t.name == name), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(rest))
