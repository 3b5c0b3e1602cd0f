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
