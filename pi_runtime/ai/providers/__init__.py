"""Wire-protocol implementations. Each module exposes ``stream(model, context, options)``."""
