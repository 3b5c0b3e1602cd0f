"""Answers laid out as Pi lays out Markdown, and the "Jump to latest message" label while the
reader is scrolled up, driven through Pilot."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.transcript.jump_hint import JumpToLatest

from .conftest import make_session, screen_text, settle, wait_for

ANSWER = """## Plan

Here is what I will do:

1. Read the file
2. Change the function

### Details

```python
def hello(name):
    return name
```

---

- item one
- item two

> a quote

| a | b |
|---|---|
| 1 | 2 |

Done."""


def _rows(app) -> list[str]:
    return [line.strip() for line in screen_text(app).splitlines()]


async def test_markdown_answer_reads_as_pi_renders_it(provider, workdir):
    provider.push(scripted_text(ANSWER))
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.press(*"show", "enter")
        await settle(pilot, session)
        rows = _rows(app)
        at = rows.index("Plan")  # levels 1 and 2 without their hashes
        assert rows[at:at + 7] == ["Plan", "", "Here is what I will do:", "", "1. Read the file",
                                   "2. Change the function", ""]
        assert "### Details" in rows
        fence = rows.index("```python")
        # The fence keeps its language; one blank row around the block, none inside it.
        # (Highlighted code is exported token by token: compare it without spaces.)
        assert [row.replace(" ", "") for row in rows[fence - 2:fence + 6]] == [
            "###Details", "", "```python", "defhello(name):", "returnname", "```", "", "─" * 80]
        assert rows[fence + 6:fence + 11] == ["", "- item one", "- item two", "", "│ a quote"]
        table = rows.index("┌───┬───┐")
        assert [row.replace(" ", "") for row in rows[table:table + 5]] == [
            "┌───┬───┐", "│a│b│", "├───┼───┤", "│1│2│", "└───┴───┘"]
        assert rows[table + 5:table + 7] == ["", "Done."]


async def test_jump_to_latest_label_while_scrolled_up(provider, workdir):
    long_answer = "\n\n".join(f"Paragraph {i} of a long answer." for i in range(60))
    provider.push(scripted_text(long_answer))
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"long", "enter")
        await settle(pilot, session)
        hint = app.query_one(JumpToLatest)
        assert not hint.display and "Jump to latest" not in screen_text(app)
        await pilot.press("pageup")
        assert await wait_for(pilot, lambda: hint.display)
        text = screen_text(app)
        assert "↓ Jump to latest message · ctrl+end" in text and "Paragraph 59" not in text
        # On the row the transcript gave up for it (issue #37: it covered the last line), centred.
        transcript = app.transcript.region
        assert await wait_for(pilot, lambda: hint.region.y == app.transcript.region.bottom)
        transcript = app.transcript.region
        assert abs((hint.region.x - transcript.x) - (transcript.right - hint.region.right)) <= 1
        await pilot.click(JumpToLatest)
        assert await wait_for(pilot, lambda: not hint.display)
        assert "Paragraph 59" in screen_text(app)
        await pilot.press("pageup")
        assert await wait_for(pilot, lambda: hint.display)
        await pilot.press("ctrl+end")
        assert await wait_for(pilot, lambda: not hint.display)


async def answer_rows(provider, workdir, answer: str) -> list[str]:
    """The screen's rows (stripped) once ``answer`` is the reply to a prompt."""
    provider.push(scripted_text(answer))
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await settle(pilot, session)
        return [row.strip() for row in screen_text(app).splitlines()]


async def test_text_that_looks_like_html_is_shown_as_written(provider, workdir):
    # Rich draws no HTML: parsed as HTML, "Vec<String>" lost "<String>", a small local model's
    # "<think>" tags vanished with their meaning, and an HTML block was not shown at all.
    rows = await answer_rows(provider, workdir, "The type is Vec<String> here.\n\n<think>pondering</think>Final: 7."
                                                "\n\n<div>a block</div>\n\nend")
    assert "The type is Vec<String> here." in rows
    assert "<think>pondering</think>Final: 7." in rows
    assert "<div>a block</div>" in rows


async def test_a_single_newline_stays_a_line_break_as_in_pi(provider, workdir):
    rows = await answer_rows(provider, workdir,
                             "Name: pi\nKind: agent\n\n> quoted one\n> quoted two\n\n- item\n  its second line")
    assert rows[rows.index("Name: pi") + 1] == "Kind: agent"
    assert "│ quoted one" in rows and "│ quoted two" in rows
    assert rows[rows.index("- item") + 1] == "its second line"


async def test_an_image_is_its_alt_text_where_it_stands(provider, workdir):
    rows = await answer_rows(provider, workdir, "See the chart ![sales by month](chart.png) before deciding.")
    assert "See the chart sales by month before deciding." in rows
