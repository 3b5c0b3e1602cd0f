"""The collector pause of start-up's imports: off while any block runs, on again after the last,
never left off, and composed with the plain disable/enable pairs of start-up."""

from __future__ import annotations

import gc
import threading

import pytest

from pi_runtime.collector_pause import collector_paused, enable_collector


@pytest.fixture(autouse=True)
def collector_on():
    gc.enable()
    yield
    gc.enable()


def test_off_inside_on_after():
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_off_until_the_last_block_on_any_thread_ends():
    first_in, second_done, first_may_leave = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            first_may_leave.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(10)
    with collector_paused():
        pass
    seen.append(gc.isenabled())  # the other thread's block still runs
    second_done.set()
    first_may_leave.set()
    thread.join(10)
    assert seen == [False]
    assert gc.isenabled()


def test_left_off_when_it_was_off_and_never_left_off_by_a_plain_pair():
    gc.disable()  # start-up's own pause (cli.main) is under way
    with collector_paused():
        pass
    assert not gc.isenabled()
    gc.enable()
    # A plain pair (build_session) inside the block: it found the collector off and leaves it so.
    with collector_paused():
        was = gc.isenabled()
        gc.disable()
        if was:
            gc.enable()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_loaded_in_the_block_is_frozen():
    before = gc.get_freeze_count()
    with collector_paused():
        kept = [[i] for i in range(1000)]
    assert gc.get_freeze_count() >= before + len(kept)
    gc.unfreeze()


def test_a_mode_starting_while_another_thread_imports_waits_for_its_block():
    # cli.main's pause is under way and the HTTP client loads on its own thread; the mode that
    # starts meanwhile turns the collector on only once those imports are done.
    gc.disable()
    inside, may_leave = threading.Event(), threading.Event()

    def importing() -> None:
        with collector_paused():
            inside.set()
            may_leave.wait(10)

    thread = threading.Thread(target=importing)
    thread.start()
    assert inside.wait(10)
    enable_collector()
    during = gc.isenabled()
    may_leave.set()
    thread.join(10)
    assert (during, gc.isenabled()) == (False, True)


def test_a_mode_starting_with_no_block_running_turns_it_on_at_once():
    gc.disable()
    enable_collector()
    assert gc.isenabled()
