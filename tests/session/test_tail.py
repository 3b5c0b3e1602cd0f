"""Reading the end of a session's current branch without opening the whole file."""

from __future__ import annotations

from session_helpers import assistant, user

from pi_runtime.session import SessionManager
from pi_runtime.session.entries import parse_messages
from pi_runtime.session.tail import read_branch_tail


def _texts(dicts) -> list[str]:
    out = []
    for message in parse_messages(dicts):
        content = message.content
        out.append(content if isinstance(content, str) else content[0].text)
    return out


def _session(tmp_path, turns: int, filler: str = "") -> SessionManager:
    m = SessionManager.create("/proj", tmp_path)
    m.append_model_change("anthropic", "claude")
    for i in range(turns):
        m.append_message(user(f"q{i} {filler}".strip()))
        m.append_message(assistant(f"a{i}"))
    return m


def test_the_tail_is_the_end_of_what_opening_the_session_shows(tmp_path):
    m = _session(tmp_path, 50)
    path = m.session_file
    m.close()
    tail = read_branch_tail(path, 6)
    assert _texts(tail) == ["q47", "a47", "q48", "a48", "q49", "a49"]
    opened = SessionManager.open(path, tmp_path)
    assert [m.model_dump(by_alias=True, exclude_none=True) for m in opened.build_session_context().messages[-6:]] == \
        [m.model_dump(by_alias=True, exclude_none=True) for m in parse_messages(tail)]
    opened.close()


def test_a_short_session_gives_all_its_messages(tmp_path):
    m = _session(tmp_path, 2)
    m.append_label(m.leaf_id, "done")  # labels add nothing to the messages
    path = m.session_file
    m.close()
    assert _texts(read_branch_tail(path, 30)) == ["q0", "a0", "q1", "a1"]


def test_the_branch_of_the_last_entry_is_followed(tmp_path):
    m = _session(tmp_path, 3)
    first_answer = m.get_branch()[2].id  # model_change, q0, a0
    m.branch(first_answer)
    m.append_message(user("other way"))
    m.append_message(assistant("other answer"))
    path = m.session_file
    m.close()
    assert _texts(read_branch_tail(path, 30)) == ["q0", "a0", "other way", "other answer"]


def test_a_long_file_is_read_further_back_when_needed(tmp_path):
    m = _session(tmp_path, 400, filler="x" * 2000)  # ~1.6 MB: past the first read from the end
    path = m.session_file
    m.close()
    tail = read_branch_tail(path, 300)
    assert len(tail) == 300
    assert _texts(tail)[-1] == "a399"


def test_no_answer_when_a_compaction_is_in_reach_or_the_file_is_not_a_session(tmp_path):
    m = _session(tmp_path, 4)
    kept = m.get_branch()[-2].id
    m.append_compaction("summary of the start", kept, 1000)
    m.append_message(user("after"))
    m.append_message(assistant("later"))
    path = m.session_file
    m.close()
    assert _texts(read_branch_tail(path, 2)) == ["after", "later"]  # the compaction is further back
    assert read_branch_tail(path, 10) is None  # ...and here it is within reach: the context differs
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\x01 not json\n")
    assert read_branch_tail(junk, 5) in (None, [])
    assert read_branch_tail(tmp_path / "missing.jsonl", 5) is None


def test_a_torn_last_line_is_skipped(tmp_path):
    m = _session(tmp_path, 3)
    path = m.session_file
    m.close()
    with open(path, "ab") as fh:
        fh.write(b'{"type":"message","id":"zz","parentId":')
    assert _texts(read_branch_tail(path, 2)) == ["q2", "a2"]
