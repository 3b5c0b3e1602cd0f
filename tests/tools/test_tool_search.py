"""grep, find and ls on a real tree with .gitignore files — with ripgrep and with the fallback."""

from __future__ import annotations

import pytest

from pi_runtime.agent.tool import ToolError
from pi_runtime.tools import FindTool, GrepTool, LsTool, find_ripgrep

MODES = [
    pytest.param(True, id="rg", marks=pytest.mark.skipif(find_ripgrep() is None, reason="rg not installed")),
    pytest.param(False, id="python"),
]


@pytest.fixture
def tree(tmp_path):
    files = {
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "src/app.py": "import os\n\ndef main():\n    return 'TODO: ship'\n",
        "src/util.py": "def helper():\n    pass  # todo later\n",
        "src/nested/.gitignore": "secret.py\n",
        "src/nested/secret.py": "TODO hidden\n",
        "src/nested/open.py": "TODO visible\n",
        "build/out.py": "TODO generated\n",
        "debug.log": "TODO in log\n",
        "keep.log": "TODO kept\n",
        ".hidden/conf.py": "TODO dotdir\n",
        "docs/readme.md": "nothing here\n",
        "pkg/src/deep.py": "x = 1\n",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


async def call(tool, **args):
    return await tool.execute("c", tool.Params.model_validate(args), None, None)


def text(result) -> str:
    return result.content[0].text


@pytest.mark.parametrize("use_rg", MODES)
async def test_grep_respects_gitignore(tree, use_rg):
    result = await call(GrepTool(str(tree), use_ripgrep=use_rg), pattern="TODO")
    lines = sorted(text(result).split("\n"))
    assert lines == [
        ".hidden/conf.py:1: TODO dotdir",
        "keep.log:1: TODO kept",
        "src/app.py:4:     return 'TODO: ship'",
        "src/nested/open.py:1: TODO visible",
    ]


@pytest.mark.parametrize("use_rg", MODES)
async def test_grep_options(tree, use_rg):
    tool = GrepTool(str(tree), use_ripgrep=use_rg)
    ci = await call(tool, pattern="todo", ignoreCase=True, path="src", glob="*.py")
    assert sorted(text(ci).split("\n")) == [
        "app.py:4:     return 'TODO: ship'",
        "nested/open.py:1: TODO visible",
        "util.py:2:     pass  # todo later",
    ]
    by_path = await call(tool, pattern="TODO", path="src", glob="nested/*.py")
    assert text(by_path) == "nested/open.py:1: TODO visible"
    excluded = await call(tool, pattern="TODO", glob="!*.py")
    assert text(excluded) == "keep.log:1: TODO kept"
    literal = await call(tool, pattern="'TODO:", literal=True)
    assert text(literal) == "src/app.py:4:     return 'TODO: ship'"
    ctx = await call(tool, pattern="def main", context=1, path="src/app.py")
    assert text(ctx) == "app.py-2- \napp.py:3: def main():\napp.py-4-     return 'TODO: ship'"
    none = await call(tool, pattern="no such thing anywhere")
    assert text(none) == "No matches found"
    dashed = await call(tool, pattern="--help")
    assert text(dashed) == "No matches found"


@pytest.mark.parametrize("use_rg", MODES)
async def test_grep_limits(tmp_path, use_rg):
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(150)))
    (tmp_path / "wide.txt").write_text("needle " + "w" * 900 + "\n")
    tool = GrepTool(str(tmp_path), use_ripgrep=use_rg)
    result = await call(tool, pattern="hit", path="many.txt")
    body, notice = text(result).split("\n\n")
    assert len(body.split("\n")) == 100
    assert notice == "[100 matches limit reached. Use limit=200 for more, or refine pattern]"
    assert result.details["matchLimitReached"] == 100
    exact = await call(tool, pattern="hit", path="many.txt", limit=150)
    assert "limit reached" not in text(exact) and len(text(exact).split("\n")) == 150
    wide = await call(tool, pattern="needle")
    line, note = text(wide).split("\n\n")
    assert line == "wide.txt:1: needle " + "w" * 493 + "... [truncated]"
    assert note == "[Some lines truncated to 500 chars. Use read tool to see full lines]"


async def test_grep_bad_regex_and_missing_path(tree):
    with pytest.raises(ToolError, match="Invalid regex"):
        await call(GrepTool(str(tree), use_ripgrep=False), pattern="(unclosed")
    if find_ripgrep():
        with pytest.raises(ToolError, match="regex parse error"):
            await call(GrepTool(str(tree)), pattern="(unclosed")
    with pytest.raises(ToolError, match="Path not found"):
        await call(GrepTool(str(tree)), pattern="x", path="nope")


@pytest.mark.parametrize("use_rg", MODES)
async def test_find_patterns_and_gitignore(tree, use_rg):
    tool = FindTool(str(tree), use_ripgrep=use_rg)
    py = await call(tool, pattern="*.py")
    assert text(py).split("\n") == [
        ".hidden/conf.py", "pkg/src/deep.py", "src/app.py", "src/nested/open.py", "src/util.py",
    ]
    anchored = await call(tool, pattern="./src/*.py")
    assert text(anchored).split("\n") == ["src/app.py", "src/util.py"]
    anywhere = await call(tool, pattern="**/src/*.py")
    assert text(anywhere).split("\n") == ["pkg/src/deep.py", "src/app.py", "src/util.py"]
    braces = await call(tool, pattern="*.{md,log}")
    assert text(braces).split("\n") == ["docs/readme.md", "keep.log"]
    scoped = await call(tool, pattern="*.py", path="src/nested")
    assert text(scoped) == "open.py"
    assert text(await call(tool, pattern="*.rs")) == "No files found matching pattern"


@pytest.mark.parametrize("use_rg", MODES)
async def test_find_limit(tmp_path, use_rg):
    for i in range(12):
        (tmp_path / f"f{i:02}.txt").write_text("")
    tool = FindTool(str(tmp_path), use_ripgrep=use_rg)
    result = await call(tool, pattern="*.txt", limit=5)
    body, notice = text(result).split("\n\n")
    assert body.split("\n") == ["f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"]
    assert notice == "[5 results limit reached. Use limit=10 for more, or refine pattern]"
    exact = await call(tool, pattern="*.txt", limit=12)
    assert "limit" not in text(exact)
    zero = await call(tool, pattern="*.txt", limit=0)
    assert text(zero).startswith("f00.txt\n\n[1 results limit reached")


async def test_ls_lists_everything_sorted(tree):
    result = await call(LsTool(str(tree)))
    assert text(result).split("\n") == [
        ".gitignore", ".hidden/", "build/", "debug.log", "docs/", "keep.log", "pkg/", "src/",
    ]


async def test_ls_can_respect_gitignore(tree):
    result = await call(LsTool(str(tree), respect_gitignore=True))
    assert "build/" not in text(result) and "debug.log" not in text(result)
    assert "keep.log" in text(result)
    nested = await call(LsTool(str(tree), respect_gitignore=True), path="src/nested")
    assert text(nested).split("\n") == [".gitignore", "open.py"]


async def test_ls_limit_and_errors(tmp_path):
    for i in range(7):
        (tmp_path / f"E{i}").write_text("")
    (tmp_path / "empty").mkdir()
    tool = LsTool(str(tmp_path))
    result = await call(tool, limit=3)
    assert text(result) == "E0\nE1\nE2\n\n[3 entries limit reached. Use limit=6 for more]"
    assert result.details == {"entryLimitReached": 3}
    assert text(await call(tool, path="empty")) == "(empty directory)"
    with pytest.raises(ToolError, match="Not a directory"):
        await call(tool, path="E0")
    with pytest.raises(ToolError, match="Path not found"):
        await call(tool, path="missing")
