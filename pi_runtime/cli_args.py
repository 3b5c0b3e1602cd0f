"""Command-line parsing for ``pi``, with Pi's flags (cli.md).

A hand-written parser rather than argparse: Pi has two-letter short flags (``-nc``,
``-ne``), ``@file`` arguments, an optional value for ``--list-models``, repeatable
options and ``--`` handling that argparse would bend. Errors raise ``UsageError`` with the
one line the user sees.
"""

from __future__ import annotations

from .records import record


class UsageError(Exception):
    """A bad command line; ``str()`` is the message for stderr."""


@record
class ExtensionFlagArg:
    """A ``--name`` pi does not know: an extension may register it (checked once extensions load).

    As in Pi the next word is taken as its value unless it starts with ``-`` or ``@``; a
    boolean flag gives that word back to the messages (``message_index`` says where).
    """

    name: str
    value: str | None
    inline: bool
    """The value came as ``--name=value``."""
    message_index: int


class CliArgs:
    """The parsed command line (:func:`parse_args`): each attribute a flag's value or its default.

    A plain class, not a record: ``pi`` makes one per run, and a record's first instance has
    ``dataclasses`` write and compile an ``__init__`` for all its fields, 8.5 M instructions
    (~2 ms) of every ``pi -p`` for these 50. Scalars keep their defaults on the class; the lists
    are made per instance in ``__init__``. :meth:`replaced` stands in for ``dataclasses.replace``.
    """

    print_mode: bool = False
    mode: str | None = None
    """text, json or rpc."""
    model: str | None = None
    provider: str | None = None
    thinking: str | None = None
    api_key: str | None = None
    models: str | None = None
    list_models: bool = False
    list_models_search: str | None = None
    continue_: bool = False
    resume: bool = False
    session: str | None = None
    session_id: str | None = None
    fork: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    name: str | None = None
    tools: str | None = None
    exclude_tools: str | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    extensions: list[str]
    no_extensions: bool = False
    no_mcp: bool = False
    skills: list[str]
    no_skills: bool = False
    prompt_templates: list[str]
    no_prompt_templates: bool = False
    themes: list[str]
    use_theme: str | None = None
    no_themes: bool = False
    no_context_files: bool = False
    system_prompt: str | None = None
    append_system_prompt: list[str]
    verbose: bool = False
    tui_mode: str | None = None
    """``--tui-mode`` (Pi's ``fullscreen`` or ``regular``; pi is always full-screen)."""
    approve: bool | None = None
    offline: bool = False
    export: list[str]
    help: bool = False
    version: bool = False
    demo: bool = False
    files: list[str]
    """``@path`` arguments, without the ``@``."""
    messages: list[str]
    extension_flags: list[ExtensionFlagArg]
    """Unknown long flags, for extensions' ``register_flag`` (``modes.startup`` resolves them)."""

    def __init__(self) -> None:
        self.extensions = []
        self.skills = []
        self.prompt_templates = []
        self.themes = []
        self.append_system_prompt = []
        self.export = []
        self.files = []
        self.messages = []
        self.extension_flags = []

    def replaced(self, **changes: object) -> CliArgs:
        """A copy with ``changes`` applied (its lists are copies too); an unknown name is a TypeError."""
        unknown = [name for name in changes if name not in CliArgs.__annotations__]
        if unknown:
            raise TypeError(f"CliArgs has no field {unknown[0]!r}")
        copy = CliArgs.__new__(CliArgs)
        copy.__dict__.update({key: list(value) if type(value) is list else value
                              for key, value in self.__dict__.items()})
        copy.__dict__.update(changes)
        return copy

    def __repr__(self) -> str:
        # What was set on the instance: the lists and the flags given (the rest are the defaults).
        return f"CliArgs({', '.join(f'{key}={value!r}' for key, value in vars(self).items())})"


# flag -> (attribute, kind). kind: "bool", "value", "list", "false" (sets False)
_FLAGS: dict[str, tuple[str, str]] = {
    "-p": ("print_mode", "bool"), "--print": ("print_mode", "bool"),
    "--mode": ("mode", "value"),
    "--model": ("model", "value"), "-m": ("model", "value"),
    "--provider": ("provider", "value"),
    "--thinking": ("thinking", "value"),
    "--api-key": ("api_key", "value"),
    "--models": ("models", "value"),
    "-c": ("continue_", "bool"), "--continue": ("continue_", "bool"),
    "-r": ("resume", "bool"), "--resume": ("resume", "bool"),
    "--session": ("session", "value"),
    "--session-id": ("session_id", "value"),
    "--fork": ("fork", "value"),
    "--session-dir": ("session_dir", "value"),
    "--no-session": ("no_session", "bool"),
    "-n": ("name", "value"), "--name": ("name", "value"),
    "-t": ("tools", "value"), "--tools": ("tools", "value"),
    "-xt": ("exclude_tools", "value"), "--exclude-tools": ("exclude_tools", "value"),
    "-nt": ("no_tools", "bool"), "--no-tools": ("no_tools", "bool"),
    "-nbt": ("no_builtin_tools", "bool"), "--no-builtin-tools": ("no_builtin_tools", "bool"),
    "-e": ("extensions", "list"), "--extension": ("extensions", "list"),
    "-ne": ("no_extensions", "bool"), "--no-extensions": ("no_extensions", "bool"),
    "--no-mcp": ("no_mcp", "bool"),
    "--skill": ("skills", "list"),
    "-ns": ("no_skills", "bool"), "--no-skills": ("no_skills", "bool"),
    "--prompt-template": ("prompt_templates", "list"),
    "-np": ("no_prompt_templates", "bool"), "--no-prompt-templates": ("no_prompt_templates", "bool"),
    "--theme": ("themes", "list"),
    "--use-theme": ("use_theme", "value"),
    "--no-themes": ("no_themes", "bool"),
    "-nc": ("no_context_files", "bool"), "--no-context-files": ("no_context_files", "bool"),
    "--system-prompt": ("system_prompt", "value"),
    "--append-system-prompt": ("append_system_prompt", "list"),
    "--verbose": ("verbose", "bool"),
    "--tui-mode": ("tui_mode", "value"),
    "-a": ("approve", "bool"), "--approve": ("approve", "bool"),
    "-na": ("approve", "false"), "--no-approve": ("approve", "false"),
    "--offline": ("offline", "bool"),
    "-h": ("help", "bool"), "--help": ("help", "bool"),
    "-v": ("version", "bool"), "--version": ("version", "bool"),
    "--demo": ("demo", "bool"),
}
_MODES = ("text", "json", "rpc")


def parse_args(argv: list[str]) -> CliArgs:
    """Parse ``argv`` (without the program name).

    Raises:
        UsageError: unknown flag, missing value, bad combination.
    """
    args = CliArgs()
    i = 0
    only_positional = False
    while i < len(argv):
        arg = argv[i]
        i += 1
        if only_positional or not arg.startswith("-") or arg == "-":
            _positional(args, arg)
            continue
        if arg == "--":
            only_positional = True
            continue
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name == "--list-models":
            args.list_models = True
            if eq:
                args.list_models_search = inline
            elif i < len(argv) and not argv[i].startswith("-"):
                args.list_models_search = argv[i]
                i += 1
            continue
        if name == "--export":
            if i >= len(argv):
                raise UsageError("--export needs a session file or id")
            args.export.append(argv[i])
            i += 1
            if i < len(argv) and not argv[i].startswith("-"):
                args.export.append(argv[i])
                i += 1
            continue
        spec = _FLAGS.get(name)
        if spec is None and name.startswith("--") and len(name) > 2:
            # Extensions' flags are known only once they load (Pi parses them the same way).
            value = inline if eq else None
            if not eq and i < len(argv) and not argv[i].startswith(("-", "@")):
                value = argv[i]
                i += 1
            args.extension_flags.append(ExtensionFlagArg(name[2:], value, bool(eq), len(args.messages)))
            continue
        if spec is None:
            raise UsageError(unknown_option_message([name]))
        attr, kind = spec
        if kind == "bool":
            setattr(args, attr, True)
        elif kind == "false":
            setattr(args, attr, False)
        else:
            if eq:
                value = inline
            elif i < len(argv):
                value = argv[i]
                i += 1
            else:
                raise UsageError(f"Option {name} needs a value")
            if kind == "list":
                getattr(args, attr).append(value)
            else:
                setattr(args, attr, value)
    _validate(args)
    return args


def unknown_option_message(names: list[str], extra: tuple[str, ...] = ()) -> str:
    """``Unknown option: --x`` (with a suggestion for a single near miss), as the CLI prints it."""
    if len(names) == 1:
        import difflib  # only for a mistyped flag

        close = difflib.get_close_matches(names[0], [*_FLAGS, "--list-models", "--export", *extra], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return f"Unknown option: {names[0]}{hint}. See pi --help"
    return f"Unknown options: {', '.join(names)}. See pi --help"


def _positional(args: CliArgs, arg: str) -> None:
    if arg.startswith("@") and len(arg) > 1:
        args.files.append(arg[1:])
    else:
        args.messages.append(arg)


def check_model_choice(args: CliArgs) -> None:
    """The check Pi's CLI makes when it builds a session, after the parser accepted the line.

    ``--provider`` alone parses (so ``--help``, ``--version``, ``--list-models`` and
    ``--export`` still work with it); starting a session with it and no ``--model`` fails.

    Raises:
        UsageError: ``--provider`` without ``--model``, in Pi's words.
    """
    if args.provider and not args.model:
        raise UsageError(
            f"--provider requires --model (for example: --provider {args.provider} --model <pattern>)"
        )


def _validate(args: CliArgs) -> None:
    if args.mode is not None and args.mode not in _MODES:
        raise UsageError(f"Unknown mode '{args.mode}': use text, json or rpc")
    if args.fork and (args.session or args.continue_ or args.resume or args.no_session):
        raise UsageError("--fork cannot be combined with --session, --continue, --resume or --no-session")
    if args.session_id and (args.session or args.continue_ or args.resume):
        raise UsageError("--session-id cannot be combined with --session, --continue or --resume")
    if args.session_id is not None:
        sid = args.session_id
        if not sid or not (sid[0].isalnum() and sid[-1].isalnum()) or not all(
            c.isalnum() or c in "._-" for c in sid
        ):
            raise UsageError(
                "Session IDs use letters, numbers, '.', '_' and '-', and start and end with a letter or number"
            )
    if args.mode == "rpc" and args.files:
        raise UsageError("RPC mode does not accept @file arguments")


HELP = """\
pi - a terminal coding agent

Usage:
  pi [options] [--] [@files...] [messages...]

Modes:
  -p, --print                 Run the prompts, print the final answer, exit
  --mode text|json|rpc        Output interface (json: JSONL events; rpc: JSONL commands on stdin)
  --export <session> [out]    Export a session to HTML and exit
  --list-models [search]      List available models and exit
  pi serve [options]          Keep this folder's sessions running for any number of viewers
  pi attach --list | <id>     List the served sessions, or attach one (--mode rpc)

Models:
  --model <pattern>[:level]   Model by provider/id, id or fuzzy name, optional thinking level
  --provider <name>           Restrict --model to one provider
  --thinking <level>          off, minimal, low, medium, high, xhigh
  --api-key <key>             Non-persistent API key for the selected model
  --models <patterns>         Comma-separated models for Ctrl+P cycling

Sessions:
  -c, --continue              Continue the most recent session in this folder
  -r, --resume                Pick a session to resume
  --session <path|id>         Open a session by path or (partial) id
  --session-id <id>           Open or create the session with this id
  --fork <path|id>            Fork a session into a new one here
  --session-dir <dir>         Where sessions are stored
  --no-session                Keep the session in memory only
  -n, --name <name>           Session display name

Tools and resources:
  -t, --tools <list>          Tool allowlist, or +name/-name changes to the default
  -xt, --exclude-tools <list> Disable tools
  -nt, --no-tools             No tools
  -nbt, --no-builtin-tools    No built-in tools
  -e, --extension <path>      Load an extension (repeatable)
  -ne, --no-extensions        Disable discovered extensions
  --no-mcp                    No MCP servers for this run
  --skill <path>              Load a skill (repeatable);  -ns, --no-skills
  --prompt-template <path>    Load a prompt template;     -np, --no-prompt-templates
  -nc, --no-context-files     Skip AGENTS.md / CLAUDE.md
  --theme <path>              Load a theme file or folder (repeatable); --no-themes: no discovered themes
  --use-theme <name>          The theme for this run (light/dark pairs and "system" follow the terminal)
  --verbose                   The whole start-up help, whatever quietStartup says
  --tui-mode <mode>           Accepted for Pi's sake: pi is always full-screen
  --system-prompt <text|file> Replace the system prompt
  --append-system-prompt <t>  Append to the system prompt (repeatable)
  -a, --approve / -na, --no-approve   Trust / ignore project-local .pi resources
  --offline                   No automatic network activity
  --demo                      Use the built-in scripted demo model (no credentials needed)
  -h, --help                  This help
  -v, --version               Version

Environment:
  PI_CODING_AGENT_DIR         Agent directory (default ~/.pi/agent)
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, GROQ_API_KEY, ...
"""
