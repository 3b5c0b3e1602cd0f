"""``pi config``: the full-screen list of resources and built-in extensions to turn on and off.

- :mod:`.config_app` is the app (title, scope, the list, errors) and writes each toggle;
- :mod:`.resource_list` is the list: search, cursor, keys, drawing.
"""
