"""What a viewer reads of a served session's folder from the disk itself (the server reads the same
files): settings, the model registry (for pickers) and the resources (skills, prompt templates,
context files). Each is built on first use, so attaching costs none of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..ai.models import ModelRegistry
    from ..resources.port import ResourceLoaderPort
    from ..settings import SettingsManager


class LocalFolder:
    """The folder's files as this process reads them.

    Args:
        cwd: The session's folder.
        project_trusted: Whether the folder's project files may be read (the server's decision).
    """

    def __init__(self, cwd: str, project_trusted: bool) -> None:
        self.cwd = cwd
        self.project_trusted = project_trusted
        self._settings: SettingsManager | None = None
        self._registry: ModelRegistry | None = None
        self._resources: ResourceLoaderPort | None = None

    @property
    def settings(self) -> SettingsManager:
        if self._settings is None:
            from ..settings import SettingsManager

            self._settings = SettingsManager.create(self.cwd, project_trusted=self.project_trusted)
        return self._settings

    @settings.setter
    def settings(self, value: SettingsManager) -> None:
        self._settings = value

    @property
    def model_registry(self) -> ModelRegistry | None:
        if self._registry is None:
            from ..ai.models import ModelRegistry
            from ..auth import AuthStorage
            from ..paths import agent_dir

            folder = agent_dir()
            self._registry = ModelRegistry(folder / "models.json", AuthStorage(folder / "auth.json"))
        return self._registry

    @model_registry.setter
    def model_registry(self, value: ModelRegistry | None) -> None:
        self._registry = value

    @property
    def resources(self) -> ResourceLoaderPort | None:
        if self._resources is None:
            from ..resources.loader import ResourceLoader

            self._resources = ResourceLoader(self.cwd, settings=self.settings, project_trusted=self.project_trusted)
        return self._resources

    @resources.setter
    def resources(self, value: ResourceLoaderPort | None) -> None:
        self._resources = value
