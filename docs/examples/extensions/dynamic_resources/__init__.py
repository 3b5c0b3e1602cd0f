"""Dynamic resources: a skill and a prompt template that exist only while this extension is
loaded, handed to pi from ``resources_discover`` (Pi's ``dynamic-resources/``, in Python).

After ``session_start`` (and after each ``/reload``) pi asks for paths; the files next to this
one become the ``dynamic-resources`` skill and the ``/dynamic`` template. Pi's example also
returns a theme; pi does not load themes from extensions (``themePaths`` is ignored).

    pi -e docs/examples/extensions/dynamic_resources
"""

from pathlib import Path

from pi_runtime.extensions import ExtensionAPI

HERE = Path(__file__).resolve().parent


def extension(pi: ExtensionAPI) -> None:
    def discover(event, ctx):
        return {"skillPaths": [str(HERE / "SKILL.md")], "promptPaths": [str(HERE / "dynamic.md")]}

    pi.on("resources_discover", discover)
