"""Slash commands (declared once in ``commands.py``) and the actions they and the keys run."""
