"""The queue pane: the user's queued steering and follow-up messages, as a list to edit while the agent works."""
