"""UsageLedger totals over a session file: the common message shapes and the odd ones alike."""

from __future__ import annotations

import json

from pi_runtime.kernel.usage_ledger import UsageLedger
from pi_runtime.session.manager import SessionManager


def usage(i, o, r, w, total):
    return {"input": i, "output": o, "cacheRead": r, "cacheWrite": w, "cost": {"total": total}}


def write(path, messages, extra=()):
    lines = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}]
    parent = None
    for n, message in enumerate(messages):
        lines.append({"type": "message", "id": f"m{n}", "parentId": parent,
                      "timestamp": "2025-01-01T00:00:00.000Z", "message": message})
        parent = f"m{n}"
    lines.extend(extra)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_totals_count_plain_and_odd_usage_alike(tmp_path):
    call = {"type": "toolCall", "id": "c", "name": "bash", "arguments": {}}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [call, call], "usage": usage(10, 5, 30, 0, 0.25)},
        {"role": "toolResult", "toolCallId": "c", "content": []},
        # Odd figures, as a hand-edited file may hold: a float, a bool, a string usage.
        {"role": "assistant", "content": [], "usage": usage(2.9, True, 0, 1, 1)},
        {"role": "toolResult", "toolCallId": "c", "content": [], "usage": "x"},
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "usage": usage(20, 1, 60, 20, 0.5)},
    ] * 40  # past the point where the ledger reads entries in bulk
    extra = [{"type": "compaction", "id": "k", "parentId": None, "summary": "s", "usage": usage(7, 1, 0, 0, 0.125)}]
    path = tmp_path / "s.jsonl"
    write(path, messages, extra)
    manager = SessionManager.open(path, read_only=True)
    ledger = UsageLedger(lambda: manager)
    totals = ledger.totals()
    assert (totals.input, totals.output, totals.cache_read, totals.cache_write) == (
        40 * (10 + 2 + 20) + 7, 40 * (5 + 1) + 1, 40 * (30 + 60), 40 * (1 + 20))
    assert abs(totals.cost - (40 * (0.25 + 1 + 0.5) + 0.125)) < 1e-9
    assert totals.latest_cache_hit_rate == 60 / (20 + 60 + 20) * 100
    # Every message entry counts among the messages, the system one too (as Pi's totalMessages).
    assert ledger.counts == {"user": 40, "assistant": 120, "toolResult": 80, "toolCalls": 80, "messages": 280}


def test_entries_whose_message_or_content_is_not_an_object_are_left_out(tmp_path):
    # A hand-edited or foreign file: a message that is a string, an assistant whose content is a
    # number. The footer's totals skip them instead of failing the whole app.
    messages = [
        {"role": "user", "content": "hi"},
        "just a string",
        {"role": "assistant", "content": 5, "usage": usage(1, 1, 0, 0, 0.5)},
        {"role": "assistant", "content": [], "usage": usage(2, 2, 0, 0, 0.25)},
    ] * 40
    path = tmp_path / "s.jsonl"
    write(path, messages)
    manager = SessionManager.open(path, read_only=True)
    ledger = UsageLedger(lambda: manager)
    totals = ledger.totals()
    assert (totals.input, totals.output) == (40 * 3, 40 * 3)
    assert ledger.counts["assistant"] == 80 and ledger.counts["toolCalls"] == 0


def test_context_percent_goes_out_unrounded_as_pi_sends_it():
    from pi_runtime.kernel.results import ContextUsage

    assert ContextUsage(15_003, 20_000).to_wire()["percent"] == 75.015  # Pi's get_session_stats; pi sent 75.0
    assert ContextUsage(None, 20_000).to_wire()["percent"] is None


def _context_file(path, tail):
    """A session whose answer reported 5,000 tokens, then ``tail`` (entry dicts after it)."""
    write(path, [
        {"role": "user", "content": "x" * 400},
        {"role": "assistant", "content": [{"type": "text", "text": "y" * 400}], "stopReason": "stop",
         "usage": {**usage(4_000, 1_000, 0, 0, 0), "totalTokens": 5_000}},
    ], tail)
    return SessionManager.open(path, read_only=True)


def test_a_failed_attempt_taken_out_after_the_last_report_makes_pi_estimate_everything(tmp_path):
    from pi_runtime.ai.types import Model

    model = Model(id="m", name="m", api="openai-completions", provider="p", base_url="", context_window=10_000)
    failed = {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "500",
              "usage": usage(0, 0, 0, 0, 0)}
    question = {"role": "user", "content": "z" * 40}
    tail = [
        {"type": "message", "id": "q", "parentId": "m1", "timestamp": "2025-01-01T00:00:01.000Z", "message": question},
        {"type": "message", "id": "e", "parentId": "q", "timestamp": "2025-01-01T00:00:02.000Z", "message": failed},
        {"type": "context_edit", "id": "x", "parentId": "e", "timestamp": "2025-01-01T00:00:03.000Z",
         "targetId": "e", "replacement": None},
    ]
    edited = _context_file(tmp_path / "edited.jsonl", tail)
    messages = edited.build_session_context().messages
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    # As Pi 1.6's estimateProjectedContextTokens: the report predates the edit, so chars/4 of all.
    assert UsageLedger(lambda: edited).context(messages, model).tokens == 100 + 100 + 10

    # Without the edit the report stands, plus what followed it.
    plain = _context_file(tmp_path / "plain.jsonl", tail[:1])
    messages = plain.build_session_context().messages
    assert UsageLedger(lambda: plain).context(messages, model).tokens == 5_000 + 10

    # An answer reported after the edit is trusted again.
    answer = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop",
              "usage": {**usage(6_000, 10, 0, 0, 0), "totalTokens": 6_010}}
    later = _context_file(tmp_path / "later.jsonl", tail + [
        {"type": "message", "id": "a2", "parentId": "x", "timestamp": "2025-01-01T00:00:04.000Z", "message": answer}])
    messages = later.build_session_context().messages
    assert UsageLedger(lambda: later).context(messages, model).tokens == 6_010


def test_the_figure_is_unknown_after_a_compaction_and_known_again_on_a_branch_before_it(tmp_path):
    """Read from the branch, not kept as a flag: reopening a compacted session shows no figure (Pi:
    unknown until the next answer), and moving to a branch without the compaction (a fork made
    before it) shows the last answer's again."""
    from pi_runtime.ai.types import Model

    model = Model(id="m", name="m", api="openai-completions", provider="p", base_url="", context_window=10_000)
    compaction = {"type": "compaction", "id": "k", "parentId": "m1", "timestamp": "2025-01-01T00:00:05.000Z",
                  "summary": "s" * 80, "firstKeptEntryId": "m1", "tokensBefore": 5_000}
    manager = _context_file(tmp_path / "compacted.jsonl", [compaction])
    ledger = UsageLedger(lambda: manager)
    assert ledger.context(manager.build_session_context().messages, model).tokens is None
    manager.branch("m1")
    assert ledger.context(manager.build_session_context().messages, model).tokens == 5_000
