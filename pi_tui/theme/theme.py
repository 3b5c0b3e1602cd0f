"""Pi theme files (``themes/*.json``, ``<agent dir>/themes/``) as Textual themes.

A theme file is validated (strict, like Pi: unknown tokens and missing required ones are
errors), its colours resolved to hex, and mapped onto a Textual ``Theme``: the standard
slots (primary, background, success, ...) plus one ``pi-<token>`` variable per Pi colour
token, so ``app.tcss`` styles components with ``$pi-user-message-bg`` and friends. A theme
that fails to load is reported and the caller falls back to ``dark``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.theme import Theme

from ..data_paths import data_dir
from .colors import ColorError, parse_color

REQUIRED_TOKENS = (
    "accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted",
    "dim", "text", "thinkingText", "selectedBg", "userMessageBg", "userMessageText",
    "customMessageBg", "customMessageText", "customMessageLabel", "toolPendingBg",
    "toolSuccessBg", "toolErrorBg", "toolTitle", "toolOutput", "mdHeading", "mdLink",
    "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote", "mdQuoteBorder",
    "mdHr", "mdListBullet", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext",
    "syntaxComment", "syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString",
    "syntaxNumber", "syntaxType", "syntaxOperator", "syntaxPunctuation", "thinkingOff",
    "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh", "thinkingXhigh",
    "bashMode",
)
OPTIONAL_FALLBACKS = {
    "scrollbarTrack": "muted",
    "scrollbarThumb": "text",
    "searchMatchBg": "selectedBg",
    "searchMatchText": "text",
    "thinkingMax": "thinkingXhigh",
}
ALL_TOKENS = REQUIRED_TOKENS + tuple(OPTIONAL_FALLBACKS)
EXPORT_TOKENS = ("pageBg", "cardBg", "infoBg")
_TOP_LEVEL = {"$schema", "name", "appearance", "vars", "colors", "export"}
_BACKGROUND_TOKENS = {t for t in ALL_TOKENS if t.endswith("Bg")}
BUILTIN_DIR = data_dir("themes")


class ThemeError(ValueError):
    """A theme file that cannot be used; the message says what is wrong and where."""


@functools.cache
def kebab(token: str) -> str:
    """``userMessageBg`` -> ``user-message-bg``. (Cached: each theme load names ~60 tokens per theme.)"""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", token).lower()


def variable_name(token: str) -> str:
    """The Textual CSS variable for a Pi colour token (``$pi-user-message-bg``)."""
    return "pi-" + kebab(token)


@dataclass
class PiTheme:
    """A validated theme with every colour token resolved to ``#rrggbb``."""

    name: str
    """Theme name (unique; no ``/``)."""
    dark: bool
    """Designed for a dark background."""
    colors: dict[str, str] = field(default_factory=dict)
    """Every token of the schema (optional ones filled from their fallbacks)."""
    background: str = "#1c1c21"
    """Screen background (``export.pageBg``, else a default for the appearance)."""
    surface: str = "#24242b"
    """Panels and cards (``export.cardBg``)."""
    panel: str = "#2c2c34"
    """Info sections (``export.infoBg``)."""
    source: str | None = None
    """File it came from."""

    def to_textual(self) -> Theme:
        """The Textual theme: standard slots plus a ``pi-*`` variable per colour token."""
        c = self.colors
        variables = {variable_name(token): value for token, value in c.items()}
        variables.update({
            "block-cursor-background": c["accent"],
            "block-cursor-foreground": self.background,
            "footer-key-foreground": c["accent"],
            "scrollbar": c["scrollbarTrack"],
            "scrollbar-hover": c["scrollbarThumb"],
            "scrollbar-active": c["scrollbarThumb"],
            "scrollbar-background": self.background,
            "scrollbar-corner-color": self.background,
            "input-selection-background": c["selectedBg"] + " 80%",
            # The screen's own background is the terminal's, as in Pi: a light or custom terminal
            # background shows through instead of a slab of the theme's grey (the theme's
            # ``background`` stays for the HTML export and colours computed from it).
            "pi-bg": "ansi_default",
        })
        return Theme(
            name=self.name,
            primary=c["accent"],
            secondary=c["borderAccent"],
            accent=c["accent"],
            foreground=c["text"],
            background=self.background,
            surface=self.surface,
            panel=self.panel,
            success=c["success"],
            warning=c["warning"],
            error=c["error"],
            dark=self.dark,
            variables=variables,
        )


def _resolve(data: dict[str, Any], where: str) -> PiTheme:
    unknown_top = set(data) - _TOP_LEVEL
    if unknown_top:
        raise ThemeError(f"{where}: unknown top-level field(s): {', '.join(sorted(unknown_top))}")
    name = data.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        raise ThemeError(f"{where}: 'name' must be a non-empty string without '/'")
    if name == "system":
        raise ThemeError(f"{where}: 'system' is a reserved theme name")
    appearance = data.get("appearance")
    if appearance not in (None, "dark", "light"):
        raise ThemeError(f"{where}: 'appearance' must be \"dark\" or \"light\"")
    variables = data.get("vars") or {}
    colors = data.get("colors")
    if not isinstance(variables, dict):
        raise ThemeError(f"{where}: 'vars' must be an object")
    if not isinstance(colors, dict):
        raise ThemeError(f"{where}: 'colors' is required and must be an object")
    unknown = set(colors) - set(ALL_TOKENS)
    if unknown:
        raise ThemeError(f"{where}: unknown colour token(s): {', '.join(sorted(unknown))}")
    missing = [t for t in REQUIRED_TOKENS if t not in colors]
    if missing:
        raise ThemeError(f"{where}: missing colour token(s): {', '.join(missing)}")
    export = data.get("export") or {}
    if not isinstance(export, dict) or set(export) - set(EXPORT_TOKENS):
        raise ThemeError(f"{where}: 'export' may only hold {', '.join(EXPORT_TOKENS)}")

    resolved: dict[str, str | None] = {}
    for token in REQUIRED_TOKENS + tuple(t for t in OPTIONAL_FALLBACKS if t in colors):
        try:
            resolved[token] = parse_color(colors[token], variables)
        except ColorError as exc:
            raise ThemeError(f"{where}: colors.{token}: {exc}") from None
    exports: dict[str, str | None] = {}
    for token, value in export.items():
        try:
            exports[token] = parse_color(value, variables)
        except ColorError as exc:
            raise ThemeError(f"{where}: export.{token}: {exc}") from None

    dark = appearance != "light" if appearance else _looks_dark(resolved, exports)
    background = exports.get("pageBg") or ("#1c1c21" if dark else "#fbfbfa")
    foreground = resolved.get("text") or ("#d8d8dc" if dark else "#25252b")
    final: dict[str, str] = {}
    for token in REQUIRED_TOKENS:
        value = resolved[token]
        final[token] = value or (background if token in _BACKGROUND_TOKENS else foreground)
    for token, fallback in OPTIONAL_FALLBACKS.items():
        final[token] = resolved.get(token) or final[fallback]
    return PiTheme(
        name=name,
        dark=dark,
        colors=final,
        background=background,
        surface=exports.get("cardBg") or final["userMessageBg"],
        panel=exports.get("infoBg") or final["customMessageBg"],
    )


def _looks_dark(colors: dict[str, str | None], exports: dict[str, str | None]) -> bool:
    probe = exports.get("pageBg") or colors.get("userMessageBg")
    if not probe:
        return True
    r, g, b = (int(probe[i : i + 2], 16) for i in (1, 3, 5))
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) < 128


def parse_theme(data: Any, where: str = "<theme>") -> PiTheme:
    """Validate and resolve a theme already read as JSON.

    Raises:
        ThemeError: anything wrong with it, naming the field.
    """
    if not isinstance(data, dict):
        raise ThemeError(f"{where}: a theme must be a JSON object")
    return _resolve(data, where)


def load_theme_file(path: Path) -> PiTheme:
    """Read one theme file.

    Raises:
        ThemeError: unreadable, not JSON, or invalid.
    """
    from pi_runtime.frontend.app_support import ConfigFileError, ConfigJsonError, parse_config_json, read_config_text

    try:
        data, dropped = parse_config_json(read_config_text(path))  # refuses FIFOs, devices and huge files
    except ConfigFileError as exc:
        raise ThemeError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    except ConfigJsonError as exc:
        raise ThemeError(f"{path}: {exc}") from None
    if dropped:  # a theme is all or nothing: a colour left out would fall back silently
        raise ThemeError(f"{path}: {dropped[0]}")
    theme = parse_theme(data, str(path))
    theme.source = str(path)
    return theme


def terminal_appearance(env: dict[str, str] | None = None) -> str:
    """``light`` or ``dark``: what the terminal's background is, from ``COLORFGBG`` (``fg;bg``, the
    background a palette index: 0-6 and 8 dark, 7 and 9-15 light, as Pi and Vim read it); dark
    when the terminal does not say."""
    import os

    value = (env if env is not None else os.environ).get("COLORFGBG", "")
    background = value.split(";")[-1].strip()
    if background.isdigit() and int(background) <= 15:
        return "dark" if int(background) <= 6 or int(background) == 8 else "light"
    return "dark"


def resolve_theme_setting(setting: str | None, env: dict[str, str] | None = None) -> str | None:
    """The theme a ``theme`` setting names for this terminal (None: pi's default).

    ``light-name/dark-name`` (Pi's automatic pair) picks by the terminal's appearance; ``system``
    (Pi's default, colours derived from the terminal's) is pi's light or dark theme, whichever
    matches the terminal: pi already draws on the terminal's own background.
    """
    if not setting:
        return None
    if setting == "system":
        return terminal_appearance(env)
    light, slash, dark = setting.partition("/")
    if slash:
        if "/" in dark or not light.strip() or not dark.strip():
            return None
        return light.strip() if terminal_appearance(env) == "light" else dark.strip()
    return setting


def discover_themes(*folders: Path) -> tuple[dict[str, PiTheme], list[str]]:
    """Every valid theme in the built-in folder and then ``folders`` (later ones win); a
    ``.json`` file among them is one theme (a package names its theme files one by one).

    Returns:
        (themes by name, one message per file that failed to load).
    """
    themes: dict[str, PiTheme] = {}
    errors: list[str] = []
    for path in theme_files(*folders):
        try:
            theme = load_theme_file(path)
        except ThemeError as exc:
            errors.append(str(exc))
            continue
        themes[theme.name] = theme
    return themes, errors


def theme_files(*folders: Path) -> list[Path]:
    """The theme files ``discover_themes`` reads, in its order: the built-in ones, then each of
    ``folders``' ``*.json`` (or the ``.json`` file itself)."""
    found: list[Path] = []
    for folder in (BUILTIN_DIR, *folders):
        if folder.is_file() and folder.suffix == ".json":
            found.append(folder)
        elif folder.is_dir():
            found.extend(sorted(folder.glob("*.json")))
    return found


def default_variables() -> dict[str, str]:
    """Fallback values of every ``pi-*`` variable (the built-in dark theme's)."""
    theme = load_theme_file(BUILTIN_DIR / "dark.json")
    return dict(theme.to_textual().variables)
