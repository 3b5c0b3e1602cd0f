"""Sessions: the ``/resume`` picker and its rows, and the chrome that mirrors the session shown
(header, footer, queue, editor border).
"""
