"""Extensions' ``ctx.ui`` in the app: dialogs, widgets, footer/header, custom screens and
editors, key shortcuts, themes, and containing an extension's failures.

``custom_editor.CustomEditor`` and ``bordered_loader.BorderedLoader`` are imported by extensions.
"""
