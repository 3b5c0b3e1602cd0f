"""``/local``: use a model server running on this machine (Ollama, llama.cpp, LM Studio).

Probes the well-known ports, lets the user pick one of the models found, adds that server
to ``<agent dir>/models.json`` as a keyless OpenAI-compatible provider and switches to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from ..flows.bound import transcript_of

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..flows.host import PiHost


async def use_local_model(app: PiHost, session: SessionPort, arg: str) -> None:
    from pi_runtime.frontend.app_support import add_to_models_json, probe_local_servers

    from ..dialogs.pick_list import PickItem, PickList

    servers = await probe_local_servers()
    if not servers:
        await transcript_of(app, session).add_notice(
            "No local model server answered on ports 11434 (Ollama), 8080 (llama.cpp) or 1234 (LM Studio).",
            "warning",
        )
        return
    items = []
    for server in servers:
        for model_id in server.models:
            label = Text(model_id, style="bold")
            label.append(f"  {server.base_url}", style="dim")
            items.append(PickItem((server, model_id), label, f"{server.name} {model_id}", server.name))

    async def chosen(value: Any) -> None:
        if value is None:
            return
        server, model_id = value
        path = app.agent_dir / "models.json"
        try:
            add_to_models_json(path, server)
        except (OSError, ValueError) as exc:  # a broken models.json is left as it is, and said
            await transcript_of(app, session).add_notice(f"Not added: {exc}", "error")
            return
        registry = session.model_registry
        if registry is None:
            return
        registry.refresh()
        model = registry.find(server.provider, model_id)
        if model is None:
            await transcript_of(app, session).add_notice(f"Added {server.name} to {path}, but {model_id} did not load", "error")
            return
        await session.set_model(model, persist_default=True)
        app.notify(f"Using {model.ref} (saved to {path})", timeout=4)

    def picked(value: Any) -> None:
        app.run_worker(chosen(value), name="use-local-model", exit_on_error=False)

    app.push_screen(PickList("Models on this machine", items), picked)
