"""What the browser page is made of: our HTML and CSS, and textual-serve's terminal client.

The terminal client (``textual.js``: xterm.js and the wire protocol of Textual's web driver),
its stylesheet and its Roboto Mono fonts come from the textual-serve package's static folder,
located without importing the package (its server would pull aiohttp into ``pi serve``). Its
page template is not used: it loads a font from a public font service.
"""

from __future__ import annotations

import html
import importlib.util
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

# URL path → file under textual-serve's static folder; nothing else of it is served.
_CLIENT_FILES = {
    "/static/textual.js": "js/textual.js",
    "/static/xterm.css": "css/xterm.css",
    "/static/fonts/RobotoMono-VariableFont_wght.ttf": "fonts/RobotoMono-VariableFont_wght.ttf",
    "/static/fonts/RobotoMono-Italic-VariableFont_wght.ttf": "fonts/RobotoMono-Italic-VariableFont_wght.ttf",
}
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".ttf": "font/ttf"}


class AssetsMissing(RuntimeError):
    """The textual-serve package (the terminal client) is not installed."""


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    content_type: str


def client_folder() -> Path:
    """textual-serve's ``static`` folder.

    Raises:
        AssetsMissing: The package is not installed.
    """
    spec = importlib.util.find_spec("textual_serve")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations:
        raise AssetsMissing("the browser page needs the textual-serve package (pip install textual-serve)")
    return Path(locations[0]) / "static"


def load_assets() -> dict[str, Asset]:
    """Every static file by URL path, read once (about 1 MB) so a request never touches the disk.

    Raises:
        AssetsMissing: textual-serve is missing or lacks one of its files.
    """
    folder = client_folder()
    assets: dict[str, Asset] = {}
    for url, relative in _CLIENT_FILES.items():
        path = folder / relative
        try:
            assets[url] = Asset(path.read_bytes(), _TYPES[path.suffix])
        except OSError as exc:
            raise AssetsMissing(f"textual-serve's {relative} cannot be read: {exc.strerror or exc}") from None
    assets["/static/page.css"] = Asset((HERE / "page.css").read_bytes(), _TYPES[".css"])
    return assets


def render_page(folder: str, websocket_url: str, font_size: int = 16) -> bytes:
    """The page: the terminal element textual.js fills, and a note shown when it disconnects."""
    template = (HERE / "page.html").read_text(encoding="utf-8")
    text = template.format(folder=html.escape(Path(folder).name or folder),
                           websocket_url=html.escape(websocket_url, quote=True), font_size=font_size)
    return text.encode("utf-8")
