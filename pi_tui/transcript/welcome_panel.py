"""First-run help: how to connect a model when no provider has credentials."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from pi_runtime.frontend.app_support import ENV_KEYS, suggested_env_var

MODELS_JSON_SNIPPET = """{
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [{ "id": "qwen2.5-coder:7b" }]
    }
  }
}"""


class WelcomePanel(Static):
    """Shown in an empty transcript when the current model cannot be used yet."""

    def __init__(self, *, model: str, agent_dir: str, probe: bool = True, **kwargs) -> None:
        super().__init__(self._content(model, agent_dir), markup=False, classes="welcome", **kwargs)
        self.message = None
        self._base = (model, agent_dir)
        self._probe_enabled = probe
        self.found: list = []
        """Local servers that answered the background probe."""

    def on_mount(self) -> None:
        # Probed after the first paint, in the background: a closed port answers at once,
        # a silent one costs at most the probe's timeout, never start-up time.
        if self._probe_enabled:
            self.run_worker(self._probe(), name="probe-local-servers", exit_on_error=False)

    async def _probe(self) -> None:
        from pi_runtime.frontend.app_support import probe_local_servers

        self.found = await probe_local_servers()
        if self.found:
            self.update(self._content(*self._base, found=self.found))

    @staticmethod
    def _content(model: str, agent_dir: str, found: list | None = None) -> Text:
        text = Text()
        text.append("Welcome to pi\n\n", style="bold")
        if found:  # the quickest way in goes first, where the guide opens
            text.append("Running on this machine now:\n", style="bold")
            for server in found:
                text.append(f"     {server.name:<10} {server.base_url}  ({len(server.models)} models)\n")
            text.append("Type /local to use one (it is added to models.json for you).\n\n")
        text.append(f"No credentials found for {model or 'any model'}. Connect a provider one of these ways:\n\n")
        text.append("1. Set an API key in your environment, then restart pi:\n", style="bold")
        for provider in list(ENV_KEYS)[:9]:
            text.append(f"     {provider:<12} {suggested_env_var(provider)}\n")
        text.append("     (more providers: see `pi --list-models`)\n\n")
        text.append("2. Sign in from here: ", style="bold")
        text.append("/login <provider>\n\n")
        text.append(f"3. Use a local OpenAI-compatible server: add {agent_dir}/models.json\n", style="bold")
        for line in MODELS_JSON_SNIPPET.splitlines():
            text.append(f"     {line}\n")
        text.append("   or type /local to find Ollama, llama.cpp or LM Studio running here.\n")
        text.append("\nThen pick it with /model (or ctrl+l). Just looking around? Start ")
        text.append("pi --demo", style="bold")
        text.append(" for a scripted model that needs no key.")
        return text
