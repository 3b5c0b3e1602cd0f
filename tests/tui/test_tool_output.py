"""What a collapsed tool box tells the reader, as Pi shows it: what was written, the tail of
bash output with the hidden lines counted above it and the run time, numbered diffs."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app
from pi_tui.transcript.render import argument_lines, numbered_diff, tool_label, tool_title
from pi_tui.transcript.tool_box import ToolBox

from .conftest import make_session, screen_text, settle, wait_for


async def _run_tool(provider, workdir, name, args, call_id):
    provider.push(scripted_tool_call(name, args, id=call_id), scripted_text("Done."))
    session = make_session(provider, workdir)
    return session, create_app(session, static=True)


async def test_collapsed_write_shows_what_was_written(provider, workdir):
    session, app = await _run_tool(provider, workdir, "write",
                                   {"path": "notes.txt", "content": "alpha\nbeta\ngamma\n"}, "call_w")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"write it", "enter")
        await settle(pilot, session)
        assert app.query_one("#tool-call_w", ToolBox).state == "success"
        lines = screen_text(app).splitlines()
        at = next(i for i, line in enumerate(lines) if "write notes.txt" in line)
        assert [line.strip() for line in lines[at + 1:at + 4]] == ["alpha", "beta", "gamma"]
        assert "more line" not in screen_text(app)


async def test_long_write_shows_its_head_and_the_total(provider, workdir):
    content = "".join(f"row {i}\n" for i in range(1, 31))
    session, app = await _run_tool(provider, workdir, "write", {"path": "big.txt", "content": content}, "call_w")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"write it", "enter")
        await settle(pilot, session)
        text = screen_text(app)
        assert "row 10" in text and "row 11" not in text
        assert "… (20 more lines, 30 total, ctrl+o to expand)" in text


async def test_a_write_of_one_huge_line_shows_ten_rows_of_it(provider, workdir):
    """One 300 KB line (minified code, base64) is one line and ~3,000 rows: the preview is counted
    in rows, and a resize counts again."""
    content = "z" * 300_000 + "\nsecond line\n"
    session, app = await _run_tool(provider, workdir, "write", {"path": "blob.txt", "content": content}, "call_w")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"write it", "enter")
        await settle(pilot, session)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = next(i for i, line in enumerate(lines) if "write blob.txt" in line)
        rows = lines[at + 1:at + 11]
        assert all(set(row) == {"z"} for row in rows)
        width = len(rows[0])
        total = -(-300_000 // width) + 1
        assert lines[at + 11] == f"… ({total - 10} more lines, {total} total, ctrl+o to expand)"
        await pilot.resize_terminal(60, 40)
        assert await wait_for(pilot, lambda: f"{total} total" not in screen_text(app) and "more lines" in screen_text(app))
        await pilot.press("ctrl+o")  # expanded: all of it
        assert await wait_for(pilot, lambda: "more lines" not in screen_text(app))


async def test_bash_tail_counts_earlier_lines_above_it_and_says_how_long_it_took(provider, workdir):
    session, app = await _run_tool(provider, workdir, "bash", {"command": "seq 1 30"}, "call_b")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"run it", "enter")
        await settle(pilot, session)
        box = app.query_one("#tool-call_b", ToolBox)
        assert box.duration_ms is not None
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = lines.index("$ seq 1 30")
        assert lines[at + 1] == "… (25 earlier lines, ctrl+o to expand)"
        assert lines[at + 2:at + 7] == ["26", "27", "28", "29", "30"]
        assert lines[at + 7].startswith("Took ") and lines[at + 7].endswith("s")


async def test_short_bash_output_is_not_folded_to_save_one_line(provider, workdir):
    session, app = await _run_tool(provider, workdir, "bash", {"command": "seq 1 7"}, "call_b")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"run it", "enter")
        await settle(pilot, session)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = lines.index("$ seq 1 7")
        assert lines[at + 1:at + 8] == [str(i) for i in range(1, 8)]
        assert "earlier line" not in screen_text(app)


async def test_one_long_line_of_bash_output_is_cut_by_rows_on_screen(provider, workdir):
    # 20,000 characters on one line: one line, 200+ rows. Pi shows its last 5 rows; counting lines
    # showed all of them, and one line of minified JSON filled the transcript.
    session, app = await _run_tool(provider, workdir, "bash", {"command": "printf 'ab%.0s' $(seq 10000)"}, "call_b")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"run it", "enter")
        await settle(pilot, session)
        box = app.query_one("#tool-call_b", ToolBox)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = lines.index("$ printf 'ab%.0s' $(seq 10000)")
        width = box.content_region.width
        rows = -(-20_000 // width)
        assert lines[at + 1] == f"… ({rows - 5} earlier lines, ctrl+o to expand)"
        assert all(set(line) == {"a", "b"} for line in lines[at + 2:at + 7])
        assert lines[at + 7].startswith("Took ")
        assert box.size.height == 1 + 1 + 5 + 1  # title, hint, five rows, timing
        await pilot.press("ctrl+o")
        assert await wait_for(pilot, lambda: box.expanded and box.size.height >= rows)


async def test_cut_bash_output_says_where_the_whole_of_it_is_as_pi_does(provider, workdir):
    # The model reads a bracketed footer; the reader sees Pi's note in its place.
    session, app = await _run_tool(provider, workdir, "bash", {"command": "seq 1 3000"}, "call_b")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"run it", "enter")
        await settle(pilot, session)
        box = app.query_one("#tool-call_b", ToolBox)
        path = box.result.details["fullOutputPath"]
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = lines.index("$ seq 1 3000")
        assert lines[at + 1] == "… (1995 earlier lines, ctrl+o to expand)"
        assert lines[at + 2:at + 7] == ["2996", "2997", "2998", "2999", "3000"]
        assert lines[at + 7] == f"[Full output: {path}. Truncated: showing 2000 of 3000 lines]"
        assert lines[at + 8].startswith("Took ")
        assert "Showing lines" not in screen_text(app)


async def test_edit_diff_has_a_line_number_gutter(provider, workdir):
    (workdir / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    session, app = await _run_tool(provider, workdir, "edit", {
        "path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA\nextra"}]}, "call_e")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"edit it", "enter")
        await settle(pilot, session)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = lines.index("edit notes.txt")
        assert lines[at + 1:at + 6] == ["1 alpha", "-2 beta", "+2 BETA", "+3 extra", "3 gamma"]


def test_numbered_diff_separates_hunks_and_keeps_pi_diffs_as_they_are():
    unified = "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -20,2 +20,2 @@\n x\n-y\n+Y"
    assert numbered_diff(unified) == ["  1 a", "- 2 b", "+ 2 B", "    ...", " 20 x", "-21 y", "+21 Y"]
    pi_format = " 1 alpha\n-2 beta\n+2 BETA"
    assert numbered_diff(pi_format) == pi_format.splitlines()


async def test_a_finished_box_takes_the_colour_of_its_outcome_at_once(provider, workdir):
    # The state classes change together with one restyle, right when the result arrives (not at
    # the next restyle of the whole transcript).
    from textual.color import Color

    session, app = await _run_tool(provider, workdir, "read", {"path": "here.txt"}, "call_ok")
    (workdir / "here.txt").write_text("hello\n", encoding="utf-8")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"read it", "enter")
        await settle(pilot, session)
        variables = app.theme_variables
        box = app.query_one("#tool-call_ok", ToolBox)
        assert box.state == "success"
        assert box.styles.background == Color.parse(variables["pi-tool-success-bg"])
        box.set_result([], None, True)  # as a redrawn result would arrive
        assert box.styles.background == Color.parse(variables["pi-tool-error-bg"])
        box.set_result([], None, False)
        assert box.styles.background == Color.parse(variables["pi-tool-success-bg"])


async def test_a_box_given_its_result_before_it_is_mounted_is_styled_once_mounted(provider, workdir):
    # History is drawn that way (the result set, then the box mounted); the restyle is left to the mount.
    from textual.color import Color

    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 40)) as pilot:
        box = ToolBox("call_old", "read", {"path": "gone.txt"})
        box.set_result([], None, True)
        await app.transcript.mount(box)
        await pilot.pause()
        assert box.styles.background == Color.parse(app.theme_variables["pi-tool-error-bg"])


async def test_an_image_read_says_what_it_is_and_that_the_model_saw_a_placeholder(provider, workdir):
    from PIL import Image

    Image.new("RGB", (64, 48), (9, 9, 9)).save(workdir / "pic.png")
    provider.push(scripted_tool_call("read", {"path": "pic.png"}, id="call_r"), scripted_text("Done."))
    session = create_agent_session(cwd=str(workdir), model=provider.model("text-only", input=["text"]),
                                   session_manager=SessionManager.in_memory(), settings=SettingsManager.in_memory({}))
    app = create_app(session, static=True)
    warning = "[text-only does not support images; it saw a placeholder instead]"
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"look", "enter")
        await settle(pilot, session)
        assert warning in screen_text(app) and "[Image:" not in screen_text(app)
        await pilot.press("ctrl+o")
        assert await wait_for(pilot, lambda: "[Image: [image/png] 64x48]" in screen_text(app))
        text = screen_text(app)
        assert text.index("[Image: [image/png] 64x48]") < text.index(warning)


def test_other_tools_are_titled_as_pi_titles_them():
    # An extension's or an MCP server's tool: its label, then key=value with values as JSON, cut to
    # 100 characters; an MCP tool is labelled server/tool.
    args = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    assert tool_title("mcp__time__convert_time", args) == (
        'time/convert_time source_timezone="UTC" time="12:00" target_timezone="Asia/Tokyo"')
    assert tool_title("tool_search", {"query": "current time"}) == 'tool_search query="current time"'
    assert tool_title("lint", {"files": ["a.py", "b.py"], "fix": True}) == 'lint files=["a.py","b.py"] fix=true'
    long = tool_title("lint", {"text": "x" * 200})
    assert len(long) == len("lint ") + 100 and long.endswith("...")
    assert tool_title("ping", {}) == "ping" and tool_label("mcp__odd") == "mcp__odd"
    assert argument_lines({"query": "two\nlines", "limit": 3, "opts": {"a": 1}}) == (
        '  query: two\n    lines\n  limit: 3\n  opts: {\n      "a": 1\n    }')


async def test_another_tools_output_shows_from_its_start(provider, workdir, tmp_path):
    ext = tmp_path / "listing.py"
    ext.write_text("def extension(pi):\n"
                   "    pi.register_tool(name='listing', description='rows', params=None,\n"
                   "                     execute=lambda *a: '\\n'.join(f'row {i}' for i in range(1, 31)))\n")
    session = make_session(provider, workdir, extensions=[str(ext)], tools="read,listing")
    provider.push(scripted_tool_call("listing", {"n": 30}, id="call_l"), scripted_text("Done."))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.press(*"go", "enter")
        await settle(pilot, session)
        text = screen_text(app)
        assert "listing n=30" in text
        assert "row 1" in text and "row 10" in text and "row 11" not in text  # Pi's first ten lines
        assert "… (20 more lines, ctrl+o to expand)" in text
        await pilot.press("ctrl+o")
        assert await wait_for(pilot, lambda: "row 30" in screen_text(app) and "  n: 30" in screen_text(app))
