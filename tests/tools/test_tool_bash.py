"""bash: exit codes, streaming, truncation to a temp file, timeouts and aborts without orphans."""

from __future__ import annotations

import asyncio
import json
import os
import re
import tracemalloc

import pytest

from pi_runtime.agent.tool import ToolError, ToolFailed
from pi_runtime.ai.abort import AbortController
from pi_runtime.testing.waiting import eventually
from pi_runtime.tools import BashTool, LocalShellOperations
from pi_runtime.tools.shell import group_alive


def make(tmp_path, **kw) -> BashTool:
    return BashTool(str(tmp_path), shell_ops=LocalShellOperations(kill_grace=1.0), **kw)


async def run(tool: BashTool, command: str, timeout: float | None = None, signal=None, on_update=None):
    return await tool.execute("c1", tool.Params(command=command, timeout=timeout), signal, on_update)


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


async def test_success_output_and_cwd(tmp_path):
    result = await run(make(tmp_path), "pwd; echo err >&2")
    assert result.content[0].text == f"{tmp_path}\nerr\n"  # as written, final newline kept (Pi)
    assert result.details is None


async def test_no_output():
    result = await run(BashTool("/"), "true")
    assert result.content[0].text == "(no output)"


async def failed(tool: BashTool, command: str):
    """The result of a command that exited non-zero (``execute`` rejects, as Pi's tests expect)."""
    with pytest.raises(ToolFailed) as raised:
        await run(tool, command)
    return raised.value.result


async def test_command_errors_reject_as_in_pis_tests(tmp_path):
    # Pi's "should handle command errors": execute rejects with "Command failed" or "code 1".
    with pytest.raises(ToolError, match=r"(Command failed|code 1)"):
        await run(make(tmp_path), "exit 1")


async def test_nonzero_exit_is_an_error_result_with_output(tmp_path):
    # As Pi 1.6 records it: the command ran, so its result is marked as an error, details and all.
    result = await failed(make(tmp_path), "echo partial; exit 7")
    assert result.is_error
    assert result.content[0].text == "partial\n\n\nCommand exited with code 7"
    assert result.details is None
    wire = result.to_wire()
    structured = wire.pop("structuredContent")  # as Pi's tool_execution_end carries it
    assert wire == {"content": [{"type": "text", "text": "partial\n\n\nCommand exited with code 7"}], "isError": True}
    assert (structured["output"], structured["exit_code"], structured["truncated"]) == ("partial\n", 7, False)


async def test_nonzero_exit_without_output(tmp_path):
    result = await failed(make(tmp_path), "exit 3")
    assert result.is_error and result.content[0].text == "(no output)\n\nCommand exited with code 3"


async def test_signal_death_reports_128_plus_signal(tmp_path):
    result = await failed(make(tmp_path), "kill -KILL $$")
    assert result.is_error and result.content[0].text.endswith("Command exited with code 137")


async def test_env_is_inherited_plus_extra(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_TEST_INHERITED", "yes")
    values = iter(["s1", "s2"])
    tool = make(tmp_path, env=lambda: {"PI_SESSION_ID": next(values)})
    first = await run(tool, 'echo "$PI_TEST_INHERITED $PI_SESSION_ID"')
    second = await run(tool, 'echo "$PI_SESSION_ID"')
    assert first.content[0].text == "yes s1\n"
    assert second.content[0].text == "s2\n"  # read again when each command starts


async def test_command_prefix(tmp_path):
    tool = make(tmp_path, command_prefix="greet() { echo hello-$1; }")
    assert (await run(tool, "greet pi")).content[0].text == "hello-pi\n"


async def test_missing_cwd_reported(tmp_path):
    tool = make(tmp_path / "gone")
    with pytest.raises(ToolError, match="Working directory does not exist: .*gone"):
        await run(tool, "echo hi")


async def test_on_update_streams_partial_output(tmp_path):
    updates: list = []
    tool = make(tmp_path)
    result = await run(tool, "echo first; sleep 0.4; echo second", on_update=updates.append)
    # As Pi: an empty update when the command starts, then the output so far (details without
    # keys that have no value).
    assert updates[0].to_wire() == {"content": []}
    assert updates[1].to_wire() == {"content": [{"type": "text", "text": "first\n"}], "details": {}}
    assert result.content[0].text == "first\nsecond\n"


async def test_20mb_output_bounded_and_saved(tmp_path):
    tool = make(tmp_path)
    tracemalloc.start()
    try:
        result = await run(tool, f"yes {'x' * 99} | head -c 20000000")  # 100-byte lines
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    text = result.content[0].text
    body, notice = text.rsplit("\n\n[", 1)
    assert len(body.encode()) <= 50 * 1024
    assert body.split("\n")[-1] == "x" * 99  # whole lines only
    path = result.details["fullOutputPath"]
    assert notice.endswith(f"Full output: {path}]")
    assert notice.startswith("Showing lines 199489-200000 of 200000 (50.0KB limit).")
    assert os.path.getsize(path) == 20_000_000
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert result.details["truncation"]["totalBytes"] == 20_000_000
    assert peak < 8_000_000, peak
    os.unlink(path)


async def test_line_limit_truncation(tmp_path):
    result = await run(make(tmp_path), "seq 1 5000")
    text = result.content[0].text
    body, notice = text.rsplit("\n\n[", 1)
    assert body.split("\n")[0] == "3001" and body.split("\n")[-1] == "5000"
    path = result.details["fullOutputPath"]
    assert notice == f"Showing lines 3001-5000 of 5000. Full output: {path}]"
    with open(path) as fh:
        assert fh.read() == "".join(f"{i}\n" for i in range(1, 5001))
    os.unlink(path)


async def _spawn_and_stop(tmp_path, *, timeout=None, abort=False):
    pid_file = tmp_path / "grandchild.pid"
    command = f"sleep 60 & echo $! > {pid_file}; echo started; wait"
    tool = make(tmp_path)
    controller = AbortController()

    def on_update(partial):
        # Abort only once the command is known to be running (no sleeps guessing when).
        if abort and partial.content and "started" in partial.content[0].text:
            controller.abort()

    with pytest.raises(ToolError) as info:
        await run(tool, command, timeout=timeout, signal=controller.signal, on_update=on_update)
    return str(info.value), int(pid_file.read_text())


async def test_timeout_kills_process_group_and_grandchildren(tmp_path):
    message, grandchild = await _spawn_and_stop(tmp_path, timeout=1.5)
    assert message == "started\n\n\nCommand timed out after 1.5 seconds"
    assert not pid_alive(grandchild)


async def test_abort_kills_whole_tree(tmp_path):
    message, grandchild = await _spawn_and_stop(tmp_path, abort=True)
    assert message == "started\n\n\nCommand aborted"
    assert not pid_alive(grandchild)


async def test_group_is_empty_after_timeout(tmp_path):
    # Record the shell's pid (= its process group id) from inside the command.
    pgid_file = tmp_path / "pgid"
    tool = make(tmp_path)
    with pytest.raises(ToolError, match="timed out"):
        await run(tool, f"echo $$ > {pgid_file}; (sleep 60; echo never) & sleep 60", timeout=0.4)
    pgid = int(pgid_file.read_text())
    assert not group_alive(pgid)


async def test_output_that_keeps_coming_after_the_shell_exits_is_collected(tmp_path):
    # Each chunk re-arms the grace (a generous one here: the test machine may be busy).
    tool = BashTool(str(tmp_path), shell_ops=LocalShellOperations(kill_grace=1.0, exit_grace=1.0))
    result = await run(tool, "(for i in 1 2 3; do sleep 0.1; echo late$i; done) & echo early")
    assert result.content[0].text == "early\nlate1\nlate2\nlate3\n"


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("launch", ["{job} &", "setsid {job} &", "nohup {job} &", "({job} &);"])
async def test_a_background_job_holding_the_output_open_does_not_hold_the_result(tmp_path, launch):
    """As Pi: the command is done when the shell exits and the pipe goes quiet; the job runs on."""
    marker = tmp_path / f"job-{abs(hash(launch))}"
    job = f"sh -c 'echo $$ > {marker}; exec sleep 60'"
    command = launch.format(job=job) + f" while [ ! -s {marker} ]; do sleep 0.01; done; echo started"
    # Guard only (the hang this test is about would otherwise stop the suite): not a speed check.
    result = await asyncio.wait_for(run(make(tmp_path), command), 30)
    assert result.content[0].text == "started\n"
    pid = int(marker.read_text())
    try:
        assert pid_alive(pid)  # left alone
    finally:
        _kill(pid)


async def test_a_job_left_running_can_still_write_after_the_result(tmp_path):
    """Its end of the pipe is drained, so a later write does not kill it with SIGPIPE."""
    done = tmp_path / "done"
    command = f"(sleep 0.5; echo late; echo survived > {done}) & echo early"
    result = await asyncio.wait_for(run(make(tmp_path), command), 30)
    assert result.content[0].text == "early\n"
    # The file appears before the shell writes to it: wait for its content, not its existence.
    assert await eventually(lambda: done.exists() and done.read_text() == "survived\n")


async def test_timeout_still_stops_a_background_writer_after_the_shell_exited(tmp_path):
    # A generous exit grace: on a busy machine the writer's 20 ms ticks can stall past the default.
    tool = BashTool(str(tmp_path), shell_ops=LocalShellOperations(kill_grace=1.0, exit_grace=0.5))
    with pytest.raises(ToolError) as info:
        await run(tool, "(while true; do echo tick; sleep 0.02; done) & echo started; exit 3", timeout=1)
    message = str(info.value)
    # The background writer may print its first tick before the shell's "started".
    assert sorted(message.split("\n")[:2]) == ["started", "tick"]
    assert message.endswith("but background processes it started kept writing output until the timeout.")
    assert re.search(r"Command timed out after 1 seconds\. The shell exited with code 3 after [0-9.]+ seconds", message)


async def test_cancelling_the_task_kills_the_tree(tmp_path):
    pid_file = tmp_path / "p"
    tool = make(tmp_path)
    task = asyncio.ensure_future(run(tool, f"sleep 60 & echo $! > {pid_file}; wait"))
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not pid_alive(int(pid_file.read_text()))


async def test_timeout_validation(tmp_path):
    # As Pi 1.6: the schema takes any number (so the tool stays strict where strict tools refuse bounds);
    # the command is refused when it would run, with Pi's words.
    tool = make(tmp_path)
    with pytest.raises(ValueError, match="^Invalid timeout: must be a finite number of seconds$"):
        await tool.execute("c1", BashTool.Params(command="echo no", timeout=0), None, None)
    with pytest.raises(ValueError, match=r"^Invalid timeout: maximum is 2147483\.647 seconds$"):
        await tool.execute("c2", BashTool.Params(command="echo no", timeout=10**9), None, None)
    assert "maximum" not in json.dumps(BashTool.Params.model_json_schema())


async def test_output_held_back_by_the_throttle_is_sent_before_the_result(tmp_path):
    # As Pi: the last partial update shows all the output, even when it came inside the interval.
    updates: list = []
    tool = make(tmp_path, update_interval=30)
    result = await run(tool, "echo a; sleep 0.1; echo b", on_update=updates.append)
    texts = [u.content[0].text if u.content else None for u in updates]
    assert texts == [None, "a\n", "a\nb\n"]
    assert result.content[0].text == "a\nb\n"


async def test_partial_output_cut_by_lines_names_the_file_that_keeps_all_of_it(tmp_path):
    updates: list = []
    result = await run(make(tmp_path, update_interval=30), "seq 1 2500", on_update=updates.append)
    last = updates[-1].details
    assert last["truncation"]["truncatedBy"] == "lines" and last["truncation"]["totalLines"] == 2500
    path = result.details["fullOutputPath"]
    assert last["fullOutputPath"] == path  # the same file, saved as soon as an update showed the cut
    with open(path) as fh:
        assert fh.read() == "".join(f"{i}\n" for i in range(1, 2501))
    os.unlink(path)
