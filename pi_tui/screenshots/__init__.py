"""Scenes of the app for snapshot tests and ``screenshots/``.

``python -m pi_tui.screenshots --out screenshots`` writes every scene (see ``scenes.py``).
"""
