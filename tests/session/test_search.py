"""Session search as Pi's ``/resume`` does it: literal words anywhere in the messages, scattered
letters only in the name or folder, phrases, ``re:``; and the matching line for each hit."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from pi_runtime.session.listing import SessionInfo
from pi_runtime.session.search import SessionMatcher, message_texts, parse_query


def info(path: Path, name: str | None = None, cwd: str = "/home/me/shop") -> SessionInfo:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    return SessionInfo(path=path, id="0195-abc", cwd=cwd, name=name, parent_session_path=None, created=now,
                       modified=now, message_count=2, first_message="hi")


def write(path: Path, lines: list[dict], *, spaced: bool = False) -> Path:
    path.write_text("".join((json.dumps(x) if spaced else json.dumps(x, separators=(",", ":"))) + "\n" for x in lines))
    return path


def message(role: str, text: str) -> dict:
    content = text if role == "user" else [{"type": "text", "text": text}]
    return {"type": "message", "id": "x", "parentId": None, "timestamp": "2025-01-01T00:00:00Z",
            "message": {"role": role, "content": content}}


def test_only_user_and_assistant_text_is_read_from_either_key_order(tmp_path):
    lines = [{"type": "session", "id": "s", "version": 3}, message("user", "find   the\\nbug"),
             {"type": "message", "message": {"role": "toolResult", "content": [{"type": "text", "text": "secret"}]}},
             message("assistant", "fixed it")]
    assert message_texts(write(tmp_path / "a.jsonl", lines)) == ["find the\\nbug", "fixed it"]
    assert message_texts(write(tmp_path / "b.jsonl", lines, spaced=True)) == ["find the\\nbug", "fixed it"]


def test_words_phrases_regex_and_scattered_letters(tmp_path):
    path = write(tmp_path / "s.jsonl", [message("user", "please refactor the payment gateway retries"),
                                         message("assistant", "Refactored: retries now back off")])
    matcher = SessionMatcher()
    row = info(path, name="checkout work")
    hit = matcher.match(row, parse_query("gateway retries"))
    assert hit is not None and hit.snippet == "please refactor the payment gateway retries"
    assert matcher.match(row, parse_query('"now back off"')) is not None
    assert matcher.match(row, parse_query('"back now off"')) is None
    assert matcher.match(row, parse_query("re:back\\s+off")).snippet == "Refactored: retries now back off"
    assert matcher.match(row, parse_query("chkwrk")) is not None  # scattered in the name
    assert matcher.match(row, parse_query("pymntgtw")) is None  # never scattered in messages
    assert matcher.match(row, parse_query("re:(")) is None  # a broken pattern matches nothing
    named = matcher.match(row, parse_query("checkout"))
    assert named is not None and named.score < hit.score  # a name match ranks first
