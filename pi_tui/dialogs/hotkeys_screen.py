"""``/hotkeys``: every key binding in force, read from the live keymap, with what it does.

The keys come from ``app.keymap`` (defaults with the user's ``keybindings.json`` on top),
so an override shows up here after ``/reload``; overridden ids are marked.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from .modal import Modal
from .pick_list import PICKER_CSS

SECTIONS = [
    ("Application", "app.", ("app.tree.", "app.models.", "app.session.toggle", "app.session.rename",
                             "app.session.delete")),
    ("Editor", "tui.editor.", ()),
    ("Input", "tui.input.", ()),
    ("Lists and pickers", "tui.select.", ()),
    ("Transcript", "tui.altScreen.", ()),
    ("Search (pi)", "pi.search", ()),
    ("Tree pane (pi: /pane tree)", "pi.pane.", ()),
    ("Queued messages (pi)", "pi.queue", ()),
    ("Session tree (/tree and the tree pane)", "app.tree.", ()),
    ("Session picker (/resume)", "app.session.", ("app.session.new", "app.session.tree", "app.session.fork",
                                                  "app.session.resume")),
    ("Scoped models (/scoped-models)", "app.models.", ()),
]
"""Section title, id prefix, and prefixes excluded from that section."""



def describe(action_id: str) -> str:
    """A short description of an action id (Pi's vocabulary, words from the id when unknown)."""
    if action_id in DESCRIPTIONS:
        return DESCRIPTIONS[action_id]
    tail = action_id.split(".")[-1]
    words = "".join(" " + c.lower() if c.isupper() else c for c in tail)
    return words[:1].upper() + words[1:]


DESCRIPTIONS = {
    "app.interrupt": "Cancel / abort (twice on an empty editor: tree or fork)",
    "app.clear": "Clear the editor; twice to quit",
    "app.exit": "Quit when the editor is empty",
    "app.suspend": "Suspend to the background",
    "app.editor.external": "Edit the prompt in $VISUAL / $EDITOR",
    "app.clipboard.pasteImage": "Paste an image or text from the clipboard",
    "app.session.new": "New session (/new)",
    "app.session.tree": "Session tree (/tree)",
    "app.session.fork": "Fork from an earlier message (/fork)",
    "app.session.resume": "Resume another session (/resume)",
    "app.session.open": "Open a session in a new tab (/open; pi)",
    "app.session.next": "Show the next session tab (pi)",
    "app.session.previous": "Show the previous session tab (pi)",
    "app.model.select": "Select a model (/model)",
    "app.model.cycleForward": "Next model (scoped set)",
    "app.model.cycleBackward": "Previous model (scoped set)",
    "app.thinking.cycle": "Cycle the thinking level",
    "app.thinking.save": "Save the thinking level to settings",
    "app.thinking.toggle": "Fold / unfold thinking blocks",
    "app.tools.expand": "Expand / collapse tool output and summaries",
    "app.message.copy": "Copy the selected (or last) message",
    "app.message.followUp": "Queue a follow-up message",
    "app.message.dequeue": "Bring queued messages back to the editor",
    "pi.queue.focus": "Move into the queued messages (edit, delete, reorder)",
    "tui.input.submit": "Send", "tui.input.newLine": "New line", "tui.input.tab": "Complete",
    "tui.input.copy": "Copy the selection",
    "tui.altScreen.search": "Search the transcript",
    "tui.altScreen.searchNext": "Next match while searching",
    "tui.altScreen.searchPrevious": "Previous match while searching",
    "tui.altScreen.searchClose": "Close the search",
    "tui.altScreen.previousPrompt": "Select the previous message",
    "tui.altScreen.nextPrompt": "Select the next message",
    "tui.altScreen.top": "Scroll to the top", "tui.altScreen.bottom": "Scroll to the end and follow",
    "app.tree.foldOrUp": "Fold the branch segment / previous segment",
    "app.tree.unfoldOrDown": "Unfold the branch segment / next segment",
    "app.tree.editLabel": "Edit the label", "app.tree.toggleLabelTimestamp": "Show label times",
    "pi.search": "Search the transcript (/find)", "pi.search.next": "Next search match",
    "pi.search.previous": "Previous search match",
    "app.pane.tree": "Tree pane beside the transcript (/pane tree)",
    "pi.pane.focus": "Move the focus: editor → tree pane → transcript",
    "pi.pane.wider": "Tree pane focused: widen it (remembered as treePaneWidth)",
    "pi.pane.narrower": "Tree pane focused: narrow it",
    "pi.pane.fork": "Tree pane: fork before the selected user message",
    "pi.pane.clone": "Tree pane: clone the path up to the selected entry",
}


def section_of(action_id: str) -> str:
    for title, prefix, excluded in SECTIONS:
        if action_id.startswith(prefix) and not any(action_id.startswith(x) for x in excluded):
            return title
    return "Other"


def hotkey_table(keymap: Any) -> Group:
    """Every id in ``keymap`` by section: keys, description, id.

    The keys and id columns are as wide as their longest entry in every section (so sections
    line up and nothing is cut off); the description takes the rest of the width and wraps.
    """
    by_section: dict[str, list[tuple[Text, Text, str]]] = {}
    for action_id, keys in keymap.pi_keys.items():
        # A key the main view takes first does nothing in the editor: say so.
        shadowed = keymap.shadowed_keys(action_id)
        live = [k for k in keys if k not in shadowed]
        shown = Text(", ".join(live) if live else "—", style="bold" if live else "dim")
        if action_id in keymap.overridden:
            shown.append(" *", style="bold")
        description = Text(describe(action_id))
        for key, owner in shadowed.items():
            description.append(f" ({key} is taken by: {describe(owner)})", style="dim")
        by_section.setdefault(section_of(action_id), []).append((shown, description, action_id))
    all_rows = [row for rows in by_section.values() for row in rows]
    keys_width = max([len("Keys"), *(row[0].cell_len for row in all_rows)])
    id_width = max([len("Id"), *(len(row[2]) for row in all_rows)])
    parts: list[Any] = []
    for title in [s[0] for s in SECTIONS] + ["Other"]:
        rows = by_section.get(title)
        if not rows:
            continue
        table = Table(box=None, show_header=not parts, header_style="bold", expand=True, padding=(0, 1))
        table.add_column("Keys", width=keys_width, no_wrap=True)
        table.add_column("Action", ratio=1)
        table.add_column("Id", width=id_width, style="dim", no_wrap=True)
        for row in rows:
            table.add_row(*row)
        parts += [Text(" " + title, style="bold underline"), table, Text("")]
    return Group(*parts)


class HotkeysScreen(Modal[None]):
    """Scrollable list of bindings; Esc or Ctrl+C (`tui.select.cancel`) closes."""

    DEFAULT_CSS = PICKER_CSS.replace("PickList", "HotkeysScreen") + """
    HotkeysScreen VerticalScroll { height: 1fr; }
    """
    BINDINGS = [Binding("escape,ctrl+c", "dismiss(None)", "Close", id="tui.select.cancel")]

    def __init__(self, keymap: Any) -> None:
        super().__init__(id="hotkeys-screen")
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Keyboard shortcuts", classes="picker-title")
            with VerticalScroll(id="hotkeys-scroll"):
                yield Static(hotkey_table(self.keymap), id="hotkeys-table")
            yield Static("↑↓ pgup/pgdn scroll · esc close · * = set in keybindings.json", classes="picker-hint")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
