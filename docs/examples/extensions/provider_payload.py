"""Provider payload: log every request body and response status (Pi's ``provider-payload.ts``, in Python).

Writes ``.pi/provider-payload.log`` in the working folder. Returning a value from the
``before_provider_request`` handler would replace the payload.

    pi -e docs/examples/extensions/provider_payload.py
"""

from __future__ import annotations

import json
from pathlib import Path

from pi_runtime.extensions import CONFIG_DIR_NAME, ExtensionAPI


def extension(pi: ExtensionAPI) -> None:
    def log_file(ctx):
        path = Path(ctx.cwd, CONFIG_DIR_NAME, "provider-payload.log")
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def before_request(event, ctx):
        with log_file(ctx).open("a", encoding="utf-8") as out:
            out.write(json.dumps(event.payload, indent=2) + "\n\n")
        # Optional: replace the payload instead of only logging it.
        # return {**event.payload, "temperature": 0}

    def after_response(event, ctx):
        with log_file(ctx).open("a", encoding="utf-8") as out:
            out.write(f"[{event.status}] {json.dumps(event.headers)}\n\n")

    pi.on("before_provider_request", before_request)
    pi.on("after_provider_response", after_response)
