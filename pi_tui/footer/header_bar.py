"""The top line (pi version, model, cwd, git branch) and the start-up summary of what
was loaded (context files, skills, prompt templates) with any warnings; click to expand."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static


def git_branch(cwd: str) -> str | None:
    """The checked-out branch, read from ``.git/HEAD`` (no subprocess on the start-up path)."""
    path = Path(cwd).resolve()
    for folder in (path, *path.parents):
        git = folder / ".git"
        try:
            if git.is_file():
                text = git.read_text(encoding="utf-8").strip()
                if text.startswith("gitdir:"):
                    git = (folder / text[7:].strip()).resolve()
            head = (git / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if head.startswith("ref: refs/heads/"):
            return head[16:]
        return head[:8]
    return None


class HeaderBar(Static):
    """Header line plus a collapsible 'Loaded ...' summary."""

    def __init__(self, *, version: str, cwd: str, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.version = version
        self.cwd = cwd
        self.branch = git_branch(cwd)
        self.model = ""
        self.loaded: list[tuple[str, list[str]]] = []
        """(kind, names) pairs: context files, skills, prompt templates."""
        self.warnings: list[str] = []
        self.expanded = False
        """Show every loaded item instead of counts."""
        self.palette: dict[str, str] = {}
        self._shown: Text | None = None
        """What the header shows now."""

    def on_mount(self) -> None:
        self._show()

    def set_palette(self, palette: dict[str, str]) -> None:
        """Theme colours (muted, dim, accent, success, warning, error)."""
        self.palette = palette
        self._show()

    def set_model(self, model: str) -> None:
        self.model = model
        self._show()

    def set_cwd(self, cwd: str) -> None:
        """The folder of the session shown (a session resumed from another project runs there)."""
        if cwd != self.cwd:
            self.cwd, self.branch = cwd, git_branch(cwd)
            self._show()

    def set_loaded(self, loaded: list[tuple[str, list[str]]], warnings: list[str]) -> None:
        self.loaded, self.warnings = loaded, warnings
        self._show()

    def on_click(self) -> None:
        self.expanded = not self.expanded
        self._show()

    def _show(self) -> None:
        c = self.palette
        text = Text()
        text.append("pi", style=f"bold {c.get('accent', '')}")
        text.append(f" v{self.version}", style=c.get("muted", ""))
        if self.model:
            text.append(f"  {self.model}")
        cwd = self.cwd.replace(str(Path.home()), "~", 1) if str(Path.home()) != "/" else self.cwd
        text.append(f"  {cwd}", style=c.get("muted", ""))
        if self.branch:
            text.append(f" ({self.branch})", style=c.get("muted", ""))
        summary = [f"{len(names)} {kind}" for kind, names in self.loaded if names]
        if summary or self.warnings:
            text.append("\n")
            marker = "▾" if self.expanded else "▸"
            text.append(f"{marker} Loaded: " + (", ".join(summary) or "nothing"), style=c.get("dim", ""))
            if self.warnings:
                text.append(f"  ⚠ {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}",
                            style=c.get("warning", ""))
            if self.expanded:
                for kind, names in self.loaded:
                    for name in names:
                        text.append(f"\n    {kind}: {name}", style=c.get("dim", ""))
                for warning in self.warnings:
                    text.append(f"\n    ⚠ {warning}", style=c.get("warning", ""))
        if text == self._shown:  # unchanged (the same model or palette again): no layout, no repaint
            return
        self._shown = text
        self.update(text)
