"""Generate pi's built-in model catalogue from Pi's published one (the npm package @earendil-works/pi-ai).

Update to a new Pi release in one command (npm and Node >= 22 on PATH; npm fetches the packages):

    python scripts/generate_catalog.py --version 1.7.0

or from packages already installed somewhere (a ``node_modules`` folder holding
``@earendil-works/pi-ai`` and, for the default model of each provider, ``@earendil-works/pi-coding-agent``):

    python scripts/generate_catalog.py --from /path/to/node_modules

It writes ``pi_runtime/ai/catalog/builtin.json`` (commit it) and prints the provider and model
counts. ``--check`` writes nothing and exits 1 when the committed file differs from what the
packages give (tests run it that way when ``PI_REFERENCE`` is set).

What comes from where in the package:
- ``dist/providers/data/<provider>.json``: every model, grouped by wire API, with its type
  (chat, image, classifier); ``dist/providers/data/.manifest.json``: when the data was generated
  (a live catalogue newer than that replaces it, as in Pi).
- the provider definitions (``dist/providers/*.js``): display name, base URL, default headers,
  the API-key and account sign-in methods and the environment variables each reads, learnt by
  ``scripts/catalog_extract.mjs`` (Node) by calling the definitions with a recording environment;
- ``dist/env-api-keys.js``: the variables Pi reports a provider's key under;
- pi-coding-agent's ``defaultModelPerProvider``: the model Pi starts with for each provider.

The file's layout is documented in docs/models.md ("The built-in catalogue").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pi_runtime" / "ai" / "catalog" / "builtin.json"
EXTRACT = Path(__file__).resolve().with_name("catalog_extract.mjs")
PI_AI = "@earendil-works/pi-ai"
CODING_AGENT = "@earendil-works/pi-coding-agent"
FORMAT = 1
"""Bumped when the file's layout changes (pi_runtime/ai/catalog reads only its own format)."""

MODEL_TYPES = {"chat": "models", "image": "imageModels", "classifier": "classifierModels"}


def fail(message: str) -> None:
    print(f"generate_catalog: {message}", file=sys.stderr)
    sys.exit(1)


def find_node(explicit: str | None) -> str:
    node = explicit or os.environ.get("NODE") or shutil.which("node")
    if not node:
        fail("node not found: put Node >= 22 on PATH or pass --node")
    return str(node)


def npm_install(version: str, prefix: Path) -> Path:
    """Install the two packages (and their dependencies, which the provider code imports) into ``prefix``."""
    npm = shutil.which("npm")
    if not npm:
        fail("npm not found on PATH (needed for --version)")
    specs = [f"{PI_AI}@{version}", f"{CODING_AGENT}@{version}"]
    cmd = [str(npm), "install", "--prefix", str(prefix), "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", *specs]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"npm install {' '.join(specs)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return prefix / "node_modules"


def extract_definitions(node: str, pi_ai: Path, coding_agent: Path | None) -> dict[str, Any]:
    cmd = [node, str(EXTRACT), str(pi_ai)]
    if coding_agent is not None and coding_agent.is_dir():
        cmd.append(str(coding_agent))
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"catalog_extract.mjs failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def read_models(data_dir: Path, provider: str) -> dict[str, list[dict[str, Any]]]:
    """The provider's models by type, in Pi's order (its API groups, then the order within each)."""
    path = data_dir / f"{provider}.json"
    by_type: dict[str, list[dict[str, Any]]] = {kind: [] for kind in MODEL_TYPES}
    if not path.exists():
        return by_type
    groups = json.loads(path.read_text(encoding="utf-8"))
    for group in groups.values():
        for model in group.values():
            model = dict(model)
            kind = model.pop("type", "chat")
            if kind not in by_type:
                continue  # a type this layout does not know yet
            if model.pop("provider", provider) != provider:
                fail(f"{path.name}: model {model.get('id')} names another provider")
            by_type[kind].append(model)
    return by_type


def provider_entry(definition: dict[str, Any], chat: list[dict[str, Any]], counts: dict[str, int],
                   default_model: str | None) -> dict[str, Any]:
    apis = list(dict.fromkeys(m["api"] for m in chat))
    most = Counter(m["api"] for m in chat).most_common(1)
    urls = Counter(m.get("baseUrl") or "" for m in chat).most_common(1)
    entry: dict[str, Any] = {
        "name": definition["name"],
        "api": most[0][0] if most else None,
        "apis": apis,
        # Pi's provider-level URL; the models' commonest one where the provider sets none.
        "baseUrl": definition.get("baseUrl") or (urls[0][0] if urls else None) or None,
    }
    if definition.get("headers"):
        entry["headers"] = definition["headers"]
    auth: dict[str, Any] = {}
    if definition.get("apiKey"):
        auth["apiKey"] = definition["apiKey"]
    if definition.get("oauth"):
        auth["oauth"] = {k: v for k, v in definition["oauth"].items() if v is not None}
    entry["auth"] = auth
    entry["envKeys"] = definition.get("envKeys") or []
    if default_model:
        entry["defaultModel"] = default_model
    entry["counts"] = counts
    return entry


def build(pi_ai: Path, coding_agent: Path | None, node: str) -> dict[str, Any]:
    package = json.loads((pi_ai / "package.json").read_text(encoding="utf-8"))
    data_dir = pi_ai / "dist" / "providers" / "data"
    manifest = json.loads((data_dir / ".manifest.json").read_text(encoding="utf-8"))
    extracted = extract_definitions(node, pi_ai, coding_agent)
    defaults: dict[str, str] = extracted.get("defaultModels") or {}
    out: dict[str, Any] = {
        "format": FORMAT,
        "source": {"package": PI_AI, "version": package["version"], "generatedAt": manifest["generatedAt"]},
        # Pi's start-up preference: the first of these providers with credentials gives the model.
        "defaultModelOrder": list(defaults),
        "providers": {},
        **{key: {} for key in MODEL_TYPES.values()},
    }
    for definition in extracted["providers"]:
        pid = definition["id"]
        by_type = read_models(data_dir, pid)
        counts = {kind: len(rows) for kind, rows in by_type.items() if rows}
        out["providers"][pid] = provider_entry(definition, by_type["chat"], counts, defaults.get(pid))
        for kind, key in MODEL_TYPES.items():
            if by_type[kind]:
                out[key][pid] = by_type[kind]
    return out


def render(catalog: dict[str, Any]) -> str:
    """JSON with one provider or model per line, so an update reads as a diff of models."""
    compact = lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    lines = ["{"]
    keys = list(catalog)
    for index, key in enumerate(keys):
        value = catalog[key]
        comma = "," if index < len(keys) - 1 else ""
        if key == "providers":
            lines.append(f'  "{key}": {{')
            items = list(value.items())
            lines.extend(f"    {compact(pid)}: {compact(entry)}{',' if i < len(items) - 1 else ''}"
                         for i, (pid, entry) in enumerate(items))
            lines.append(f"  }}{comma}")
        elif key in MODEL_TYPES.values():
            lines.append(f'  "{key}": {{')
            items = list(value.items())
            for i, (pid, rows) in enumerate(items):
                lines.append(f"    {compact(pid)}: [")
                lines.extend(f"      {compact(row)}{',' if j < len(rows) - 1 else ''}" for j, row in enumerate(rows))
                lines.append(f"    ]{',' if i < len(items) - 1 else ''}")
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {compact(key)}: {compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def summary(catalog: dict[str, Any]) -> str:
    providers = catalog["providers"]
    chat = sum(len(rows) for rows in catalog["models"].values())
    images = sum(len(rows) for rows in catalog["imageModels"].values())
    classifiers = sum(len(rows) for rows in catalog["classifierModels"].values())
    with_chat = sum(1 for pid in providers if catalog["models"].get(pid))
    source = catalog["source"]
    return (f"{source['package']} {source['version']} (data of {source['generatedAt']}): {len(providers)} providers "
            f"({with_chat} with chat models), {chat} chat models, {images} image models, {classifiers} classifiers")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--version", help="npm version of the packages to fetch (e.g. 1.6.0 or latest)")
    where.add_argument("--from", dest="node_modules", type=Path,
                       help="a node_modules folder holding the installed packages")
    parser.add_argument("--node", help="the node binary (default: $NODE, then node on PATH)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default: {OUT.relative_to(REPO)})")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when --out differs")
    args = parser.parse_args(argv)
    node = find_node(args.node)
    with tempfile.TemporaryDirectory(prefix="pi-catalog-") as tmp:
        modules = npm_install(args.version, Path(tmp)) if args.version else args.node_modules.resolve()
        pi_ai = modules / PI_AI
        if not (pi_ai / "dist" / "providers" / "data").is_dir():
            fail(f"{pi_ai} is not an installed {PI_AI} package")
        catalog = build(pi_ai, modules / CODING_AGENT, node)
    text = render(catalog)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is not what {summary(catalog)} gives; run scripts/generate_catalog.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date: {summary(catalog)}")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {summary(catalog)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
