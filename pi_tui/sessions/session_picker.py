"""``/resume`` and ``pi -r``: pick a session of this folder (Tab: of every folder) to continue.

Type to search every message, the name, id and folder as Pi does (``"a phrase"``, ``re:regex``);
under each hit the message line it matched in is shown. Ctrl+S cycles the order (threaded: forks under the
session they came from, as Pi shows them; recent; by name), Ctrl+N shows
named sessions only, Ctrl+P shows file paths, Ctrl+R renames (a ``session_info`` entry appended
to that file), Ctrl+D deletes after a confirmation (to the trash, never a plain delete). Enter
dismisses with the chosen file's path (``str``), Esc with None.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from ..dialogs.modal import Modal
from ..dialogs.text_prompt import ConfirmPrompt, TextPrompt
from ..dialogs.virtual_list import VirtualList, styled_strip
from ..tree.nav_keys import KeyTable, app_keymap
from .session_rows import SORTS, PickerState, relative_age, short_path, title_of, trash_session

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

_KEYS_BY_ID = {
    "tui.select.up": "up", "tui.select.down": "down",
    "tui.select.pageUp": "page_up", "tui.select.pageDown": "page_down",
    "tui.select.confirm": "select", "tui.select.cancel": "cancel",
    "app.session.togglePath": "toggle_path", "app.session.toggleSort": "toggle_sort",
    "app.session.toggleNamedFilter": "toggle_named", "app.session.rename": "rename",
    "app.session.delete": "delete", "app.session.deleteNoninvasive": "delete_if_no_query",
}
_FIXED_KEYS = {"tab": "toggle_scope", "home": "top", "end": "bottom"}


class SessionPicker(Modal[str | None]):
    """Returns the chosen session file's path, or None."""

    DEFAULT_CSS = """
    SessionPicker { background: $pi-bg; }
    SessionPicker #picker-title { height: 1; padding: 0 1; color: $pi-accent; text-style: bold; }
    SessionPicker #picker-status { height: 1; padding: 0 1; color: $pi-muted; }
    SessionPicker #picker-search { height: 1; padding: 0 1; color: $pi-text; }
    SessionPicker #picker-rows { height: 1fr; background: $pi-bg; }
    SessionPicker #picker-message { height: auto; padding: 0 1; color: $pi-warning; }
    SessionPicker #picker-message.error { color: $pi-error; }
    SessionPicker #picker-hints { height: auto; padding: 0 1; color: $pi-dim; }
    """

    def __init__(self, cwd: str, *, session_dir: str | Path | None = None, sessions_root: str | Path | None = None,
                 current_path: str | Path | None = None, session: SessionPort | None = None, now: datetime | None = None,
                 system_trash: bool = True, all_scope: bool = False) -> None:
        """
        Args:
            cwd: The folder whose sessions are listed first.
            session_dir: That folder's sessions directory when not the default one.
            sessions_root: Root holding every project's folder (for Tab), when not the default.
            current_path: The open session's file: marked, never deleted, renamed through ``session``.
            session: The open ``AgentSession`` (its name changes go through ``set_session_name``).
            now: The time ages are measured from (fixed in snapshots); the clock otherwise.
            system_trash: Use ``send2trash`` when installed; False always uses the ``.trash`` folder.
            all_scope: Start with every folder's sessions.
        """
        super().__init__()
        from pi_runtime.frontend import SessionManager

        self.cwd = cwd
        self.session_dir = session_dir
        self.sessions_root = sessions_root
        self.current_path = Path(current_path).resolve() if current_path else None
        self.session = session
        self.now = now
        self.system_trash = system_trash
        self.state = PickerState(SessionManager.list(cwd, session_dir))
        if all_scope:
            self._load_all()
            self.state.scope = "all"
        self.state.refresh()
        self._styles: dict[str, Style] = {}
        self._lines: list[tuple[int, bool]] = []
        """What each list row shows: (index in ``state.visible``, True for its matched line)."""

    def _load_all(self) -> None:
        from pi_runtime.frontend import SessionManager

        if self.state.everywhere is None:
            self.state.everywhere = SessionManager.list_all(self.sessions_root)
            if self.is_mounted:
                self._read_ahead(self.state.everywhere)

    def _read_ahead(self, sessions: list) -> None:
        """Read every message of ``sessions`` in a thread, so the first search keystroke does not
        wait for it (on 1,000 sessions about 0.3 s; later keystrokes reuse it)."""
        import threading

        from pi_runtime.frontend import read_session_texts

        stop = self._stop_reading = getattr(self, "_stop_reading", None) or threading.Event()
        paths = [info.path for info in sessions]
        self.run_worker(lambda: read_session_texts(paths, stop), thread=True, name="resume-read-ahead",
                        group="resume-read-ahead", exit_on_error=False)

    def on_unmount(self) -> None:
        stop = getattr(self, "_stop_reading", None)
        if stop is not None:
            stop.set()

    def compose(self) -> ComposeResult:
        yield Static("Resume a session", id="picker-title")
        yield Static("", id="picker-status", markup=False)
        yield Static("", id="picker-search", markup=False)  # the search is typed text, not markup
        yield VirtualList(self._render_row, id="picker-rows")
        yield Static("", id="picker-message", markup=False)
        yield Static("", id="picker-hints")

    def on_mount(self) -> None:
        self.keys = KeyTable(app_keymap(self.app), _KEYS_BY_ID, _FIXED_KEYS)
        v = self.app.theme_variables
        self._styles = {
            "base": Style(color=v.get("pi-text")),
            "current": Style(color=v.get("pi-accent"), bold=True),
            "named": Style(color=v.get("pi-accent")),
            "meta": Style(color=v.get("pi-muted")),
            "dim": Style(color=v.get("pi-dim")),
            "cursor": Style(bgcolor=v.get("pi-selected-bg")),
        }
        self.rows = self.query_one(VirtualList)
        self.rows.focus()
        # After the first paint: the reading thread would hold it back (0.4 s more on 1,000 sessions).
        self.call_after_refresh(self._read_ahead, self.state.sessions)
        self.query_one("#picker-hints", Static).update(
            "↑↓ move · enter open · tab this folder/all · type to search · ^S sort · ^N named only · "
            "^P paths · ^R rename · ^D delete · esc close")
        self._sync(full=True)

    # ------------------------------------------------------------------ drawing

    def _render_row(self, index: int, width: int, selected: bool) -> Strip:
        row, is_snippet = self._lines[index]
        info = self.state.visible[row]
        s = self._styles
        if is_snippet:
            guide = " " * (4 + len(self.state.prefixes.get(info.path, "")))
            return self._snippet_strip(guide, self.state.snippets[info.path], width)
        is_current = self.current_path is not None and info.path.resolve() == self.current_path
        count = f"{info.message_count} msg" + ("" if info.message_count == 1 else "s")
        meta = f"  {count} · {relative_age(info.modified, self.now)}"
        where = ""
        if self.state.show_path:
            where = "  " + short_path(str(info.path))
        elif self.state.scope == "all":
            where = "  " + short_path(info.cwd or "?")
        left = [("› " if selected else "  ", s["current"]), ("● " if is_current else "  ", s["current"])]
        guide = self.state.prefixes.get(info.path, "")
        if guide:
            left.append((guide, s["dim"]))
        title = title_of(info)
        # Counted in cells, not characters: a title in CJK or with emoji is twice as wide, and a
        # title cut to the character count pushed the age off the row's end ("12 min ag").
        room = max(width - 4 - cell_len(guide) - len(meta) - cell_len(where), 8)
        if cell_len(title) > room:
            title = set_cell_size(title, room - 1) + "…"
        left.append((title, s["named"] if info.name else s["base"]))
        # The meta starts with two spaces of its own: no more are needed before it.
        pad = max(width - 4 - cell_len(guide) - cell_len(title) - cell_len(where) - len(meta), 0)
        strip = styled_strip(left + [(" " * pad, s["base"]), (where, s["dim"]), (meta, s["meta"])], width, s["base"])
        return strip.apply_style(s["cursor"]) if selected else strip

    def _snippet_strip(self, guide: str, snippet: str, width: int) -> Strip:
        """``↳ <the matching line>`` with the query's words picked out."""
        s = self._styles
        parts: list[tuple[str, Style]] = [(guide + "↳ ", s["dim"])]
        words = [w.lower() for w in self.state.query.replace('"', " ").split() if not w.startswith("re:")]
        low, at = snippet.lower(), 0
        while at < len(snippet):
            hits = [(low.find(w, at), w) for w in words if low.find(w, at) >= 0]
            if not hits:
                parts.append((snippet[at:], s["meta"]))
                break
            start, word = min(hits)
            if start > at:
                parts.append((snippet[at:start], s["meta"]))
            parts.append((snippet[start:start + len(word)], s["named"]))
            at = start + len(word)
        return styled_strip(parts, width, s["base"])

    def _display_index(self, row: int) -> int:
        return next((i for i, (r, snippet) in enumerate(self._lines) if r == row and not snippet), 0)

    def _sync(self, *, full: bool) -> None:
        state = self.state
        if full:
            self._lines = []
            for row, info in enumerate(state.visible):
                self._lines.append((row, False))
                if info.path in state.snippets:
                    self._lines.append((row, True))
            self.rows.set_rows(len(self._lines), self._display_index(state.cursor))
        else:
            self.rows.move_to(self._display_index(state.cursor))
        scope = "all folders" if state.scope == "all" else f"this folder ({short_path(self.cwd)})"
        bits = [scope, f"sort: {state.sort}"]
        if state.named_only:
            bits.append("named only")
        total = len(state.sessions)
        counter = f"{state.cursor + 1 if state.visible else 0}/{len(state.visible)}" + (
            f" of {total}" if len(state.visible) != total else "")
        status = " · ".join(bits)
        width = max(self.size.width - 2, len(status) + len(counter) + 2)
        self.query_one("#picker-status", Static).update(status + counter.rjust(width - len(status)))
        search = f"search: {state.query}▏" if state.query else "type to search"
        if not state.visible:
            search += "   — no sessions" + (" match" if state.query or state.named_only else " here yet")
        self.query_one("#picker-search", Static).update(search)

    def _message(self, text: str, *, error: bool = False) -> None:
        message = self.query_one("#picker-message", Static)
        message.set_class(error, "error")
        message.update(text)

    # ------------------------------------------------------------------ keys

    async def on_key(self, event: events.Key) -> None:
        method = self.keys.method_for(event.key)
        if method is None:
            if event.key == "backspace":
                method = "erase"
            elif event.is_printable and event.character:
                event.stop()
                event.prevent_default()
                self._set_query(self.state.query + event.character)
                return
            else:
                return
        event.stop()
        event.prevent_default()
        result = getattr(self, f"key_{method}")()
        if result is not None:
            await result

    def _set_query(self, query: str) -> None:
        self.state.query = query
        self.state.refresh(keep=False)
        self._sync(full=True)

    def _move(self, delta: int) -> None:
        self.state.move(delta)
        self._sync(full=False)

    def key_up(self) -> None:
        self._move(-1)

    def key_down(self) -> None:
        self._move(1)

    def key_page_up(self) -> None:
        self._move(-self.rows.page_size)

    def key_page_down(self) -> None:
        self._move(self.rows.page_size)

    def key_top(self) -> None:
        self._move(-len(self.state.visible))

    def key_bottom(self) -> None:
        self._move(len(self.state.visible))

    def key_erase(self) -> None:
        if self.state.query:
            self._set_query(self.state.query[:-1])

    def key_toggle_scope(self) -> None:
        if self.state.scope == "project":
            self._load_all()
            self.state.scope = "all"
        else:
            self.state.scope = "project"
        self.state.refresh()
        self._sync(full=True)

    def key_toggle_sort(self) -> None:
        self.state.sort = SORTS[(SORTS.index(self.state.sort) + 1) % len(SORTS)]
        self.state.refresh()
        self._sync(full=True)

    def key_toggle_named(self) -> None:
        self.state.named_only = not self.state.named_only
        self.state.refresh()
        self._sync(full=True)

    def key_toggle_path(self) -> None:
        self.state.show_path = not self.state.show_path
        self.rows.refresh()

    def key_select(self) -> None:
        if self.state.current is not None:
            self.dismiss(str(self.state.current.path))

    def key_cancel(self) -> None:
        if self.state.query:
            self._set_query("")
        else:
            self.dismiss(None)

    def key_rename(self) -> None:
        info = self.state.current
        if info is None:
            return

        async def done(name: str | None) -> None:
            if name is not None:
                await self.rename(info.path, name)

        self.app.push_screen(TextPrompt("Rename session", info.name or "", placeholder=title_of(info),
                                        hint="enter to save (empty clears the name) · esc to cancel"), done)

    async def rename(self, path: Path, name: str) -> bool:
        """Name a session by appending a ``session_info`` entry to its file; errors are shown."""
        from pi_runtime.frontend import SessionFileError, SessionManager, read_session_info

        try:
            if self.session is not None and self.current_path is not None and path.resolve() == self.current_path:
                await self.session.set_session_name(name)
            else:
                manager = SessionManager.open(path)
                try:
                    manager.append_session_info(name)
                finally:
                    manager.close()
        except (SessionFileError, OSError) as exc:
            self._message(f"Could not rename: {exc}", error=True)
            return False
        info = read_session_info(path)
        if info is not None:
            self.state.replace(info)
        self._sync(full=True)
        self._message(f"Renamed to “{name.strip()}”" if name.strip() else "Name cleared")
        return True

    def key_delete_if_no_query(self) -> None:
        if self.state.query:
            words = self.state.query.rstrip().rsplit(" ", 1)
            self._set_query(words[0] + " " if len(words) > 1 else "")
        else:
            self.key_delete()

    def key_delete(self) -> None:
        info = self.state.current
        if info is None:
            return
        if self.current_path is not None and info.path.resolve() == self.current_path:
            self._message("This is the open session; switch to another one before deleting it.", error=True)
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.delete(info.path)

        self.app.push_screen(ConfirmPrompt(f"Delete “{title_of(info)[:60]}”?",
                                           f"{short_path(str(info.path))}\nIt goes to the trash and can be restored."),
                             done)

    def delete(self, path: Path) -> bool:
        """Move a session file to the trash and drop it from the list; errors are shown."""
        from pi_runtime.frontend.app_support import SessionLockedError

        try:
            where = trash_session(path, system_trash=self.system_trash)
        except (OSError, SessionLockedError) as exc:
            self._message(f"Not deleted: {exc}", error=True)
            return False
        self.state.remove(path)
        self._sync(full=True)
        self._message(f"Moved to {short_path(where)}")
        return True

    def on_virtual_list_clicked(self, event: VirtualList.Clicked) -> None:
        if 0 <= event.index < len(self._lines):
            self.state.cursor = self._lines[event.index][0]
            self._sync(full=False)
