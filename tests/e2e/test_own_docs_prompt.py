"""The system prompt names pi's own docs, as Pi's names Pi's, so the agent can explain pi.

Seen where the model sees it: the request the installed ``pi`` sends to the loopback server.
"""

from __future__ import annotations

import re
from pathlib import Path

from e2e_support import run_pi, text_reply


def system_text(request) -> str:
    first = request.json()["messages"][0]
    assert first["role"] in ("system", "developer")
    content = first["content"]
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


def test_the_prompt_has_a_docs_block_naming_files_that_exist(env, loopback):
    loopback.push(text_reply("ok"))
    result = run_pi(["-p", "how do I write a pi extension?"], env)
    assert result.returncode == 0, result.stderr
    prompt = system_text(loopback.requests[0])
    block = re.search(r"<docs>\n(.*?)\n</docs>", prompt, re.S)
    assert block, prompt
    docs = block.group(1)
    assert docs.startswith("pi documentation (read it only when the user asks about pi itself")
    assert prompt.index("</rules>") < prompt.index("<docs>") < prompt.index("<cwd>")  # Pi's place
    readme = Path(re.search(r"^- Main documentation: (.+)$", docs, re.M).group(1))
    folder = Path(re.search(r"^- More docs: (.+)$", docs, re.M).group(1))
    examples = Path(re.search(r"^- Examples: (\S+)", docs, re.M).group(1))
    assert readme.is_file() and readme.read_text(encoding="utf-8").startswith("# pi")
    assert (folder / "extensions.md").is_file()
    # Every docs/... and examples/... path the block names resolves in its folder.
    topics = re.search(r"^- Which file for what: (.+)$", docs, re.M).group(1)
    named = re.findall(r"\b((?:docs|examples)/[\w./-]+)", topics)
    assert "docs/extensions.md" in named and "examples/extensions/" in named
    for path in named:
        base, _, rest = path.partition("/")
        assert ((folder if base == "docs" else examples) / rest).exists(), path


def test_a_custom_system_prompt_replaces_the_docs_block_too(env, loopback):
    # As in Pi: a custom prompt (SYSTEM.md, --system-prompt) stands instead of the preamble,
    # tools, rules and docs.
    loopback.push(text_reply("ok"))
    result = run_pi(["-p", "--system-prompt", "You are terse.", "hi"], env)
    assert result.returncode == 0, result.stderr
    prompt = system_text(loopback.requests[0])
    assert prompt.startswith("You are terse.") and "<docs>" not in prompt
