"""The prompt editor and what feeds it: the completion menu and sources, pastes, images, the kill
ring, typed runs and an extension's replacement editor. Where sent text goes and when the
completion menu opens are flows (``pi_tui/flows/input_controller.py``, ``completion_controller.py``).
"""
