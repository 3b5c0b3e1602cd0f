"""write and edit change only regular files, keep what the file is, and stay abortable.

Real FIFOs, device nodes (as root), hard links, owners, extended attributes and a real full
file system (a small tmpfs, as root) — nothing is simulated.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from pathlib import Path

import pytest

from pi_runtime.agent.tool import ToolError
from pi_runtime.ai.abort import AbortController
from pi_runtime.testing.tmpfs import small_tmpfs
from pi_runtime.tools import EditTool, WriteTool

PI_STRING_LIMIT = 0x1FFFFFE8
"""Pi cannot edit a file longer than a V8 string; edit's limit is the same."""

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (device nodes, chown, mount)")


async def write(tmp_path: Path, path: str, content: str):
    tool = WriteTool(str(tmp_path))
    return await asyncio.wait_for(tool.execute("c", tool.Params(path=path, content=content), None, None), 10)


async def edit(tmp_path: Path, path: str, old: str, new: str, signal=None):
    tool = EditTool(str(tmp_path))
    params = tool.Params.model_validate({"path": path, "edits": [{"oldText": old, "newText": new}]})
    return await tool.execute("c", params, signal, None)


async def test_write_refuses_a_fifo_and_leaves_it_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ToolError, match=r"Not a regular file: pipe \(a FIFO, device or socket\)"):
        await write(tmp_path, "pipe", "data")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)


async def test_write_through_a_symlink_to_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link").symlink_to(tmp_path / "pipe")
    with pytest.raises(ToolError, match="Not a regular file: link"):
        await write(tmp_path, "link", "data")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    assert (tmp_path / "link").is_symlink()


@as_root
async def test_device_nodes_stay_devices(tmp_path):
    # A private node with /dev/full's numbers: writes to it fail, and it must stay a device.
    os.mknod(tmp_path / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    (tmp_path / "to-device").symlink_to(tmp_path / "full")
    for name in ("full", "to-device"):
        with pytest.raises(ToolError, match=f"Not a regular file: {name}"):
            await write(tmp_path, name, "data")
        with pytest.raises(ToolError, match=f"Not a regular file: {name}"):
            await edit(tmp_path, name, "a", "b")
    assert stat.S_ISCHR(os.lstat(tmp_path / "full").st_mode)


async def test_edit_and_write_keep_hard_links(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    inode = os.stat(tmp_path / "a.txt").st_ino
    await edit(tmp_path, "a.txt", "two", "TWO")
    assert (tmp_path / "b.txt").read_text() == "one\nTWO\n"
    await write(tmp_path, "b.txt", "rewritten, and longer than before\n")
    assert (tmp_path / "a.txt").read_text() == "rewritten, and longer than before\n"
    assert os.stat(tmp_path / "a.txt").st_ino == inode and os.stat(tmp_path / "a.txt").st_nlink == 2


async def test_edit_keeps_mode_including_unusual_bits(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o741)
    await edit(tmp_path, "run.sh", "old", "new")
    assert stat.S_IMODE(script.stat().st_mode) == 0o741
    assert script.read_text() == "echo new\n"


@as_root
async def test_edit_and_write_keep_owner_and_group(tmp_path):
    target = tmp_path / "owned.txt"
    target.write_text("alpha\n")
    os.chown(target, 4242, 4343)
    target.chmod(0o640)
    await edit(tmp_path, "owned.txt", "alpha", "beta")
    await write(tmp_path, "owned.txt", "gamma\n")
    st = target.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4242, 4343, 0o640)
    assert target.read_text() == "gamma\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["owned.txt"]  # no temporary file left


async def test_edit_keeps_extended_attributes(tmp_path):
    target = tmp_path / "tagged.txt"
    target.write_text("alpha\n")
    try:
        os.setxattr(target, "user.pi-test", b"kept")
    except OSError:
        pytest.skip("this file system has no user extended attributes")
    await edit(tmp_path, "tagged.txt", "alpha", "beta")
    assert os.getxattr(target, "user.pi-test") == b"kept"
    assert target.read_text() == "beta\n"




@as_root
@pytest.mark.parametrize("linked", [False, True], ids=["replaced", "in-place"])
async def test_full_disk_leaves_the_old_content_whole(tmp_path, linked):
    with small_tmpfs(tmp_path / "disk", "256k") as disk:
        old = "x" * 150_000 + "\n"
        (disk / "f.txt").write_text(old)
        if linked:  # a hard link makes write go in place
            os.link(disk / "f.txt", disk / "other-name.txt")
        with pytest.raises(ToolError, match="Could not write f.txt: No space left on device"):
            await write(disk, "f.txt", "y" * 300_000)  # more than the whole disk
        assert (disk / "f.txt").read_text() == old
        assert sorted(p.name for p in disk.iterdir()) == sorted(["f.txt"] + (["other-name.txt"] if linked else []))


async def test_edit_refuses_a_file_over_the_limit_at_once(tmp_path):
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(PI_STRING_LIMIT + 1)  # sparse: costs no disk
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"Cannot edit huge.txt: the file is 512.0MB, more than edit's limit"):
        await edit(tmp_path, "huge.txt", "a", "b")
    assert time.monotonic() - started < 5  # refused from its size, not after reading it


async def test_abort_answers_at_once_and_the_queue_waits_for_the_worker(tmp_path):
    # Matching this file takes about a second (one forgiving pass over a million lines).
    big = tmp_path / "big.txt"
    big.write_text("HEAD\n" + "some text with trailing   \n" * 1_000_000)
    before = big.read_bytes()
    controller = AbortController()
    task = asyncio.ensure_future(edit(tmp_path, "big.txt", "not in the file \u2019", "x", controller.signal))
    await asyncio.sleep(0.2)
    controller.abort()
    aborted_at = time.monotonic()
    with pytest.raises(ToolError, match="Operation aborted"):
        await task
    answered_after = time.monotonic() - aborted_at
    # The next change of the same file waits for the aborted worker, then runs on intact content.
    await edit(tmp_path, "big.txt", "HEAD\n", "NEW HEAD\n")
    assert answered_after < 1.0, answered_after
    assert big.read_bytes() == b"NEW " + before


def test_a_loop_that_ends_right_after_an_abort_reports_nothing(tmp_path, caplog):
    # The worker is still matching when asyncio.run() ends: the queue is released quietly.
    (tmp_path / "big.txt").write_text("HEAD\n" + "some text with trailing   \n" * 1_000_000)
    tool = EditTool(str(tmp_path))

    async def main() -> str:
        controller = AbortController()
        params = tool.Params.model_validate({"path": "big.txt", "edits": [{"oldText": "absent \u2019", "newText": "x"}]})
        task = asyncio.ensure_future(tool.execute("c", params, controller.signal, None))
        await asyncio.sleep(0.2)
        controller.abort()
        with pytest.raises(ToolError) as raised:
            await task
        return str(raised.value)

    with caplog.at_level("ERROR"):
        assert asyncio.run(main()) == "Operation aborted"
    assert [r.getMessage() for r in caplog.records] == []


# ---------------------------------------------------------------- in place (issue 26)


async def test_write_keeps_the_inode_so_open_handles_and_links_see_the_new_content(tmp_path):
    target = tmp_path / "watched.txt"
    target.write_text("old content that is longer\n")
    inode = target.stat().st_ino
    with open(target) as held:  # a reader that opened the file before the write (an editor, tail -f)
        await write(tmp_path, "watched.txt", "new\n")
        assert held.read() == "new\n"
    assert target.stat().st_ino == inode and target.read_text() == "new\n"
    os.link(target, tmp_path / "second-name.txt")
    await write(tmp_path, "second-name.txt", "through the other name\n")
    assert target.read_text() == "through the other name\n" and target.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["second-name.txt", "watched.txt"]  # no temp left


async def test_write_into_a_running_program_replaces_it(tmp_path):
    program = tmp_path / "sleeper"
    program.write_bytes(Path("/bin/sleep").read_bytes())
    program.chmod(0o755)
    proc = await asyncio.create_subprocess_exec(str(program), "30")
    try:
        # Linux refuses to open a running executable for writing (ETXTBSY): a renamed copy instead.
        await write(tmp_path, "sleeper", "#!/bin/sh\necho replaced\n")
        assert program.read_text() == "#!/bin/sh\necho replaced\n"
        assert stat.S_IMODE(program.stat().st_mode) == 0o755
    finally:
        proc.kill()
        await proc.wait()


@as_root
async def test_a_read_only_file_system_gives_a_clear_error_and_keeps_the_file(tmp_path):
    import subprocess

    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        (disk / "f.txt").write_text("kept\n")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(ToolError, match=r"^Could not write f.txt: Read-only file system$"):
            await write(disk, "f.txt", "lost?\n")
        assert (disk / "f.txt").read_text() == "kept\n"


@as_root
def test_a_read_only_file_is_refused_for_a_normal_user(tmp_path):
    import subprocess
    import sys
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="pi-ro-"))
    try:
        (folder / "ro.txt").write_text("kept\n")
        (folder / "ro.txt").chmod(0o444)
        os.chown(folder, 65534, 65534)
        os.chown(folder / "ro.txt", 65534, 65534)
        script = (
            "import asyncio, concurrent.futures.thread, os, sys\n"
            "from pi_runtime.agent.tool import ToolError\n"
            "from pi_runtime.tools import WriteTool\n"
            "os.setgid(65534); os.setuid(65534)  # after the imports: the interpreter's files are root's\n"
            "tool = WriteTool(sys.argv[1])\n"
            "try:\n"
            "    asyncio.run(tool.execute('c', tool.Params(path='ro.txt', content='changed'), None, None))\n"
            "except ToolError as exc:\n"
            "    print(exc)\n"
        )
        done = subprocess.run([sys.executable, "-c", script, str(folder)], capture_output=True, text=True, timeout=60,
                              cwd=Path(__file__).resolve().parents[2])
        assert done.stdout.strip() == "Permission denied: ro.txt", done.stderr
        assert (folder / "ro.txt").read_text() == "kept\n"
    finally:
        import shutil

        shutil.rmtree(folder)
