"""The screenshot scene of the tree pane (``pi_tui.screenshots`` lists it as ``tree_pane``).

A branched conversation with a label, the pane open beside it and its cursor on an earlier
answer, so the picture shows the rows, the leaf marker and the preview banner at once.
"""

from __future__ import annotations

from typing import Any


async def tree_pane(pilot: Any, provider: Any) -> None:
    """Drive ``pilot``'s app into the scene; ``provider`` is the scene's scripted provider."""
    from pi_runtime.frontend import scripted_text, scripted_tool_call

    from .scenes import _send, _until, _usage

    app = pilot.app
    session = app.session
    provider.push(
        scripted_tool_call("read", {"path": "src/steps.py"}, id="t1", usage=_usage()),
        scripted_text("Each `step_N` adds N to its input; the pipeline is linear.", usage=_usage()),
        scripted_text("`run()` could be `x + 66`: the steps add 1 through 11.", usage=_usage()),
        scripted_text("Tests first: one property test comparing `run()` with the loop.", usage=_usage()),
    )
    await _send(pilot, "What does src/steps.py do?")
    await _until(pilot, lambda: not session.is_streaming and len(session.messages) >= 4)
    answer = session.session_manager.leaf_id
    await _send(pilot, "Can run() be a closed form?")
    await _until(pilot, lambda: not session.is_streaming and session.session_manager.leaf_id != answer)
    session.set_label(answer, "read steps")
    await session.navigate_tree(answer)  # back to the first answer: the next prompt starts a branch
    await _send(pilot, "Add tests before changing anything")
    await _until(pilot, lambda: not session.is_streaming and "property test" in (session.get_last_assistant_text() or ""))
    app.editor.insert("/pane tree")
    await pilot.press("enter")
    await _until(pilot, lambda: app.tree_pane.is_open)
    pane = app.tree_pane.pane
    await pilot.press("alt+t")  # opening left the keys in the editor: move into the pane
    await _until(pilot, lambda: app.focused is pane.list)
    while pane.live.rows.current_id != answer:
        await pilot.press("up")
    await _until(pilot, lambda: app.tree_pane.previewing)
