"""The phone layout: what a person away from the desk needs from ``pi serve`` (issue 38).

Every served session as a card: its state (working, waiting on you, done, failed), its last
answer, its queue, and the questions its extensions ask (the permission gate's included) with
buttons to answer them. ``pi serve --web`` shows it to a page narrower than
``PHONE_COLUMNS`` (``pi_runtime/serve/web/child.py``); ``python -m pi_tui.phone --socket PATH``
runs it in a terminal.
"""
