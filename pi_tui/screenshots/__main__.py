"""``python -m pi_tui.screenshots [--out screenshots]``: regenerate every screenshot."""

import os

from .scenes import main

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
raise SystemExit(main())
