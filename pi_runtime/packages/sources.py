"""Package sources: what ``pi install <source>`` accepts, how a package is identified, where it lives.

=============================  =====================================================
``pypi:<requirement>``         a PyPI distribution (``pypi:pi-tools``, ``pypi:pi-tools==1.2``);
                               pinned when the requirement is ``==<version>``
``git:<host>/<path>[@ref]``    a git repository over https (``git:github.com/me/tools@v1``)
``https://…``, ``ssh://…``     a git repository, ``@ref`` after the path
``git@<host>:<path>[@ref]``    a git repository over ssh
``git:file:///<path>[@ref]``   a git repository on this machine (pi's addition; Pi has none)
anything else                  a local file or folder, used in place (``file://`` URLs too)
=============================  =====================================================

Identity (two declarations naming the same package load it once): a PyPI package by its
normalised name, a git package by its repository URL without the ref, a local one by its
resolved absolute path.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from ..records import record

Kind = Literal["pypi", "git", "local"]
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")


class SourceError(ValueError):
    """A source that cannot be installed (the message says why)."""


@record(frozen=True)
class Source:
    """A parsed package source."""

    raw: str
    """As written in settings (or on the command line)."""
    kind: Kind
    identity: str
    """What makes two declarations the same package."""
    url: str = ""
    """Git: the URL to clone."""
    ref: str | None = None
    """Git: the branch, tag or commit after ``@``."""
    host: str = ""
    """Git: the host folder under ``git/``."""
    repo_path: str = ""
    """Git: the repository path under the host folder."""
    name: str = ""
    """PyPI: the distribution name; git: the repository's last path part."""
    requirement: str = ""
    """PyPI: what pip installs."""
    path: Path | None = None
    """Local: the resolved file or folder."""

    @property
    def pinned(self) -> bool:
        """A git ref or an exact PyPI version: ``pi update`` does not move it."""
        if self.kind == "git":
            return self.ref is not None
        if self.kind == "pypi":
            return bool(re.fullmatch(r"===?\s*[^,;\s]+", self.requirement[len(self.name):].strip()))
        return False


def normalize_name(name: str) -> str:
    """PyPI's normalised project name (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _safe(part: str) -> bool:
    decoded = unquote(part)
    return bool(part) and not any(c in decoded for c in ("\0", "\\")) and ".." not in decoded.split("/")


def _git(raw: str, url: str, host: str, path: str, ref: str | None) -> Source:
    path = path.strip("/")
    bare = re.sub(r"\.git$", "", path)
    if not host or not bare or not _safe(host) or not _safe(bare) or "/" in host:
        raise SourceError(f"Not a git repository URL: {raw}")
    return Source(raw=raw, kind="git", identity=url, url=url, ref=ref or None, host=host, repo_path=bare,
                  name=bare.rsplit("/", 1)[-1])


def _split_ref(path: str) -> tuple[str, str | None]:
    repo, sep, ref = path.partition("@")
    return (repo, ref) if sep and repo and ref else (path, None)


def is_git_like(raw: str) -> bool:
    """Whether ``raw`` names a git repository rather than a local path."""
    return raw.startswith(("git:", "https://", "http://", "ssh://", "git://", "git@"))


def parse_source(raw: str, base: Path) -> Source:
    """Parse ``raw``; a relative local path resolves from ``base``.

    Raises:
        SourceError: An unusable source (bad URL, empty requirement).
    """
    text = raw.strip()
    if not text:
        raise SourceError("Missing install source.")
    if text.startswith("pypi:"):
        requirement = text[len("pypi:"):].strip()
        found = _REQUIREMENT.match(requirement)
        if not found:
            raise SourceError(f"Not a PyPI requirement: {requirement or raw}")
        name = found.group(1)
        return Source(raw=raw, kind="pypi", identity=f"pypi:{normalize_name(name)}", name=name,
                      requirement=requirement)
    if text.startswith("git:file://"):
        repo, ref = _split_ref(text[len("git:file://"):])
        folder = Path(unquote(repo)).resolve()
        return _git(raw, folder.as_uri(), "file", str(folder).lstrip("/"), ref)
    if text.startswith("git@"):
        host, _, rest = text[len("git@"):].partition(":")
        repo, ref = _split_ref(rest)
        return _git(raw, f"git@{host}:{repo}", host, repo, ref)
    if text.startswith(("https://", "http://", "ssh://", "git://")):
        parts = urlsplit(text)
        repo, ref = _split_ref(parts.path.lstrip("/"))
        url = f"{parts.scheme}://{parts.netloc}/{repo}"
        return _git(raw, url, parts.hostname or "", repo, ref)
    if text.startswith("git:"):
        rest = text[len("git:"):]
        if rest.startswith("git@"):
            return parse_source(rest, base)
        host, _, path = rest.partition("/")
        repo, ref = _split_ref(path)
        return _git(raw, f"https://{host}/{repo}", host, repo, ref)
    if text.startswith("file://"):
        text = unquote(urlsplit(text).path)
    local = Path(text).expanduser()
    local = (local if local.is_absolute() else base / local).resolve()
    return Source(raw=raw, kind="local", identity=str(local), path=local, name=local.name)


def install_dir(source: Source, root: Path) -> Path | None:
    """Where a git or PyPI package is installed under ``root`` (the agent dir or a project's ``.pi``)."""
    if source.kind == "git":
        return root / "git" / source.host / source.repo_path
    if source.kind == "pypi":
        return root / "pypi" / normalize_name(source.name)
    return None


def dependencies_dir(source: Source, root: Path) -> Path:
    """Where a git or local package's Python dependencies are installed under ``root`` (the agent
    dir or a project's ``.pi``): a folder of its own, apart from pi's environment, named after the
    package and a hash of its identity (two packages never share one)."""
    import hashlib

    digest = hashlib.sha256(source.identity.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", source.name)[:60].strip(".-") or "package"
    return root / "deps" / f"{name}-{digest}"
