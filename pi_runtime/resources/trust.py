"""Project trust: may pi load the ``.pi/`` settings and resources a folder brings with it?

Order of decision (Pi's): an explicit ``--approve`` / ``--no-approve`` flag; then, if the folder
has no trust-requiring resources at all, it is simply trusted; then the closest saved decision in
``<agent dir>/trust.json`` for cwd or one of its parents; then the global ``defaultProjectTrust``
setting (``always`` / ``never`` / ``ask``). ``ask`` leaves the decision open
(:attr:`TrustDecision.trusted` is None): an interactive front end asks, headless modes treat it
as "no". (Pi also lets extensions decide via a ``project_trust`` event; the extension runner
can call :func:`resolve_project_trust` with its answer as ``override``.)

``trust.json`` is Pi's format: an object mapping canonical folder paths to true or false.
Context files (AGENTS.md ...) load regardless of trust.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pi_runtime.config_files import atomic_write_json, read_json_object_to_rewrite
from pi_runtime.resources.diagnostics import ResourceDiagnostic

from ..records import record

TRUST_FILE = "trust.json"
#: Entries under ``.pi/`` that make a trust decision necessary (a bare ``.pi`` does not).
PROTECTED_PROJECT_ENTRIES = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)

TrustSource = Literal["flag", "no-project-resources", "saved", "setting", "ask"]


class TrustStoreError(Exception):
    """``trust.json`` cannot be read or written; nothing was changed."""


def canonical(path: str | os.PathLike[str]) -> Path:
    """The absolute, symlink-free form of ``path`` used as a key in ``trust.json``."""
    return Path(path).expanduser().resolve()


def has_trust_requiring_resources(cwd: str | os.PathLike[str], home: Path | None = None) -> bool:
    """Whether ``cwd`` brings resources that need a trust decision.

    True when ``cwd/.pi`` holds one of :data:`PROTECTED_PROJECT_ENTRIES`, or cwd or a parent
    holds ``.agents/skills`` (other than the user's own ``~/.agents/skills``).
    """
    folder = canonical(cwd)
    if any((folder / ".pi" / entry).exists() for entry in PROTECTED_PROJECT_ENTRIES):
        return True
    user_skills = canonical(home or Path.home()) / ".agents" / "skills"
    for parent in [folder, *folder.parents]:
        candidate = parent / ".agents" / "skills"
        if candidate != user_skills and candidate.exists():
            return True
    return False


class TrustStore:
    """Saved trust decisions in ``<agent dir>/trust.json``."""

    def __init__(self, agent_dir: str | os.PathLike[str]) -> None:
        self.path = Path(agent_dir) / TRUST_FILE
        """The trust file."""

    def _read(self) -> dict[str, bool | None]:
        data, problem = read_json_object_to_rewrite(self.path)
        if data is None:
            raise TrustStoreError(f"{self.path}: {problem}")
        for key, value in data.items():
            if value is not None and not isinstance(value, bool):
                raise TrustStoreError(f"{self.path}: value for {key!r} must be true, false or null")
        return data

    def lookup(self, cwd: str | os.PathLike[str]) -> tuple[Path, bool] | None:
        """The closest saved decision for ``cwd`` or a parent, as ``(folder, trusted)``.

        Raises:
            TrustStoreError: The file is unreadable or not in the expected form.
        """
        data = self._read()
        folder = canonical(cwd)
        for candidate in [folder, *folder.parents]:
            value = data.get(str(candidate))
            if isinstance(value, bool):
                return candidate, value
        return None

    def get(self, cwd: str | os.PathLike[str]) -> bool | None:
        """The closest saved decision, or None (see :meth:`lookup`)."""
        found = self.lookup(cwd)
        return found[1] if found else None

    def set(self, folder: str | os.PathLike[str], trusted: bool | None) -> None:
        """Save (or with None, forget) the decision for ``folder``; other entries are kept.

        Raises:
            TrustStoreError: The existing file is broken (it is left as it is) or cannot be written.
        """
        data = self._read()
        key = str(canonical(folder))
        if trusted is None:
            data.pop(key, None)
        else:
            data[key] = trusted
        try:
            atomic_write_json(self.path, {k: data[k] for k in sorted(data)})
        except OSError as exc:
            raise TrustStoreError(f"cannot write {self.path}: {exc}") from exc


@record(frozen=True, slots=True)
class TrustDecision:
    """The outcome for one working directory."""

    trusted: bool | None
    """True / False, or None when the user should be asked."""
    source: TrustSource
    """What decided it."""
    saved_path: Path | None = None
    """The folder whose saved decision applied (source ``saved``)."""
    warning: ResourceDiagnostic | None = None
    """Set when ``trust.json`` could not be read (it is then ignored)."""

    @property
    def needs_prompt(self) -> bool:
        """True when a front end should ask the user."""
        return self.trusted is None

    def effective(self) -> bool:
        """The decision for a mode that cannot ask: an open question counts as "no"."""
        return self.trusted is True


def resolve_project_trust(
    cwd: str | os.PathLike[str],
    *,
    store: TrustStore | None,
    override: bool | None = None,
    default_trust: Literal["ask", "always", "never"] = "ask",
    home: Path | None = None,
) -> TrustDecision:
    """Decide whether the project at ``cwd`` is trusted.

    Args:
        cwd: Working directory.
        store: Saved decisions (None to ignore saved decisions).
        override: ``--approve`` (True) / ``--no-approve`` (False), or an extension's answer.
        default_trust: The global ``defaultProjectTrust`` setting.
        home: Home folder, to tell the user's ``~/.agents/skills`` from a project's.

    Returns:
        The decision and what made it.
    """
    if override is not None:
        return TrustDecision(override, "flag")
    if not has_trust_requiring_resources(cwd, home):
        return TrustDecision(True, "no-project-resources")
    warning = None
    if store is not None:
        try:
            found = store.lookup(cwd)
        except TrustStoreError as exc:
            found = None
            warning = ResourceDiagnostic("trust", store.path, f"{exc}; saved decisions ignored")
        if found is not None:
            return TrustDecision(found[1], "saved", saved_path=found[0])
    if default_trust == "always":
        return TrustDecision(True, "setting", warning=warning)
    if default_trust == "never":
        return TrustDecision(False, "setting", warning=warning)
    return TrustDecision(None, "ask", warning=warning)


def settled_project_trust(cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str],
                          override: bool | None = None) -> bool | None:
    """The project's trust when it is known without asking anyone, else None.

    For what runs before settings are loaded (``--help``'s extension check, the app's first
    frame): it reads the global ``settings.json`` and ``trust.json`` only, never a file of the
    project, and treats a broken file as "not settled".
    """
    from ..config_files import read_json_object

    global_settings, _ = read_json_object(Path(agent_dir) / "settings.json")
    chosen = (global_settings or {}).get("defaultProjectTrust")
    default: Literal["ask", "always", "never"] = "always" if chosen == "always" else "never" if chosen == "never" else "ask"
    decision = resolve_project_trust(cwd, store=TrustStore(agent_dir), override=override, default_trust=default)
    return decision.trusted
