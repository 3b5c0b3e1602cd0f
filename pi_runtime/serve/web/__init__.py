"""``pi serve --web``: the app in a browser, each page a viewer of the server's sessions (docs/serve.md)."""
