"""The cheap paths behind the performance goals: finished Markdown blocks are rendered once,
and the footer's provisional model id is only given when it cannot be wrong."""

from __future__ import annotations

import json
from types import SimpleNamespace

from textual.app import App, ComposeResult

from pi_tui.launch import DEMO_MODEL_ID, model_hint
from pi_tui.transcript.streaming_markdown import StreamingMarkdown, split_blocks

from .conftest import screen_text, wait_for


class _One(App):
    def compose(self) -> ComposeResult:
        self.md = StreamingMarkdown("")
        yield self.md


async def test_finished_blocks_are_rendered_once_and_the_open_block_grows():
    app = _One()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.write("# Title\n\nfirst paragraph\n\n")
        assert await wait_for(pilot, lambda: md._done and "Title" in getattr(md._done[0], "text", ""))
        first_lines = list(md._done)
        assert first_lines and "Title" in first_lines[0].text
        md.write("- one\n- two\n\n```python\nprint(1)\n")
        assert await wait_for(pilot, lambda: md.open_text.startswith("```python"))
        assert md.open_text.startswith("```python")  # the fence is still open
        md.write("```\n\nlast words")
        assert await wait_for(pilot, lambda: "last words" in md.open_text)  # a frame took it
        # Lines of finished blocks are the very same objects: nothing was rendered again.
        assert all(a is b for a, b in zip(first_lines, md._done))
        await md.finish()
        await pilot.pause()
        assert not md.live and md.open_text == ""
        text = screen_text(app)
        for words in ("Title", "first paragraph", "one", "print", "last words"):
            assert words in text
        assert md.virtual_region.height == md._height() > len(first_lines)


def test_split_blocks_drops_blank_tails():
    assert split_blocks("a\n\n- b\n  c\n\n\n```\nx\n\ny\n```\n\nz\n") == ["a", "- b\n  c", "```\nx\n\ny\n```", "z"]


def _args(**kw):
    base = dict(continue_=False, session=None, session_id=None, fork=None, models=None, demo=False,
                model=None, provider=None)
    return SimpleNamespace(**{**base, **kw})


def test_model_hint_only_when_known(tmp_path):
    from pi_runtime.modes.demo import DEMO_MODEL_ID as runtime_demo_id

    agent, cwd = tmp_path / "agent", tmp_path / "project"
    (cwd / ".pi").mkdir(parents=True)
    agent.mkdir()
    assert runtime_demo_id == DEMO_MODEL_ID
    assert model_hint(_args(demo=True), agent, str(cwd)) == DEMO_MODEL_ID
    assert model_hint(_args(demo=True, continue_=True), agent, str(cwd)) is None
    assert model_hint(_args(model="anthropic/claude-x:high"), agent, str(cwd)) == "claude-x"
    assert model_hint(_args(model="ollama/llama3:8b"), agent, str(cwd)) == "llama3:8b"
    assert model_hint(_args(model="sonnet"), agent, str(cwd)) is None  # a pattern, resolved later
    assert model_hint(_args(), agent, str(cwd)) is None
    (agent / "settings.json").write_text(json.dumps({"defaultModel": "gpt-x"}))
    assert model_hint(_args(), agent, str(cwd)) == "gpt-x"
    (cwd / ".pi" / "settings.json").write_text(json.dumps({"defaultModel": "other"}))
    assert model_hint(_args(), agent, str(cwd)) is None  # the project may override (if trusted)
