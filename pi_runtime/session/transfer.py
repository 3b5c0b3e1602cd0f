"""Moving sessions in and out as JSONL files (``/export file.jsonl``, ``/import``), as Pi does.

An export is the active branch as a session file of its own: a fresh header (same id, cwd, the
export's time) and the path's entries, each pointing at the one before (the first at nothing).
An import copies a session file into the sessions folder (a free name next to the original's)
and leaves the original where it was.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .paths import SESSION_FILE_SUFFIX

CURRENT_VERSION = 3


def export_branch_jsonl(manager: Any, path: str | None, cwd: str) -> str:
    """Write ``manager``'s active branch to ``path`` (``session-<time>.jsonl`` in ``cwd`` when
    None) and return the absolute path written."""
    now = datetime.now(UTC)
    stamp = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    default = f"session-{stamp.replace(':', '-').replace('.', '-')}{SESSION_FILE_SUFFIX}"
    target = Path(path or default).expanduser()
    if not target.is_absolute():
        target = Path(cwd) / target
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "session", "version": CURRENT_VERSION, "id": manager.session_id, "timestamp": stamp,
              "cwd": manager.cwd}]
    parent: str | None = None
    for entry in manager.raw_branch():
        lines.append({**entry, "parentId": parent})
        parent = entry.get("id")
    target.write_text("".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines),
                      encoding="utf-8")
    return str(target)


def copy_session_file(source: str, session_dir: Path, cwd: str) -> Path:
    """Copy the session file ``source`` into ``session_dir`` under a free name (the file itself
    when it is already there).

    Raises:
        FileNotFoundError: ``source`` does not exist.
    """
    src = Path(source).expanduser()
    if not src.is_absolute():
        src = Path(cwd) / src
    if not src.is_file():
        raise FileNotFoundError(f"Session file not found: {src}")
    session_dir.mkdir(parents=True, exist_ok=True)
    target = session_dir / src.name
    if target.resolve() == src.resolve():
        return target
    counter = 1
    while target.exists():
        target = session_dir / f"{src.stem}-{counter}{src.suffix}"
        counter += 1
    shutil.copyfile(src, target)
    return target
