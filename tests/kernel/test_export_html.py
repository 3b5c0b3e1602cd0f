"""HTML export of the whole session tree (``/export``, ``pi --export``, RPC ``export_html``).

The page embeds every entry of the session file (other branches, compacted turns, labels,
summaries) the way Pi's export does, and its viewer shows any branch. The browser tests run
the page in headless Chromium when it is installed (Debian's ``chromium``), click in the
sidebar and on a branch button, and read the rendered transcript back.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import (
    ScriptedResponse,
    ScriptedText,
    ScriptedThinking,
    scripted_text,
    scripted_tool_call,
)
from pi_runtime.kernel.export_html import decode_session_data, export_file

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PI_REFERENCE = os.environ.get("PI_REFERENCE")
"""The real Pi's ``pi`` executable, for the side-by-side check (see tests/e2e/test_pi_interop.py)."""


class Scripts(HTMLParser):
    """The page's ``<script>`` elements: attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._open = dict(attrs)
            self.found.append((self._open, ""))

    def handle_data(self, data):
        if self._open is not None:
            attrs, text = self.found[-1]
            self.found[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._open = None


def file_lines(path: str | Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


async def branched_session(make_session):
    """Two branches from the first answer, a tool call, a user shell command, a label, a
    compaction on the second branch and a branch summary: every kind of thing a reader browses."""
    session = make_session(settings={"compaction": {"keepRecentTokens": 40}})
    provider = session.provider
    provider.push(ScriptedResponse([ScriptedThinking("Looking first."), ScriptedText("First answer.")]))
    await session.prompt("First question <b>not markup</b>")
    provider.push(scripted_tool_call("bash", {"command": "echo branch-a-output"}), scripted_text("Branch A answer."))
    await session.prompt("Branch A question")
    await session.execute_bash("echo user-shell")
    branch_a_leaf = session.session_manager.leaf_id
    first_answer = [e for e in session.session_manager.raw_branch() if e.get("type") == "message"
                    and e["message"]["role"] == "assistant"][0]["id"]
    provider.push(scripted_text("## Goal\nSummary of branch A."))
    await session.navigate_tree(first_answer, summarize=True)
    provider.push(scripted_text("Branch B answer " + "words " * 80))
    await session.prompt("Branch B question " + "more " * 80)
    provider.push(scripted_text("Another B answer " + "words " * 80))
    await session.prompt("Second B question " + "more " * 80)
    provider.responder = lambda ctx, opts: scripted_text("## Goal\nCompacted branch B.")
    await session.compact()
    provider.responder = None
    provider.push(scripted_text("After compaction answer."))
    await session.prompt("After compaction question")
    session.set_label(branch_a_leaf, "branch-a")
    return session, branch_a_leaf


async def test_export_embeds_every_entry_of_the_file(make_session, tmp_path):
    session, _ = await branched_session(make_session)
    out = session.export_html(str(tmp_path / "export.html"))
    page = Path(out).read_text(encoding="utf-8")
    parser = Scripts()
    parser.feed(page)
    [(attrs, text)] = [s for s in parser.found if s[0].get("id") == "session-data"]
    assert attrs["type"] == "application/json"
    data = decode_session_data(page)
    header, *entries = file_lines(session.session_file)
    kinds = {e["type"] for e in entries}
    assert {"compaction", "branch_summary", "label", "model_change"} <= kinds
    assert data["header"] == header
    assert data["entries"] == entries  # every entry, in file order, as stored
    assert data["leafId"] == session.session_manager.leaf_id
    assert data["systemPrompt"] == session.system_prompt
    assert {t["name"] for t in data["tools"]} >= {"read", "bash", "edit", "write"}
    # The session's text is only in the encoded data: nothing in it can break the page.
    assert "<b>not markup</b>" not in page and "First question" not in page


async def test_pi_export_of_a_file_embeds_it_and_takes_pis_default_name(make_session, tmp_path):
    session, _ = await branched_session(make_session)
    out = export_file(session.session_file, folder=tmp_path)
    assert out == tmp_path / f"pi-session-{Path(session.session_file).stem}.html"
    data = decode_session_data(out.read_text(encoding="utf-8"))
    assert data["entries"] == file_lines(session.session_file)[1:]
    assert "systemPrompt" not in data  # a file alone has no live prompt; its system messages are entries


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
async def test_pis_export_of_the_same_file_embeds_the_same_session(make_session, tmp_path):
    session, _ = await branched_session(make_session)
    ours = decode_session_data(export_file(session.session_file, tmp_path / "ours.html").read_text(encoding="utf-8"))
    theirs_path = tmp_path / "theirs.html"
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path / "pi-agent"), "HOME": str(tmp_path)}
    done = subprocess.run([PI_REFERENCE, "--export", session.session_file, str(theirs_path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    theirs = decode_session_data(theirs_path.read_text(encoding="utf-8"))
    assert ours == {key: theirs[key] for key in ("header", "entries", "leafId")}


def test_a_page_without_session_data_is_a_clear_error():
    with pytest.raises(ValueError, match="no session-data"):
        decode_session_data("<html><body>nothing</body></html>")


# ----------------------------------------------------------------------------- in a real browser

HARNESS = """
<script>
(function () {
  const text = () => document.getElementById("messages").innerText;
  const steps = { start: text() };
  const row = Array.from(document.querySelectorAll("#tree .row"))
    .find((r) => r.textContent.includes("Branch A question"));
  steps.rowOffPathBefore = row.classList.contains("off-path");
  row.click();
  steps.afterTreeClick = text();
  steps.rowOnPathAfter = document.querySelector('#tree .row[data-id="' + row.dataset.id + '"]').classList.contains("on-path");
  const fork = Array.from(document.querySelectorAll(".forks .fork")).find((b) => !b.classList.contains("current"));
  fork.click();
  steps.afterForkClick = text();
  document.querySelector('[data-action="tools"]').click();
  steps.toolsOpen = document.body.classList.contains("tools-open");
  steps.status = document.getElementById("tree-status").textContent;
  const out = document.createElement("pre");
  out.id = "harness-result";
  out.textContent = JSON.stringify(steps);
  document.body.appendChild(out);
})();
</script>
"""


def run_in_chromium(page: Path) -> dict:
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout
    start = dom.index('<pre id="harness-result">') + len('<pre id="harness-result">')
    raw = dom[start:dom.index("</pre>", start)]
    return json.loads(raw.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&"))


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)")
async def test_branch_switching_in_a_real_browser(make_session, tmp_path):
    session, _ = await branched_session(make_session)
    page = Path(session.export_html(str(tmp_path / "export.html")))
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", HARNESS + "</body>"), encoding="utf-8")
    steps = run_in_chromium(page)
    # The page opens on the session's current branch: B, after its compaction.
    assert "After compaction answer." in steps["start"] and "Branch A answer." not in steps["start"]
    assert "Compaction" in steps["start"] and "summarised" in steps["start"]
    assert "First question <b>not markup</b>" in steps["start"]
    assert steps["rowOffPathBefore"] is True
    # A click in the tree opens branch A: its tool output and the user's shell command.
    assert "Branch A answer." in steps["afterTreeClick"] and "After compaction answer." not in steps["afterTreeClick"]
    assert "branch-a-output" in steps["afterTreeClick"] and "user-shell" in steps["afterTreeClick"]
    assert steps["rowOnPathAfter"] is True
    # The branch button at the fork goes back to B.
    assert "Branch B question" in steps["afterForkClick"] and "Branch A answer." not in steps["afterForkClick"]
    assert steps["toolsOpen"] is True
    total = len(file_lines(session.session_file)) - 1
    assert steps["status"].endswith(f"/ {total} entries")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)")
async def test_an_address_can_open_another_branch(make_session, tmp_path):
    session, branch_a_leaf = await branched_session(make_session)
    page = Path(session.export_html(str(tmp_path / "export.html")))
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri() + f"?leafId={branch_a_leaf}"],
        capture_output=True, text=True, timeout=120,
    ).stdout
    messages = dom[dom.index('<div id="messages">'):]
    assert "Branch A answer." in messages and "After compaction answer." not in messages
