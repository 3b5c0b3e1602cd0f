"""Modal screens pushed over the main view (pickers, settings, login, MCP, prompts, viewers),
one per module, imported lazily.
"""
