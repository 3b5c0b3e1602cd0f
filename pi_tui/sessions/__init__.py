"""Sessions: the tabs bar, the ``/resume`` picker and its rows, and what a tab holds
(``OpenSession``). Switching tabs and the chrome that mirrors the session shown are flows
(``pi_tui/flows/``).
"""
