"""Prompt templates: loading, argument splitting and the substitution table of prompt-templates.md."""

from __future__ import annotations

import pytest

from pi_runtime.resources.prompt_templates import (
    expand_prompt_template,
    load_templates_from,
    merge_templates,
    parse_command_args,
    substitute_args,
)


@pytest.mark.parametrize(
    ("raw", "args"),
    [
        ("", []),
        ("a  b\tc", ["a", "b", "c"]),
        ('"API compatibility" x', ["API compatibility", "x"]),
        ("'single quoted' y", ["single quoted", "y"]),
        ("doesn't matter", ["doesn't", "matter"]),
        ('"unclosed quote here', ['"unclosed', "quote", "here"]),
        ('"the \\"fast\\" path"', ['the "fast" path']),
        ('"a\\nb" c\\d', ["a\\nb", "c\\d"]),
        ('"ab"cd e', ["abcd", "e"]),
        ('""', [""]),
    ],
)
def test_argument_splitting(raw: str, args: list[str]) -> None:
    assert parse_command_args(raw) == args


@pytest.mark.parametrize(
    ("template", "args", "expected"),
    [
        ("Fix $1 in $2", ["bug", "main.py"], "Fix bug in main.py"),
        ("Missing: [$3]", ["a"], "Missing: []"),
        ("All: $@", ["a", "b c"], "All: a b c"),
        ("All: $ARGUMENTS", ["a", "b"], "All: a b"),
        ("Focus on ${1:-correctness}", [], "Focus on correctness"),
        ("Focus on ${1:-correctness}", ["speed"], "Focus on speed"),
        ("Focus on ${1:-correctness}", [""], "Focus on correctness"),
        ("Do ${@:-everything}", [], "Do everything"),
        ("Do ${@:-everything}", ["x", "y"], "Do x y"),
        ("Rest: ${@:2}", ["a", "b", "c"], "Rest: b c"),
        ("Two: ${@:2:2}", ["a", "b", "c", "d"], "Two: b c"),
        ("Tenth: $10", [str(i) for i in range(1, 11)], "Tenth: 10"),
        ("No recursion: $1", ["$2 and $@"], "No recursion: $2 and $@"),
        ("Price $ 5 and $x", ["a"], "Price $ 5 and $x"),
    ],
)
def test_substitution_table(template: str, args: list[str], expected: str) -> None:
    assert substitute_args(template, args) == expected


def test_loading_and_expansion(tree) -> None:
    prompts = tree.agent / "prompts"
    tree.write(
        prompts / "review.md",
        '---\ndescription: Review staged changes\nargument-hint: "[focus]"\n---\nReview. Focus on ${1:-correctness}.\n',
    )
    tree.write(prompts / "plain.md", "\n\nFirst line describes " + "x" * 80 + "\nsecond\n")
    tree.write(prompts / "nested" / "deep.md", "not loaded: only direct children")
    tree.write(prompts / "notes.txt", "not markdown")
    templates, warnings = load_templates_from(prompts, "user")
    assert warnings == []
    by_name = {t.name: t for t in templates}
    assert sorted(by_name) == ["plain", "review"]
    assert by_name["review"].description == "Review staged changes"
    assert by_name["review"].argument_hint == "[focus]"
    assert by_name["plain"].description == ("First line describes " + "x" * 80)[:60] + "..."
    assert expand_prompt_template("/review", templates) == "Review. Focus on correctness."
    assert expand_prompt_template('/review "API compat"', templates) == "Review. Focus on API compat."
    assert expand_prompt_template("/unknown a", templates) == "/unknown a"
    assert expand_prompt_template("review a", templates) == "review a"


def test_broken_template_is_reported_and_collision_keeps_first(tree) -> None:
    tree.write(tree.agent / "prompts" / "fix.md", "user fix")
    tree.write(tree.cwd / ".pi" / "prompts" / "fix.md", "project fix")
    bad = tree.write(tree.cwd / ".pi" / "prompts" / "bad.md", "---\nx: 'open\n---\n")
    templates, warnings = merge_templates(
        [load_templates_from(tree.agent / "prompts", "user"), load_templates_from(tree.cwd / ".pi" / "prompts", "project")]
    )
    assert [(t.name, t.content) for t in templates] == [("fix", "user fix")]
    assert [w.path for w in warnings] == [bad, (tree.cwd / ".pi" / "prompts" / "fix.md").resolve()]
