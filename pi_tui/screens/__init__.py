"""Screens pushed over the main view (model picker, ...), one per module, imported lazily."""
