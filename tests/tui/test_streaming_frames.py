"""What keeps streaming frames cheap: deferred off-screen blocks, the hidden scrollbar while
the view follows the stream, one message per batch of kernel events, keys before frames."""

from __future__ import annotations

import time
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.bridge import Bridge, KernelEvents
from pi_tui.launch import create_app
from pi_tui.transcript.markdown_render import warm_up
from pi_tui.transcript.streaming_markdown import StreamingMarkdown, _Deferred, estimate_height

from .conftest import screen_text, settle, wait_for


def _answer(sections: int) -> str:
    parts = []
    for i in range(sections):
        parts.append(f"## Part {i}\n\nParagraph {i} with some words in it.\n\n- item {i}\n\n```python\nx = {i}\n```\n\n")
    return "".join(parts)


class _Scroll(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="view") as view:
            self.md = StreamingMarkdown("")
            yield self.md
        view.anchor()  # follows the end, like the transcript


async def test_a_burst_renders_only_the_blocks_near_the_end_and_the_rest_later():
    warm_up()  # the first render imports the Markdown stack; its cost would space the frames out
    app = _Scroll()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.write("start\n\n")
        assert await wait_for(pilot, lambda: "start" in md.open_text + "".join(md._sources))  # a frame took it
        md.write(_answer(40) + "tail words")  # far more than a screen arrives in one frame
        assert await wait_for(pilot, lambda: "tail words" in screen_text(app))  # the next frame drew the end
        deferred = sum(1 for lines in md._rendered if lines is None)
        assert deferred > 100  # most of the burst was not rendered...
        assert md._rendered[-1] is not None  # ...but the end of it was
        assert "tail words" in screen_text(app)
        # A deferred block scrolled into view is rendered when it is drawn.
        view = app.query_one("#view")
        view.release_anchor()
        view.scroll_home(animate=False)
        assert await wait_for(pilot, lambda: "start" in screen_text(app) and "Part 0" in screen_text(app))
        assert not any(isinstance(line, _Deferred) for line in md._done[:20])
        # Once the answer is complete the rest is filled in, a slice at a time.
        await md.finish()
        assert await wait_for(pilot, lambda: all(lines is not None for lines in md._rendered))
        assert not any(isinstance(line, _Deferred) for line in md._done)
        assert len(md._done) == sum(md._heights) + len(md._heights) - 1
        assert md.virtual_region.height == md._height()


def test_height_estimates_match_simple_blocks():
    assert estimate_height("one line", 40) == 1
    assert estimate_height("x" * 100, 40) == 3
    assert estimate_height("```python\na = 1\nb = 2\n```", 40) == 4


async def test_scrollbar_hides_while_following_a_stream_and_returns_on_scroll_up(provider, session):
    provider.push(scripted_text("line\n\n" * 400, first_delay=0.3, delay=0.01, chunk_size=6))
    app = create_app(session, static=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"go", "enter")
        assert await wait_for(pilot, lambda: session.is_streaming)
        assert await wait_for(pilot, lambda: app.transcript.scrollbar_hidden)
        await pilot.press("pageup")
        # The user scrolled: show where they are.
        assert await wait_for(pilot, lambda: not app.transcript.scrollbar_hidden)
        await pilot.press("ctrl+end")
        assert await wait_for(pilot, lambda: app.transcript.scrollbar_hidden)
        await session.abort()
        await settle(pilot, session)
        assert not app.transcript.scrollbar_hidden


class _Sink(App):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def on_kernel_events(self, message: KernelEvents) -> None:
        self.batches.append([event.type for event in message.bridge.drain()])


class _FakeSession:
    def __init__(self) -> None:
        self.listeners = []

    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)


class _Event:
    def __init__(self, kind: str) -> None:
        self.type = kind


def feed_events(app: App, count: int) -> _FakeSession:
    """A bridge to ``app`` from a session that has just sent ``count`` events (e0, e1, ...)."""
    source = _FakeSession()
    Bridge(source, app).start()
    for i in range(count):
        source.listeners[0](_Event(f"e{i}"))
    return source


async def test_bridge_posts_one_message_per_batch_in_order():
    app = _Sink()
    async with app.run_test() as pilot:
        source = feed_events(app, 50)
        await pilot.pause()
        source.listeners[0](_Event("late"))
        await pilot.pause()
        assert app.batches == [[f"e{i}" for i in range(50)], ["late"]]


class _Typed(Message):
    pass


class _SlowSink(App):
    """Works on each event as a widget would (5 ms), with the app's budget per batch."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def on_kernel_events(self, message: KernelEvents) -> None:
        batch = []
        for event in message.bridge.drain(budget=0.02):
            done = time.perf_counter() + 0.005
            while time.perf_counter() < done:
                pass
            batch.append(event.type)
        self.seen.append(batch)

    def on__typed(self, message: _Typed) -> None:
        self.seen.append("typed")


async def test_a_key_typed_during_a_long_batch_of_events_goes_before_the_rest():
    # A reply with 200 tool calls queues about a thousand events; worked through in one go they
    # held a typed key back for 1.4-2.4 s.
    app = _SlowSink()
    async with app.run_test() as pilot:
        feed_events(app, 50)
        app.post_message(_Typed())  # the key comes after the first message about the events
        assert await wait_for(pilot, lambda: sum(len(b) for b in app.seen if b != "typed") == 50)
        assert app.seen[1] == "typed" and len(app.seen[0]) < 10
        assert [e for b in app.seen if b != "typed" for e in b] == [f"e{i}" for i in range(50)]


async def test_a_frame_waits_for_a_key_typed_just_before_it():
    warm_up()
    app = _Scroll()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.write("first\n\n")
        assert await wait_for(pilot, lambda: "first" in md.open_text + "".join(md._sources))
        app.last_input_at = time.perf_counter() + 10  # as if a key had just been pressed
        md.write("second\n\n")
        # A frame now (what the frame timer calls) leaves the text for later: the key goes first.
        md._not_before = 0.0  # the render budget would hold it back too: only the key may here
        md._flush()
        assert "second" not in md.open_text + "".join(md._sources)
        app.last_input_at = 0.0
        assert await wait_for(pilot, lambda: "second" in screen_text(app))  # the timer's next frame


class _History(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="view"):
            self.md = StreamingMarkdown("A finished answer with **bold** words that wraps at narrow widths.\n\n"
                                        "- one item\n- another item that is a little longer", live=False)
            yield self.md


async def test_a_finished_answer_going_back_to_a_width_reuses_its_lines():
    # A pane opened and closed, a terminal resized and back: every finished block was wrapped
    # for the earlier width already, and that wrap is used again rather than rendered anew.
    app = _History()
    async with app.run_test(size=(80, 20)) as pilot:
        md = app.md
        await pilot.pause()
        wide = list(md._done)
        assert wide and md._key is not None and md._key[0] == md.size.width
        await pilot.resize_terminal(40, 20)
        await pilot.pause()
        narrow = list(md._done)
        assert len(narrow) > len(wide)  # re-wrapped: more lines
        await pilot.resize_terminal(80, 20)
        await pilot.pause()
        assert len(md._done) == len(wide) and all(a is b for a, b in zip(md._done, wide))
        await pilot.resize_terminal(40, 20)
        await pilot.pause()
        assert all(a is b for a, b in zip(md._done, narrow))
