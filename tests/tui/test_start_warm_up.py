"""The Markdown warm-up at start-up never competes with a prompt typed while pi started: with one
waiting it starts once that prompt's answer does (after the request is out), else at once. The model
picker's rows are built ahead as well, once the session is quiet."""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app

from .conftest import settle, started, wait_for

WARM_UP = "markdown-warm-up"


def _warm_ups_started(seen: list[str]) -> int:
    return seen.count(WARM_UP)


async def test_a_prompt_waiting_at_start_is_requested_before_the_markdown_warm_up(provider, session):
    seen: list[str] = []
    warm_ups_at_request: list[int] = []

    def record(message) -> None:
        if isinstance(message, Worker.StateChanged) and message.state == WorkerState.RUNNING:
            seen.append(message.worker.name)

    def answer(context, options):
        warm_ups_at_request.append(_warm_ups_started(seen))
        return scripted_text("the answer")

    provider.responder = answer
    app = create_app(session, static=True)
    app.initial_prompt = "typed while pi started"
    async with app.run_test(size=(100, 30), message_hook=record) as pilot:
        await started(pilot)
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: _warm_ups_started(seen) == 1)
    assert warm_ups_at_request == [0]


async def test_with_nothing_waiting_the_warm_up_starts_with_the_session(provider, session):
    seen: list[str] = []

    def record(message) -> None:
        if isinstance(message, Worker.StateChanged) and message.state == WorkerState.RUNNING:
            seen.append(message.worker.name)

    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30), message_hook=record) as pilot:
        await started(pilot)
        assert _warm_ups_started(seen) == 1
        provider.push(scripted_text("the answer"))
        app.editor.set_text("hello")
        await pilot.press("enter")
        await settle(pilot, session)
        assert _warm_ups_started(seen) == 1  # once per start-up, not again with the answer


async def test_the_model_pickers_rows_are_built_before_it_first_opens(monkeypatch, session):
    # Every provider has a key: /model offers the whole catalogue, 1,688 models of 41 providers, built
    # from the catalogue a provider at a time once the session is quiet (they cost the first open
    # 15-45 ms), not when Ctrl+L is first pressed.
    from pi_runtime.ai.env_keys import ENV_KEYS

    for names in ENV_KEYS.values():
        for name in names:
            monkeypatch.setenv(name, "placeholder")
    registry = session.model_registry
    providers = registry.available_providers()
    assert len(providers) > 40 and not all(registry._table.is_built(p) for p in providers)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        assert await wait_for(pilot, lambda: all(registry._table.is_built(p) for p in providers))
        assert not app.is_screen_installed("model-picker")  # nobody opened it
