"""Terminal plumbing: key sequences, Textual key fixes, raw input listeners, passthrough of
escape sequences and the clipboard.
"""
