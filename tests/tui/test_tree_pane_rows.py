"""``LiveTree``: rows kept current from a real session equal the rows flattened from scratch."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.tree.live_tree import LiveTree
from pi_tui.tree.tree_rows import TreeRows


def snapshot(tree: TreeRows) -> list[tuple]:
    return [(r.entry_id, r.parent, r.guide, r.end, r.children, r.on_path) for r in tree.rows]


def fresh(session) -> TreeRows:
    sm = session.session_manager
    return TreeRows(sm.raw_entries(), sm.leaf_id)


async def test_turns_append_rows_without_flattening_again(session, provider):
    live = LiveTree(session)
    assert live.sync() == "none"
    provider.push(scripted_text("First answer"), scripted_text("Second answer"))
    await session.prompt("first question")
    assert live.sync() == "appended"
    await session.prompt("second question")
    assert live.sync() == "appended"
    assert live.rebuilds == 1
    expected = fresh(session)
    assert snapshot(live.rows) == snapshot(expected)
    assert live.rows.visible == expected.visible
    assert live.rows.current_id == session.session_manager.leaf_id  # the cursor followed the leaf


async def test_a_new_branch_flattens_once_and_keeps_filter_and_cursor(session, provider):
    provider.push(scripted_text("First answer"), scripted_text("Second answer"), scripted_text("Other answer"),
                  scripted_text("More"))
    await session.prompt("first question")
    await session.prompt("second question")
    live = LiveTree(session)
    live.rows.set_filter("user-only")
    sm = session.session_manager
    users = [e["id"] for e in sm.raw_entries() if e.get("type") == "message" and e["message"]["role"] == "user"]
    await session.navigate_tree(users[1])
    assert live.sync() == "leaf"
    assert snapshot(live.rows) == snapshot(fresh(session))
    await session.prompt("another question")  # a second child of the first answer: guides change
    assert live.sync() == "rebuilt"
    assert live.rows.filter == "user-only"
    assert live.rows.current_id == users[0] or live.rows.rows[live.rows.current_row].kind == "user"
    before = live.rebuilds
    await session.prompt("and more")  # continues the newest branch, which is last: one more row
    assert live.sync() == "appended" and live.rebuilds == before
    expected = fresh(session)
    expected.set_filter("user-only")
    assert snapshot(live.rows) == snapshot(expected)
    assert live.rows.visible == expected.visible


async def test_a_turn_on_an_older_branch_moves_the_rows_after_it(session, provider):
    provider.push(scripted_text("First answer"), scripted_text("Second answer"), scripted_text("Other answer"),
                  scripted_text("Back on the old branch"))
    await session.prompt("first question")
    await session.prompt("second question")
    sm = session.session_manager
    old_leaf = sm.leaf_id
    users = [e["id"] for e in sm.raw_entries() if e.get("type") == "message" and e["message"]["role"] == "user"]
    await session.navigate_tree(users[1])
    await session.prompt("another question")  # the newer branch is drawn after the older one
    newer = sm.raw_entries()[-2]["id"]  # "another question"
    live = LiveTree(session)
    live.rows.folded.add(live.rows.row_of[newer])  # a fold after the insertion point moves with its row
    live.rows.refresh_visible()
    await session.navigate_tree(old_leaf)
    assert live.sync() == "leaf"
    await session.prompt("continue the old branch")  # rows go in before the newer branch's rows
    assert live.sync() == "appended" and live.rebuilds == 1
    expected = fresh(session)
    assert snapshot(live.rows) == snapshot(expected)
    assert {live.rows.rows[f].entry_id for f in live.rows.folded} == {newer}
    expected.folded = {expected.row_of[newer]}
    expected.refresh_visible()
    assert live.rows.visible == expected.visible
    assert live.rows.current_id == sm.leaf_id


async def test_labels_arrive_as_rows_and_labels(session, provider):
    provider.push(scripted_text("Answer"))
    await session.prompt("question")
    live = LiveTree(session)
    target = session.session_manager.raw_entries()[-1]["id"]
    session.set_label(target, "keep")
    live.sync()
    assert live.rows.labels[target].text == "keep"
    assert snapshot(live.rows) == snapshot(fresh(session))
