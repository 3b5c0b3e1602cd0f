"""write, and the per-file mutation queue that edit and write share."""

from __future__ import annotations

import asyncio
import io
import threading
import time

import pytest

from pi_runtime.agent.tool import ToolError
from pi_runtime.ai.abort import AbortController
from pi_runtime.tools import EditTool, LocalFileOperations, WriteTool
from pi_runtime.tools.mutation_queue import active_queue_count


class SlowFileOperations(LocalFileOperations):
    """Local files, but every read takes a while and concurrent reads are counted.

    The pause widens the read-modify-write window so that, without the queue, two edits of
    one file would both read the original content.
    """

    def __init__(self, delay: float = 0.15) -> None:
        self.delay = delay
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()

    def open_read(self, path: str):
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            data = super().read_bytes(path)
            time.sleep(self.delay)
            return io.BytesIO(data)
        finally:
            with self._lock:
                self.active -= 1


async def test_write_creates_parents_and_answers_as_pi(tmp_path):
    tool = WriteTool(str(tmp_path))
    result = await tool.execute("c", tool.Params(path="deep/er/ünï.txt", content="héllo\n"), None, None)
    # Pi 1.6's text, and no details: its tool_execution_end result is only {"content": [...]}.
    assert result.content[0].text == "Successfully wrote to deep/er/ünï.txt"
    assert result.details is None
    assert result.to_wire() == {"content": [{"type": "text", "text": "Successfully wrote to deep/er/ünï.txt"}]}
    assert (tmp_path / "deep/er/ünï.txt").read_text() == "héllo\n"
    await tool.execute("c", tool.Params(path="deep/er/ünï.txt", content="x"), None, None)
    assert (tmp_path / "deep/er/ünï.txt").read_text() == "x"


async def test_write_keeps_file_mode(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("old")
    script.chmod(0o755)
    tool = WriteTool(str(tmp_path))
    await tool.execute("c", tool.Params(path="run.sh", content="#!/bin/sh\n"), None, None)
    assert script.stat().st_mode & 0o777 == 0o755


async def test_write_to_directory_or_under_a_file_fails_clearly(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("keep")
    tool = WriteTool(str(tmp_path))
    with pytest.raises(ToolError, match="is a directory"):
        await tool.execute("c", tool.Params(path="dir", content="x"), None, None)
    with pytest.raises(ToolError, match="parent path is a file"):
        await tool.execute("c", tool.Params(path="file/child.txt", content="x"), None, None)
    assert (tmp_path / "file").read_text() == "keep"


async def test_aborted_write_does_nothing(tmp_path):
    controller = AbortController()
    controller.abort()
    tool = WriteTool(str(tmp_path))
    with pytest.raises(ToolError, match="Operation aborted"):
        await tool.execute("c", tool.Params(path="a.txt", content="x"), controller.signal, None)
    assert not (tmp_path / "a.txt").exists()


async def test_concurrent_edits_of_one_file_are_serialised(tmp_path):
    (tmp_path / "shared.txt").write_text("alpha\nbeta\ngamma\n")
    ops = SlowFileOperations()
    tool = EditTool(str(tmp_path), file_ops=ops)

    def call(old: str, new: str):
        params = tool.Params.model_validate({"path": "shared.txt", "edits": [{"oldText": old, "newText": new}]})
        return tool.execute("c", params, None, None)

    await asyncio.gather(call("alpha", "ALPHA"), call("gamma", "GAMMA"), call("beta", "BETA"))
    assert (tmp_path / "shared.txt").read_text() == "ALPHA\nBETA\nGAMMA\n"
    assert ops.max_active == 1
    assert active_queue_count() == 0


async def test_symlink_alias_shares_the_queue(tmp_path):
    (tmp_path / "real.txt").write_text("one\ntwo\n")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")
    ops = SlowFileOperations()
    tool = EditTool(str(tmp_path), file_ops=ops)
    a = tool.Params.model_validate({"path": "real.txt", "edits": [{"oldText": "one", "newText": "1"}]})
    b = tool.Params.model_validate({"path": "alias.txt", "edits": [{"oldText": "two", "newText": "2"}]})
    await asyncio.gather(tool.execute("a", a, None, None), tool.execute("b", b, None, None))
    assert (tmp_path / "real.txt").read_text() == "1\n2\n"
    assert ops.max_active == 1


async def test_different_files_run_in_parallel(tmp_path):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("value\n")
    ops = SlowFileOperations(delay=0.3)
    tool = EditTool(str(tmp_path), file_ops=ops)
    calls = [
        tool.execute("c", tool.Params.model_validate({"path": n, "edits": [{"oldText": "value", "newText": n}]}), None, None)
        for n in ("a.txt", "b.txt")
    ]
    await asyncio.gather(*calls)
    assert ops.max_active == 2
    assert (tmp_path / "a.txt").read_text() == "a.txt\n"


async def test_write_and_edit_of_same_file_keep_request_order(tmp_path):
    (tmp_path / "f.txt").write_text("start\n")
    ops = SlowFileOperations()
    edit = EditTool(str(tmp_path), file_ops=ops)
    write = WriteTool(str(tmp_path), file_ops=ops)
    first = edit.execute("e", edit.Params.model_validate({"path": "f.txt", "edits": [{"oldText": "start", "newText": "edited"}]}), None, None)
    second = write.execute("w", write.Params(path="f.txt", content="written\n"), None, None)
    await asyncio.gather(first, second)
    assert (tmp_path / "f.txt").read_text() == "written\n"
