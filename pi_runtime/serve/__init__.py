"""``pi serve``: a folder's sessions kept running for any number of viewers (docs/serve.md)."""
