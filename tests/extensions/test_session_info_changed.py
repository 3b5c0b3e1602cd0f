"""An extension's ``session_info_changed`` handler runs when the session is named (issue #37: it
never ran; building the event failed with "make_event() got multiple values for argument 'name'")."""

from __future__ import annotations

from .conftest import errors


async def test_the_handler_gets_the_new_name(make_session, write_ext, tmp_path):
    seen = tmp_path / "seen"
    path = write_ext("watcher", f"""
        def extension(pi):
            def changed(event, ctx):
                open({str(seen)!r}, "a").write(str(event.name) + "\\n")
            pi.on("session_info_changed", changed)
    """)
    session = make_session(extensions=[path])
    await session.set_session_name("Refactor auth")
    await session.set_session_name("")
    assert errors(session) == []
    assert seen.read_text().splitlines() == ["Refactor auth", "None"]
