"""The session tree: the ``/tree`` browser and its rows, navigation flows (fork, summarize),
the minimal host app for ``pi -r`` and the resumed-session preview.
"""
