"""Presets: named model, thinking level, tools and instructions (Pi's ``preset.ts``, in Python).

Presets come from ``<agent dir>/presets.json`` and ``<cwd>/.pi/presets.json`` (the project's
win on a name clash)::

    {"plan": {"provider": "anthropic", "model": "claude-sonnet-4-5", "thinkingLevel": "high",
              "tools": ["read", "grep", "find", "ls"], "instructions": "You are in PLANNING MODE..."}}

- ``pi --preset plan`` starts with one; ``/preset`` picks one (``/preset plan`` directly);
  ``ctrl+shift+u`` cycles through them (and "(none)", which restores what was there before);
- the active preset's instructions are appended to the system prompt of every run, and its
  name is kept in the session (``preset-state`` entries) so a resume knows it.

Pi's picker is a custom list component; this port asks with ``ctx.ui.select`` (which works in
the app and over RPC), the description after each name.

    pi -e docs/examples/extensions/preset.py --preset plan
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pi_runtime.extensions import CONFIG_DIR_NAME, ExtensionAPI, get_agent_dir

NONE = "(none)"


def load_presets(cwd: str) -> dict:
    """Global presets, then the project's over them."""
    merged: dict = {}
    for path in (Path(get_agent_dir(), "presets.json"), Path(cwd, CONFIG_DIR_NAME, "presets.json")):
        if not path.exists():
            continue
        try:
            merged.update(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            print(f"Failed to load presets from {path}: {exc}", file=sys.stderr)
    return merged


def describe(preset: dict) -> str:
    parts = []
    if preset.get("provider") and preset.get("model"):
        parts.append(f"{preset['provider']}/{preset['model']}")
    if preset.get("thinkingLevel"):
        parts.append(f"thinking:{preset['thinkingLevel']}")
    if preset.get("tools"):
        parts.append("tools:" + ",".join(preset["tools"]))
    if preset.get("instructions"):
        text = preset["instructions"]
        parts.append(f'"{text[:27]}..."' if len(text) > 30 else f'"{text}"')
    return " | ".join(parts)


def extension(pi: ExtensionAPI) -> None:
    state = {"presets": {}, "name": None, "preset": None, "original": None}

    pi.register_flag("preset", description="Preset configuration to use", type="string")

    def where() -> str:
        return f"{Path(get_agent_dir(), 'presets.json')} or .pi/presets.json"

    async def apply(name: str, preset: dict, ctx) -> None:
        if state["name"] is None:  # remember what to go back to when the presets are cleared
            state["original"] = {"model": ctx.model, "thinking": pi.get_thinking_level(),
                                 "tools": pi.get_active_tools()}
        if preset.get("provider") and preset.get("model"):
            model = ctx.model_registry.find(preset["provider"], preset["model"])
            if model is None:
                ctx.ui.notify(f'Preset "{name}": Model {preset["provider"]}/{preset["model"]} not found', "warning")
            elif not await pi.set_model(model):
                ctx.ui.notify(f'Preset "{name}": No API key for {preset["provider"]}/{preset["model"]}', "warning")
        if preset.get("thinkingLevel"):
            pi.set_thinking_level(preset["thinkingLevel"])
        if preset.get("tools"):
            known = {t["name"] for t in pi.get_all_tools()}
            unknown = [t for t in preset["tools"] if t not in known]
            if unknown:
                ctx.ui.notify(f'Preset "{name}": Unknown tools: {", ".join(unknown)}', "warning")
            valid = [t for t in preset["tools"] if t in known]
            if valid:
                pi.set_active_tools(valid)
        state["name"], state["preset"] = name, preset

    async def clear(ctx) -> None:
        state["name"], state["preset"] = None, None
        original = state["original"]
        if original:
            if original["model"] is not None:
                await pi.set_model(original["model"])
            pi.set_thinking_level(original["thinking"])
            pi.set_active_tools(original["tools"])
        else:
            pi.set_active_tools(["read", "bash", "edit", "write"])
        ctx.ui.notify("Preset cleared, defaults restored", "info")
        update_status(ctx)

    def update_status(ctx) -> None:
        name = state["name"]
        ctx.ui.set_status("preset", ctx.ui.theme.fg("accent", f"preset:{name}") if name else None)

    async def select_preset(ctx) -> None:
        presets = state["presets"]
        if not presets:
            ctx.ui.notify(f"No presets defined. Add presets to {where()}", "warning")
            return
        labels = {}
        for name, preset in presets.items():
            label = f"{name} (active)" if name == state["name"] else name
            labels[f"{label} — {describe(preset)}"] = name
        labels[f"{NONE} — Clear active preset, restore defaults"] = NONE
        choice = await ctx.ui.select("Select Preset", list(labels))
        if choice is None:
            return
        if labels[choice] == NONE:
            await clear(ctx)
            return
        await apply(labels[choice], presets[labels[choice]], ctx)
        ctx.ui.notify(f'Preset "{labels[choice]}" activated', "info")
        update_status(ctx)

    async def cycle(ctx) -> None:
        names = sorted(state["presets"])
        if not names:
            ctx.ui.notify(f"No presets defined. Add presets to {where()}", "warning")
            return
        order = [NONE, *names]
        current = state["name"] or NONE
        following = order[(order.index(current) + 1) % len(order)] if current in order else order[0]
        if following == NONE:
            await clear(ctx)
            return
        await apply(following, state["presets"][following], ctx)
        ctx.ui.notify(f'Preset "{following}" activated', "info")
        update_status(ctx)

    async def preset_command(args, ctx) -> None:
        name = args.strip()
        if not name:
            await select_preset(ctx)
            return
        preset = state["presets"].get(name)
        if preset is None:
            available = ", ".join(state["presets"]) or "(none defined)"
            ctx.ui.notify(f'Unknown preset "{name}". Available: {available}', "error")
            return
        await apply(name, preset, ctx)
        ctx.ui.notify(f'Preset "{name}" activated', "info")
        update_status(ctx)

    def before_agent_start(event, ctx):
        instructions = (state["preset"] or {}).get("instructions")
        if instructions:
            return {"systemPrompt": f"{event.system_prompt}\n\n{instructions}"}
        return None

    async def on_start(event, ctx):
        state["presets"] = load_presets(ctx.cwd)
        flag = pi.get_flag("preset")
        if isinstance(flag, str) and flag:
            preset = state["presets"].get(flag)
            if preset is not None:
                await apply(flag, preset, ctx)
                ctx.ui.notify(f'Preset "{flag}" activated', "info")
            else:
                available = ", ".join(state["presets"]) or "(none defined)"
                ctx.ui.notify(f'Unknown preset "{flag}". Available: {available}', "warning")
        saved = [e for e in ctx.session_manager.get_entries() if e.type == "custom" and e.custom_type == "preset-state"]
        name = (saved[-1].data or {}).get("name") if saved else None
        if name and not flag and name in state["presets"]:
            # A resume: keep the name for the instructions; model and tools are in the session already.
            state["name"], state["preset"] = name, state["presets"][name]
        update_status(ctx)

    def on_turn_start(event, ctx):
        if state["name"]:
            pi.append_entry("preset-state", {"name": state["name"]})

    pi.register_shortcut("ctrl+shift+u", cycle, description="Cycle presets")
    pi.register_command("preset", preset_command, description="Switch preset configuration")
    pi.on("before_agent_start", before_agent_start)
    pi.on("session_start", on_start)
    pi.on("turn_start", on_turn_start)
