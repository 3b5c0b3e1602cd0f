"""An entry that cannot become JSON (an extension's ``appendEntry`` data holding a set, say) is
refused before it joins the tree: the entries after it are written with parents the file holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
from pi_runtime.session.manager import SessionManager


def test_an_unsaveable_entry_is_refused_and_the_tree_on_disk_stays_whole(tmp_path):
    sm = SessionManager.create(str(tmp_path), tmp_path / "sessions")
    sm.append_message(UserMessage(content="hi"))
    sm.append_message(AssistantMessage(content=[TextContent(text="yo")], api="x", provider="p", model="m"))
    leaf = sm.leaf_id
    with pytest.raises(ValueError, match="custom entry cannot be saved to the session file"):
        sm.append_custom("state", {1, 2})
    assert sm.leaf_id == leaf
    sm.append_message(UserMessage(content="again"))
    written: set[str] = set()
    for line in Path(sm.session_file).read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] != "session":
            assert entry["parentId"] is None or entry["parentId"] in written, entry
            written.add(entry["id"])
    assert len(written) == 3 and len(sm.get_entries()) == 3
