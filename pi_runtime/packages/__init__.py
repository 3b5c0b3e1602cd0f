"""pi packages: extensions, skills, prompt templates and themes installed as one unit (packages.md).

A package comes from a git repository, a local path or PyPI (Pi's npm, in Python terms). It is
recorded in the ``packages`` list of ``settings.json`` (global, or the project's with ``-l``);
git and PyPI packages are installed under the agent dir (``git/<host>/<path>``, ``pypi/<name>``)
or the project's ``.pi/``, local ones are used where they are. What a package offers is declared
by a ``[tool.pi]`` table in its ``pyproject.toml`` (the ``pi`` key of Pi's ``package.json``), by
``pi`` entry points for a PyPI distribution, or found in conventional folders (``docs/packages.md``).

- :mod:`.sources` parses a source and says where it lives;
- :mod:`.manifest` lists the resources a package root offers, with settings filters applied;
- :mod:`.store` installs, updates and removes packages on disk (git, pip);
- :mod:`.settings_file` edits the ``packages`` lists;
- :mod:`.resolve` gives a session the resource paths of its configured packages;
- :mod:`.cli` is ``pi install|remove|list|update``.
"""

from __future__ import annotations

from typing import Any


def has_packages(settings: Any, project_trusted: bool) -> bool:
    """Whether a settings file pi reads declares packages: a dict lookup, nothing imported, since
    every session start asks (the rest of the package loads only when the answer is yes)."""
    if settings is None or not hasattr(settings, "raw"):
        return False
    scopes = ("global", "project") if project_trusted else ("global",)
    return any(settings.raw(scope).get("packages") for scope in scopes)
