"""The session tree: the ``/tree`` browser and its rows, the fork picker and the summarize
question, the minimal host app for ``pi -r``, the resumed-session preview, and the live tree pane
(``/pane tree``). What a choice does (navigate, fork) and the pane's controller are flows
(``pi_tui/flows/nav_flows.py``, ``pane_controller.py``).
"""
