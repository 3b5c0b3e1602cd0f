"""A session file past 2 GiB is read to its end.

One ``read(2)`` on Linux returns at most 2,147,479,552 bytes; a session read that way lost the
entries past that point (they were taken for a torn last line). The file here is sparse: 2 GiB
of hole between a header and a real last entry, so no 2 GiB is written to disk, but reading it
does fill 2 GiB of memory, so the test is skipped on a machine without room for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.session.storage import SessionWriter, parse_content

LINUX_READ_LIMIT = 2_147_479_552


def available_memory() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@pytest.mark.skipif(available_memory() < 6 * 1024**3, reason="needs about 5 GB of free memory")
def test_a_file_past_2_gib_is_read_to_its_last_entry(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    header = {"type": "session", "version": 3, "id": "big", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}
    last = {"type": "message", "id": "last0001", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "the end of a long session", "timestamp": 1}}
    last_line = (json.dumps(last) + "\n").encode()
    with open(path, "wb") as fh:
        fh.write((json.dumps(header) + "\n").encode())
        fh.seek(LINUX_READ_LIMIT + 4096)  # a hole: nothing is written here
        fh.write(b"\n" + last_line)
    size = path.stat().st_size
    writer = SessionWriter(path, fsync=False)
    try:
        raw = writer.read_all()
        assert len(raw) == size
        assert raw.endswith(last_line)
        # What the file's end parses to: the last entry is whole, not a torn line.
        tail = parse_content(raw[:len(json.dumps(header)) + 1] + raw[-len(last_line):])
        assert tail.entries == [last] and not tail.torn_tail
        del raw
    finally:
        writer.close()
