"""The ways ``pi`` runs: print, JSON and RPC modes, plus the start-up shared by all of them.

``startup.build_session`` turns parsed command-line arguments into an ``AgentSession``; the
interactive app (``pi_tui``) uses it too. Nothing here imports Textual or Rich.
"""
