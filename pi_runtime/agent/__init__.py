"""The agent: state, the turn loop, tool execution and agent events."""
