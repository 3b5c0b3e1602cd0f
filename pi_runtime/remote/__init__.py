"""Clients of ``pi serve``: ``ServeClient`` (a connection) and ``RemoteSession`` (a ``SessionPort``).

See docs/serve.md for the protocol. Nothing here imports the app.
"""
