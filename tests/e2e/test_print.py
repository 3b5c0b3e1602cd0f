"""``pi -p`` and start-up errors, run as a subprocess against the loopback server."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

from e2e_support import MODEL, assert_one_line_error, error_reply, run_pi, session_files, text_reply


def user_texts(request) -> list[str]:
    out = []
    for message in request.json()["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return out


def test_print_writes_the_final_answer_and_sends_the_prompt(loopback, env):
    loopback.push(text_reply("Hello from the loopback server."))
    result = run_pi(["-p", "say hi", "--model", MODEL], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the loopback server.\n"
    request = loopback.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer loop-key"
    assert request.json()["model"] == "loop-model"
    assert user_texts(request) == ["say hi"]
    # The run was saved (print mode persists like Pi).
    [saved] = session_files(env)
    lines = [json.loads(line) for line in saved.read_text().splitlines()]
    assert lines[0]["type"] == "session"
    roles = [e["message"]["role"] for e in lines if e["type"] == "message" and e["message"]["role"] != "system"]
    assert roles == ["user", "assistant"]


def test_several_messages_run_in_order_and_continue_resumes(loopback, env):
    loopback.push(text_reply("one"), text_reply("two"))
    result = run_pi(["-p", "first", "second"], env)  # default model from settings
    assert result.returncode == 0, result.stderr
    assert result.stdout == "two\n"
    assert user_texts(loopback.requests[1]) == ["first", "second"]
    loopback.push(text_reply("three"))
    again = run_pi(["-c", "-p", "third"], env)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "three\n"
    assert user_texts(loopback.requests[2]) == ["first", "second", "third"]
    assert len(session_files(env)) == 1


def test_piped_stdin_and_file_arguments_join_the_first_prompt(loopback, env):
    project = Path(env["PI_TEST_PROJECT"])
    (project / "notes.txt").write_text("line one\nline two\n")
    # A real 1x1 PNG: a signature alone is not an image (Pi also wants the IHDR chunk).
    (project / "pixel.png").write_bytes(base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="))
    loopback.push(text_reply("ok"))
    result = run_pi(["--model", MODEL, "@notes.txt", "@pixel.png", "summarise"], env, stdin="piped text\n")
    assert result.returncode == 0, result.stderr  # non-TTY stdin/stdout: print mode without -p
    [text] = user_texts(loopback.requests[0])
    notes = project / "notes.txt"
    assert text.startswith(f'<file name="{notes.resolve()}">\nline one\nline two\n\n</file>\n')
    assert text.endswith("piped text\n\nsummarise")
    content = loopback.requests[0].json()["messages"][-1]["content"]
    images = [p for p in content if p.get("type") == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_provider_error_exits_1_with_the_message_on_stderr(loopback, env):
    # 500 is retried (maxRetries 2 in the test settings), then reported.
    loopback.push(*[error_reply(500, "upstream exploded")] * 3)
    result = run_pi(["-p", "hi", "--model", MODEL], env)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "upstream exploded" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(loopback.requests) == 3


def test_output_cut_at_the_length_limit_prints_and_exits_nonzero(loopback, env):
    loopback.push(text_reply("partial answ", finish="length"))
    result = run_pi(["-p", "hi", "--model", MODEL], env)
    assert result.returncode == 1
    assert result.stdout == "partial answ\n"
    assert "output token limit" in result.stderr


def test_unknown_model_names_the_closest_matches(env):
    result = run_pi(["-p", "hi", "--model", "loop-modle"], env)
    assert result.returncode == 1
    assert_one_line_error(result.stderr)
    assert "Unknown model 'loop-modle'" in result.stderr
    assert "loop/loop-model" in result.stderr


def test_a_new_model_id_of_a_known_provider_is_used_with_pis_warning(env, loopback):
    # A model newer than the catalogue: Pi sends it under the provider's default model's settings.
    loopback.push(text_reply("new model here"))
    result = run_pi(["-p", "hi", "--model", "loop/loop-next"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "new model here\n"
    assert 'Model "loop-next" not found for provider "loop". Using custom model id.' in result.stderr
    assert loopback.requests[0].json()["model"] == "loop-next"


def test_a_model_unknown_because_models_json_is_broken_says_so(env):
    # The likeliest cause, which only --list-models used to name.
    models = Path(env["PI_CODING_AGENT_DIR"]) / "models.json"
    models.write_text('{"providers": {')
    result = run_pi(["-p", "hi", "--model", "loop/loop-model"], env)
    assert result.returncode == 1
    assert_one_line_error(result.stderr)
    assert "Unknown model 'loop/loop-model'. models.json was not read in full:" in result.stderr
    assert f"{models}: invalid JSON at line 1 column 16" in result.stderr
    assert models.read_text() == '{"providers": {'  # left as the user wrote it


def test_no_key_because_auth_json_is_broken_says_so(env):
    auth = Path(env["PI_CODING_AGENT_DIR"]) / "auth.json"
    auth.write_bytes(b"\x00\x01garbage")
    auth.chmod(0o600)
    result = run_pi(["-p", "hi", "--model", "anthropic/claude-sonnet-4-5"], {**env, "ANTHROPIC_API_KEY": ""})
    assert result.returncode == 1
    assert_one_line_error(result.stderr)
    assert f"No API key for provider 'anthropic' (stored keys were not read: {auth}: invalid JSON" in result.stderr
    assert auth.read_bytes() == b"\x00\x01garbage"


def test_unknown_flag_is_a_usage_error(env):
    result = run_pi(["--frobnicate", "-p", "hi"], env)
    assert result.returncode == 2
    assert_one_line_error(result.stderr)
    assert "--frobnicate" in result.stderr


def test_missing_credentials_say_which_variable(env):
    result = run_pi(["-p", "hi", "--model", "anthropic/claude-sonnet-4-5"], env)
    assert result.returncode == 1
    assert_one_line_error(result.stderr)
    assert "ANTHROPIC_API_KEY" in result.stderr


def test_missing_and_corrupt_sessions_are_clear_errors(env, tmp_path):
    missing = run_pi(["-p", "hi", "--session", "0badc0de"], env)
    assert missing.returncode == 1
    assert_one_line_error(missing.stderr)
    assert "No session found matching '0badc0de'" in missing.stderr
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text("this is not a session\n{\"also\": \"not\"}\n")
    bad = run_pi(["-p", "hi", "--session", str(corrupt)], env)
    assert bad.returncode == 1
    assert_one_line_error(bad.stderr)
    assert corrupt.read_text().startswith("this is not a session")  # left untouched


def test_a_session_path_to_no_file_starts_a_session_there_as_in_pi(loopback, env, tmp_path):
    target = tmp_path / "new" / "work.jsonl"
    loopback.push(text_reply("first"), text_reply("second"))
    assert run_pi(["-p", "hi", "--session", str(target)], env).returncode == 0
    again = run_pi(["-p", "again", "--session", str(target)], env)
    assert again.returncode == 0 and again.stdout == "second\n"
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert lines[0]["type"] == "session"
    assert len([e for e in lines if e.get("message", {}).get("role") == "user"]) == 2  # one file, both turns
    fork = run_pi(["-p", "hi", "--fork", str(tmp_path / "none.jsonl")], env)
    assert fork.returncode == 1 and "Session file not found" in fork.stderr  # nothing to fork


def test_demo_model_needs_no_credentials(env):
    result = run_pi(["--demo", "-p", "hello demo", "--no-session"], env)
    assert result.returncode == 0, result.stderr
    assert "hello demo" in result.stdout


def test_headless_modes_never_import_textual_or_rich(loopback, env):
    loopback.push(text_reply("fine"))
    probe = (
        "import sys\n"
        "from pi_runtime.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "sys.stderr.write('LOADED=' + ','.join(loaded) + '\\n')\n"
        "sys.exit(code)\n"
    )
    import subprocess

    for args, stdin in ((["-p", "hi", "--model", MODEL], b""),
                        (["--mode", "rpc", "--no-session"], b'{"type":"get_state"}\n')):
        proc = subprocess.run([sys.executable, "-c", probe, *args], input=stdin, capture_output=True,
                              env=env, cwd=env["PI_TEST_PROJECT"], timeout=30)
        err = proc.stderr.decode()
        assert proc.returncode == 0, err
        assert "LOADED=\n" in err, err


def test_tools_prompts_thinking_and_session_dir_flags_reach_the_request(loopback, env, tmp_path):
    project = Path(env["PI_TEST_PROJECT"])
    (project / "prompt.md").write_text("You are a terse test assistant.")
    sessions = tmp_path / "my-sessions"
    loopback.push(text_reply("done"))
    result = run_pi(["-p", "go", "--model", "loop-reasoner:high", "--tools", "read,ls",
                     "--system-prompt", "prompt.md", "--append-system-prompt", "Always end with DONE.",
                     "--session-dir", str(sessions), "-n", "flag run", "--api-key", "runtime-key"], env)
    assert result.returncode == 0, result.stderr
    body = loopback.requests[0].json()
    assert loopback.requests[0].headers["authorization"] == "Bearer runtime-key"  # --api-key wins
    assert body["model"] == "loop-reasoner"
    assert sorted(t["function"]["name"] for t in body["tools"]) == ["ls", "read"]
    system = body["messages"][0]
    assert system["role"] in ("system", "developer")
    assert system["content"].startswith("You are a terse test assistant.")
    assert "Always end with DONE." in system["content"]
    assert body.get("reasoning_effort") == "high"
    [saved] = sorted(sessions.glob("*.jsonl"))
    entries = [json.loads(line) for line in saved.read_text().splitlines()]
    assert any(e["type"] == "session_info" and e.get("name") == "flag run" for e in entries)
    assert not session_files(env)


def test_no_session_writes_nothing_and_bad_tool_names_are_usage_errors(loopback, env):
    loopback.push(text_reply("ephemeral"))
    result = run_pi(["-p", "hi", "--model", MODEL, "--no-session"], env)
    assert result.returncode == 0 and result.stdout == "ephemeral\n"
    assert not session_files(env)
    bad = run_pi(["-p", "hi", "--model", MODEL, "--tools", "read,teleport"], env)
    assert bad.returncode == 2
    assert_one_line_error(bad.stderr)
    assert "teleport" in bad.stderr


def test_list_models_and_export(loopback, env, tmp_path):
    listed = run_pi(["--list-models", "loop"], env)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert rows[0][:2] == ["provider", "model"]
    assert sorted(r[1] for r in rows[1:]) == ["loop-model", "loop-reasoner"]
    assert run_pi(["--list-models", "no-such-thing"], env).returncode == 1

    loopback.push(text_reply("Exported <b>answer</b>."))
    assert run_pi(["-p", "export me", "--model", MODEL], env).returncode == 0
    [saved] = session_files(env)
    session_id = json.loads(saved.read_text().splitlines()[0])["id"]
    out = tmp_path / "out.html"
    exported = run_pi(["--export", session_id[:8], str(out)], env)
    assert exported.returncode == 0, exported.stderr
    from pi_runtime.kernel.export_html import decode_session_data

    data = decode_session_data(out.read_text())
    assert data["header"]["id"] == session_id
    assert data["entries"] == [json.loads(line) for line in saved.read_text().splitlines()[1:]]
    texts = json.dumps(data["entries"])
    assert "export me" in texts and "Exported <b>answer</b>." in texts


def test_session_selection_by_prefix_fork_and_chosen_id(loopback, env):
    loopback.push(text_reply("first"))
    assert run_pi(["-p", "start", "--model", MODEL], env).returncode == 0
    [original] = session_files(env)
    session_id = json.loads(original.read_text().splitlines()[0])["id"]

    loopback.push(text_reply("resumed"))
    resumed = run_pi(["-p", "again", "--session", session_id[:10]], env)
    assert resumed.returncode == 0, resumed.stderr
    assert user_texts(loopback.requests[-1]) == ["start", "again"]
    assert session_files(env) == [original]

    loopback.push(text_reply("forked"))
    forked = run_pi(["-p", "in the fork", "--fork", session_id[:10]], env)
    assert forked.returncode == 0, forked.stderr
    assert user_texts(loopback.requests[-1]) == ["start", "again", "in the fork"]
    [new] = [f for f in session_files(env) if f != original]
    header = json.loads(new.read_text().splitlines()[0])
    assert header["parentSession"] == str(original) and header["id"] != session_id

    loopback.push(text_reply("chosen"))
    chosen = run_pi(["-p", "hello", "--session-id", "my-chosen-id"], env)
    assert chosen.returncode == 0, chosen.stderr
    assert any(f.name.endswith("_my-chosen-id.jsonl") for f in session_files(env))
    assert user_texts(loopback.requests[-1]) == ["hello"]
