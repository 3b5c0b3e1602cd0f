"""``--fork X --session-id Y`` gives the fork the id Y, as Pi does (issue #37: Y was ignored), and
refuses an id a session of the project already has."""

from __future__ import annotations

import json

from e2e_support import MODEL, run_pi, session_files, text_reply


def test_fork_takes_the_chosen_id(env, loopback):
    loopback.push(text_reply("first"), text_reply("forked"))
    assert run_pi(["-p", "start", "--model", MODEL], env).returncode == 0
    [original] = session_files(env)
    forked = run_pi(["-p", "in the fork", "--model", MODEL, "--fork", str(original), "--session-id", "fork-42"], env)
    assert forked.returncode == 0, forked.stderr
    [new] = [f for f in session_files(env) if f != original]
    header = json.loads(new.read_text().splitlines()[0])
    assert header["id"] == "fork-42" and new.name.endswith("_fork-42.jsonl")
    assert header["parentSession"] == str(original)
    again = run_pi(["-p", "x", "--model", MODEL, "--fork", str(original), "--session-id", "fork-42"], env)
    assert again.returncode != 0 and "Session already exists with id 'fork-42'" in again.stderr
    assert len(session_files(env)) == 2
