"""``/llama``: the llama.cpp router's models, loaded and unloaded from the app (Pi's steps and words).

Enter on an unloaded model loads it (when others are loaded: unload them first, keep them, or
cancel), showing the load's stage; Esc during a load asks whether to stop it (the router is told
to unload it, and models unloaded to make room are loaded again). Enter on a loaded or sleeping
model asks, then unloads it. When the router cannot be reached the screen offers Retry / Close.
After each change the session's ``llama.cpp`` models are refreshed, so ``/model`` lists them.
Pi's "Download model…" (Hugging Face search) is listed but not available in pi.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from pi_runtime.frontend.app_support import context_window as llama_context_window
from pi_runtime.frontend.app_support import is_loaded as llama_is_loaded
from pi_runtime.frontend.app_support import state_of as llama_state_of

from ..dialogs.llama_screen import LlamaScreen

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort
    from pi_runtime.frontend.app_support import LlamaClient, RouterModel

PROVIDER = "llama.cpp"
DOWNLOAD = "\0download"
LIST_HINT = "enter load/unload/download · esc close"
SELECT_HINT = "enter select · esc cancel"
LABEL_WIDTH = 36
"""Width of the model column (Pi's list starts its descriptions there)."""


def model_description(model: RouterModel) -> str:
    """``loaded · 33k context``, ``loading``, or nothing for an unloaded model."""
    details = []
    if llama_is_loaded(model):
        context = llama_context_window(model)  # the context the router gives it (as /model shows)
        details += ["loaded", f"{round(context / 1000)}k context" if context >= 1000 else f"{context} context"]
    elif llama_state_of(model) != "unloaded":
        details.append(llama_state_of(model))
    return " · ".join(details)


def model_rows(catalog: list[RouterModel]) -> list[tuple[str, str]]:
    """The list's rows: loaded models first, then by id; then Pi's download item."""
    ordered = sorted(catalog, key=lambda m: (llama_state_of(m) != "loaded", m["id"].casefold()))
    rows: list[tuple[str, str]] = [(m["id"], f"{m['id']:<{LABEL_WIDTH}}  {model_description(m)}".rstrip())
                                   for m in ordered]
    rows.append((DOWNLOAD, f"{'Download model…':<{LABEL_WIDTH}}  Hugging Face search: not in pi"))
    return rows


async def run_llama(app: Any, session: SessionPort) -> None:
    """Open ``/llama`` and run it until the user closes it."""
    from pi_runtime.frontend.app_support import llama_client_for

    client = llama_client_for(session.model_registry)
    if client is None:
        app.notify(f"Configure llama.cpp with /login {PROVIDER}", severity="warning")
        return
    screen = LlamaScreen()
    await app.push_screen(screen)
    try:
        await LlamaFlow(app, session, client, screen).run()
    finally:
        if screen.is_attached:
            screen.dismiss(None)


class LlamaFlow:
    """One ``/llama`` visit: the router's catalog and the steps on ``screen``."""

    def __init__(self, app: Any, session: SessionPort, client: LlamaClient, screen: LlamaScreen) -> None:
        self.app, self.session, self.client, self.screen = app, session, client, screen

    async def run(self) -> None:
        from pi_runtime.frontend.app_support import LlamaError

        catalog = await self.read_catalog()
        last: Any = None
        while catalog is not None:
            picked = await self.screen.choose("llama.cpp models", self.client.server_url, model_rows(catalog),
                                              LIST_HINT, highlighted=last)
            if picked is None:
                return
            last = picked
            failure: Exception | None = None
            try:
                if picked == DOWNLOAD:
                    self.app.notify("Hugging Face download is not available in pi: start the router with the "
                                    "model (llama serve -hf owner/repository) instead", severity="warning")
                else:
                    model = next(m for m in catalog if m["id"] == picked)
                    if llama_is_loaded(model):
                        await self.unload(model)
                    elif llama_state_of(model) == "unloaded":
                        await self.load(catalog, model)
                    else:
                        self.app.notify(f"{picked} is {llama_state_of(model)}", severity="warning")
            except LlamaError as exc:
                failure = exc
            catalog = await self.read_catalog()
            if catalog is not None and failure is not None and not getattr(failure, "connection", False):
                self.app.notify(str(failure), severity="error")

    async def read_catalog(self) -> list[RouterModel] | None:
        """The router's models (the session's list refreshed too); None when the user closes on an error."""
        from pi_runtime.frontend.app_support import LlamaError

        while True:
            try:
                catalog: list[RouterModel] = await self.client.list()
                await self.refresh_session_models()
                return catalog
            except LlamaError as exc:
                answer = await self.screen.choose("llama.cpp unavailable", f"{self.client.server_url}\n\n{exc}",
                                                  [("retry", "Retry"), ("close", "Close")], SELECT_HINT)
                if answer != "retry":
                    return None

    async def refresh_session_models(self) -> None:
        runner = getattr(self.session, "extension_runner", None)
        if runner is not None:
            await runner.refresh_models(PROVIDER)

    async def unload(self, model: RouterModel) -> None:
        if await self.screen.choose("Unload model?", model["id"], [(True, "Yes"), (False, "No")], SELECT_HINT):
            await self.client.unload_and_wait(model["id"])
            await self.refresh_session_models()
            self.app.notify(f"Unloaded {model['id']}")

    async def load(self, catalog: list[RouterModel], target: RouterModel) -> None:
        others = [m for m in catalog if m["id"] != target["id"] and llama_is_loaded(m)]
        replace = False
        if others:
            count = len(others)
            title = f"{count} model{' is' if count == 1 else 's are'} loaded"
            choice = await self.screen.choose(title, "", [("replace", "Unload all and load"),
                                                          ("keep", "Keep loaded and load"), ("cancel", "Cancel")],
                                              SELECT_HINT)
            if choice in (None, "cancel"):
                return
            replace = choice == "replace"
        if replace:
            for model in others:
                await self.client.unload_and_wait(model["id"])
        try:
            finished = await self.load_with_progress(target["id"])
        except Exception:
            if replace:
                with contextlib.suppress(Exception):  # the load's own error is the one to report
                    await self.restore(others)
            raise
        if not finished:
            if replace:
                await self.restore(others)
            return
        await self.refresh_session_models()
        self.app.notify(f"Loaded {target['id']}")

    async def load_with_progress(self, model_id: str) -> bool:
        """Load with the progress step on screen; False when the user stopped it."""
        shown: dict[str, Any] = {"message": "Starting…", "ratio": None}

        def progress(update: Any) -> None:
            shown.update(message=update.get("message", shown["message"]), ratio=update.get("ratio"))
            if self.screen.is_attached:
                self.screen.show_progress("Loading model", model_id, str(shown["message"]), shown["ratio"])

        progress({})
        loading = asyncio.ensure_future(self.client.load_and_wait(model_id, progress))
        while True:
            stop_pressed = asyncio.ensure_future(self.screen.wait_for_stop())
            await asyncio.wait({loading, stop_pressed}, return_when=asyncio.FIRST_COMPLETED)
            stop_pressed.cancel()
            if loading.done():
                loading.result()  # raises the load's error
                return True
            stop = await self.screen.choose("Stop loading?", model_id, [(True, "Yes"), (False, "No")], SELECT_HINT)
            if loading.done():
                loading.result()
                return True
            if stop:
                loading.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await loading
                await self.client.unload(model_id)
                return False
            progress({"message": shown["message"], "ratio": shown["ratio"]})

    async def restore(self, models: list[RouterModel]) -> None:
        """Load again the models unloaded to make room for a load that did not happen."""
        self.app.notify("Restoring previously loaded models")
        for model in models:
            await self.client.load_and_wait(model["id"], lambda _update: None)
        await self.refresh_session_models()
