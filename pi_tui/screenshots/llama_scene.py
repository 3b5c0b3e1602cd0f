"""``/llama`` scenes for ``screenshots/``: a llama.cpp router stand-in (on 127.0.0.1) with a model in
each state, its list, and a load in progress.

Run ``python -m pi_tui.screenshots.llama_scene [--out screenshots] [llama llama_loading]``. The
stand-in's port changes at every run: the pictures show the default ``http://127.0.0.1:9931``.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from .scenes import Scene, _until, make_app, render_scenes

SHOWN_URL = "http://127.0.0.1:9931"


async def _model_list(pilot: Any) -> None:
    app = pilot.app
    app.editor.set_text("/llama")
    await pilot.pause()
    app.menu.hide()
    await pilot.press("enter")
    await _until(pilot, lambda: app.screen.id == "llama-screen" and "Download model" in _text(app))


async def _loading(pilot: Any) -> None:
    await _model_list(pilot)
    await pilot.press("down", "down", "enter")
    await _until(pilot, lambda: "models are loaded" in _text(pilot.app))
    await pilot.press("down", "enter")  # keep them loaded
    await _until(pilot, lambda: "Loading weights" in _text(pilot.app))


def _text(app: Any) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


SCENES = [
    Scene("llama", (100, 26), _model_list),
    Scene("llama_loading", (100, 26), _loading),
]


async def capture(scene: Scene) -> str:
    """Run ``scene`` against a fresh router stand-in and return its SVG."""
    from pi_runtime.frontend.app_support import LlamaRouterStandIn, sample_models

    with LlamaRouterStandIn(sample_models()) as router:
        router.hold = threading.Event()  # a load stays at its first stage for the picture
        saved = os.environ.get("LLAMA_BASE_URL")
        os.environ["LLAMA_BASE_URL"] = router.url
        try:
            app, _ = make_app(scene, extensions=["builtin:llama.cpp"])
            async with app.run_test(size=scene.size) as pilot:
                await pilot.pause()
                await scene.prepare(pilot)
                svg: str = app.export_screenshot(title=f"pi — {scene.name}")
            router.hold.set()
        finally:
            if saved is None:
                os.environ.pop("LLAMA_BASE_URL", None)
            else:
                os.environ["LLAMA_BASE_URL"] = saved
        # Textual names the SVG's classes after a hash of what it drew, the real port included.
        return re.sub(r"terminal-\d+", f"terminal-{scene.name}", svg.replace(router.url, SHOWN_URL))


def main(argv: list[str] | None = None) -> int:
    """Write the ``/llama`` screenshots."""
    render_scenes(argv, SCENES, capture, __doc__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
