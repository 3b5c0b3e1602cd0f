"""The shape of ``settings.json``: Pi's keys, types and defaults as typed models.

Field names are snake_case in Python and camelCase on disk (``reserveTokens``), exactly as in
Pi's ``settings.schema.json``. Unknown keys are kept (``extra="allow"``) so a file written by a
newer Pi, or by an extension, survives a round trip. Validation is strict: ``"true"`` is not a
boolean and ``"3"`` is not a number, because a config file that says the wrong thing should be
reported, not guessed at. ``SettingsManager`` (``pi_runtime.settings``) does the reporting.

A setting that Pi documents as "automatic" or "none" by default is ``None`` here.
"""

# No ``from __future__ import annotations`` here: JsonModel resolves a class's annotations when it is
# first used, and string annotations cost a compile() and eval() each (~180 for the settings classes: ~2 ms of every
# start-up); written as objects they are evaluated with the module's bytecode.
from typing import Annotated, Literal

from .jsonmodel import ConfigDict, Field, JsonModel, to_camel

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]
ProjectTrustDefault = Literal["ask", "always", "never"]
NonNegativeInt = Annotated[int, Field(ge=0)]
Number = int | float
NonNegativeNumber = Annotated[int | float, Field(ge=0)]
TimeoutMs = NonNegativeNumber | Literal["disabled"]

#: Settings Pi reads only from the agent-directory file; a project file cannot set them.
GLOBAL_ONLY_KEYS = frozenset(
    {"defaultProjectTrust", "httpProxy", "selfUpdateCommand", "cacheWarming", "deviceId"}
)


class SettingsModel(JsonModel):
    """Base for every settings object: camelCase on disk, strict, unknown keys kept."""

    model_config = ConfigDict(alias_generator=to_camel, extra="allow", strict=True)


class CompactionModelOverride(SettingsModel):
    reserve_tokens: NonNegativeInt | None = None
    """Reserve for this model; falls back to ``compaction.reserveTokens``."""
    keep_recent_tokens: NonNegativeInt | None = None
    """Recent tokens kept for this model; falls back to ``compaction.keepRecentTokens``."""


class CompactionSettings(SettingsModel):
    enabled: bool = True
    """Compact automatically when the context fills up."""
    reserve_tokens: NonNegativeInt = 16384
    """Free context tokens below which automatic compaction starts."""
    keep_recent_tokens: NonNegativeInt = 20000
    """Recent tokens kept verbatim (not summarized) by a compaction."""
    model_overrides: dict[str, CompactionModelOverride] | None = None
    """Per-model token settings keyed by exact ``provider/modelId``."""


class BranchSummarySettings(SettingsModel):
    reserve_tokens: Number = 16384
    """Tokens reserved for the prompt and the reply when summarizing a branch."""
    skip_prompt: bool = False
    """Skip the "Summarize branch?" question and default to no summary."""


class ProviderRetrySettings(SettingsModel):
    timeout_ms: NonNegativeNumber | None = None
    """Provider request timeout in ms; defaults to ``httpIdleTimeoutMs``."""
    max_retries: NonNegativeNumber | None = None
    """Provider-level retry attempts (Pi's effective default is 0)."""
    max_retry_delay_ms: NonNegativeNumber = 60000
    """Longest server-requested delay honoured before failing; 0 removes the limit."""


class RetrySettings(SettingsModel):
    enabled: bool = True
    """Retry transient provider failures automatically."""
    max_retries: NonNegativeNumber = 3
    """Agent-level retry attempts."""
    base_delay_ms: NonNegativeNumber = 2000
    """First backoff delay in ms; it doubles each attempt (2 s, 4 s, 8 s)."""
    max_agent_delay_ms: NonNegativeNumber = 60000
    """Cap on a single agent-level backoff delay, in ms."""
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)
    """Retry behaviour inside the provider client."""
    max_delay_ms: NonNegativeNumber | None = None
    """Legacy name for ``provider.maxRetryDelayMs``; read when the new key is absent."""


class BudgetSettings(SettingsModel):
    """Limits for one prompt (beyond Pi; all off by default)."""

    max_turns: NonNegativeInt | None = None
    """Stop after this many assistant turns in one prompt."""
    max_tokens: NonNegativeInt | None = None
    """Stop once the prompt's turns used this many tokens (input + output + cache)."""
    max_cost: NonNegativeNumber | None = None
    """Stop once the prompt's turns cost this many dollars."""


class TerminalSettings(SettingsModel):
    show_images: bool = True
    """Show inline images when the terminal supports them."""
    image_width_cells: Number = 60
    """Preferred inline image width in terminal cells."""
    clear_on_shrink: bool = False
    """Clear empty rows when rendered content shrinks."""
    show_terminal_progress: bool = False
    """Show OSC 9;4 progress in the terminal tab."""
    hyperlinks: bool | Literal["auto"] = "auto"
    """Force OSC 8 hyperlinks on or off, or detect them."""
    images: Literal["kitty", "iterm2", "auto", False] = "auto"
    """Force an inline-image protocol, disable images (false), or detect."""
    true_color: bool | Literal["auto"] = "auto"
    """Force true colour on or off, or detect it."""


class ImageSettings(SettingsModel):
    auto_resize: bool = True
    """Resize images to at most 2000x2000 before sending them to a model."""
    block_images: bool = False
    """Never send images to a model."""


class MarkdownSettings(SettingsModel):
    code_block_indent: str = "  "
    """Prefix used to indent rendered code blocks."""
    mermaid: Literal["off", "final", "streaming"] = "streaming"
    """When Mermaid diagrams are rendered."""


class WarningSettings(SettingsModel):
    anthropic_extra_usage: bool = True
    """Warn when Anthropic subscription auth may use paid extra usage."""


class CodemodeSettings(SettingsModel):
    mode: Literal["on", "only"] = "on"
    """How the codemode tool presents other tools while active."""
    inline_budget: NonNegativeNumber = 3000
    """Estimated tokens the codemode description may spend on tool declarations."""


class ThinkingBudgets(SettingsModel):
    minimal: Number | None = None
    """Token budget for the ``minimal`` thinking level."""
    low: Number | None = None
    """Token budget for the ``low`` thinking level."""
    medium: Number | None = None
    """Token budget for the ``medium`` thinking level."""
    high: Number | None = None
    """Token budget for the ``high`` thinking level."""


class PackageSource(SettingsModel):
    source: str
    """npm, git or local package source."""
    autoload: bool | None = None
    """When false, start empty and apply only the explicit resource patterns."""
    extensions: list[str] | None = None
    """Extension patterns to take from the package."""
    skills: list[str] | None = None
    """Skill patterns to take from the package."""
    prompts: list[str] | None = None
    """Prompt-template patterns to take from the package."""
    themes: list[str] | None = None
    """Theme patterns to take from the package."""


class LegacySkillsSettings(SettingsModel):
    enable_skill_commands: bool | None = None
    """Old home of ``enableSkillCommands``."""
    custom_directories: list[str] | None = None
    """Old form of the ``skills`` path list."""


class Settings(SettingsModel):
    """Everything ``settings.json`` may contain, with Pi's defaults."""

    schema_ref: str | None = Field(default=None, alias="$schema")
    """JSON Schema reference for editors; ignored by pi."""
    last_changelog_version: str | None = None
    """Last version whose changelog was shown."""
    extension_changelog_versions: dict[str, str] | None = None
    """Last seen changelog version per extension package."""

    # Model and thinking
    default_provider: str | None = None
    """Provider used at start-up; automatic when unset."""
    default_model: str | None = None
    """Model id used at start-up; automatic when unset."""
    default_thinking_level: ThinkingLevel = "medium"
    """Thinking level used at start-up."""
    model_thinking_levels: dict[str, ThinkingLevel] | None = None
    """Per-model start-up thinking levels keyed by ``provider/modelId``."""
    thinking_budgets: ThinkingBudgets | None = None
    """Custom token budgets for the thinking levels."""
    enabled_models: list[str] | None = None
    """Model patterns for start-up selection and cycling (same format as ``--models``)."""
    hide_thinking_block: bool = False
    """Hide thinking blocks in the transcript."""
    show_cache_miss_notices: bool = False
    """Show cache-miss, cache-warming and provider-recovery notices."""
    cache_warming: Literal["off", "streaming", "idle"] = "idle"
    """Keep provider prompt caches warm; global setting only."""

    # Interaction
    steering_mode: QueueMode = "one-at-a-time"
    """How queued steering messages are delivered."""
    follow_up_mode: QueueMode = "one-at-a-time"
    """How queued follow-up messages are delivered."""
    external_editor: str | None = None
    """Command for the external-editor key; falls back to $VISUAL, then $EDITOR."""
    double_escape_action: Literal["tree", "fork", "none"] = "tree"
    """What a double Escape does with an empty editor."""
    tree_filter_mode: Literal["default", "no-tools", "user-only", "labeled-only", "all"] = "default"
    """Initial filter of the /tree view."""
    tree_pane_width: Annotated[int, Field(ge=24, le=200)] | None = None
    """Columns of the docked session-tree pane (``/pane tree``); pi only, Pi keeps it as an unknown key."""
    default_project_trust: ProjectTrustDefault = "ask"
    """Trust decision when no flag or saved decision applies; global setting only."""

    # Tools
    default_tools: list[str] | None = None
    """Tools enabled at start-up (``+name``/``-name`` adjust); read, bash, edit, write when unset."""
    codemode: CodemodeSettings = Field(default_factory=CodemodeSettings)
    """Codemode tool presentation."""

    # Sessions and context
    session_dir: str | None = None
    """Session storage directory; relative paths resolve from the working directory."""
    session_share_destination: Literal["auto", "gist", "radius"] = "auto"
    """Where /share publishes a session."""
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    """Automatic compaction."""
    branch_summary: BranchSummarySettings = Field(default_factory=BranchSummarySettings)
    """Summaries made when leaving a branch of the session tree."""

    # Terminal and display
    theme: str = "system"
    """Built-in or custom theme name; ``system`` follows the terminal's colours."""
    quiet_startup: bool | Literal["header"] = False
    """Hide the start-up header and resource listing (``header`` keeps the header)."""
    tui_mode: Literal["regular", "fullscreen"] = "fullscreen"
    """Interactive UI mode."""
    fullscreen_exit_output: Literal["transcript", "resume-hint"] = "transcript"
    """What is printed when the full-screen UI exits."""
    fullscreen_scrollbar: Literal["auto", "always", "hidden"] = "auto"
    """Transcript scrollbar in full-screen mode."""
    fullscreen_copy_on_select: bool = True
    """Copy selected text automatically in full-screen mode."""
    fullscreen_wheel_scroll_lines: Number | Literal["auto"] = "auto"
    """Lines per mouse-wheel event (clamped to 1..100), or automatic."""
    editor_padding_x: Annotated[Number, Field(ge=0, le=3)] = 0
    """Horizontal editor padding, 0 to 3 cells."""
    output_pad: Literal[0, 1] = 1
    """Horizontal padding of transcript content."""
    autocomplete_max_visible: Annotated[Number, Field(ge=3, le=20)] = 5
    """Visible autocomplete entries, 3 to 20."""
    show_hardware_cursor: bool = False
    """Use the terminal's cursor instead of a drawn one."""
    terminal: TerminalSettings = Field(default_factory=TerminalSettings)
    """Terminal capability overrides."""
    images: ImageSettings = Field(default_factory=ImageSettings)
    """Image handling."""
    markdown: MarkdownSettings = Field(default_factory=MarkdownSettings)
    """Markdown rendering."""

    # Network and retries
    transport: Literal["auto", "sse", "websocket", "websocket-cached"] = "auto"
    """Preferred transport where a provider offers several."""
    http_proxy: str | None = None
    """Proxy URL for HTTP_PROXY and HTTPS_PROXY; global setting only."""
    http_idle_timeout_ms: TimeoutMs = 300000
    """HTTP idle timeout in ms; 0 or ``disabled`` turns it off."""
    websocket_connect_timeout_ms: TimeoutMs = 15000
    """WebSocket connect timeout in ms; 0 or ``disabled`` turns it off."""
    retry: RetrySettings = Field(default_factory=RetrySettings)
    """Automatic retries of transient failures."""
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    """Per-prompt turn, token and cost limits (pi only; Pi has none)."""

    # Shell
    shell_path: str | None = None
    """Shell executable for the bash tool; a leading ``~`` is expanded."""
    shell_command_prefix: str | None = None
    """Text prepended to every shell command (e.g. to enable aliases)."""
    npm_command: list[str] | None = None
    """argv used for npm look-ups and installs."""
    self_update_command: Annotated[list[str], Field(min_length=1)] | None = None
    """argv ``pi update`` runs; global setting only."""

    # Resources
    packages: list[str | PackageSource] | None = None
    """npm, git or local Pi package sources."""
    extensions: list[str] | None = None
    """Extension files or directories."""
    skills: list[str] | LegacySkillsSettings | None = None
    """Skill files or directories."""
    prompts: list[str] | None = None
    """Prompt-template files or directories."""
    themes: list[str] | None = None
    """Theme files or directories."""
    enable_skill_commands: bool = True
    """Offer skills as /skill:name commands."""

    # Updates, telemetry and warnings
    collapse_changelog: bool = False
    """Show a condensed changelog after an update."""
    enable_install_telemetry: bool = True
    """Anonymous install/update ping."""
    enable_analytics: bool = False
    """Opt in to analytics."""
    tracking_id: str | None = None
    """Analytics id, created when analytics is enabled."""
    device_id: str | None = None
    """Stable installation id; global setting only."""
    warnings: WarningSettings = Field(default_factory=WarningSettings)
    """Optional warnings."""

    # Legacy keys, still read
    queue_mode: QueueMode | None = None
    """Legacy name of ``steeringMode``; used when ``steeringMode`` is absent."""
    websockets: bool | None = None
    """Legacy switch migrated to ``transport``."""



def field_docs(model: type[JsonModel]) -> dict[str, str]:
    """The attribute docstring of each field of ``model`` (read from source, on demand).

    Kept out of the model config: extracting them at import cost ~80 ms of start-up, and
    only the settings screen and the docs need them.
    """
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, JsonModel)) or cls is JsonModel:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, nxt in zip(body, body[1:]):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[node.target.id] = inspect.cleandoc(nxt.value.value)
    return docs
