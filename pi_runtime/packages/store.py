"""Installing, updating and removing package copies on disk.

Git packages are cloned to ``<root>/git/<host>/<path>`` (``root`` is the agent dir, or the
project's ``.pi`` for ``-l``) and checked out at their ref; ``update`` fetches and resets an
unpinned checkout to its remote branch and leaves a pinned ref where it is. PyPI packages are
installed with this Python's pip into ``<root>/pypi/<name>`` (``pip install --target``; pip's own
configuration applies, so ``PIP_INDEX_URL`` / ``PIP_FIND_LINKS`` choose where from); an install goes
to a new folder that replaces the old one only when pip succeeded. Local packages are used in
place and never copied or changed. Git and local packages' declared Python dependencies are
installed into a folder of the package's own, ``<root>/deps/<name>-<hash>`` (``dependencies.py``),
never into pi's environment; a git clone whose dependencies fail is deleted, an update whose
dependencies fail goes back to the old commit. Nothing here touches settings, so a failed install
is never registered.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from .dependencies import DependencyError, declared_dependencies, pip_install_command
from .sources import Source, dependencies_dir, install_dir, normalize_name

NETWORK_TIMEOUT = 300

Progress = Callable[[str], None]


class InstallError(Exception):
    """An install or update failed; the message says why (the old copy, if any, is kept)."""


def offline() -> bool:
    """``--offline`` / ``PI_OFFLINE``: no network activity."""
    return os.environ.get("PI_OFFLINE", "").strip().lower() not in ("", "0", "false", "no")


def _run(args: list[str], cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}  # a credential prompt would hang a headless run
    try:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=NETWORK_TIMEOUT, env=env,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise InstallError(f"{args[0]} is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"{' '.join(args[:3])} timed out after {NETWORK_TIMEOUT} s") from exc
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise InstallError(f"{' '.join(args[:2])} failed: {detail[-1] if detail else f'exit {done.returncode}'}")
    return done.stdout.strip()


def _git(folder: Path, *args: str) -> str:
    return _run(["git", "-C", str(folder), *args])


def _head(folder: Path) -> str:
    return _git(folder, "rev-parse", "HEAD")


def installed_path(source: Source, root: Path) -> Path | None:
    """Where the package's files are (None for a git/PyPI package not installed yet)."""
    if source.kind == "local":
        return source.path
    folder = install_dir(source, root)
    return folder if folder is not None and folder.is_dir() else None


def _checkout(folder: Path, ref: str) -> None:
    try:
        _git(folder, "checkout", "--quiet", "--detach", ref)
    except InstallError:
        _git(folder, "fetch", "--quiet", "origin", ref)
        _git(folder, "checkout", "--quiet", "--detach", "FETCH_HEAD")


def install_dependencies(source: Source, package_root: Path, root: Path, progress: Progress | None = None) -> None:
    """pip-install what a git or local package declares into its own folder (``dependencies_dir``),
    which replaces the old one only when pip succeeded.

    Raises:
        InstallError: The declaration cannot be read, or pip failed (its last line says why).
    """
    try:
        dependencies = declared_dependencies(package_root)
    except DependencyError as exc:
        raise InstallError(str(exc)) from exc
    target = dependencies_dir(source, root)
    if not dependencies:
        shutil.rmtree(target, ignore_errors=True)  # it declared some before: they go with the declaration
        return
    if progress is not None:
        progress(f"Installing dependencies: {dependencies.describe()}")
        progress(f"  into {target} (apart from pi's own modules); pip runs the build code (setup.py, "
                 "a build backend) of any that come as source")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        # From the package root: relative paths in requirements.txt are the package's own.
        _run(pip_install_command(dependencies, staging), cwd=package_root)
        _swap_in(staging, target)
    except InstallError as exc:
        detail = str(exc).split(" failed: ", 1)[-1]
        raise InstallError(f"Installing dependencies ({dependencies.describe()}) failed: {detail}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, folder: Path) -> None:
    """Put ``staging`` where ``folder`` is, the old one removed only once the new one is there."""
    old = folder.with_name(folder.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        folder.replace(old)
    staging.replace(folder)
    shutil.rmtree(old, ignore_errors=True)


def install(source: Source, root: Path, progress: Progress | None = None) -> Path:
    """Make the package available; an installed git/PyPI copy is reused as it is.

    A git or local package's declared dependencies are installed too, for a git copy that was
    already there as well (``progress`` hears it; pip is quick when they are all present).

    Returns:
        The package root (folder or file).

    Raises:
        InstallError: The path does not exist, or git/pip failed (a new clone is then removed).
    """
    if source.kind == "local":
        assert source.path is not None
        if not source.path.exists():
            raise InstallError(f"Path does not exist: {source.path}")
        install_dependencies(source, source.path, root, progress)
        return source.path
    folder = install_dir(source, root)
    assert folder is not None
    if folder.is_dir():
        if source.kind == "git":  # a clone made before dependencies were installed gets them now
            install_dependencies(source, folder, root, progress)
        return folder
    if source.kind == "git":
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            _run(["git", "clone", "--quiet", source.url, str(staging)])
            if source.ref:
                _checkout(staging, source.ref)
            install_dependencies(source, staging, root, progress)  # before the move: a failure leaves no clone behind
            staging.replace(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return folder
    _pip_install(source, folder)
    return folder


def _pip_install(source: Source, folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        _run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input",
              "--target", str(staging), source.requirement])
        _swap_in(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def pypi_version(source: Source, folder: Path) -> str | None:
    """The installed version of a PyPI package in its folder."""
    from importlib.metadata import distributions

    wanted = normalize_name(source.name)
    for dist in distributions(path=[str(folder)]):
        if normalize_name(dist.metadata["Name"] or "") == wanted:
            return dist.version
    return None


def update(source: Source, root: Path) -> str | None:
    """Reconcile an installed package with its source.

    Returns:
        ``"<source> <old> -> <new>"`` when it changed, else None.

    Raises:
        InstallError: git/pip failed (the old copy is kept).
    """
    if source.kind == "local":
        return None
    folder = install_dir(source, root)
    assert folder is not None
    if not folder.is_dir():
        install(source, root)
        return f"{source.raw} installed"
    if source.kind == "git":
        before = _head(folder)
        if source.ref:
            _checkout(folder, source.ref)  # a pinned ref is reconciled, never moved
        else:
            _git(folder, "fetch", "--quiet", "origin")
            try:
                target = _git(folder, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
            except InstallError:
                target = "origin/HEAD"
            _git(folder, "reset", "--quiet", "--hard", target)
        after = _head(folder)
        if after != before:
            try:
                install_dependencies(source, folder, root)
            except InstallError:
                _git(folder, "reset", "--quiet", "--hard", before)  # keep the copy whose dependencies are there
                raise
        return None if after == before else f"{source.raw} {before[:7]} -> {after[:7]}"
    if source.pinned:
        return None
    before_version = pypi_version(source, folder)
    _pip_install(source, folder)
    after_version = pypi_version(source, folder)
    return None if after_version == before_version else f"{source.raw} {before_version} -> {after_version}"


def uninstall(source: Source, root: Path) -> None:
    """Delete an installed git/PyPI copy (local packages are left alone) and the dependencies
    installed for a git or local package."""
    folder = install_dir(source, root)
    if folder is not None and folder.is_dir():
        shutil.rmtree(folder)
    if source.kind != "pypi":
        shutil.rmtree(dependencies_dir(source, root), ignore_errors=True)
