"""An answer the model stopped at its output limit says so, as Pi says it: live, when the session
is opened again, and in what the app prints when it exits."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.transcript.exit_output import transcript_text
from pi_tui.transcript.history import TRUNCATED_REPLY

from .conftest import make_session, screen_text, settle, wait_for


async def test_an_answer_cut_at_the_output_limit_says_it_was_truncated(provider, workdir):
    provider.push(scripted_text("This answer stops in the", stop_reason="length"), scripted_text("A whole answer."))
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"explain", "enter")
        await settle(pilot, session)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        at = lines.index("This answer stops in the")
        assert TRUNCATED_REPLY in lines[at + 1:at + 3]
        await pilot.press(*"again", "enter")
        await settle(pilot, session)
        assert screen_text(app).count(TRUNCATED_REPLY) == 1  # a finished answer says nothing

        await app.transcript.load_messages(session.messages)  # as a resume draws the history
        assert await wait_for(pilot, lambda: screen_text(app).count(TRUNCATED_REPLY) == 1)
    assert TRUNCATED_REPLY in transcript_text(session.messages)


def _aborted(error_message: str) -> list[dict]:
    return [{"role": "user", "content": "explain", "timestamp": 1},
            {"role": "assistant", "timestamp": 2, "stopReason": "aborted", "errorMessage": error_message,
             "api": "x", "provider": "p", "model": "m",
             "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                       "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
             "content": [{"type": "text", "text": "Half an answer"}]}]


async def test_a_stopped_answer_says_operation_aborted_as_pi_does(provider, workdir):
    from pi_runtime.frontend.app_support import parse_messages

    # What pi's kernel records (during or before the request), and what Pi's app writes.
    for recorded in ("Request was aborted", "This operation was aborted", "Operation aborted"):
        assert transcript_text(parse_messages(_aborted(recorded))).endswith("Half an answer\n\nOperation aborted")
    # A reason of its own (an extension stopped the run) is shown instead, as Pi shows it.
    assert transcript_text(parse_messages(_aborted("Stopped: over budget"))).endswith("Stopped: over budget")

    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.transcript.load_messages(parse_messages(_aborted("Request was aborted")))
        assert await wait_for(pilot, lambda: "Operation aborted" in screen_text(app))
        assert "Request was aborted" not in screen_text(app)


async def test_stopping_a_run_while_it_retries_counts_the_attempts(provider, workdir):
    from pi_runtime.ai.providers.scripted import scripted_error
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    settings = SettingsManager.in_memory({"compaction": {"enabled": False},
                                          "retry": {"enabled": True, "maxRetries": 3, "baseDelayMs": 1}})
    session = create_agent_session(cwd=str(workdir), model=provider.model(), session_manager=SessionManager.in_memory(),
                                   settings=settings)
    # The first request fails; the retried one is stopped while it streams.
    provider.push(scripted_error("503 service unavailable"), scripted_text("The retried answer " * 50, delay=0.05))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hello", "enter")
        assert await wait_for(pilot, lambda: "The retried answer" in screen_text(app))
        await pilot.press("escape")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "Aborted after 1 retry attempt" in screen_text(app))
        assert "Aborted after 1 retry attempts" not in screen_text(app)


async def test_cancelling_a_retry_says_so_once(provider, workdir):
    """Esc while a retry waits: Pi's lines are the error and "Retry failed …: Retry cancelled",
    with no abort line after them."""
    from pi_runtime.ai.providers.scripted import scripted_error
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    settings = SettingsManager.in_memory({"compaction": {"enabled": False},
                                          "retry": {"enabled": True, "maxRetries": 3, "baseDelayMs": 60_000}})
    session = create_agent_session(cwd=str(workdir), model=provider.model(), session_manager=SessionManager.in_memory(),
                                   settings=settings)
    provider.push(scripted_error("503 service unavailable"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hello", "enter")
        assert await wait_for(pilot, lambda: "Retrying in" in screen_text(app))
        await pilot.press("escape")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "Retry cancelled" in screen_text(app))
        assert "aborted" not in screen_text(app).lower()
