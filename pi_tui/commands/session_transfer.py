"""``/export``, ``/import`` and ``/share``: a session out to a file or a gist, and in from a file.

As Pi: ``/export name.jsonl`` writes the active branch as a session file (any other name, or
none, writes the HTML transcript); ``/import file.jsonl`` asks, copies the file into this
project's sessions folder and continues it; ``/share`` uploads the HTML transcript as a secret
GitHub gist with the GitHub CLI (``gh``) and shows the gist and Pi's viewer link. Pi's other
destination, its own hosted service (Radius), needs a Radius sign-in pi does not offer.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..flows.bound import transcript_of

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..flows.host import PiHost

SHARE_VIEWER_URL = "https://pi.dev/session/"
"""Pi's viewer for shared gists (``PI_SHARE_VIEWER_URL`` replaces it, as in Pi)."""


def path_argument(arg: str) -> str | None:
    """The first word of a command's argument, or a quoted path (Pi's ``getPathCommandArgument``)."""
    text = arg.strip()
    if not text:
        return None
    try:
        words = shlex.split(text)
    except ValueError:  # an unclosed quote
        return None
    return words[0] if words else None


async def export_command(app: PiHost, session: SessionPort, arg: str) -> None:
    path = path_argument(arg)
    try:
        written = session.export_jsonl(path) if path and path.endswith(".jsonl") else session.export_html(path)
    except OSError as exc:
        await transcript_of(app, session).add_notice(f"Failed to export session: {exc}", "error")
        return
    app.show_status(f"Session exported to: {written}")


async def import_command(app: PiHost, session: SessionPort, arg: str) -> None:
    from ..dialogs.text_prompt import ConfirmPrompt

    source = path_argument(arg)
    if not source:
        await transcript_of(app, session).add_notice("Usage: /import <path.jsonl>", "error")
        return

    def answered(yes: bool | None) -> None:
        if not yes:
            app.show_status("Import cancelled")
            return
        app.run_worker(_import(app, session, source), name="import-session", group="sessions", exit_on_error=False)

    app.push_screen(ConfirmPrompt("Import session", f"Replace current session with {source}?"), answered)


async def _import(app: PiHost, session: SessionPort, source: str) -> None:
    from pi_runtime.frontend import copy_session_file, project_session_dir

    from ..flows.resume_flows import resume_picked

    session_dir = getattr(session.session_manager, "session_dir", None)
    folder = Path(session_dir) if session_dir is not None else project_session_dir(session.cwd)
    try:
        copied = copy_session_file(source, folder, os.getcwd())
    except OSError as exc:
        await transcript_of(app, session).add_notice(f"Failed to import session: {exc}", "error")
        return
    resume_picked(app, str(copied), new_tab=False, said=f"Session imported from: {source}", session=session)


async def share_command(app: PiHost, session: SessionPort, arg: str) -> None:
    from pi_runtime.frontend import typed_settings

    if getattr(typed_settings(session.settings), "session_share_destination", "auto") == "radius":
        await transcript_of(app, session).add_notice("Sharing to Radius (Pi's hosted service) is not available in pi; set "
                                        "sessionShareDestination to gist or auto to share a GitHub gist", "error")
        return
    if shutil.which("gh") is None:
        await transcript_of(app, session).add_notice("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/",
                                        "error")
        return
    app.run_worker(_share(app, session), name="share-session", group="sessions", exit_on_error=False)


async def _run(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(*args, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    return proc.returncode or 0, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


async def _share(app: PiHost, session: SessionPort) -> None:
    code, _out, _err = await _run("gh", "auth", "status")
    if code != 0:
        await transcript_of(app, session).add_notice("GitHub CLI is not logged in. Run 'gh auth login' first.", "error")
        return
    with tempfile.TemporaryDirectory(prefix="pi-share-") as folder:
        html = Path(folder) / "session.html"
        try:
            session.export_html(str(html))
        except OSError as exc:
            await transcript_of(app, session).add_notice(f"Failed to export session: {exc}", "error")
            return
        app.footer_bar.set_working(True, "Creating gist")
        try:
            code, out, err = await _run("gh", "gist", "create", "--public=false", str(html))
        finally:
            app.footer_bar.set_working(False)
    if code != 0:
        await transcript_of(app, session).add_notice(f"Failed to create gist: {err.strip() or 'Unknown error'}", "error")
        return
    gist_url = out.strip().splitlines()[-1].strip() if out.strip() else ""
    gist_id = gist_url.rstrip("/").rsplit("/", 1)[-1]
    if not gist_id:
        await transcript_of(app, session).add_notice("Failed to parse gist ID from gh output", "error")
        return
    viewer = os.environ.get("PI_SHARE_VIEWER_URL") or SHARE_VIEWER_URL
    app.show_status(f"Share URL: {viewer}#{gist_id}\nGist: {gist_url}")
