"""Print the structure figures of ``pi_tui`` that issue 38 tracks ("The app becomes a client").

Run from the repository root (standard library only):

    python scripts/structure_figures.py            # figures for ./pi_tui
    python scripts/structure_figures.py --root X   # for another checkout's pi_tui folder

What it counts, and how:
- ``PiHost``: its members (annotated attributes, methods, properties in the class body, wherever
  the class is: ``pi_tui/host.py`` on main before issue 38's structure work, ``pi_tui/flows/host.py``
  after) and the pi_tui classes its module imports (at any level, TYPE_CHECKING included), split
  into the Protocols among them and the rest: every concrete class ties its module to every
  controller that types against the host.
- ``app.<x>``: occurrences of ``app.<name>`` in the source text (reads and writes alike), against
  ``post_message(`` calls: attributes reached into versus messages posted up. ``app.session``: the
  "current session global" read in code (``app.session``, ``self.app.session``,
  ``self._app.session`` as attributes, found with ``ast``: key ids such as ``"app.session.new"``
  in strings are not reads); the text count is printed beside it.
- Reach-ins: ``app.<pane>`` (``app.editor``, ``app.footer_bar``, ``app.session``, ...) read or
  called from a module in a pane folder, found with ``ast``, per folder.
- ``Any`` per 1,000 lines: the word ``Any`` in the source text.
- Imports running back up: imports in a module inside a folder (a pane or area) whose target is
  one of pi_tui's top-level modules (``app``, ``host``, ``bridge``, ``launch``, ...).
- The folder import graph: an edge A -> B when a module of folder A imports from folder B,
  relative or absolute (``pi_tui.B``) imports alike. Counted twice: every import (inside
  functions and ``if TYPE_CHECKING:`` included), and only imports that run when the module is
  imported (module level, outside ``TYPE_CHECKING``). Printed as the pairs of folders importing
  each other and the cycles (strongly connected groups of more than one folder).
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "pi_tui"


@dataclass(frozen=True)
class ImportSite:
    """One import statement's target, resolved to a dotted module path inside pi_tui."""

    source: tuple[str, ...]
    """The importing module's path inside pi_tui, e.g. ``("sessions", "workspace")``."""
    target: tuple[str, ...]
    """The imported module (or package) path inside pi_tui."""
    runs_on_import: bool
    """True when the import runs as the module loads: module level and not under TYPE_CHECKING."""


def _module_path(file: Path, root: Path) -> tuple[str, ...]:
    parts = file.relative_to(root).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk_imports(node: ast.AST, runs: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Yield every import under ``node`` with whether it runs when the module is imported."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, runs
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _walk_imports(child, False)
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk_imports(ast.Module(body=[stmt], type_ignores=[]), False)
            for stmt in child.orelse:
                yield from _walk_imports(ast.Module(body=[stmt], type_ignores=[]), runs)
        else:
            yield from _walk_imports(child, runs)


def _targets(
    stmt: ast.Import | ast.ImportFrom, module: tuple[str, ...], is_package: bool
) -> list[tuple[str, ...]]:
    """The pi_tui modules an import statement reaches (empty when it imports from elsewhere)."""
    if isinstance(stmt, ast.Import):
        return [tuple(a.name.split("."))[1:] for a in stmt.names if a.name.split(".")[0] == PACKAGE]
    if stmt.level:
        package = module if is_package else module[:-1]
        base = package[: len(package) - (stmt.level - 1)] if stmt.level > 1 else package
        if stmt.level - 1 > len(package):
            return []
        dotted = base + tuple(stmt.module.split(".")) if stmt.module else base
    elif stmt.module and stmt.module.split(".")[0] == PACKAGE:
        dotted = tuple(stmt.module.split("."))[1:]
    else:
        return []
    if stmt.module is None:
        # ``from .. import transcript``: each name is a module (or package) under ``base``.
        return [dotted + (a.name,) for a in stmt.names]
    return [dotted]


def collect_imports(root: Path) -> list[ImportSite]:
    """Every import inside ``root`` (the pi_tui folder) that targets a pi_tui module."""
    sites = []
    for file in sorted(root.rglob("*.py")):
        module = _module_path(file, root)
        tree = ast.parse(file.read_text(), str(file))
        for stmt, runs in _walk_imports(tree, True):
            for target in _targets(stmt, module, file.name == "__init__.py"):
                sites.append(ImportSite(module, target, runs))
    return sites


def top_level_modules(root: Path) -> set[str]:
    """pi_tui's top-level modules (``app``, ``host``, ...), not its folders."""
    return {p.stem for p in root.glob("*.py") if p.stem != "__init__"}


def folders(root: Path) -> set[str]:
    """pi_tui's sub-packages: one per pane or area."""
    return {p.parent.name for p in root.glob("*/__init__.py")}


def folder_edges(sites: list[ImportSite], names: set[str], only_on_import: bool) -> set[tuple[str, str]]:
    """Edges between folders: (importer's folder, imported folder)."""
    edges = set()
    for site in sites:
        if only_on_import and not site.runs_on_import:
            continue
        if len(site.source) < 2 or not site.target or site.target[0] not in names:
            continue
        if site.source[0] != site.target[0]:
            edges.add((site.source[0], site.target[0]))
    return edges


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected groups of more than one folder (Tarjan's algorithm)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def host_figures(root: Path) -> tuple[str, int, list[str]]:
    """(the file defining ``PiHost``, its member count, the pi_tui names that file imports)."""
    for file in sorted(root.rglob("*.py")):
        tree = ast.parse(file.read_text())
        hosts = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PiHost"]
        if not hosts:
            continue
        members = sum(
            isinstance(b, ast.AnnAssign | ast.FunctionDef | ast.AsyncFunctionDef) for b in hosts[0].body
        )
        module = _module_path(file, root)
        named = []
        for stmt, _runs in _walk_imports(tree, True):
            if isinstance(stmt, ast.ImportFrom) and _targets(stmt, module, file.name == "__init__.py"):
                named += [a.name for a in stmt.names]
        return str(file.relative_to(root.parent)), members, sorted(named)
    return "-", 0, []


def session_global_reads(texts: dict[Path, str]) -> int:
    """``<app>.session`` attribute uses in code, where ``<app>`` is ``app``, ``self.app`` or ``self._app``."""
    count = 0
    for text in texts.values():
        for node in ast.walk(ast.parse(text)):
            if not (isinstance(node, ast.Attribute) and node.attr == "session"):
                continue
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "app") or (
                isinstance(owner, ast.Attribute) and owner.attr in ("app", "_app")
            ):
                count += 1
    return count


PANE_FOLDERS = ("transcript", "editor", "queue", "footer", "tree", "sessions", "extension_ui", "phone",
                "terminal", "theme", "keys")
"""The folders of panes: they post messages up or are handed what they need, and never reach
through the app into another pane (``flows/``, ``commands/``, ``dialogs/``, ``screenshots/`` and
the top-level app may act on several panes)."""

OTHER_PANES = ("editor", "default_editor", "transcript", "queue_view", "footer_bar", "tree_pane", "chrome",
               "menu", "jump_hint", "session", "workspace")
"""The app's attributes that are another pane, or the shown session and the tabs (whose panes
they lead to)."""


def pane_reach_ins(root: Path) -> list[tuple[str, str, int, str]]:
    """Every ``<app>.<one of OTHER_PANES>`` in a pane folder's code, as (folder, file, line, code);
    ``<app>`` is ``app``, ``self.app`` or ``self._app``. Found with ``ast``: key ids such as
    ``"app.editor.external"`` in strings are not reach-ins."""
    found = []
    for folder in PANE_FOLDERS:
        for file in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(file.read_text())):
                if not (isinstance(node, ast.Attribute) and node.attr in OTHER_PANES):
                    continue
                owner = node.value
                if (isinstance(owner, ast.Name) and owner.id == "app") or (
                    isinstance(owner, ast.Attribute) and owner.attr in ("app", "_app")
                ):
                    found.append((folder, str(file.relative_to(root.parent)), node.lineno, ast.unparse(node)))
    return sorted(found)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(PACKAGE), help="the pi_tui folder (default ./pi_tui)")
    root = parser.parse_args().root
    texts = {p: p.read_text() for p in root.rglob("*.py")}
    lines = sum(t.count("\n") for t in texts.values())
    anys = sum(len(re.findall(r"\bAny\b", t)) for t in texts.values())
    app_uses = sum(len(re.findall(r"\bapp\.[a-z_]+", t)) for t in texts.values())
    posts = sum(t.count("post_message(") for t in texts.values())
    session_reads = sum(len(re.findall(r"\bapp\.session\b", t)) for t in texts.values())
    sites = collect_imports(root)
    host_file, members, named = host_figures(root)
    top = top_level_modules(root)
    names = folders(root)
    climbing = [s for s in sites if len(s.source) >= 2 and s.target and len(s.target) == 1 and s.target[0] in top]

    print(f"pi_tui: {len(texts)} files, {lines} lines")
    print(f"PiHost ({host_file}): {members} members; pi_tui names its module imports: {len(named)}"
          f" ({', '.join(named) or '-'})")
    print(f"app.<x>: {app_uses}; post_message(: {posts}; app.session in code: {session_global_reads(texts)}"
          f" (text matches of 'app.session', key ids included: {session_reads})")
    reach_ins = pane_reach_ins(root)
    per_folder: dict[str, int] = {}
    for folder, *_ in reach_ins:
        per_folder[folder] = per_folder.get(folder, 0) + 1
    print(f"panes reaching through the app into another pane: {len(reach_ins)}"
          f"{' (' + ', '.join(f'{k} {v}' for k, v in sorted(per_folder.items())) + ')' if per_folder else ''}")
    print(f"Any: {anys} ({anys * 1000 / lines:.1f} per 1,000 lines)")
    by_target: dict[str, int] = {}
    for s in climbing:
        by_target[s.target[0]] = by_target.get(s.target[0], 0) + 1
    detail = ", ".join(f"{k} {v}" for k, v in sorted(by_target.items()))
    print(f"imports from a folder back up to a top-level module: {len(climbing)} ({detail})")
    for label, only in (("every import", False), ("module-level, outside TYPE_CHECKING", True)):
        edges = folder_edges(sites, names, only)
        pairs = sorted((a, b) for a, b in edges if (b, a) in edges and a < b)
        groups = cycles(edges)
        print(f"folder graph, {label}: {len(edges)} edges; {len(pairs)} pairs importing each other"
              f"{': ' + ', '.join(f'{a}<->{b}' for a, b in pairs) if pairs else ''}")
        print(f"  cycles (strongly connected groups): {len(groups)}"
              f"{': ' + '; '.join(' '.join(g) for g in groups) if groups else ''}")


if __name__ == "__main__":
    main()
