"""Full garbage collections wait while a session runs: a run turns the old generation's
threshold off, and it comes back (after one full collection) once the app is idle."""

from __future__ import annotations

import gc
import time

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app

from .conftest import make_session, settle, started, wait_for


async def test_no_full_collection_while_a_run_goes_on_and_one_once_idle(provider, workdir, agent_dir):
    normal = gc.get_threshold()
    session = make_session(provider, workdir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await started(pilot)
            app.last_input_at = time.perf_counter() + 3600  # as if the user kept typing
            provider.push(scripted_text("an answer"))
            await session.prompt("hello", wait=False)
            await settle(pilot, session)
            # The run is over but the user types: the full collection still waits.
            assert gc.get_threshold()[2] > 1_000_000
            assert gc.get_threshold()[:2] == normal[:2]  # the young generations are collected as ever
            app.last_input_at = 0.0
            assert await wait_for(pilot, lambda: gc.get_threshold() == normal)
    finally:
        gc.set_threshold(*normal)
