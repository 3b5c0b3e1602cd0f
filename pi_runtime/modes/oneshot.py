"""Commands that answer and exit without a session: ``--list-models`` and ``--export``."""

from __future__ import annotations

import os
import sys

from ..cli_args import CliArgs


def _k(n: int | None) -> str:
    if not n:
        return "-"
    return f"{n // 1_000_000}M" if n >= 1_000_000 and n % 1_000_000 == 0 else (f"{n // 1000}K" if n >= 1000 else str(n))


def list_models(args: CliArgs) -> int:
    """Print the models that have credentials, extensions' providers' models included, optionally filtered.

    Raises:
        UsageError: a ``--flag`` no extension registered (they load first, as in Pi).
    """
    from .cli_extensions import apply_extension_flags, load_without_session, report_load_failures

    loaded = load_without_session(args)
    report_load_failures(loaded.runner)
    apply_extension_flags(args, loaded.runner)
    registry = loaded.registry
    for problem in registry.errors:
        print(f"pi: models.json: {problem}", file=sys.stderr)
    models = registry.available()
    search = (args.list_models_search or "").strip().lower()
    if search:
        terms = search.split()
        models = [m for m in models if all(t in f"{m.provider} {m.id} {m.name}".lower() for t in terms)]
    if not models:
        hint = f" matching '{args.list_models_search}'" if search else ""
        print(f"No models available{hint}. Set an API key (e.g. ANTHROPIC_API_KEY) or use /login.", file=sys.stderr)
        return 1 if search else 0
    rows = [("provider", "model", "context", "max-out", "thinking", "images")]
    for m in models:
        rows.append((m.provider, m.id, _k(m.context_window), _k(m.max_tokens),
                     "yes" if m.reasoning else "no", "yes" if "image" in (m.input or []) else "no"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 0


def export_html(args: CliArgs) -> int:
    """``--export <session> [out.html]``: write a standalone HTML transcript.

    Raises:
        StartupError / SessionFileError: The session cannot be found or read.
        UsageError: a ``--flag`` no extension registered.
    """
    from ..kernel.export_html import export_file
    from .startup import _find_session

    if args.extension_flags:
        # The export uses no extension; they load only so that their flags are accepted.
        from .cli_extensions import apply_extension_flags, load_without_session, report_load_failures

        runner = load_without_session(args).runner
        report_load_failures(runner)
        apply_extension_flags(args, runner)

    cwd = os.getcwd()
    source = _find_session(args.export[0], cwd, None)
    out = export_file(source, args.export[1] if len(args.export) > 1 else None, folder=cwd)
    print(f"Exported to: {out}")
    return 0
