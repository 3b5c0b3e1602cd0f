"""``pi auth``: log in to and out of providers, print their credentials, check they are ready (cli.md,
"Credential commands"). Headless: nothing here imports the app.

``pi auth login|logout`` are in ``login.py``; ``check``, ``print-api-key`` and
``print-bearer-token`` in ``credentials.py``. Usage problems print ``Error: ...`` on standard error
and exit 1 (2 for ``check``, whose statuses are 0 ready, 1 not ready, 2 invalid).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

HELP = """Usage:
  pi auth login <provider> [--api-key] [--no-browser]
  pi auth logout <provider>
  pi auth print-api-key [--provider <provider>] [--model <model>]
  pi auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  pi auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Log in to and out of model providers, print their credentials for external clients, or check that they are ready.
Credentials are stored in ~/.pi/agent/auth.json.

Commands:
  login <provider>        Sign in with an account in the browser, or save an API key, then exit
  logout <provider>       Remove the stored credentials; environment variables and models.json stay
  print-api-key           Print the resolved API key
  print-bearer-token      Print a resolved OAuth bearer token (refreshes if expired)
  check                   Print ready, not_ready, or invalid; exit with 0, 1, or 2

Options for print-api-key, print-bearer-token, and check (at least one is required):
  --provider <provider>   Resolve credentials for a provider
  --model <model>         Resolve credentials from a model

Options for login:
  --api-key               Save an API key instead of signing in with an account
  --no-browser            Do not open a browser; use another sign-in method, e.g. device code

Other options:
  --min-expiry <duration> Minimum remaining token lifetime for print-bearer-token, e.g. 30m or 1h
  --json                  Print the check result as JSON
  --credentials           Emit the credential from check, or include it in JSON output
  --no-refresh            Do not refresh expired OAuth credentials during check"""

_KINDS = {"check": "check", "print-api-key": "api_key", "print-bearer-token": "bearer_token"}
_NAMES = {"check": "auth check", "api_key": "auth print-api-key", "bearer_token": "auth print-bearer-token"}
_USAGE = {
    "check": "pi auth check --provider <provider> [--json] [--credentials] [--no-refresh]",
    "api_key": "pi auth print-api-key --provider <provider> [--model <model>]",
    "bearer_token": "pi auth print-bearer-token --provider <provider> [--model <model>] [--min-expiry <duration>]",
}
_UNITS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000}


def run(args: list[str]) -> int:
    """``pi auth <args>``; returns the exit status."""
    from ..paths import agent_dir
    from .terminal import Terminal

    terminal = Terminal()
    if not args or args[0] == "help" or "--help" in args or "-h" in args:
        print(HELP)
        return 0
    home = Path(agent_dir())
    rest = [a for a in args[1:] if a != "--offline"]
    if args[0] in ("login", "logout"):
        from . import login

        return (login.login if args[0] == "login" else login.logout)(rest, home, terminal)
    kind = _KINDS.get(args[0])
    if kind is None:
        terminal.error(f'Error: Unknown auth command "{args[0]}". Use "pi auth login", "pi auth logout", '
                       '"pi auth print-api-key", "pi auth print-bearer-token", or "pi auth check".')
        return 1
    return _resolve_command(kind, args[1:], home, terminal)


def _resolve_command(kind: str, args: list[str], home: Path, terminal: object) -> int:
    from .credentials import AuthCommandError, Request, check, check_output, print_credential
    from .terminal import Terminal

    assert isinstance(terminal, Terminal)
    fail = 2 if kind == "check" else 1
    flags: set[str] = set()
    values: dict[str, str] = {}
    min_expiry: int | None = None
    extra: list[str] = []
    index = 0
    try:
        while index < len(args):
            arg = args[index]
            index += 1
            if arg == "--min-expiry":
                if kind != "bearer_token":
                    raise AuthCommandError("--min-expiry is only supported by print-bearer-token")
                value = args[index] if index < len(args) else ""
                index += 1
                match = re.fullmatch(r"(\d+)(ms|s|m|h)", value, re.IGNORECASE)
                if not match:
                    raise AuthCommandError("--min-expiry must use a duration such as 30m or 1h")
                min_expiry = int(match.group(1)) * _UNITS[match.group(2).lower()]
            elif arg in ("--json", "--credentials", "--no-refresh"):
                if kind != "check":
                    raise AuthCommandError(f"{arg} is only supported by auth check")
                flags.add(arg)
            elif arg in ("--provider", "--model", "--api-key"):
                if index >= len(args):
                    raise AuthCommandError(f"{arg} requires a value")
                values[arg] = args[index]
                index += 1
            elif arg.startswith("--"):
                terminal.error(f'Unknown option {arg.split("=", 1)[0]} for "{_NAMES[kind]}".')
                terminal.error(f'Use "pi --help" or "{_USAGE[kind]}".')
                return 1
            else:
                extra.append(arg)
    except AuthCommandError as exc:
        terminal.error(f"Error: {exc}")
        return 1
    provider = values.get("--provider", "").strip() or None
    model = values.get("--model", "").strip() or None
    try:
        if "--api-key" in values or extra:
            raise AuthCommandError("Auth commands only accept --provider and --model")
        if not provider and not model:
            raise AuthCommandError("Auth checks require --provider <provider> or --model <model>" if kind == "check"
                                   else "Credential printing requires --provider <provider> or --model <model>")
        request = Request(provider, model)
        if kind != "check":
            print(asyncio.run(print_credential(kind, request, home, min_expiry)))  # type: ignore[arg-type]
            return 0
        try:
            result = asyncio.run(check(request, home, refresh="--no-refresh" not in flags,
                                       want_credential="--credentials" in flags))
        except Exception:  # noqa: BLE001 - any failure to resolve is "invalid"
            result = {"status": "invalid", "provider": provider or model, "reason": "invalid_state"}
        print(check_output(result, "--json" in flags))
        return {"ready": 0, "not_ready": 1}.get(result["status"], 2)
    except AuthCommandError as exc:
        terminal.error(f"Error: {exc}")
        return fail
