"""Commands that answer and exit without a session: ``--list-models`` and ``--export``."""

from __future__ import annotations

import os
import sys

from ..cli_args import CliArgs


def format_token_count(count: int | None) -> str:
    """``200000`` -> ``200K``, ``65536`` -> ``65.5K``, ``1048576`` -> ``1M``, as Pi's list shows them."""
    if not count:
        return "0"
    for unit, size in (("M", 1_000_000), ("K", 1_000)):
        if count >= size:
            value = count / size
            return f"{value:.0f}{unit}" if value.is_integer() else f"{value:.1f}{unit}"
    return str(count)


# ASCII punctuation and symbols in the order of Unicode's root collation (what JavaScript's
# ``localeCompare`` uses), moved below the digits (which sort below the letters), so that a
# ``str.translate`` gives a key that plain string order sorts as ``localeCompare`` would.
_COLLATION = str.maketrans({c: chr(1 + i) for i, c in enumerate(" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$")})


def collation_key(text: str) -> str:
    """Sorts ids as JavaScript's ``localeCompare`` does (case ignored, ``~anthropic/…`` first)."""
    return text.casefold().translate(_COLLATION)


def list_models(args: CliArgs) -> int:
    """Print the models that have credentials, extensions' providers' models included, as Pi does:
    filtered by Pi's fuzzy match on ``provider id``, sorted by provider then id.

    Raises:
        UsageError: a ``--flag`` no extension registered (they load first, as in Pi).
    """
    from ..extensions.fuzzy import fuzzy_filter
    from .cli_extensions import apply_extension_flags, load_without_session, report_load_failures

    loaded = load_without_session(args)
    report_load_failures(loaded.runner)
    apply_extension_flags(args, loaded.runner)
    registry = loaded.registry
    for problem in registry.errors:
        print(f"pi: models.json: {problem}", file=sys.stderr)
    for provider, problem in registry.provider_problems.items():
        print(f"pi: {provider}: {problem}", file=sys.stderr)
    models = registry.available()
    search = (args.list_models_search or "").strip()
    if search:
        models = fuzzy_filter(models, search, lambda m: f"{m.provider} {m.id}")
    if not models:
        hint = f" matching '{args.list_models_search}'" if search else ""
        print(f"No models available{hint}. Set an API key (e.g. ANTHROPIC_API_KEY) or use /login.", file=sys.stderr)
        return 1 if search else 0
    models.sort(key=lambda m: (collation_key(m.provider), collation_key(m.id)))
    rows = [("provider", "model", "context", "max-out", "thinking", "images")]
    for m in models:
        rows.append((m.provider, m.id, format_token_count(m.context_window), format_token_count(m.max_tokens),
                     "yes" if m.reasoning else "no", "yes" if "image" in (m.input or []) else "no"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = sys.stdout
    out.write("".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n" for row in rows))
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
