"""Extensions: Python modules exposing ``def extension(pi)`` that hook into a session.

- :mod:`.loader` finds and imports them; :mod:`.runner` owns what they registered and
  dispatches events; :mod:`.hooks` is the kernel side of that dispatch;
- :mod:`.api` is the ``pi`` object, :mod:`.context` the ``ctx`` handlers receive;
- :mod:`.ui` is the user-interaction protocol front ends implement (headless by default);
- :mod:`.bundled` holds the opt-in extensions shipped with pi (``builtin:<name>``).

See ``docs/extensions.md``.
"""

from .api import ExtensionAPI
from .context import ExtensionCommandContext, ExtensionContext
from .events import EVENT_NAMES, Event
from .loader import BUNDLED, ExtensionSource, LoadFailure, discover_extensions
from .provider import text_stream
from .runner import ExtensionRunner
from .ui import ExtensionUI, GuardedUI, HeadlessUI

__all__ = [
    "BUNDLED", "EVENT_NAMES", "Event", "ExtensionAPI", "ExtensionCommandContext", "ExtensionContext",
    "ExtensionRunner", "ExtensionSource", "ExtensionUI", "GuardedUI", "HeadlessUI", "LoadFailure",
    "discover_extensions", "text_stream",
]
