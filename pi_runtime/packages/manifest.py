"""What a package offers: its extensions, skills, prompt templates and themes (docs/packages.md).

A package root (a folder, a git checkout, or a folder of a PyPI distribution) declares its resources
in the ``[tool.pi]`` table of its ``pyproject.toml`` — the Python home of the ``pi`` key of Pi's
``package.json``::

    [tool.pi]
    extensions = ["src/my_tools/pi_extension.py"]
    skills = ["resources/skills"]
    prompts = ["resources/prompts/*.md", "!resources/prompts/draft.md"]
    themes = ["resources/themes/*.json"]

Paths are relative to the root; entries may be globs, and ``!pattern`` excludes. Without the
table, the conventional folders ``extensions/``, ``skills/``, ``prompts/`` and ``themes/`` are read.
A PyPI distribution carries no ``pyproject.toml``; it declares ``pi`` entry points instead (see
:func:`distribution_roots`). Inside a declared or conventional folder, extensions are ``*.py``
files and package folders, skills are folders with a ``SKILL.md`` (and top-level ``*.md`` files),
prompts are ``*.md`` and themes ``*.json`` files.

The object form of a ``packages`` entry in settings narrows what loads (:func:`apply_filter`):
omitted loads everything, ``[]`` nothing, ``!pattern`` excludes, ``+path`` / ``-path`` include or
exclude one exact path, other entries keep only what they match. Filters never add a resource the
package did not declare.
"""

from __future__ import annotations

import fnmatch
import glob
import tomllib
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path, PurePosixPath
from typing import Literal

from ..records import record
from ..walk_guard import WalkGuard

Kind = Literal["extensions", "skills", "prompts", "themes"]
KINDS: tuple[Kind, ...] = ("extensions", "skills", "prompts", "themes")


@record
class Offered:
    """The resources of one package, by kind, as absolute paths."""

    extensions: list[Path] = field(default_factory=list)
    skills: list[Path] = field(default_factory=list)
    prompts: list[Path] = field(default_factory=list)
    themes: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Manifest errors (an unreadable ``pyproject.toml``, a path that does not exist)."""

    def of(self, kind: Kind) -> list[Path]:
        """The list for ``kind``."""
        return getattr(self, kind)

    def add(self, other: Offered) -> None:
        """Append ``other``'s resources (several roots of one distribution)."""
        for kind in KINDS:
            self.of(kind).extend(p for p in other.of(kind) if p not in self.of(kind))
        self.problems.extend(other.problems)


def _children(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "_")))
    except OSError:
        return []


def _in_folder(folder: Path, kind: Kind) -> list[Path]:
    """Resources of ``kind`` inside a declared or conventional folder."""
    if kind == "extensions":
        if (folder / "__init__.py").is_file():
            return [folder]
        return [p for p in _children(folder)
                if (p.is_file() and p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").is_file())]
    if kind == "prompts":
        return [p for p in _children(folder) if p.is_file() and p.suffix == ".md"]
    if kind == "themes":
        return [p for p in _children(folder) if p.is_file() and p.suffix == ".json"]
    return _skills_in(folder)


def _skills_in(root: Path) -> list[Path]:
    """Skill folders (with a ``SKILL.md``) and ``*.md`` files under ``root``, each folder entered
    once and the walk bounded (``walk_guard``: two links looping back cannot hang start-up),
    without recursion."""
    guard = WalkGuard()
    found: list[Path] = []
    pending = [root]
    while pending:
        folder = pending.pop(0)
        if not guard.enter(folder):
            continue
        if (folder / "SKILL.md").is_file():
            found.append(folder)
            continue
        children = _children(folder)
        found.extend(p for p in children if p.is_file() and p.suffix == ".md")
        below = [c for c in children if c.is_dir() and c.name != "node_modules"]
        pending[:0] = below  # depth first, in name order, as the folders are listed
    return found


def _shown(entry: str) -> str:
    """A manifest entry as a message shows it: a long one cut, with its length."""
    return entry if len(entry) <= 200 else f"{entry[:40]}… ({len(entry):,} characters)"


def _inside(items: list[Path], root: Path, kind: Kind, problems: list[str]) -> list[Path]:
    """``items`` that are inside the package once links are followed; the others are refused, one
    message each (a package's files must not reach the rest of the disk)."""
    real_root = root.resolve()
    kept = []
    for item in items:
        try:
            real = item.resolve()
        except (OSError, RuntimeError) as exc:  # a link loop, a name too long
            problems.append(f"{kind}: {_shown(_relative(item, root))}: {getattr(exc, 'strerror', None) or exc}; skipped")
            continue
        if real != real_root and real_root not in real.parents:
            problems.append(f"{kind}: {_shown(_relative(item, root))} leads outside the package (to {real}); refused")
            continue
        kept.append(item)
    return kept


def _expand(root: Path, entries: list[str], kind: Kind, problems: list[str]) -> list[Path]:
    include = [e for e in entries if not e.startswith("!")]
    exclude = [e[1:] for e in entries if e.startswith("!")]
    found: list[Path] = []
    for entry in include:
        where = f"tool.pi.{kind}: {_shown(entry)}"
        parts = PurePosixPath(entry).parts
        if PurePosixPath(entry).is_absolute() or Path(entry).is_absolute() or ".." in parts:
            problems.append(f"{where}: outside the package (paths are relative to its root, without ..); refused")
            continue
        try:
            matches = sorted(Path(p) for p in glob.glob(str(root / entry))) if glob.has_magic(entry) else [root / entry]
            if not glob.has_magic(entry) and not matches[0].exists():
                problems.append(f"{kind} path does not exist: {_shown(str(matches[0]))}")
                continue
            for match in _inside(matches, root, kind, problems):
                items = [match] if match.is_file() else _in_folder(match, kind)
                found.extend(p for p in _inside(items, root, kind, problems) if p not in found)
        except OSError as exc:  # a 5,000-character entry: "File name too long"
            problems.append(f"{where}: {exc.strerror or exc}; skipped")
    return [p for p in found if not _matches(p, root, exclude)]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _matches(path: Path, root: Path, patterns: Iterable[str]) -> bool:
    rel = _relative(path, root)
    return any(fnmatch.fnmatchcase(rel, p.lstrip("./")) or fnmatch.fnmatchcase(rel, p.lstrip("./").rstrip("/") + "/*")
               for p in patterns)


def read_manifest(root: Path) -> tuple[dict[str, list[str]] | None, list[str]]:
    """The ``[tool.pi]`` table of ``root/pyproject.toml`` (None without one), and its problems.

    A field of the wrong type is shown and loads nothing (the manifest still declares that kind,
    so the conventional folder does not stand in for it); entries that are not strings are shown
    and skipped; keys that are no resource kind are shown.
    """
    path = root / "pyproject.toml"
    if not path.is_file():
        return None, []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        # RecursionError: arrays nested thousands deep; ValueError: an integer of 5,000 digits.
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        return None, [f"{path}: {reason}"]
    tool = data.get("tool")
    table = tool.get("pi") if isinstance(tool, dict) else None
    if table is None:
        return None, [f"{path}: [tool] must be a table"] if tool is not None and not isinstance(tool, dict) else []
    if not isinstance(table, dict):
        return None, [f"{path}: [tool.pi] must be a table, not {_type_name(table)}"]
    out: dict[str, list[str]] = {}
    problems: list[str] = []
    for kind in KINDS:
        value = table.get(kind)
        if value is None:
            continue
        if not isinstance(value, list):
            problems.append(f"{path}: tool.pi.{kind} must be a list of paths, not {_type_name(value)}; "
                            "nothing of it loads")
            out[kind] = []
            continue
        out[kind] = [v for v in value if isinstance(v, str)]
        wrong = [_type_name(v) for v in value if not isinstance(v, str)]
        if wrong:
            problems.append(f"{path}: tool.pi.{kind}: {len(wrong)} entr{'y is' if len(wrong) == 1 else 'ies are'} "
                            f"not a path ({', '.join(sorted(set(wrong)))}); skipped")
    unknown = sorted(str(k) for k in table if k not in KINDS)
    if unknown:
        problems.append(f"{path}: tool.pi: unknown key{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(_shown(k) for k in unknown[:5])} (known: {', '.join(KINDS)}); ignored")
    return out, problems


def _type_name(value: object) -> str:
    """A TOML value's kind in TOML's words."""
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a float", list: "an array",
             dict: "a table"}
    return names.get(type(value), type(value).__name__)


def offered(root: Path, declared: dict[str, list[str]] | None = None) -> Offered:
    """The resources under ``root``: ``declared`` (or the root's ``[tool.pi]``), else the
    conventional folders; a single ``.py`` file is one extension."""
    out = Offered()
    if root.is_file():
        if root.suffix == ".py":
            out.extensions.append(root)
        else:
            out.problems.append(f"not a package folder or an extension file: {root}")
        return out
    if declared is None:
        declared, problems = read_manifest(root)
        out.problems.extend(problems)
    for kind in KINDS:
        if declared is not None and any(k in declared for k in KINDS):
            entries = declared.get(kind, [])
            out.of(kind).extend(_expand(root, entries, kind, out.problems))
        elif (root / kind).is_dir():
            out.of(kind).extend(_inside(_in_folder(root / kind, kind), root, kind, out.problems))
    return out


def exact_names(path: Path, root: Path) -> set[str]:
    """The names a ``+path`` / ``-path`` filter may give ``path``: relative to ``root``, and for a
    skill folder also its ``SKILL.md`` (the file Pi lists, and so what ``pi config`` writes)."""
    rel = _relative(path, root)
    return {rel, f"{rel}/SKILL.md"} if (path / "SKILL.md").is_file() else {rel}


def apply_filter(paths: list[Path], root: Path, patterns: list[str] | None) -> list[Path]:
    """Narrow ``paths`` with a settings filter (see the module docstring)."""
    if patterns is None:
        return list(paths)
    if not patterns:
        return []
    plain = [p for p in patterns if p[:1] not in "!+-"]
    excluded = [p[1:] for p in patterns if p.startswith("!")]
    forced = {p[1:].lstrip("./") for p in patterns if p.startswith("+")}
    dropped = {p[1:].lstrip("./") for p in patterns if p.startswith("-")}
    out = []
    for path in paths:
        names = exact_names(path, root)
        keep = (not plain or _matches(path, root, plain)) and not _matches(path, root, excluded)
        if names & forced:
            keep = True
        if names & dropped:
            keep = False
        if keep:
            out.append(path)
    return out


def apply_delta(paths: list[Path], kept: list[Path], root: Path, patterns: list[str]) -> list[Path]:
    """Layer a project's override filters over ``kept`` (what the personal entry loads of
    ``paths``): each entry in order, ``+path`` loads and ``-path`` unloads one exact path,
    ``!pattern`` unloads and a plain pattern loads what it matches."""
    loads = {path: path in kept for path in paths}
    for pattern in patterns:
        sign, target = (pattern[0], pattern[1:]) if pattern[:1] in "+-!" else ("", pattern)
        for path in paths:
            if sign in ("+", "-"):
                hit = target.lstrip("./") in exact_names(path, root)
            else:
                hit = _matches(path, root, [target])
            if hit:
                loads[path] = sign in ("", "+")
    return [path for path in paths if loads[path]]


def distribution_roots(target: Path, name: str) -> tuple[list[tuple[Path, dict[str, list[str]] | None]], str | None]:
    """Package roots of the PyPI distribution ``name`` installed (``pip --target``) in ``target``.

    The distribution declares ``pi`` entry points whose name is a resource kind (optionally with a
    suffix: ``skills.extra``) and whose value is a dotted path inside it, to a module, a package or
    a data folder::

        [project.entry-points.pi]
        extensions = "my_tools.pi_extension"
        skills = "my_tools.skills"

    Without them, the conventional folders inside each of its top-level packages are read.

    Returns:
        ``(root, declared)`` pairs, and a problem when the distribution is not there.
    """
    from importlib.metadata import distributions

    from .sources import normalize_name

    wanted = normalize_name(name)
    dist = next((d for d in distributions(path=[str(target)]) if normalize_name(d.metadata["Name"] or "") == wanted), None)
    if dist is None:
        return [], f"{name} is not installed in {target}"
    declared: dict[str, list[str]] = {}
    for entry in dist.entry_points:
        if entry.group != "pi":
            continue
        kind = entry.name.split(".", 1)[0]
        if kind not in KINDS:
            continue
        dotted = entry.value.split(":", 1)[0].strip()
        relative = dotted.replace(".", "/")
        candidate = relative + ".py" if (target / (relative + ".py")).is_file() else relative
        declared.setdefault(kind, []).append(candidate)
    if declared:
        return [(target, declared)], None
    tops: list[str] = []
    top_level = dist.read_text("top_level.txt")
    if top_level:
        tops = [line.strip() for line in top_level.splitlines() if line.strip()]
    else:
        for file in dist.files or []:
            first = Path(str(file)).parts[0] if Path(str(file)).parts else ""
            if first and not first.endswith((".dist-info", ".data")) and first not in ("..", "bin", "__pycache__"):
                tops.append(first.removesuffix(".py"))
    roots: list[tuple[Path, dict[str, list[str]] | None]] = [
        (target / top, None) for top in dict.fromkeys(tops) if (target / top).is_dir()]
    return roots, None

