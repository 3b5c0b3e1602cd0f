"""pi's runtime kernel: LLM streaming, the agent loop, tools, sessions and the headless modes.

Importing this package must stay cheap (``pi --version`` goes through it), so nothing
heavy is imported here.
"""

__version__ = "0.1.0"
