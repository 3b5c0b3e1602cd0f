"""Slash commands, declared once in ``commands.py``: the floor above ``flows/``, whose flows they start
with the session they were typed in."""
