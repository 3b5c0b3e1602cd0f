"""Every example extension in docs/extensions.md loads and runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call

from .conftest import errors

DOC = Path(__file__).resolve().parents[2] / "docs" / "extensions.md"
EXAMPLES = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if "def extension(pi" in b]


def test_docs_have_examples():
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
async def test_doc_example_loads_and_survives_a_prompt(index, make_session, write_ext):
    path = write_ext(f"doc_example_{index}", EXAMPLES[index])
    session = make_session(extensions=[path])
    runner = session.extension_runner
    assert runner.failures == [] and len(runner.extensions) == 1
    session.provider.push(scripted_text("ok"))
    await session.prompt("hello there")
    assert errors(session) == []


async def test_hello_example_tool_and_command(make_session, write_ext):
    path = write_ext("hello", EXAMPLES[0])
    session = make_session(extensions=[path])
    session.provider.push(scripted_tool_call("greet", {"name": "Ada"}), scripted_text("done"))
    await session.prompt("greet Ada")
    result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
    assert result.content[0].text == "Hello, Ada!"
    await session.prompt("/hello pi")
    notes = session.extension_runner.ui.inner.notifications
    assert ("info", "hello extension loaded") in notes and ("info", "Hello pi!") in notes
