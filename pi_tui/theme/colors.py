"""Colour values of Pi's theme format turned into ``#rrggbb`` strings.

Pi themes accept hex (``#0af``/``#00aaff``), 256-colour indices, ``oklch(L% C H)``,
``okhsl(H S% L%)``, references to ``vars`` and ``""`` (terminal default). Textual wants
concrete colours, so everything resolves to hex here; ``""`` resolves to ``None`` and the
caller picks the theme's foreground or background.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_HEX = re.compile(r"^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_FUNC = re.compile(r"^(oklch|okhsl)\(\s*([^)]*)\)$", re.IGNORECASE)


class ColorError(ValueError):
    """A colour value that cannot be understood (the message names the value)."""


def _xterm_256(index: int) -> str:
    base16 = [
        "000000", "800000", "008000", "808000", "000080", "800080", "008080", "c0c0c0",
        "808080", "ff0000", "00ff00", "ffff00", "0000ff", "ff00ff", "00ffff", "ffffff",
    ]
    if index < 16:
        return "#" + base16[index]
    if index < 232:
        index -= 16
        steps = [0, 95, 135, 175, 215, 255]
        r, g, b = steps[index // 36], steps[(index // 6) % 6], steps[index % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    level = 8 + (index - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


def _oklab_to_linear_srgb(L: float, a: float, b: float) -> tuple[float, float, float]:
    l_ = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (L - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (
        4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
        -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
        -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_,
    )


def _in_gamut(rgb: tuple[float, float, float]) -> bool:
    return all(-1e-4 <= c <= 1 + 1e-4 for c in rgb)


def _to_hex(linear: tuple[float, float, float]) -> str:
    def encode(c: float) -> int:
        c = min(1.0, max(0.0, c))
        v = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
        return round(v * 255)

    r, g, b = (encode(c) for c in linear)
    return f"#{r:02x}{g:02x}{b:02x}"


def _oklch_rgb(L: float, C: float, h: float) -> tuple[float, float, float]:
    rad = math.radians(h)
    return _oklab_to_linear_srgb(L, C * math.cos(rad), C * math.sin(rad))


def _max_chroma(L: float, h: float) -> float:
    lo, hi = 0.0, 0.4
    for _ in range(24):
        mid = (lo + hi) / 2
        if _in_gamut(_oklch_rgb(L, mid, h)):
            lo = mid
        else:
            hi = mid
    return lo


def oklch_to_hex(L: float, C: float, h: float) -> str:
    """Gamut-map by reducing chroma until the colour fits sRGB."""
    C = min(C, _max_chroma(L, h)) if not _in_gamut(_oklch_rgb(L, C, h)) else C
    return _to_hex(_oklch_rgb(L, C, h))


def okhsl_to_hex(h: float, s: float, light: float) -> str:
    """Approximate OKHSL: lightness through Ottosson's toe, saturation relative to the gamut edge."""
    k1, k2 = 0.206, 0.03
    k3 = (1 + k1) / (1 + k2)
    L = (light * (light + k1)) / (k3 * (light + k2))  # inverse toe
    return _to_hex(_oklch_rgb(L, s * _max_chroma(L, h), h))


def _number(text: str, percent_scale: float) -> float:
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) / 100 * percent_scale
    return float(text)


def parse_color(value: Any, variables: Mapping[str, Any], _seen: tuple[str, ...] = ()) -> str | None:
    """Resolve one Pi colour value to ``#rrggbb`` (``None`` for the terminal default).

    Raises:
        ColorError: unknown variable, circular reference or malformed value.
    """
    if isinstance(value, bool):
        raise ColorError(f"{value!r} is not a colour")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ColorError(f"colour index {value} is outside 0-255")
        return _xterm_256(value)
    if not isinstance(value, str):
        raise ColorError(f"{value!r} is not a colour")
    text = value.strip()
    if text == "":
        return None
    if _HEX.match(text):
        digits = text[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        return "#" + digits.lower()
    match = _FUNC.match(text)
    if match:
        kind, args = match.group(1).lower(), match.group(2).replace(",", " ").split()
        if len(args) != 3:
            raise ColorError(f"{text!r}: expected three values")
        try:
            if kind == "oklch":
                return oklch_to_hex(_number(args[0], 1.0), _number(args[1], 0.4), float(args[2]))
            return okhsl_to_hex(float(args[0]), _number(args[1], 1.0), _number(args[2], 1.0))
        except ValueError as exc:
            raise ColorError(f"{text!r}: {exc}") from None
    if text in variables:
        if text in _seen:
            raise ColorError(f"circular variable reference: {' -> '.join(_seen + (text,))}")
        return parse_color(variables[text], variables, _seen + (text,))
    raise ColorError(f"{text!r} is neither a colour nor a defined variable")
