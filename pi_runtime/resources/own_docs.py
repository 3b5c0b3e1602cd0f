"""pi's own documentation, named in the system prompt's ``docs`` section (as Pi's prompt names
Pi's), so the agent can answer "how do I write an extension?" from the docs of the pi it runs in.

A checkout (or an editable install) reads the repository's ``README.md`` and ``docs/``; a
regular install finds the copies pyproject's ``data-files`` put under ``<data>/share/pi/``.
"""

from __future__ import annotations

import functools
import site
import sys
from pathlib import Path

from ..records import record

_CHECKOUT = Path(__file__).resolve().parents[2]

#: What each doc is for, by the paths the section tells the agent to resolve (Pi's layout:
#: ``docs/...`` under the docs folder, ``examples/...`` under the examples folder).
TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("extensions", ("docs/extensions.md", "examples/extensions/")),
    ("MCP servers", ("docs/mcp.md",)),
    ("packages", ("docs/packages.md",)),
    ("RPC mode", ("docs/rpc.md",)),
)


@record
class OwnDocs:
    readme: Path
    docs: Path
    examples: Path

    @classmethod
    def installed_under(cls, prefix: str | Path) -> OwnDocs:
        """The layout a regular install gives under ``prefix`` (``<prefix>/share/pi/...``): the
        screenshot scenes name these fixed paths, so their context figures do not depend on
        where the checkout is."""
        share = Path(prefix) / "share" / "pi"
        return cls(share / "README.md", share / "docs", share / "docs" / "examples")


def _complete(readme: Path, docs: Path) -> OwnDocs | None:
    if readme.is_file() and (docs / "extensions.md").is_file():
        return OwnDocs(readme, docs, docs / "examples")
    return None


@functools.cache
def find_own_docs() -> OwnDocs | None:
    """Where this pi's README, docs and examples are; None when they were not installed (looked
    up once: the prompt is rebuilt at every run)."""
    if (_CHECKOUT / "pyproject.toml").is_file():
        found = _complete(_CHECKOUT / "README.md", _CHECKOUT / "docs")
        if found is not None:
            return found
    import sysconfig  # only an installed pi looks there (a checkout, pip install -e, never does): ~1 ms

    roots = [sysconfig.get_path("data"), sys.prefix, getattr(site, "USER_BASE", None)]
    for root in dict.fromkeys(r for r in roots if r):
        installed = OwnDocs.installed_under(root)
        if installed.readme.is_file() and (installed.docs / "extensions.md").is_file():
            return installed
    return None


def render_docs_section(docs: OwnDocs) -> str:
    """The ``docs`` section: where the docs are, when to read them, which file covers what."""
    topics = ", ".join(f"{topic} ({', '.join(paths)})" for topic, paths in TOPICS)
    return "\n".join([
        "pi documentation (read it only when the user asks about pi itself: the app, its settings, "
        "extensions, packages, MCP, RPC or the SDK):",
        f"- Main documentation: {docs.readme.as_posix()}",
        f"- More docs: {docs.docs.as_posix()}",
        f"- Examples: {docs.examples.as_posix()} (extensions)",
        "- Read docs/NAME as NAME in the docs folder and examples/NAME as NAME in the examples folder "
        "above, not in the current working directory",
        f"- Which file for what: keys, themes, models.json, headless use and the SDK (Main documentation), {topics}",
        "- Before changing how pi is set up or extended, read the relevant docs and examples in full, "
        "and follow their links to related docs.",
    ])
