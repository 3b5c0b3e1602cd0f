"""Flows: objects that act on several panes at once, between the panes and the app.

Tab switching (``workspace.py``), opening, resuming and forking sessions, tree navigation, the
session chrome, where sent text goes (``input_controller.py``), completion and the
app's key actions. Panes below never import from here: they post messages up or are handed what
they need; the app and the slash commands above call in.
"""
