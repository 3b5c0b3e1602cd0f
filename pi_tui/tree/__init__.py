"""The session tree: the ``/tree`` browser and its rows, navigation flows (fork, summarize),
the minimal host app for ``pi -r``, the resumed-session preview, and the live tree pane
(``/pane tree``) with its preview of a tree point.
"""
