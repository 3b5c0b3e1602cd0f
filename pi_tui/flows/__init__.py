"""Flows: objects that act on several panes at once, between the panes and the app.

Tab switching (``workspace.py``), opening, resuming and forking sessions, tree navigation, the
session chrome, where sent text goes (``input_controller.py``), typed runs (``typed_routing.py``),
completion, extensions' ``ctx.ui`` (``app_extension_ui.py``, ``extension_host.py``), the window
title and the app's key actions. Panes below never import from here: they post messages up or are handed what
they need; the app and the slash commands above call in. They type the app as ``host.PiHost``.

A flow acts on the session it was started for, captured when it starts and passed down, never on
whatever ``app.session`` holds after an await (another tab may be shown by then); ``bound.py``
finds that session's own transcript and editor.
"""
