"""Front matter parsing: the YAML subset skills and templates use, and clear errors otherwise."""

from __future__ import annotations

import pytest

from pi_runtime.resources.frontmatter import FrontmatterError, parse_frontmatter


def test_scalars_lists_mappings_and_body() -> None:
    text = (
        "---\n"
        "name: pdf-tools\n"
        "description: Extract text from PDFs.\n"
        "  Use when reading PDFs.   # trailing comment\n"
        "disable-model-invocation: true\n"
        "count: 3\n"
        "ratio: 0.5\n"
        "nothing: null\n"
        "answer: no\n"
        "quoted: \"a: b \\\"c\\\"\"\n"
        "single: 'it''s'\n"
        "flow: [a, 'b c', 3]\n"
        "metadata:\n"
        "  author: me\n"
        "  nested:\n"
        "    deep: x\n"
        "allowed:\n"
        "- read\n"
        "- bash\n"
        "---\n"
        "# Title\n\nBody.\n"
    )
    fields, body = parse_frontmatter(text)
    assert fields == {
        "name": "pdf-tools",
        "description": "Extract text from PDFs. Use when reading PDFs.",
        "disable-model-invocation": True,
        "count": 3,
        "ratio": 0.5,
        "nothing": None,
        "answer": "no",
        "quoted": 'a: b "c"',
        "single": "it's",
        "flow": ["a", "b c", 3],
        "metadata": {"author": "me", "nested": {"deep": "x"}},
        "allowed": ["read", "bash"],
    }
    assert body == "# Title\n\nBody.\n"


def test_block_scalars_keep_or_fold_lines() -> None:
    fields, _ = parse_frontmatter("---\nlit: |\n  one\n  two\nfold: >-\n  one\n  two\n\n  three\nend: x\n---\n")
    assert fields == {"lit": "one\ntwo\n", "fold": "one two\nthree", "end": "x"}


def test_no_front_matter_or_unclosed_block_is_plain_body() -> None:
    assert parse_frontmatter("Just text\n") == ({}, "Just text\n")
    assert parse_frontmatter("---\nname: x\nno end") == ({}, "---\nname: x\nno end")
    assert parse_frontmatter("\ufeff---\r\nname: x\r\n---\r\nbody") == ({"name": "x"}, "body")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ('name: "open', "line 2: unterminated double-quoted string"),
        ("just words", "line 2: expected 'key: value'"),
        ("a: 1\na: 2", "line 3: duplicate key 'a'"),
        ("tags: [a, b", "line 2: unterminated [list]"),
        ("- a\n- b", "front matter must be a mapping"),
    ],
)
def test_malformed_blocks_name_the_line(block: str, message: str) -> None:
    with pytest.raises(FrontmatterError, match=message.replace("[", r"\[")):
        parse_frontmatter(f"---\n{block}\n---\nbody")
